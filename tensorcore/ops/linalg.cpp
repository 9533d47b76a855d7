#include "tensorcore/ops/linalg.h"

#include <algorithm>
#include <map>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/kernels/cpu/gemm_bf16.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc {

KernelTable<BmmKernel> bmm_out_kernel("bmm");

namespace {

const char* short_name(DType d) {
  switch (d) {
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
    case DType::Float16:
      return "c10::Half";
    case DType::BFloat16:
      return "c10::BFloat16";
    case DType::Int64:
      return "long int";
    case DType::Int32:
      return "int";
    default:
      return dtype_name(d);
  }
}

void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  TC_CHECK_TYPE(a.dtype() == b.dtype(), op,
                ": expected both operands to have the same dtype, but got: ", short_name(a.dtype()),
                " != ", short_name(b.dtype()));
  TC_CHECK(a.device() == b.device(), op,
           ": expected both operands to be on the same device, but got ", a.device().str(), " and ",
           b.device().str());
}

void check_matmul_dtype(const char* op, DType d) {
  TC_CHECK_TYPE(d != DType::Bool, op, ": not implemented for dtype bool");
}

// Raw batched product of 3-d tensors; no autograd.
Tensor bmm_raw(const Tensor& a, const Tensor& b) {
  DType dt = a.dtype();
  if ((dt == DType::Float16 || dt == DType::BFloat16) && a.is_cpu()) {
    // oneDNN's bf16 kernels (float32 accumulation) when available; else float32 below, which
    // also wins for tiny products (oneDNN's per-call set-up costs ~10 us).
    const int64_t work = a.size(0) * a.size(1) * a.size(2) * b.size(2);
    if (dt == DType::BFloat16 && work >= (int64_t(1) << 15)) {
      Tensor out = empty({a.size(0), a.size(1), b.size(2)}, TensorOptions(dt));
      if (bmm_bf16_dnnl(out, a, b)) return out;
    }
    Tensor r = bmm_raw(to_dtype(a, DType::Float32), to_dtype(b, DType::Float32));
    return to_dtype(r, dt);
  }
  Tensor out = empty({a.size(0), a.size(1), b.size(2)}, TensorOptions(dt).device(a.device()));
  if (out.numel() == 0) return out;
  if (a.size(2) == 0) return zero_(out);
  bmm_out_kernel.get(a.device().type)(out, a, b);
  return out;
}

// Conjugate transpose of the last two dims.
Tensor mH(const Tensor& x) {
  Tensor t = transpose(x, -2, -1);
  return x.is_complex() ? conj(t) : t;
}

bool req(const Tensor& t) { return t.defined() && t.requires_grad(); }

Tensor bmm_autograd(const Tensor& a, const Tensor& b, const char* name) {
  Tensor out;
  {
    autograd::GradModeGuard guard(false);
    out = bmm_raw(a, b);
  }
  if (autograd::needs_grad({a, b})) {
    bool ga = req(a), gb = req(b);
    autograd::record(
        name, {a, b}, {out}, {a, b},
        [ga, gb](const TensorList& s, const TensorList& g) -> TensorList {
          return {ga ? bmm(g[0], mH(s[1])) : Tensor(), gb ? bmm(mH(s[0]), g[0]) : Tensor()};
        });
  }
  return out;
}

std::string shape_x(const Tensor& t) {  // "2x3"
  std::string s;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (i) s.push_back('x');
    s.append(std::to_string(t.size(i)));
  }
  return s;
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  TC_AUTOCAST("mm", mm, a, b);
  TC_CHECK(a.dim() == 2, "mm: self must be a matrix, got a ", a.dim(), "-d tensor");
  TC_CHECK(b.dim() == 2, "mm: mat2 must be a matrix, got a ", b.dim(), "-d tensor");
  check_same_dtype("mm", a, b);
  check_matmul_dtype("mm", a.dtype());
  TC_CHECK(a.size(1) == b.size(0), "mm: mat1 and mat2 shapes cannot be multiplied (", shape_x(a),
           " and ", shape_x(b), ")");
  Tensor out;
  {
    autograd::GradModeGuard guard(false);
    out = squeeze(bmm_raw(unsqueeze(a, 0), unsqueeze(b, 0)), 0);
  }
  if (autograd::needs_grad({a, b})) {
    bool ga = req(a), gb = req(b);
    autograd::record(
        "MmBackward0", {a, b}, {out}, {a, b},
        [ga, gb](const TensorList& s, const TensorList& g) -> TensorList {
          return {ga ? mm(g[0], mH(s[1])) : Tensor(), gb ? mm(mH(s[0]), g[0]) : Tensor()};
        });
  }
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  TC_AUTOCAST("bmm", bmm, a, b);
  TC_CHECK(a.dim() == 3, "bmm: batch1 must be a 3D tensor, got a ", a.dim(), "-d tensor");
  TC_CHECK(b.dim() == 3, "bmm: batch2 must be a 3D tensor, got a ", b.dim(), "-d tensor");
  check_same_dtype("bmm", a, b);
  check_matmul_dtype("bmm", a.dtype());
  TC_CHECK(a.size(0) == b.size(0), "bmm: batch1 and batch2 must have the same batch size, got ",
           a.size(0), " and ", b.size(0));
  TC_CHECK(a.size(2) == b.size(1), "bmm: batch1 and batch2 shapes cannot be multiplied (",
           shape_x(a), " and ", shape_x(b), ")");
  return bmm_autograd(a, b, "BmmBackward0");
}

Tensor mv(const Tensor& a, const Tensor& v) {
  TC_AUTOCAST_NATIVE("mv", mv, a, v);
  TC_CHECK(a.dim() == 2 && v.dim() == 1, "mv: vector + matrix @ vector expected, got ", a.dim(),
           ", ", v.dim());
  TC_CHECK(a.size(1) == v.size(0), "mv: size mismatch, got input (", a.size(0), "), mat (",
           shape_x(a), "), vec (", v.size(0), ")");
  return squeeze(mm(a, unsqueeze(v, 1)), 1);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  TC_AUTOCAST_NATIVE("dot", dot, a, b);
  TC_CHECK(a.dim() == 1 && b.dim() == 1, "dot: 1D tensors expected, but got ", a.dim(), "D and ",
           b.dim(), "D tensors");
  check_same_dtype("dot", a, b);
  TC_CHECK(a.size(0) == b.size(0), "dot: inconsistent tensor size, expected tensor [", a.size(0),
           "] and src [", b.size(0), "] to have the same number of elements, but got ", a.size(0),
           " and ", b.size(0), " elements respectively");
  return reshape(mm(unsqueeze(a, 0), unsqueeze(b, 1)), {});
}

Tensor vdot(const Tensor& a, const Tensor& b) {
  TC_CHECK(a.dim() == 1 && b.dim() == 1, "vdot: 1D tensors expected, but got ", a.dim(), "D and ",
           b.dim(), "D tensors");
  check_same_dtype("vdot", a, b);
  return dot(a.is_complex() ? conj(a) : a, b);
}

Tensor inner(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0) return mul(a, b);
  TC_CHECK(a.size(-1) == b.size(-1), "inner: last dimension must match, got ", shape_str(a.sizes()),
           " and ", shape_str(b.sizes()));
  return tensordot(a, b, {a.dim() - 1}, {b.dim() - 1});
}

Tensor outer(const Tensor& a, const Tensor& b) {
  TC_CHECK(a.dim() == 1 && b.dim() == 1, "outer: expected 1D tensors, got ", a.dim(), "D and ",
           b.dim(), "D");
  return mul(unsqueeze(a, 1), unsqueeze(b, 0));
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  TC_AUTOCAST("matmul", matmul, a, b);
  int64_t da = a.dim(), db = b.dim();
  TC_CHECK(da > 0 && db > 0,
           "matmul: both arguments to matmul need to be at least 1D, but they are ", da, "D and ",
           db, "D");
  check_same_dtype("matmul", a, b);
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) {
    TC_CHECK(a.size(0) == b.size(0), "matmul: size mismatch, vector of size ", a.size(0),
             " cannot be multiplied with a matrix of shape ", shape_x(b));
    return squeeze(mm(unsqueeze(a, 0), b), 0);
  }
  if (da == 2 && db == 2) return mm(a, b);
  // Batched. Fold a's batch dims into rows when b is a plain matrix or vector.
  if (da >= 3 && (db == 1 || db == 2)) {
    Tensor bm = db == 1 ? unsqueeze(b, 1) : b;
    TC_CHECK(a.size(-1) == bm.size(0), "matmul: mat1 and mat2 shapes cannot be multiplied (",
             shape_x(a), " and ", shape_x(b), ")");
    Shape out_shape(a.sizes().begin(), a.sizes().end() - 1);
    if (db == 2) out_shape.push_back(b.size(1));
    Tensor a2 = reshape(a, {-1, a.size(-1)});
    return reshape(mm(a2, bm), out_shape);
  }
  Tensor a3 = da == 1 ? unsqueeze(a, 0) : a;
  Tensor b3 = db == 1 ? unsqueeze(b, 1) : b;
  int64_t n = a3.size(-2), k = a3.size(-1), k2 = b3.size(-2), p = b3.size(-1);
  TC_CHECK(k == k2, "matmul: mat1 and mat2 shapes cannot be multiplied (", shape_x(a), " and ",
           shape_x(b), ")");
  Shape ba(a3.sizes().begin(), a3.sizes().end() - 2), bb(b3.sizes().begin(), b3.sizes().end() - 2);
  size_t nb = std::max(ba.size(), bb.size());
  Shape batch(nb);
  for (size_t i = 0; i < nb; ++i) {
    int64_t x = i + ba.size() >= nb ? ba[i + ba.size() - nb] : 1;
    int64_t y = i + bb.size() >= nb ? bb[i + bb.size() - nb] : 1;
    TC_CHECK(x == y || x == 1 || y == 1, "matmul: the batch dimensions of ", shape_str(a.sizes()),
             " and ", shape_str(b.sizes()), " are not broadcastable");
    batch[i] = x == 1 ? y : x;
  }
  int64_t B = shape_numel(batch);
  Shape ea = batch, eb = batch;
  ea.insert(ea.end(), {n, k});
  eb.insert(eb.end(), {k, p});
  Tensor A = reshape(expand(a3, ea), {B, n, k});
  Tensor Bm = reshape(expand(b3, eb), {B, k, p});
  check_matmul_dtype("matmul", a.dtype());
  Tensor out = bmm_autograd(A, Bm, "BmmBackward0");
  Shape out_shape = batch;
  if (da > 1) out_shape.push_back(n);
  if (db > 1) out_shape.push_back(p);
  return reshape(out, out_shape);
}

namespace {
// beta * self + alpha * prod, with self broadcast to prod's shape.
Tensor add_scaled(const char* op, const Tensor& self, const Tensor& prod, const Scalar& beta,
                  const Scalar& alpha) {
  const Shape& s = prod.sizes();
  bool ok = self.dim() <= prod.dim();
  for (int64_t i = 0; ok && i < self.dim(); ++i) {
    int64_t x = self.size(self.dim() - 1 - i), y = s[s.size() - 1 - i];
    ok = x == y || x == 1;
  }
  TC_CHECK(ok, op, ": the input of shape ", shape_str(self.sizes()),
           " cannot be broadcast to the product's shape ", shape_str(s));
  Tensor r = prod;
  bool alpha_one = alpha.to_complex() == std::complex<double>(1, 0);
  bool beta_one = beta.to_complex() == std::complex<double>(1, 0);
  bool beta_zero = beta.to_complex() == std::complex<double>(0, 0);
  if (!is_floating(prod.dtype()) && !is_complex(prod.dtype())) {
    TC_CHECK_TYPE(
        !alpha.is_floating() && !beta.is_floating(), op,
        ": for integral input tensors, argument alpha/beta must not be a floating point number.");
  }
  if (!alpha_one) r = mul(r, alpha);
  if (beta_zero) return r;
  Tensor sf = beta_one ? self : mul(self, beta);
  return add(expand(sf, s), r);
}
}  // namespace

Tensor addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
             const Scalar& alpha) {
  TC_AUTOCAST("addmm", addmm, self, m1, m2, beta, alpha);
  check_same_dtype("addmm", self, m1);
  return add_scaled("addmm", self, mm(m1, m2), beta, alpha);
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  TC_AUTOCAST_NATIVE("addmv", addmv, self, mat, vec, beta, alpha);
  check_same_dtype("addmv", self, mat);
  return add_scaled("addmv", self, mv(mat, vec), beta, alpha);
}

Tensor addr(const Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta,
            const Scalar& alpha) {
  TC_AUTOCAST_NATIVE("addr", addr, self, v1, v2, beta, alpha);
  return add_scaled("addr", self, outer(v1, v2), beta, alpha);
}

Tensor baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta,
               const Scalar& alpha) {
  TC_AUTOCAST("baddbmm", baddbmm, self, b1, b2, beta, alpha);
  check_same_dtype("baddbmm", self, b1);
  return add_scaled("baddbmm", self, bmm(b1, b2), beta, alpha);
}

Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int64_t>& dims_a,
                 const std::vector<int64_t>& dims_b) {
  TC_AUTOCAST("tensordot", tensordot, a, b, dims_a, dims_b);
  TC_CHECK(dims_a.size() == dims_b.size(),
           "tensordot: both dimension lists should have same length, got ", dims_a.size(), " and ",
           dims_b.size());
  check_same_dtype("tensordot", a, b);
  std::vector<bool> ca(a.dim(), false), cb(b.dim(), false);
  std::vector<int64_t> pa, pb, out_shape;
  int64_t csize = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    int64_t x = wrap_dim(dims_a[i], a.dim(), "tensordot"),
            y = wrap_dim(dims_b[i], b.dim(), "tensordot");
    TC_CHECK(!ca[x] && !cb[y], "tensordot: a dimension appears twice in dims");
    TC_CHECK(a.size(x) == b.size(y),
             "tensordot: contracted dimensions need to match, but first has size ", a.size(x),
             " in dim ", x, " and second has size ", b.size(y), " in dim ", y);
    ca[x] = cb[y] = true;
    csize *= a.size(x);
  }
  int64_t fa = 1, fb = 1;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (!ca[i]) {
      pa.push_back(i);
      out_shape.push_back(a.size(i));
      fa *= a.size(i);
    }
  for (size_t i = 0; i < dims_a.size(); ++i) pa.push_back(wrap_dim(dims_a[i], a.dim()));
  for (size_t i = 0; i < dims_b.size(); ++i) pb.push_back(wrap_dim(dims_b[i], b.dim()));
  for (int64_t i = 0; i < b.dim(); ++i)
    if (!cb[i]) {
      pb.push_back(i);
      out_shape.push_back(b.size(i));
      fb *= b.size(i);
    }
  Tensor A = reshape(permute(a, pa), {fa, csize});
  Tensor B = reshape(permute(b, pb), {csize, fb});
  return reshape(mm(A, B), out_shape);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  TC_AUTOCAST("tensordot", tensordot, a, b, dims);
  TC_CHECK(dims >= 0, "tensordot: expects dims >= 0, but got dims=", dims);
  TC_CHECK(dims <= a.dim() && dims <= b.dim(),
           "tensordot: expects dims <= the number of dimensions (", a.dim(), " and ", b.dim(),
           "), but got dims=", dims);
  std::vector<int64_t> da, db;
  for (int64_t i = 0; i < dims; ++i) {
    da.push_back(a.dim() - dims + i);
    db.push_back(i);
  }
  return tensordot(a, b, da, db);
}

Tensor kron(const Tensor& a, const Tensor& b) {
  int64_t nd = std::max(a.dim(), b.dim());
  Shape ia, ib, sa(nd, 1), sb(nd, 1), out;
  for (int64_t i = 0; i < a.dim(); ++i) sa[nd - a.dim() + i] = a.size(i);
  for (int64_t i = 0; i < b.dim(); ++i) sb[nd - b.dim() + i] = b.size(i);
  for (int64_t i = 0; i < nd; ++i) {
    ia.insert(ia.end(), {sa[i], 1});
    ib.insert(ib.end(), {1, sb[i]});
    out.push_back(sa[i] * sb[i]);
  }
  return reshape(mul(reshape(a, ia), reshape(b, ib)), out);
}

// ---------------------------------------------------------------------------------------------
// einsum: parse, take diagonals of repeated labels, sum labels used once, then contract operands
// pairwise with permute + reshape + bmm.
namespace {

struct Operand {
  Tensor t;
  std::vector<int> labels;  // one per dim
};

int label_id(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}
constexpr int kEllBase = 52;

// Diagonal over dims d0 < d1 (same size): differentiable, via as_strided on a contiguous copy.
Tensor diagonal_pair(const Tensor& x, int64_t d0, int64_t d1) {
  TC_CHECK(x.size(d0) == x.size(d1),
           "einsum(): subscript repeated for operand but the sizes don't match, ", x.size(d0),
           " != ", x.size(d1));
  Tensor c = contiguous(x);
  Shape sizes, strides;
  for (int64_t i = 0; i < c.dim(); ++i) {
    if (i == d1) continue;
    sizes.push_back(c.size(i));
    strides.push_back(i == d0 ? c.stride(d0) + c.stride(d1) : c.stride(i));
  }
  return as_strided(c, sizes, strides, c.storage_offset());
}

// Contracts two operands keeping the labels in `keep`.
Operand contract(const Operand& A, const Operand& B, const std::vector<bool>& keep,
                 const std::map<int, int64_t>& size_of) {
  std::vector<int> batch, left, right, red;
  auto in = [](const std::vector<int>& v, int l) {
    return std::find(v.begin(), v.end(), l) != v.end();
  };
  for (int l : A.labels) {
    if (in(B.labels, l))
      (keep[l] ? batch : red).push_back(l);
    else
      left.push_back(l);
  }
  for (int l : B.labels)
    if (!in(A.labels, l)) right.push_back(l);
  // Permutes op.t so its labels follow `groups` order (labels missing from op get a size-1 dim).
  auto arrange = [&](const Operand& op, const std::vector<const std::vector<int>*>& groups) {
    Tensor t = op.t;
    std::vector<int64_t> perm;
    Shape full;
    for (auto* g : groups) {
      for (int l : *g) {
        auto it = std::find(op.labels.begin(), op.labels.end(), l);
        if (it == op.labels.end()) {
          t = unsqueeze(t, t.dim());
          perm.push_back(t.dim() - 1);
        } else {
          perm.push_back(it - op.labels.begin());
        }
        full.push_back(size_of.at(l));
      }
    }
    return expand(permute(t, perm), full);
  };
  Tensor ta = arrange(A, {&batch, &left, &red});
  Tensor tb = arrange(B, {&batch, &red, &right});
  int64_t nb = 1, nl = 1, nr = 1, nk = 1;
  for (int l : batch) nb *= size_of.at(l);
  for (int l : left) nl *= size_of.at(l);
  for (int l : right) nr *= size_of.at(l);
  for (int l : red) nk *= size_of.at(l);
  Tensor a3 = reshape(ta, {nb, nl, nk});
  Tensor b3 = reshape(tb, {nb, nk, nr});
  Operand r;
  r.t = bmm(a3, b3);
  Shape out_shape;
  for (auto* g : {&batch, &left, &right})
    for (int l : *g) {
      out_shape.push_back(size_of.at(l));
      r.labels.push_back(l);
    }
  r.t = reshape(r.t, out_shape);
  return r;
}

}  // namespace

Tensor einsum(const std::string& equation_in, const TensorList& operands) {
  TC_AUTOCAST("einsum", einsum, equation_in, operands);
  std::string eq;
  for (char c : equation_in)
    if (c != ' ') eq += c;
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  TC_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  // Split lhs by ','.
  std::vector<std::string> terms;
  {
    size_t start = 0;
    for (;;) {
      size_t comma = lhs.find(',', start);
      terms.push_back(
          lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  TC_CHECK(terms.size() == operands.size(),
           "einsum(): more operands were provided than specified in the equation"
           " or fewer; the equation has ",
           terms.size(), " operand(s) but ", operands.size(), " were given");
  // Parse each term into labels, with -1 marking the ellipsis.
  std::vector<std::vector<int>> raw(terms.size());
  int64_t ell_dims = 0;
  std::vector<int64_t> ell_of(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string& s = terms[i];
    bool has_ell = false;
    for (size_t j = 0; j < s.size(); ++j) {
      if (s[j] == '.') {
        TC_CHECK(!has_ell && s.compare(j, 3, "...") == 0, "einsum(): found '.' for operand ", i,
                 " that is not part of any ellipsis");
        has_ell = true;
        raw[i].push_back(-1);
        j += 2;
        continue;
      }
      int id = label_id(s[j]);
      TC_CHECK(id >= 0, "einsum(): invalid subscript given at index ", j,
               " in the equation string, subscripts must be in [a-zA-Z]");
      raw[i].push_back(id);
    }
    int64_t nlab = int64_t(raw[i].size()) - (has_ell ? 1 : 0);
    const Tensor& t = operands[i];
    if (has_ell) {
      TC_CHECK(t.dim() >= nlab, "einsum(): the number of subscripts in the equation (", nlab,
               ") is more than the number of dimensions (", t.dim(), ") for operand ", i);
      ell_of[i] = t.dim() - nlab;
      ell_dims = std::max(ell_dims, ell_of[i]);
    } else {
      TC_CHECK(t.dim() == nlab, "einsum(): the number of subscripts in the equation (", nlab,
               ") does not match the number of dimensions (", t.dim(), ") for operand ", i,
               " and no ellipsis was given");
    }
  }
  for (size_t i = 1; i < operands.size(); ++i) check_same_dtype("einsum", operands[0], operands[i]);
  int nlabels = kEllBase + int(ell_dims);
  std::vector<int> count(nlabels, 0);
  std::vector<Operand> ops(operands.size());
  std::map<int, int64_t> size_of;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (int l : raw[i]) {
      if (l == -1) {
        for (int64_t e = 0; e < ell_of[i]; ++e)
          ops[i].labels.push_back(kEllBase + int(ell_dims - ell_of[i] + e));
      } else {
        ops[i].labels.push_back(l);
      }
    }
    ops[i].t = operands[i];
    for (size_t d = 0; d < ops[i].labels.size(); ++d) {
      int l = ops[i].labels[d];
      int64_t sz = operands[i].size(int64_t(d));
      auto it = size_of.find(l);
      if (it == size_of.end() || it->second == 1)
        size_of[l] = sz;
      else
        TC_CHECK(sz == it->second || sz == 1,
                 "einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                 "dimension for subscript '",
                 l < 26   ? char('A' + l)
                 : l < 52 ? char('a' + l - 26)
                          : '.',
                 "' has size ", sz, " in operand ", i, " but ", it->second, " elsewhere");
    }
  }
  for (auto& op : ops) {
    std::vector<int> uniq = op.labels;
    std::sort(uniq.begin(), uniq.end());
    uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
    for (int l : uniq) count[l]++;
  }
  // Output labels.
  std::vector<int> out_labels;
  if (arrow == std::string::npos) {
    for (int e = 0; e < ell_dims; ++e) out_labels.push_back(kEllBase + e);
    std::vector<int> occ(nlabels, 0);
    for (auto& r : raw)
      for (int l : r)
        if (l >= 0) occ[l]++;
    for (int l = 0; l < kEllBase; ++l)
      if (occ[l] == 1) out_labels.push_back(l);
  } else {
    std::string rhs = eq.substr(arrow + 2);
    bool has_ell = false;
    for (size_t j = 0; j < rhs.size(); ++j) {
      if (rhs[j] == '.') {
        TC_CHECK(!has_ell && rhs.compare(j, 3, "...") == 0,
                 "einsum(): found '.' for output that is not part of any ellipsis");
        has_ell = true;
        for (int e = 0; e < ell_dims; ++e) out_labels.push_back(kEllBase + e);
        j += 2;
        continue;
      }
      int id = label_id(rhs[j]);
      TC_CHECK(id >= 0, "einsum(): invalid subscript given at index ", arrow + 2 + j,
               " in the equation string, subscripts must be in [a-zA-Z]");
      TC_CHECK(std::find(out_labels.begin(), out_labels.end(), id) == out_labels.end(),
               "einsum(): output subscript ", rhs[j], " appears more than once in the output");
      TC_CHECK(count[id] > 0, "einsum(): output subscript ", rhs[j],
               " does not appear in the equation for any input operand");
      out_labels.push_back(id);
    }
    // Ellipsis dims missing from an explicit output are summed.
    (void)has_ell;
  }
  std::vector<bool> in_out(nlabels, false);
  for (int l : out_labels) in_out[l] = true;
  // Per operand: diagonals, then sum labels that appear nowhere else.
  for (auto& op : ops) {
    for (size_t i = 0; i < op.labels.size(); ++i) {
      for (size_t j = op.labels.size(); j-- > i + 1;) {
        if (op.labels[j] == op.labels[i]) {
          op.t = diagonal_pair(op.t, int64_t(i), int64_t(j));
          op.labels.erase(op.labels.begin() + j);
        }
      }
    }
    std::vector<int64_t> sum_dims;
    std::vector<int> kept;
    for (size_t d = 0; d < op.labels.size(); ++d) {
      int l = op.labels[d];
      if (!in_out[l] && count[l] == 1)
        sum_dims.push_back(int64_t(d));
      else
        kept.push_back(l);
    }
    if (!sum_dims.empty()) {
      op.t = sum(op.t, sum_dims);
      op.labels = kept;
    }
  }
  // Contract left to right.
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::vector<bool> keep(nlabels, false);
    for (int l : out_labels) keep[l] = true;
    for (size_t j = i + 1; j < ops.size(); ++j)
      for (int l : ops[j].labels) keep[l] = true;
    acc = contract(acc, ops[i], keep, size_of);
    // Labels of acc not kept and not in later operands were contracted already.
  }
  // Sum any remaining labels not in the output (e.g. one operand, or broadcasted leftovers).
  {
    std::vector<int64_t> sum_dims;
    std::vector<int> kept;
    for (size_t d = 0; d < acc.labels.size(); ++d) {
      if (!in_out[acc.labels[d]])
        sum_dims.push_back(int64_t(d));
      else
        kept.push_back(acc.labels[d]);
    }
    if (!sum_dims.empty()) {
      acc.t = sum(acc.t, sum_dims);
      acc.labels = kept;
    }
  }
  // Permute to output order; output labels missing (size-1 broadcast) are added and expanded.
  std::vector<int64_t> perm;
  Shape final_shape;
  for (int l : out_labels) {
    auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
    if (it == acc.labels.end()) {
      acc.t = unsqueeze(acc.t, acc.t.dim());
      acc.labels.push_back(l);
      perm.push_back(acc.t.dim() - 1);
    } else {
      perm.push_back(it - acc.labels.begin());
    }
    final_shape.push_back(size_of.count(l) ? size_of.at(l) : 1);
  }
  Tensor r = permute(acc.t, perm);
  if (r.sizes() != final_shape) r = expand(r, final_shape);
  return r;
}

}  // namespace tc
