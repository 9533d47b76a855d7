// IIR recursion for lfilter. The FIR half (a short convolution) is composed from tensor ops in
// Python; the recursion is inherently sequential along time, so it runs here, one row per task.
#include "audio/lfilter.h"

#include <vector>

#include "tensorcore/autograd/function.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::audio {
namespace {

template <typename T>
void iir_rows(const T* u, const T* a, T* y, int64_t batch, int64_t channels, int64_t time,
              int64_t order) {
  parallel_for(0, batch * channels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(time, 1)),
               [&](int64_t begin, int64_t end) {
                 std::vector<T> coef(static_cast<size_t>(order));
                 for (int64_t row = begin; row < end; ++row) {
                   const T* ar = a + (row % channels) * order;
                   for (int64_t k = 0; k < order; ++k) coef[size_t(k)] = ar[k];
                   const T* ur = u + row * time;
                   T* yr = y + row * time;
                   if (order == 3) {  // biquads: keep the state in registers
                     const T a1 = coef[1], a2 = coef[2];
                     T y1 = 0, y2 = 0;
                     for (int64_t n = 0; n < time; ++n) {
                       const T v = ur[n] - a1 * y1 - a2 * y2;
                       yr[n] = v;
                       y2 = y1;
                       y1 = v;
                     }
                     continue;
                   }
                   for (int64_t n = 0; n < time; ++n) {
                     T v = ur[n];
                     const int64_t kmax = std::min<int64_t>(order - 1, n);
                     for (int64_t k = 1; k <= kmax; ++k) v -= coef[size_t(k)] * yr[n - k];
                     yr[n] = v;
                   }
                 }
               });
}

Tensor iir_forward(const Tensor& u, const Tensor& a) {
  Tensor uc = contiguous(u.detach()), ac = contiguous(a.detach());
  Tensor y = empty(uc.sizes(), TensorOptions(uc.dtype()));
  const int64_t B = uc.size(0), C = uc.size(1), T = uc.size(2), K = ac.size(1);
  if (uc.dtype() == DType::Float32)
    iir_rows(uc.data<float>(), ac.data<float>(), y.data<float>(), B, C, T, K);
  else
    iir_rows(uc.data<double>(), ac.data<double>(), y.data<double>(), B, C, T, K);
  return y;
}

}  // namespace

Tensor lfilter_iir(const Tensor& u, const Tensor& a) {
  const char* op = "lfilter";
  TC_CHECK(u.dim() == 3, op, ": expected a 3-d (batch, channels, time) signal, got shape ",
           shape_str(u.sizes()));
  TC_CHECK(a.dim() == 2 && a.size(0) == u.size(1) && a.size(1) >= 1, op,
           ": expected coefficients of shape (", u.size(1), ", order), got ", shape_str(a.sizes()));
  TC_CHECK_TYPE(
      u.dtype() == a.dtype() && (u.dtype() == DType::Float32 || u.dtype() == DType::Float64), op,
      ": expected float32 or float64 signal and coefficients of the same dtype, got ",
      dtype_name(u.dtype()), " and ", dtype_name(a.dtype()));
  TC_CHECK_AS(NotImplementedError, u.is_cpu() && a.is_cpu(), op,
              ": has a CPU kernel only, got tensors on ", u.device().str(), " and ",
              a.device().str(), " (move them with .cpu())");
  Tensor y = iir_forward(u, a);
  if (autograd::needs_grad({u, a})) {
    autograd::record("LfilterBackward0", {u, a}, {y}, {a, y},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       const Tensor& a = s[0];
                       const Tensor& y = s[1];
                       // The recursion's adjoint is the same recursion run backwards in time.
                       Tensor gu = flip(lfilter_iir(flip(g[0], {2}), a), {2});
                       const int64_t K = a.size(1), T = y.size(2);
                       TensorList cols{zeros({a.size(0)}, TensorOptions(a.dtype()))};
                       for (int64_t k = 1; k < K; ++k) {
                         if (k >= T) {
                           cols.push_back(zeros({a.size(0)}, TensorOptions(a.dtype())));
                           continue;
                         }
                         Tensor prod = mul(slice(gu, 2, k, T), slice(y, 2, 0, T - k));
                         cols.push_back(neg(sum(prod, {0, 2})));
                       }
                       return {gu, stack(cols, 1)};
                     });
  }
  return y;
}

}  // namespace tc::audio
