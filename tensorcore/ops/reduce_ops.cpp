// Value reductions, arg-reductions, median/mode and scans (see reduce.h), plus the private
// helpers their vjps use (reduce_util.h, namespace reduce_detail).
#include <cmath>
#include <limits>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce_kernels.h"
#include "tensorcore/ops/reduce_util.h"
#include "tensorcore/ops/shape.h"

namespace tc {

TC_DEFINE_KERNEL(prod, ReduceKernelP);
TC_DEFINE_KERNEL(amax, ReduceKernelP);
TC_DEFINE_KERNEL(amin, ReduceKernelP);
TC_DEFINE_KERNEL(nansum, ReduceKernelP);
TC_DEFINE_KERNEL(logsumexp, ReduceKernelP);
TC_DEFINE_KERNEL(norm, ReduceKernelP);
TC_DEFINE_KERNEL(var, ReduceKernelP);
TC_DEFINE_KERNEL(all, ReduceKernelP);
TC_DEFINE_KERNEL(any, ReduceKernelP);
TC_DEFINE_KERNEL(argmax, RowKernel);
TC_DEFINE_KERNEL(argmin, RowKernel);
TC_DEFINE_KERNEL(cumsum, RowKernel);
TC_DEFINE_KERNEL(cumprod, RowKernel);
TC_DEFINE_KERNEL(logcumsumexp, RowKernel);
TC_DEFINE_KERNEL(cummax, RowKernel);
TC_DEFINE_KERNEL(cummin, RowKernel);
TC_DEFINE_KERNEL(median, RowKernel);
TC_DEFINE_KERNEL(mode, RowKernel);
TC_DEFINE_KERNEL(prod_others, RowKernel);
TC_DEFINE_KERNEL(rows_gather, RowIndexKernel);
TC_DEFINE_KERNEL(rows_scatter_add, RowIndexKernel);
TC_DEFINE_KERNEL(cumprod_backward, CumprodBackwardKernel);
TC_DEFINE_KERNEL(reduce_pointwise, PointwiseKernel);

namespace rd = reduce_detail;

// ---------------------------------------------------------------- private helpers
namespace reduce_detail {

DType kernel_dtype(DType d) {
  if (d == DType::Float32 || d == DType::Float64 || d == DType::Int64) return d;
  if (is_floating(d)) return DType::Float32;
  TC_CHECK_TYPE(!is_complex(d), "reduction: complex dtypes are not supported by this op");
  return DType::Int64;
}

static Shape moved_shape(const Shape& shape, int64_t dim) {
  Shape s;
  for (size_t i = 0; i < shape.size(); ++i)
    if (int64_t(i) != dim) s.push_back(shape[i]);
  s.push_back(shape.empty() ? 1 : shape[size_t(dim)]);
  return s;
}

Tensor to_rows(const Tensor& a, int64_t dim) {
  if (a.dim() == 0) return reshape(a, {1, 1});
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (i != dim) perm.push_back(i);
  perm.push_back(dim);
  Tensor p = contiguous(permute(a, perm));
  int64_t n = a.size(dim);
  int64_t rows = 1;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (i != dim) rows *= a.size(i);
  return reshape(p, {rows, n});
}

Tensor from_rows(const Tensor& r, const Shape& shape, int64_t dim) {
  if (shape.empty()) return reshape(r, {});
  Tensor p = reshape(r, moved_shape(shape, dim));
  std::vector<int64_t> inv(shape.size());
  int64_t j = 0;
  for (int64_t i = 0; i < int64_t(shape.size()); ++i)
    if (i != dim) inv[size_t(i)] = j++;
  inv[size_t(dim)] = int64_t(shape.size()) - 1;
  return contiguous(permute(p, inv));
}

Tensor float_for_grad(const Tensor& t) {
  return (t.dtype() == DType::Float32 || t.dtype() == DType::Float64) ? t
                                                                      : to_dtype(t, DType::Float32);
}

Tensor take_along(const Tensor& x_in, const Tensor& idx, int64_t dim) {
  Tensor x = float_for_grad(x_in);
  Tensor xr = to_rows(x.detach(), dim), ir = to_rows(idx, dim);
  Tensor out = empty(ir.sizes(), TensorOptions(x.dtype()).device(x.device()));
  if (out.numel() > 0) rows_gather_kernel.get(x.device().type)(out, xr, ir);
  out = from_rows(out, idx.sizes(), dim);
  if (autograd::needs_grad({x})) {
    Shape shape = x.sizes();
    autograd::record("GatherBackward0", {x}, {out}, {idx},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       return {scatter_add_along(shape, s[0], g[0], dim)};
                     });
  }
  return out;
}

Tensor scatter_add_along(const Shape& shape, const Tensor& idx, const Tensor& src_in, int64_t dim) {
  Tensor src = float_for_grad(src_in);
  Tensor ir = to_rows(idx, dim), sr = to_rows(src.detach(), dim);
  Shape rshape = shape.empty()
                     ? Shape{1, 1}
                     : Shape{shape_numel(shape) / std::max<int64_t>(1, shape[size_t(dim)]),
                             shape[size_t(dim)]};
  if (!shape.empty() && shape[size_t(dim)] == 0) rshape[0] = 0;
  Tensor out = zeros(rshape, TensorOptions(src.dtype()).device(src.device()));
  if (ir.numel() > 0) rows_scatter_add_kernel.get(src.device().type)(out, sr, ir);
  out = from_rows(out, shape, dim);
  if (autograd::needs_grad({src})) {
    autograd::record("ScatterAddBackward0", {src}, {out}, {idx},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       return {take_along(g[0], s[0], dim)};
                     });
  }
  return out;
}

static Tensor pointwise(const Tensor& a_in, const Tensor& b_in, PointwiseCode code, double p = 0) {
  Tensor a = contiguous(float_for_grad(a_in.detach()));
  Tensor b;
  if (b_in.defined()) b = contiguous(expand(to_dtype(b_in.detach(), a.dtype()), a.sizes()));
  Tensor out = empty(a.sizes(), TensorOptions(a.dtype()).device(a.device()));
  if (out.numel() > 0) reduce_pointwise_kernel.get(a.device().type)(out, a, b, code, p);
  return out;
}

Tensor eq_mask(const Tensor& a, const Tensor& b) { return pointwise(a, b, PointwiseCode::EqMask); }
Tensor notnan_mask(const Tensor& a) { return pointwise(a, Tensor(), PointwiseCode::NotNan); }
Tensor zero_mask(const Tensor& a) { return pointwise(a, Tensor(), PointwiseCode::IsZero); }
Tensor sign(const Tensor& a) { return pointwise(a, Tensor(), PointwiseCode::Sign); }

Tensor abs(const Tensor& a) {
  Tensor out = pointwise(a, Tensor(), PointwiseCode::Abs);
  if (autograd::needs_grad({a}))
    autograd::record("AbsBackward0", {a}, {out}, {a},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       return {mul(g[0], reduce_detail::sign(s[0]))};
                     });
  return out;
}

Tensor pow_abs(const Tensor& a, double p) {
  if (p == 1) return reduce_detail::abs(a);
  Tensor out = pointwise(a, Tensor(), PointwiseCode::PowAbs, p);
  if (autograd::needs_grad({a}))
    autograd::record(
        "PowBackward0", {a}, {out}, {a},
        [p](const TensorList& s, const TensorList& g) -> TensorList {
          return {mul(mul(g[0], reduce_detail::sign(s[0])), mul(pow_abs(s[0], p - 1), p))};
        });
  return out;
}

Tensor keep_dims(const Tensor& r, const std::vector<bool>& mask, bool keepdim) {
  Tensor t = r;
  if (!keepdim)
    for (size_t d = 0; d < mask.size(); ++d)
      if (mask[d]) t = unsqueeze(t, int64_t(d));
  return t;
}

}  // namespace reduce_detail

// ---------------------------------------------------------------- value reductions
namespace {

Tensor run_p(KernelTable<ReduceKernelP>& table, const Tensor& in, const std::vector<bool>& mask,
             bool keepdim, DType out_dtype, double p = 0) {
  Tensor out =
      empty(reduced_shape(in, mask, keepdim), TensorOptions(out_dtype).device(in.device()));
  if (out.numel() > 0) table.get(in.device().type)(out, in, mask, p);
  return out;
}

void check_nonempty(const Tensor& a, const std::vector<bool>& mask, const char* op) {
  if (a.numel() != 0) return;
  for (int64_t d = 0; d < a.dim(); ++d)
    TC_CHECK_INDEX(!(mask[size_t(d)] && a.size(d) == 0), op, "(): Expected reduction dim ", d,
                   " to have non-zero size (cannot reduce an empty tensor)");
  TC_CHECK(a.dim() != 0 || a.numel() != 0, op, "(): cannot reduce an empty tensor");
}

DType check_floating(const Tensor& a, std::optional<DType> dtype, const char* op) {
  DType d = dtype.value_or(a.dtype());
  TC_CHECK_TYPE(is_floating(d), op, "(): expected a floating point input, got ", dtype_name(d));
  return d;
}

int64_t reduced_count(const Tensor& a, const std::vector<bool>& mask) {
  int64_t n = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (mask[size_t(d)]) n *= a.size(d);
  return n;
}

// Gradient of amax/amin/max()/median(): distributed evenly among the elements equal to out.
Tensor evenly_distribute(const Tensor& x, const Tensor& out, const Tensor& g,
                         const std::vector<bool>& mask, bool keepdim) {
  Tensor ok = rd::keep_dims(out, mask, keepdim);
  Tensor m = rd::eq_mask(x, ok);
  DimList dims;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) dims.push_back(int64_t(d));
  Tensor cnt = dims.empty() ? m : sum(m, dims, true);
  return div(mul(rd::keep_dims(g, mask, keepdim), m), add(cnt, rd::zero_mask(cnt)));
}

Tensor amaxmin(const Tensor& a, const DimList& dims, bool keepdim, bool is_max, const char* op) {
  auto mask = reduce_mask(a, dims, op);
  check_nonempty(a, mask, op);
  DType kd = rd::kernel_dtype(a.dtype());
  Tensor out =
      run_p(is_max ? amax_kernel : amin_kernel, to_dtype(a.detach(), kd), mask, keepdim, kd);
  out = to_dtype(out, a.dtype());
  if (autograd::needs_grad({a}))
    autograd::record(is_max ? "AmaxBackward0" : "AminBackward0", {a}, {out}, {a, out},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       return {evenly_distribute(s[0], s[1], g[0], mask, keepdim)};
                     });
  return out;
}

}  // namespace

Tensor prod(const Tensor& a, std::optional<int64_t> dim, bool keepdim, std::optional<DType> dtype) {
  TC_AUTOCAST("prod", prod, a, dim, keepdim, dtype);
  DType out_dtype = dtype.value_or(is_integral(a.dtype(), true) ? DType::Int64 : a.dtype());
  DType kd = is_complex(out_dtype) ? out_dtype : rd::kernel_dtype(out_dtype);
  DimList dims;
  if (dim) dims.push_back(*dim);
  auto mask = reduce_mask(a, dims, "prod");
  Tensor x = to_dtype(a, out_dtype);
  Tensor out = to_dtype(run_p(prod_kernel, to_dtype(x.detach(), kd), mask, keepdim, kd), out_dtype);
  if (autograd::needs_grad({x})) {
    autograd::record(
        "ProdBackward0", {x}, {out}, {x, out},
        [=](const TensorList& s, const TensorList& g) -> TensorList {
          // d(prod)/dx_i = prod / x_i; complex inputs take its conjugate (Wirtinger convention).
          const Tensor& x = s[0];
          Tensor gk = rd::keep_dims(g[0], mask, keepdim);
          Tensor nz = all(x.detach());
          if (nz.item<bool>())
            return {div(mul(gk, conj(rd::keep_dims(s[1], mask, keepdim))), conj(x))};
          // Zeros present: product of the other elements of each slice (first-order only). The
          // product of conjugates is the conjugate of the product.
          Tensor xf = is_complex(x.dtype()) ? conj(x.detach()) : rd::float_for_grad(x.detach());
          Tensor others;
          if (x.dim() == 0) {
            others = ones_like(xf);
          } else {
            std::vector<int64_t> perm, inv(size_t(x.dim()));
            for (int64_t d = 0; d < x.dim(); ++d)
              if (!mask[size_t(d)]) perm.push_back(d);
            int64_t nkept = int64_t(perm.size());
            for (int64_t d = 0; d < x.dim(); ++d)
              if (mask[size_t(d)]) perm.push_back(d);
            for (size_t i = 0; i < perm.size(); ++i) inv[size_t(perm[i])] = int64_t(i);
            Tensor p = contiguous(permute(xf, perm));
            Shape pshape = p.sizes();
            int64_t n = 1;
            for (size_t i = size_t(nkept); i < pshape.size(); ++i) n *= pshape[i];
            Tensor rows = reshape(p, {n ? p.numel() / n : 0, n});
            Tensor o = empty(rows.sizes(), TensorOptions(xf.dtype()).device(rows.device()));
            if (o.numel() > 0)
              prod_others_kernel.get(x.device().type)(rows, o, Tensor(), RowParams{});
            others = permute(reshape(o, pshape), inv);
          }
          return {mul(gk, others)};
        });
  }
  return out;
}

Tensor amax(const Tensor& a, const DimList& dims, bool keepdim) {
  return amaxmin(a, dims, keepdim, true, "amax");
}
Tensor amin(const Tensor& a, const DimList& dims, bool keepdim) {
  return amaxmin(a, dims, keepdim, false, "amin");
}
Tensor max(const Tensor& a) {
  TC_CHECK(a.numel() > 0,
           "max(): Expected reduction dim to be specified for input.numel() == 0. "
           "Specify the reduction dim with the 'dim' argument.");
  return amaxmin(a, {}, false, true, "max");
}
Tensor min(const Tensor& a) {
  TC_CHECK(a.numel() > 0,
           "min(): Expected reduction dim to be specified for input.numel() == 0. "
           "Specify the reduction dim with the 'dim' argument.");
  return amaxmin(a, {}, false, false, "min");
}

namespace {

// Runs a row kernel producing one (value, index) per slice along dim.
std::pair<Tensor, Tensor> select_along(KernelTable<RowKernel>& table, const Tensor& a, int64_t dim,
                                       bool keepdim, const char* op, const char* node,
                                       RowParams prm = {}, bool need_values = true) {
  int64_t d = wrap_dim(dim, a.dim(), op);
  TC_CHECK_INDEX(a.dim() == 0 || a.size(d) > 0, op, "(): Expected reduction dim ", d,
                 " to have non-zero size.");
  DType kd = rd::kernel_dtype(a.dtype());
  Tensor rows = rd::to_rows(to_dtype(a.detach(), kd), d);
  Tensor vals =
      need_values ? empty({rows.size(0)}, TensorOptions(kd).device(rows.device())) : Tensor();
  Tensor idx = empty({rows.size(0)}, TensorOptions(DType::Int64).device(rows.device()));
  if (rows.size(0) > 0) table.get(a.device().type)(rows, vals, idx, prm);
  std::vector<bool> mask(size_t(a.dim()), false);
  if (a.dim() > 0) mask[size_t(d)] = true;
  Shape shape = a.dim() ? reduced_shape(a, mask, keepdim) : Shape{};
  idx = reshape(idx, shape);
  if (!need_values) return {Tensor(), idx};
  vals = to_dtype(reshape(vals, shape), a.dtype());
  if (autograd::needs_grad({a})) {
    Shape in_shape = a.sizes();
    autograd::record(node, {a}, {vals}, {idx},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       if (in_shape.empty()) return {g[0]};
                       Tensor gi = keepdim ? g[0] : unsqueeze(g[0], d);
                       Tensor ii = keepdim ? s[0] : unsqueeze(s[0], d);
                       return {rd::scatter_add_along(in_shape, ii, gi, d)};
                     });
  }
  return {vals, idx};
}

}  // namespace

std::pair<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim) {
  return select_along(argmax_kernel, a, dim, keepdim, "max", "MaxBackward0");
}
std::pair<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim) {
  return select_along(argmin_kernel, a, dim, keepdim, "min", "MinBackward0");
}

namespace {
// argmax/argmin: over one dim, or over the flattened input when dim is not given.
Tensor arg_extremum(KernelTable<RowKernel>& table, const Tensor& a, std::optional<int64_t> dim,
                    bool keepdim, const char* op) {
  if (dim) return select_along(table, a.detach(), *dim, keepdim, op, "", {}, false).second;
  TC_CHECK(a.numel() > 0, op, "(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor r = select_along(table, reshape(a.detach(), {-1}), 0, false, op, "", {}, false).second;
  return keepdim ? reshape(r, Shape(size_t(a.dim()), 1)) : r;
}
}  // namespace

Tensor argmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  return arg_extremum(argmax_kernel, a, dim, keepdim, "argmax");
}
Tensor argmin(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  return arg_extremum(argmin_kernel, a, dim, keepdim, "argmin");
}

Tensor var(const Tensor& a, const DimList& dims, double correction, bool keepdim) {
  // Complex (as torch): the variance of |z - mean|^2 is the sum of the parts' variances.
  if (is_complex(a.dtype()))
    return add(var(real(a), dims, correction, keepdim), var(imag(a), dims, correction, keepdim));
  DType dt = check_floating(a, {}, "var");
  DType kd = rd::kernel_dtype(dt);
  auto mask = reduce_mask(a, dims, "var");
  Tensor out =
      to_dtype(run_p(var_kernel, to_dtype(a.detach(), kd), mask, keepdim, kd, correction), dt);
  if (autograd::needs_grad({a})) {
    double n = double(reduced_count(a, mask));
    int64_t ad = a.dim();
    DimList rdims;
    for (size_t d = 0; d < mask.size(); ++d)
      if (mask[d]) rdims.push_back(int64_t(d));
    autograd::record("VarBackward0", {a}, {out}, {a},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       Tensor mu = ad ? mean(s[0], rdims, true) : s[0];
                       Tensor gk = rd::keep_dims(g[0], mask, keepdim);
                       return {mul(gk, mul(sub(s[0], mu), 2.0 / std::max(0.0, n - correction)))};
                     });
  }
  return out;
}

Tensor std(const Tensor& a, const DimList& dims, double correction, bool keepdim) {
  if (is_complex(a.dtype())) return sqrt(var(a, dims, correction, keepdim));
  DType dt = check_floating(a, {}, "std");
  DType kd = rd::kernel_dtype(dt);
  auto mask = reduce_mask(a, dims, "std");
  Tensor v = run_p(var_kernel, to_dtype(a.detach(), kd), mask, keepdim, kd, correction);
  Tensor out = to_dtype(sqrt(v), dt);
  if (autograd::needs_grad({a})) {
    double n = double(reduced_count(a, mask));
    int64_t ad = a.dim();
    DimList rdims;
    for (size_t d = 0; d < mask.size(); ++d)
      if (mask[d]) rdims.push_back(int64_t(d));
    autograd::record("StdBackward0", {a}, {out}, {a, out},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       Tensor mu = ad ? mean(s[0], rdims, true) : s[0];
                       Tensor sd = rd::keep_dims(s[1], mask, keepdim);
                       Tensor gk = rd::keep_dims(g[0], mask, keepdim);
                       Tensor denom =
                           mul(add(sd, rd::zero_mask(sd)), std::max(0.0, n - correction));
                       return {div(mul(gk, sub(s[0], mu)), denom)};
                     });
  }
  return out;
}

std::pair<Tensor, Tensor> var_mean(const Tensor& a, const DimList& dims, double correction,
                                   bool keepdim) {
  return {var(a, dims, correction, keepdim), mean(a, dims, keepdim)};
}
std::pair<Tensor, Tensor> std_mean(const Tensor& a, const DimList& dims, double correction,
                                   bool keepdim) {
  return {std(a, dims, correction, keepdim), mean(a, dims, keepdim)};
}

Tensor norm(const Tensor& a, double p, const DimList& dims, bool keepdim,
            std::optional<DType> dtype) {
  TC_AUTOCAST("norm", norm, a, p, dims, keepdim, dtype);
  // Complex (as torch): the norm of the magnitudes, real-valued.
  if (is_complex(a.dtype()))
    return norm(tc::abs(a), p, dims, keepdim,
                dtype ? std::optional<DType>(to_real(*dtype)) : std::nullopt);
  TC_CHECK_TYPE(is_floating(a.dtype()), "norm(): input dtype should be floating point, got ",
                dtype_name(a.dtype()));
  DType dt = dtype.value_or(a.dtype());
  DType kd = rd::kernel_dtype(dt);
  auto mask = reduce_mask(a, dims, "norm");
  Tensor x = to_dtype(a, dt);
  Tensor out = to_dtype(run_p(norm_kernel, to_dtype(x.detach(), kd), mask, keepdim, kd, p), dt);
  if (autograd::needs_grad({x})) {
    autograd::record(
        "NormBackward1", {x}, {out}, {x, out},
        [=](const TensorList& s, const TensorList& g) -> TensorList {
          const Tensor& xs = s[0];
          Tensor nk = rd::keep_dims(s[1], mask, keepdim);
          Tensor gk = rd::keep_dims(g[0], mask, keepdim);
          if (p == 0) return {mul(xs, 0.0)};
          if (p == 1) return {mul(gk, rd::sign(xs))};
          if (std::isinf(p)) {
            Tensor ax = rd::abs(xs);
            return {mul(evenly_distribute(ax, s[1], g[0], mask, keepdim), rd::sign(xs))};
          }
          Tensor safe = add(nk, rd::zero_mask(nk));
          if (p == 2) return {div(mul(gk, xs), safe)};
          Tensor num = mul(rd::sign(xs), rd::pow_abs(xs, p - 1));
          return {div(mul(gk, num), rd::pow_abs(safe, p - 1))};
        });
  }
  return out;
}

Tensor logsumexp(const Tensor& a, const DimList& dims, bool keepdim) {
  TC_AUTOCAST("logsumexp", logsumexp, a, dims, keepdim);
  DType dt = is_floating(a.dtype()) ? a.dtype() : DType::Float32;
  DType kd = rd::kernel_dtype(dt);
  auto mask = reduce_mask(a, dims, "logsumexp");
  Tensor x = to_dtype(a, dt);
  Tensor out = to_dtype(run_p(logsumexp_kernel, to_dtype(x.detach(), kd), mask, keepdim, kd), dt);
  if (autograd::needs_grad({x}))
    autograd::record("LogsumexpBackward0", {x}, {out}, {x, out},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       return {mul(rd::keep_dims(g[0], mask, keepdim),
                                   exp(sub(s[0], rd::keep_dims(s[1], mask, keepdim))))};
                     });
  return out;
}

Tensor all(const Tensor& a, const DimList& dims, bool keepdim) {
  auto mask = reduce_mask(a, dims, "all");
  return run_p(all_kernel, to_dtype(a.detach(), DType::Bool), mask, keepdim, DType::Bool);
}
Tensor any(const Tensor& a, const DimList& dims, bool keepdim) {
  auto mask = reduce_mask(a, dims, "any");
  Tensor out = run_p(any_kernel, to_dtype(a.detach(), DType::Bool), mask, keepdim, DType::Bool);
  if (a.numel() == 0) fill_(out, false);
  return out;
}
Tensor count_nonzero(const Tensor& a, const DimList& dims) {
  return sum(to_dtype(a.detach(), DType::Bool), dims, false, DType::Int64);
}

Tensor nansum(const Tensor& a, const DimList& dims, bool keepdim, std::optional<DType> dtype) {
  DType dt = dtype.value_or(is_integral(a.dtype(), true) ? DType::Int64 : a.dtype());
  if (!is_floating(dt)) return sum(a, dims, keepdim, dt);
  DType kd = rd::kernel_dtype(dt);
  auto mask = reduce_mask(a, dims, "nansum");
  Tensor x = to_dtype(a, dt);
  Tensor out = to_dtype(run_p(nansum_kernel, to_dtype(x.detach(), kd), mask, keepdim, kd), dt);
  if (autograd::needs_grad({x}))
    autograd::record("NansumBackward0", {x}, {out}, {x},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       return {mul(rd::keep_dims(g[0], mask, keepdim), rd::notnan_mask(s[0]))};
                     });
  return out;
}

Tensor nanmean(const Tensor& a, const DimList& dims, bool keepdim, std::optional<DType> dtype) {
  DType dt = check_floating(a, dtype, "nanmean");
  Tensor x = to_dtype(a, dt);
  Tensor cnt = sum(rd::notnan_mask(x), dims, keepdim);
  return div(nansum(x, dims, keepdim), to_dtype(cnt, dt));
}

// ---------------------------------------------------------------- median / mode
namespace {
Tensor global_median(const Tensor& a, bool ignore_nan, const char* op) {
  TC_CHECK(a.numel() > 0, op, "(): cannot compute the median of an empty tensor");
  Tensor flat = reshape(a.detach(), {-1});
  RowParams prm;
  prm.flag = ignore_nan;
  Tensor v = select_along(median_kernel, flat, 0, false, op, "", prm).first;
  Tensor out = to_dtype(v, a.dtype());
  if (autograd::needs_grad({a})) {
    std::vector<bool> mask(size_t(a.dim()), true);
    autograd::record(ignore_nan ? "NanmedianBackward0" : "MedianBackward0", {a}, {out}, {a, out},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       return {evenly_distribute(s[0], s[1], g[0], mask, false)};
                     });
  }
  return out;
}
}  // namespace

Tensor median(const Tensor& a) { return global_median(a, false, "median"); }
Tensor nanmedian(const Tensor& a) { return global_median(a, true, "nanmedian"); }
std::pair<Tensor, Tensor> median(const Tensor& a, int64_t dim, bool keepdim) {
  return select_along(median_kernel, a, dim, keepdim, "median", "MedianBackward1");
}
std::pair<Tensor, Tensor> nanmedian(const Tensor& a, int64_t dim, bool keepdim) {
  RowParams prm;
  prm.flag = true;
  return select_along(median_kernel, a, dim, keepdim, "nanmedian", "NanmedianBackward1", prm);
}
std::pair<Tensor, Tensor> mode(const Tensor& a, int64_t dim, bool keepdim) {
  return select_along(mode_kernel, a, dim, keepdim, "mode", "ModeBackward0");
}

// ---------------------------------------------------------------- scans
namespace {

Tensor scan(KernelTable<RowKernel>& table, const Tensor& x, int64_t d, bool reverse) {
  Tensor rows = rd::to_rows(x.detach(), d);
  Tensor out = empty(rows.sizes(), TensorOptions(x.dtype()).device(x.device()));
  RowParams prm;
  prm.flag = reverse;
  if (out.numel() > 0) table.get(x.device().type)(rows, out, Tensor(), prm);
  return rd::from_rows(out, x.sizes(), d);
}

// cumsum in either direction; its vjp is the cumsum in the other direction.
Tensor cumsum_dir(const Tensor& x, int64_t d, bool reverse) {
  // Complex: the real kernels scan each part (differentiable through real/imag/complex).
  if (is_complex(x.dtype()))
    return complex(cumsum_dir(real(x), d, reverse), cumsum_dir(imag(x), d, reverse));
  Tensor out = scan(cumsum_kernel, x, d, reverse);
  if (autograd::needs_grad({x}))
    autograd::record("CumsumBackward0", {x}, {out}, {},
                     [=](const TensorList&, const TensorList& g) -> TensorList {
                       return {cumsum_dir(g[0], d, !reverse)};
                     });
  return out;
}

DType scan_dtype(const Tensor& a, std::optional<DType> dtype) {
  return dtype.value_or(is_integral(a.dtype(), true) ? DType::Int64 : a.dtype());
}

}  // namespace

Tensor cumsum(const Tensor& a, int64_t dim, std::optional<DType> dtype) {
  TC_AUTOCAST("cumsum", cumsum, a, dim, dtype);
  int64_t d = wrap_dim(dim, a.dim(), "cumsum");
  DType dt = scan_dtype(a, dtype);
  Tensor x = to_dtype(a, dt);
  if (is_complex(dt)) return cumsum_dir(x, d, false);
  DType kd = rd::kernel_dtype(dt);
  if (kd == dt) return cumsum_dir(x, d, false);
  return to_dtype(cumsum_dir(to_dtype(x, kd), d, false), dt);
}

Tensor cumprod(const Tensor& a, int64_t dim, std::optional<DType> dtype) {
  TC_AUTOCAST("cumprod", cumprod, a, dim, dtype);
  int64_t d = wrap_dim(dim, a.dim(), "cumprod");
  DType dt = scan_dtype(a, dtype);
  Tensor x = to_dtype(a, dt);
  DType kd = is_complex(dt) ? dt : rd::kernel_dtype(dt);
  Tensor out = to_dtype(scan(cumprod_kernel, to_dtype(x.detach(), kd), d, false), dt);
  if (autograd::needs_grad({x}))
    autograd::record("CumprodBackward0", {x}, {out}, {x, out},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       // dout_j/dx_i = out_j / x_i for j >= i; complex inputs take conjugates
                       // (Wirtinger).
                       if (all(s[0].detach()).item<bool>())
                         return {div(cumsum_dir(mul(g[0], conj(s[1])), d, true), conj(s[0]))};
                       // Zeros present (first-order only): the kernel works on conj(x), whose
                       // partial products are the conjugates of x's.
                       Tensor xc = is_complex(s[0].dtype()) ? conj(s[0].detach())
                                                            : rd::float_for_grad(s[0].detach());
                       Tensor xr = rd::to_rows(xc, d), gr = rd::to_rows(g[0].detach(), d);
                       gr = to_dtype(gr, xr.dtype());
                       Tensor o = empty(xr.sizes(), TensorOptions(xr.dtype()).device(xr.device()));
                       if (o.numel() > 0) cumprod_backward_kernel.get(xr.device().type)(o, xr, gr);
                       return {rd::from_rows(o, s[0].sizes(), d)};
                     });
  return out;
}

Tensor logcumsumexp(const Tensor& a, int64_t dim) {
  int64_t d = wrap_dim(dim, a.dim(), "logcumsumexp");
  DType dt = check_floating(a, {}, "logcumsumexp");
  Tensor x = a;
  Tensor out =
      to_dtype(scan(logcumsumexp_kernel, to_dtype(x.detach(), rd::kernel_dtype(dt)), d, false), dt);
  if (autograd::needs_grad({x}))
    autograd::record("LogcumsumexpBackward0", {x}, {out}, {x, out},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       // d/dx_i = sum_{j>=i} g_j exp(x_i - out_j)
                       return {mul(exp(s[0]), cumsum_dir(mul(g[0], exp(neg(s[1]))), d, true))};
                     });
  return out;
}

namespace {
std::pair<Tensor, Tensor> cumminmax(const Tensor& a, int64_t dim, bool is_max) {
  const char* op = is_max ? "cummax" : "cummin";
  int64_t d = wrap_dim(dim, a.dim(), op);
  DType kd = rd::kernel_dtype(a.dtype());
  Tensor rows = rd::to_rows(to_dtype(a.detach(), kd), d);
  Tensor vals = empty(rows.sizes(), TensorOptions(kd).device(rows.device()));
  Tensor idx = empty(rows.sizes(), TensorOptions(DType::Int64).device(rows.device()));
  if (rows.numel() > 0)
    (is_max ? cummax_kernel : cummin_kernel).get(a.device().type)(rows, vals, idx, {});
  vals = to_dtype(rd::from_rows(vals, a.sizes(), d), a.dtype());
  idx = rd::from_rows(idx, a.sizes(), d);
  if (autograd::needs_grad({a})) {
    Shape shape = a.sizes();
    autograd::record(is_max ? "CummaxBackward0" : "CumminBackward0", {a}, {vals}, {idx},
                     [=](const TensorList& s, const TensorList& g) -> TensorList {
                       return {rd::scatter_add_along(shape, s[0], g[0], d)};
                     });
  }
  return {vals, idx};
}
}  // namespace

std::pair<Tensor, Tensor> cummax(const Tensor& a, int64_t dim) { return cumminmax(a, dim, true); }
std::pair<Tensor, Tensor> cummin(const Tensor& a, int64_t dim) { return cumminmax(a, dim, false); }

}  // namespace tc
