// The differentiable FFT primitives (c2c, r2c, c2r): argument checks and vjps here, the
// transforms in per-device kernels (CPU: the engine, below; CUDA: kernels/cuda/cufft.cpp).
#include <cmath>

#include "tensorcore/autograd/function.h"
#include "tensorcore/fft/engine.h"
#include "tensorcore/fft/fft.h"
#include "tensorcore/fft/fft_kernels.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

namespace tc::fft {

KernelTable<FftC2CKernel> fft_c2c_kernel("fft_c2c");
KernelTable<FftR2CKernel> fft_r2c_kernel("fft_r2c");
KernelTable<FftC2RKernel> fft_c2r_kernel("fft_c2r");

namespace {

double norm_scale(Norm norm, double n) {
  switch (norm) {
    case Norm::None:
      return 1.0;
    case Norm::BySqrtN:
      return 1.0 / std::sqrt(n);
    case Norm::ByN:
      return 1.0 / n;
  }
  return 1.0;
}

std::vector<int64_t> wrap_dims(const std::vector<int64_t>& dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    for (int64_t o : out) TC_CHECK(o != w, op, ": dims must be unique, got dim ", d, " twice");
    out.push_back(w);
  }
  return out;
}

// One complex 1-D pass along `dim` of a (detached) complex tensor. The last dim runs as contiguous
// rows; any other dim runs in place in the [outer, n, inner] layout (no transposing copy).
Tensor c2c_pass(const Tensor& x_in, int64_t dim, bool forward, double scale) {
  Tensor x = contiguous(x_in);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  const int64_t n = x.size(dim);
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.size(d);
  const int64_t outer = (n > 0 && inner > 0) ? x.numel() / (n * inner) : 0;
  if (x.dtype() == DType::Complex64) {
    if (inner == 1)
      c2c<float>(x.data<complex64>(), out.data<complex64>(), n, outer, !forward, float(scale));
    else
      c2c_strided<float>(x.data<complex64>(), out.data<complex64>(), outer, n, inner, !forward,
                         float(scale));
  } else {
    if (inner == 1)
      c2c<double>(x.data<complex128>(), out.data<complex128>(), n, outer, !forward, scale);
    else
      c2c_strided<double>(x.data<complex128>(), out.data<complex128>(), outer, n, inner, !forward,
                          scale);
  }
  return out;
}

// Zero-extends `g` along `dim` to `size`.
Tensor zero_pad(const Tensor& g, int64_t dim, int64_t size) {
  const int64_t have = g.size(dim);
  if (have >= size) return g;
  Shape s = g.sizes();
  s[dim] = size - have;
  return cat({g, zeros(s, TensorOptions(g.dtype()).device(g.device()))}, dim);
}

// ---- CPU kernels: tensorcore's engine ----

Tensor c2c_cpu(const Tensor& x, const std::vector<int64_t>& dims, double scale, bool forward) {
  Tensor out = x;
  // Last dim first: it is the contiguous one in the common case, so no copy is needed.
  for (size_t i = dims.size(); i-- > 0;)
    out = c2c_pass(out, dims[i], forward, i + 1 == dims.size() ? scale : 1.0);
  return out;
}

Tensor r2c_cpu(const Tensor& x, const std::vector<int64_t>& dims, double scale, bool onesided) {
  const int64_t last = dims.back();
  const int64_t n_last = x.size(last);
  Tensor xt = contiguous(movedim(x, {last}, {-1}));
  Shape os = xt.sizes();
  os.back() = onesided ? n_last / 2 + 1 : n_last;
  DType cdt = to_complex(x.dtype());
  Tensor out = empty(os, TensorOptions(cdt).device(x.device()));
  const int64_t batch = n_last ? xt.numel() / n_last : 0;
  if (n_last > 0) {
    if (cdt == DType::Complex64)
      r2c<float>(xt.data<float>(), out.data<complex64>(), n_last, batch, float(scale), onesided);
    else
      r2c<double>(xt.data<double>(), out.data<complex128>(), n_last, batch, scale, onesided);
  }
  out = movedim(out, {-1}, {last});
  for (size_t i = 0; i + 1 < dims.size(); ++i) out = c2c_pass(out, dims[i], true, 1.0);
  return out;
}

Tensor c2r_cpu(const Tensor& x, const std::vector<int64_t>& dims, double scale,
               int64_t last_dim_size) {
  const int64_t last = dims.back();
  Tensor t = x;
  for (size_t i = 0; i + 1 < dims.size(); ++i) t = c2c_pass(t, dims[i], false, 1.0);
  Tensor xt = contiguous(movedim(t, {last}, {-1}));
  Shape os = xt.sizes();
  os.back() = last_dim_size;
  DType rdt = to_real(x.dtype());
  Tensor out = empty(os, TensorOptions(rdt).device(x.device()));
  const int64_t batch = xt.size(-1) ? xt.numel() / xt.size(-1) : 0;
  if (rdt == DType::Float32)
    c2r<float>(xt.data<complex64>(), out.data<float>(), last_dim_size, batch, float(scale));
  else
    c2r<double>(xt.data<complex128>(), out.data<double>(), last_dim_size, batch, scale);
  return movedim(out, {-1}, {last});
}

TC_REGISTER_KERNEL(fft_c2c_kernel, CPU, c2c_cpu);
TC_REGISTER_KERNEL(fft_r2c_kernel, CPU, r2c_cpu);
TC_REGISTER_KERNEL(fft_c2r_kernel, CPU, c2r_cpu);

}  // namespace

Tensor fft_c2c(const Tensor& x, const std::vector<int64_t>& dims_in, Norm norm, bool forward) {
  TC_CHECK_TYPE(x.is_complex(), "fft_c2c: expected a complex tensor, got ", dtype_name(x.dtype()));
  auto dims = wrap_dims(dims_in, x.dim(), "fft");
  double n = 1;
  for (int64_t d : dims) n *= double(x.size(d));
  Tensor out = dims.empty() ? clone(x.detach())
                            : fft_c2c_kernel.get(x.device().type)(x.detach(), dims,
                                                                  norm_scale(norm, n), forward);
  if (autograd::needs_grad({x})) {
    autograd::record("FftC2CBackward0", {x}, {out}, {},
                     [dims, norm, forward](const TensorList&, const TensorList& g) -> TensorList {
                       return {fft_c2c(g[0], dims, norm, !forward)};
                     });
  }
  return out;
}

Tensor fft_r2c(const Tensor& x, const std::vector<int64_t>& dims_in, Norm norm, bool onesided) {
  TC_CHECK_TYPE(x.dtype() == DType::Float32 || x.dtype() == DType::Float64,
                "fft_r2c: expected a float32 or float64 tensor, got ", dtype_name(x.dtype()));
  auto dims = wrap_dims(dims_in, x.dim(), "rfft");
  TC_CHECK(!dims.empty(), "rfft: at least one dim is required");
  const int64_t n_last = x.size(dims.back());
  double n = 1;
  for (int64_t d : dims) n *= double(x.size(d));
  Tensor out = fft_r2c_kernel.get(x.device().type)(x.detach(), dims, norm_scale(norm, n), onesided);
  if (autograd::needs_grad({x})) {
    autograd::record(
        "FftR2CBackward0", {x}, {out}, {},
        [dims, norm, onesided, n_last](const TensorList&, const TensorList& g) -> TensorList {
          Tensor full = onesided ? zero_pad(g[0], dims.back(), n_last) : g[0];
          return {real(fft_c2c(full, dims, norm, false))};
        });
  }
  return out;
}

Tensor fft_c2r(const Tensor& x, const std::vector<int64_t>& dims_in, Norm norm,
               int64_t last_dim_size) {
  TC_CHECK_TYPE(x.is_complex(), "fft_c2r: expected a complex tensor, got ", dtype_name(x.dtype()));
  auto dims = wrap_dims(dims_in, x.dim(), "irfft");
  TC_CHECK(!dims.empty(), "irfft: at least one dim is required");
  TC_CHECK(last_dim_size >= 1, "irfft: Invalid number of data points (", last_dim_size,
           ") specified");
  const int64_t last = dims.back();
  TC_CHECK(x.size(last) == last_dim_size / 2 + 1, "fft_c2r: expected ", last_dim_size / 2 + 1,
           " bins along dim ", last, " for an output of size ", last_dim_size, ", got ",
           x.size(last));
  double n = double(last_dim_size);
  for (size_t i = 0; i + 1 < dims.size(); ++i) n *= double(x.size(dims[i]));
  Tensor out =
      fft_c2r_kernel.get(x.device().type)(x.detach(), dims, norm_scale(norm, n), last_dim_size);
  if (autograd::needs_grad({x})) {
    autograd::record(
        "FftC2RBackward0", {x}, {out}, {},
        [dims, norm, last_dim_size](const TensorList&, const TensorList& g) -> TensorList {
          Tensor gi = fft_r2c(g[0], dims, norm, true);
          // Bins other than DC and Nyquist stand for two entries of the full spectrum.
          const int64_t bins = last_dim_size / 2 + 1;
          const int64_t doubled = last_dim_size - bins;
          if (doubled <= 0) return {gi};
          Shape ws(gi.dim(), 1);
          ws[dims.back()] = bins;
          Tensor w = full({bins}, 2.0, TensorOptions(to_real(gi.dtype())).device(gi.device()));
          fill_(narrow(w, 0, 0, 1), 1.0);
          if (doubled + 1 < bins) fill_(narrow(w, 0, doubled + 1, bins - doubled - 1), 1.0);
          return {mul(gi, reshape(w, ws))};
        });
  }
  return out;
}

}  // namespace tc::fft
