// torch.fft's public functions over the three primitives: argument handling (n/s, dim, norm),
// zero-padding or trimming, dtype promotion, and the helpers fftfreq/fftshift.
#include "tensorcore/fft/fft.h"

#include "tensorcore/amp/autocast.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

namespace tc::fft {
namespace {

Norm norm_mode(const OptNorm& norm, bool forward, const char* op) {
  const std::string s = norm.value_or("backward");
  if (s == "backward") return forward ? Norm::None : Norm::ByN;
  if (s == "forward") return forward ? Norm::ByN : Norm::None;
  if (s == "ortho") return Norm::BySqrtN;
  throw ValueError(detail::concat(op, ": Invalid normalization mode: \"", s,
                                  "\" (expected \"backward\", \"forward\" or \"ortho\")"));
}

// Integers and bool become the default float dtype. Half precision: CUDA computes it in float32
// (tensorcore has no complex32 dtype; torch's autocast also runs FFTs in float32); the CPU
// rejects it, as torch does.
Tensor promote_real(const Tensor& x, const char* op) {
  TC_CHECK(x.defined(), op, ": expected a tensor");
  DType d = x.dtype();
  if (d == DType::Float32 || d == DType::Float64 || is_complex(d)) return x;
  if (d == DType::Float16 || d == DType::BFloat16) {
    TC_CHECK_TYPE(x.is_cuda(), op, ": unsupported dtype ", dtype_name(d),
                  " on the CPU (tensorcore's FFT computes in float32/float64)");
    return to_dtype(x, DType::Float32);
  }
  return to_dtype(x, get_default_dtype());
}

Tensor require_real(const Tensor& x, const char* op) {
  TC_CHECK_TYPE(!x.is_complex(), op, " expects a real input tensor, but got ",
                dtype_name(x.dtype()));
  return promote_real(x, op);
}

Tensor promote_complex(const Tensor& x, const char* op) {
  Tensor r = promote_real(x, op);
  return r.is_complex() ? r : to_dtype(r, to_complex(r.dtype()));
}

void check_points(int64_t n, const char* op) {
  TC_CHECK(n >= 1, op, ": Invalid number of data points (", n, ") specified");
}

// Trims or zero-pads `x` along `dim` to `n` entries.
Tensor resize_dim(const Tensor& x, int64_t dim, int64_t n) {
  const int64_t have = x.size(dim);
  if (have == n) return x;
  if (have > n) return narrow(x, dim, 0, n);
  Shape s = x.sizes();
  s[dim] = n - have;
  return cat({x, zeros(s, TensorOptions(x.dtype()).device(x.device()))}, dim);
}

struct NdArgs {
  std::vector<int64_t> dims, shape;
};

NdArgs nd_args(const Tensor& x, const OptDims& s, const OptDims& dim, const char* op) {
  NdArgs a;
  const int64_t nd = x.dim();
  if (dim) {
    for (int64_t d : *dim) {
      int64_t w = wrap_dim(d, nd, op);
      for (int64_t o : a.dims) TC_CHECK(o != w, op, ": dims must be unique, got dim ", d, " twice");
      a.dims.push_back(w);
    }
    TC_CHECK(!s || s->size() == dim->size(), op,
             ": When given, dim and shape arguments must have the same length (got s of length ",
             s->size(), " and dim of length ", dim->size(), ")");
  } else if (s) {
    TC_CHECK(int64_t(s->size()) <= nd, op, ": Got shape with ", s->size(),
             " values but input tensor only has ", nd, " dimensions");
    for (int64_t i = nd - int64_t(s->size()); i < nd; ++i) a.dims.push_back(i);
  } else {
    for (int64_t i = 0; i < nd; ++i) a.dims.push_back(i);
  }
  for (size_t i = 0; i < a.dims.size(); ++i) {
    int64_t v = s ? (*s)[i] : -1;
    a.shape.push_back(v == -1 ? x.size(a.dims[i]) : v);
  }
  return a;
}

Tensor resize_dims(Tensor x, const std::vector<int64_t>& dims, const std::vector<int64_t>& shape,
                   const char* op) {
  for (size_t i = 0; i < dims.size(); ++i) {
    check_points(shape[i], op);
    x = resize_dim(x, dims[i], shape[i]);
  }
  return x;
}

// fftn / ifftn of any input: complex -> c2c, real -> two-sided r2c (conjugated for the inverse).
Tensor fftn_impl(const Tensor& in, const OptDims& s, const OptDims& dim, const OptNorm& norm,
                 bool forward, const char* op) {
  Tensor x = promote_real(in, op);
  NdArgs a = nd_args(x, s, dim, op);
  x = resize_dims(x, a.dims, a.shape, op);
  Norm mode = norm_mode(norm, forward, op);
  if (x.is_complex()) return fft_c2c(x, a.dims, mode, forward);
  if (a.dims.empty()) return to_dtype(x, to_complex(x.dtype()), true);
  Tensor y = fft_r2c(x, a.dims, mode, false);
  return forward ? y : conj(y);
}

Tensor rfftn_impl(const Tensor& in, const OptDims& s, const OptDims& dim, const OptNorm& norm,
                  const char* op) {
  Tensor x = require_real(in, op);
  NdArgs a = nd_args(x, s, dim, op);
  TC_CHECK(!a.dims.empty(), op, " must transform at least one axis");
  x = resize_dims(x, a.dims, a.shape, op);
  return fft_r2c(x, a.dims, norm_mode(norm, true, op), true);
}

// The input of a complex-to-real transform (irfftn, hfftn): the one-sided half, resized to
// last_size / 2 + 1 along the last transformed dim, where last_size, the length of the real
// output, is s's last entry or 2 * (n - 1).
struct C2rInput {
  Tensor x;
  std::vector<int64_t> dims;
  int64_t last_size;
};

C2rInput c2r_input(const Tensor& in, const OptDims& s, const OptDims& dim, const char* op) {
  Tensor x = promote_complex(in, op);
  NdArgs a = nd_args(x, s, dim, op);
  TC_CHECK(!a.dims.empty(), op, " must transform at least one axis");
  const int64_t last_size =
      (s && s->back() != -1) ? a.shape.back() : 2 * (x.size(a.dims.back()) - 1);
  check_points(last_size, op);
  a.shape.back() = last_size / 2 + 1;
  x = resize_dims(x, a.dims, a.shape, op);
  return {x, a.dims, last_size};
}

Tensor irfftn_impl(const Tensor& in, const OptDims& s, const OptDims& dim, const OptNorm& norm,
                   const char* op) {
  const C2rInput c = c2r_input(in, s, dim, op);
  return fft_c2r(c.x, c.dims, norm_mode(norm, false, op), c.last_size);
}

// torch 1.13's hfftn: the one-sided Hermitian input is c2c-transformed (forward) over all but the
// last dim, conjugated, and c2r-transformed along the last dim to last_size real values.
Tensor hfftn_impl(const Tensor& in, const OptDims& s, const OptDims& dim, const OptNorm& norm,
                  const char* op) {
  C2rInput c = c2r_input(in, s, dim, op);
  const Norm mode = norm_mode(norm, true, op);
  std::vector<int64_t> outer(c.dims.begin(), c.dims.end() - 1);
  if (!outer.empty()) c.x = fft_c2c(c.x, outer, mode, true);
  return fft_c2r(conj(c.x), {c.dims.back()}, mode, c.last_size);
}

// ihfftn: r2c (one-sided) along the last dim, conjugated, then inverse c2c over the others.
Tensor ihfftn_impl(const Tensor& in, const OptDims& s, const OptDims& dim, const OptNorm& norm,
                   const char* op) {
  Tensor x = require_real(in, op);
  NdArgs a = nd_args(x, s, dim, op);
  TC_CHECK(!a.dims.empty(), op, " must transform at least one axis");
  x = resize_dims(x, a.dims, a.shape, op);
  const Norm mode = norm_mode(norm, false, op);
  Tensor y = conj(fft_r2c(x, {a.dims.back()}, mode, true));
  std::vector<int64_t> outer(a.dims.begin(), a.dims.end() - 1);
  return outer.empty() ? y : fft_c2c(y, outer, mode, false);
}

OptDims one_dim(int64_t d) { return std::vector<int64_t>{d}; }
OptDims one_dim_s(const OptInt& n) { return n ? OptDims(std::vector<int64_t>{*n}) : OptDims(); }

}  // namespace

Tensor fft(const Tensor& x, OptInt n, int64_t dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_fft", fft, x, n, dim, norm);
  TC_CHECK(x.defined() && x.dim() > 0, "fft: expected a tensor with at least one dimension");
  return fftn_impl(x, one_dim_s(n), one_dim(dim), norm, true, "fft");
}

Tensor ifft(const Tensor& x, OptInt n, int64_t dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_ifft", ifft, x, n, dim, norm);
  TC_CHECK(x.defined() && x.dim() > 0, "ifft: expected a tensor with at least one dimension");
  return fftn_impl(x, one_dim_s(n), one_dim(dim), norm, false, "ifft");
}

Tensor rfft(const Tensor& x, OptInt n, int64_t dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_rfft", rfft, x, n, dim, norm);
  TC_CHECK(x.defined() && x.dim() > 0, "rfft: expected a tensor with at least one dimension");
  return rfftn_impl(x, one_dim_s(n), one_dim(dim), norm, "rfft");
}

Tensor irfft(const Tensor& x, OptInt n, int64_t dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_irfft", irfft, x, n, dim, norm);
  TC_CHECK(x.defined() && x.dim() > 0, "irfft: expected a tensor with at least one dimension");
  return irfftn_impl(x, one_dim_s(n), one_dim(dim), norm, "irfft");
}

Tensor hfft(const Tensor& in, OptInt n, int64_t dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_hfft", hfft, in, n, dim, norm);
  TC_CHECK(in.defined() && in.dim() > 0, "hfft: expected a tensor with at least one dimension");
  Tensor x = promote_complex(in, "hfft");
  dim = wrap_dim(dim, x.dim(), "hfft");
  const int64_t len = n.value_or(2 * (x.size(dim) - 1));
  check_points(len, "hfft");
  x = resize_dim(x, dim, len / 2 + 1);
  return fft_c2r(conj(x), {dim}, norm_mode(norm, true, "hfft"), len);
}

Tensor ihfft(const Tensor& in, OptInt n, int64_t dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_ihfft", ihfft, in, n, dim, norm);
  TC_CHECK(in.defined() && in.dim() > 0, "ihfft: expected a tensor with at least one dimension");
  Tensor x = require_real(in, "ihfft");
  dim = wrap_dim(dim, x.dim(), "ihfft");
  const int64_t len = n.value_or(x.size(dim));
  check_points(len, "ihfft");
  x = resize_dim(x, dim, len);
  return conj(fft_r2c(x, {dim}, norm_mode(norm, false, "ihfft"), true));
}

Tensor fft2(const Tensor& x, OptDims s, std::vector<int64_t> dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_fft2", fft2, x, s, dim, norm);
  return fftn_impl(x, s, dim, norm, true, "fft2");
}
Tensor ifft2(const Tensor& x, OptDims s, std::vector<int64_t> dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_ifft2", ifft2, x, s, dim, norm);
  return fftn_impl(x, s, dim, norm, false, "ifft2");
}
Tensor rfft2(const Tensor& x, OptDims s, std::vector<int64_t> dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_rfft2", rfft2, x, s, dim, norm);
  return rfftn_impl(x, s, dim, norm, "rfft2");
}
Tensor irfft2(const Tensor& x, OptDims s, std::vector<int64_t> dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_irfft2", irfft2, x, s, dim, norm);
  return irfftn_impl(x, s, dim, norm, "irfft2");
}
Tensor fftn(const Tensor& x, OptDims s, OptDims dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_fftn", fftn, x, s, dim, norm);
  return fftn_impl(x, s, dim, norm, true, "fftn");
}
Tensor ifftn(const Tensor& x, OptDims s, OptDims dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_ifftn", ifftn, x, s, dim, norm);
  return fftn_impl(x, s, dim, norm, false, "ifftn");
}
Tensor rfftn(const Tensor& x, OptDims s, OptDims dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_rfftn", rfftn, x, s, dim, norm);
  return rfftn_impl(x, s, dim, norm, "rfftn");
}
Tensor irfftn(const Tensor& x, OptDims s, OptDims dim, const OptNorm& norm) {
  TC_AUTOCAST("fft_irfftn", irfftn, x, s, dim, norm);
  return irfftn_impl(x, s, dim, norm, "irfftn");
}

namespace {
Tensor freq_tensor(int64_t n, int64_t count, double d, TensorOptions opts, bool wrap) {
  Tensor t = empty({count}, TensorOptions(DType::Float64));
  double* p = t.data<double>();
  const double step = 1.0 / (double(n) * d);
  for (int64_t k = 0; k < count; ++k) p[k] = double(wrap && k >= (n + 1) / 2 ? k - n : k) * step;
  Tensor out = to(t, opts.device_, opts.dtype_, true);
  if (opts.requires_grad_) out.requires_grad_(true);
  return out;
}
}  // namespace

Tensor hfft2(const Tensor& x, OptDims s, std::vector<int64_t> dim, const OptNorm& norm) {
  return hfftn_impl(x, s, dim, norm, "hfft2");
}
Tensor ihfft2(const Tensor& x, OptDims s, std::vector<int64_t> dim, const OptNorm& norm) {
  return ihfftn_impl(x, s, dim, norm, "ihfft2");
}
Tensor hfftn(const Tensor& x, OptDims s, OptDims dim, const OptNorm& norm) {
  return hfftn_impl(x, s, dim, norm, "hfftn");
}
Tensor ihfftn(const Tensor& x, OptDims s, OptDims dim, const OptNorm& norm) {
  return ihfftn_impl(x, s, dim, norm, "ihfftn");
}

Tensor fftfreq(int64_t n, double d, TensorOptions opts) {
  TC_CHECK(n >= 0, "fftfreq: n must be non-negative, got ", n);
  return freq_tensor(n, n, d, opts, true);
}

Tensor rfftfreq(int64_t n, double d, TensorOptions opts) {
  TC_CHECK(n >= 0, "rfftfreq: n must be non-negative, got ", n);
  return freq_tensor(n, n / 2 + 1, d, opts, false);
}

namespace {
Tensor shift(const Tensor& x, const std::vector<int64_t>& dim, bool inverse) {
  std::vector<int64_t> dims = dim, shifts;
  if (dims.empty())
    for (int64_t i = 0; i < x.dim(); ++i) dims.push_back(i);
  if (dims.empty()) return x;
  for (int64_t& d : dims) {
    d = wrap_dim(d, x.dim(), inverse ? "ifftshift" : "fftshift");
    const int64_t size = x.size(d);
    shifts.push_back(inverse ? (size + 1) / 2 : size / 2);
  }
  return roll(x, shifts, dims);
}
}  // namespace

Tensor fftshift(const Tensor& x, const std::vector<int64_t>& dim) { return shift(x, dim, false); }
Tensor ifftshift(const Tensor& x, const std::vector<int64_t>& dim) { return shift(x, dim, true); }

}  // namespace tc::fft
