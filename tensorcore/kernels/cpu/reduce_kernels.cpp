// CPU kernels for sum and mean.
#include "tensorcore/core/dispatch.h"
#include "tensorcore/kernels/cpu/half_vec.h"
#include "tensorcore/kernels/cpu/reduce_fast.h"
#include "tensorcore/kernels/cpu/reduce_loops.h"
#include "tensorcore/ops/kernel_tables.h"

namespace tc {
namespace {

// Accumulate floats in double and ints in int64: more accurate than the output type.
template <typename T>
using sum_acc_t = std::conditional_t<is_complex_v<T>, complex128,
                                     std::conditional_t<is_floating_v<T>, double, int64_t>>;

template <typename T, typename Out, bool Mean>
struct SumOp {
  using Acc = sum_acc_t<T>;
  Acc init() const { return Acc(0); }
  Acc fold(Acc a, T x) const {
    if constexpr (is_complex_v<T>)
      return a + Acc(x.real(), x.imag());
    else
      return a + Acc(opmath_t<T>(x));
  }
  Acc merge(Acc a, Acc b) const { return a + b; }
  Out finish(Acc a, int64_t n) const {
    if constexpr (Mean) {
      if constexpr (is_complex_v<Out>)
        return Out(a / double(n));
      else
        return Out(static_cast<opmath_t<Out>>(double(a) / double(n)));
    } else if constexpr (is_complex_v<Out>) {
      return Out(typename Out::value_type(a.real()), typename Out::value_type(a.imag()));
    } else {
      return Out(static_cast<opmath_t<Out>>(a));
    }
  }
};

// float32: a float-lane cascade for contiguous runs (a double accumulator halves the SIMD
// width); other layouts fold in double as the generic op does.
template <bool Mean>
struct SumOpF32 : SumOp<float, float, Mean> {
  double fold_contiguous(const float* p, int64_t n) const { return reduce_fast::sum_f32(p, n); }
};

// float16/bfloat16: the float32 cascade of reduce_fast::sum_f32 (32 float lanes per 2048-element
// block, lanes merged pairwise, blocks added in double) with the values widened in registers, so
// the 16-bit sum runs at float32 speed with the same accuracy and the same result as summing
// the widened values with sum_f32.
template <typename T>
double sum_half_run(const T* p, int64_t n) {
  constexpr int64_t kBlock = 2048;
  double total = 0;
  for (int64_t j = 0; j < n; j += kBlock) {
    const int64_t m = n - j < kBlock ? n - j : kBlock;
    float lanes[32] = {};
    int64_t i = 0;
#if defined(__AVX2__) && defined(__F16C__)
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                     _mm256_setzero_ps()};
    for (; i + 32 <= m; i += 32)
      for (int k = 0; k < 4; ++k)
        acc[k] = _mm256_add_ps(acc[k], half_vec::load8(p + j + i + 8 * k));
    for (int k = 0; k < 4; ++k) _mm256_storeu_ps(lanes + 8 * k, acc[k]);
#endif
    for (; i + 32 <= m; i += 32)
      for (int k = 0; k < 32; ++k) lanes[k] += half_vec::to_float(p[j + i + k]);
    float tail = 0;
    for (; i < m; ++i) tail += half_vec::to_float(p[j + i]);
    for (int w = 16; w > 0; w /= 2)
      for (int k = 0; k < w; ++k) lanes[k] += lanes[k + w];
    total += double(lanes[0]) + double(tail);
  }
  return total;
}

template <typename T, bool Mean>
struct SumOpHalf : SumOp<T, T, Mean> {
  double fold_contiguous(const T* p, int64_t n) const { return sum_half_run(p, n); }
};

template <bool Mean, typename T>
void run_sum(const Tensor& out, const Tensor& in, const std::vector<bool>& mask) {
  if constexpr (std::is_same_v<T, float>)
    cpu_reduce<T, T>(out, in, mask, SumOpF32<Mean>{});
  else if constexpr (is_reduced_float_v<T>)
    cpu_reduce<T, T>(out, in, mask, SumOpHalf<T, Mean>{});
  else
    cpu_reduce<T, T>(out, in, mask, SumOp<T, T, Mean>{});
}

void sum_cpu(const Tensor& out, const Tensor& in, const std::vector<bool>& mask) {
  // The op casts the input to the output dtype first (or int -> int64), so T == Out here.
  dispatch_dtype<kIntegral | kFloating | kComplex>(in.dtype(), "sum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_sum<false, T>(out, in, mask);
  });
}

void mean_cpu(const Tensor& out, const Tensor& in, const std::vector<bool>& mask) {
  dispatch_dtype<kFloating | kComplex>(in.dtype(), "mean", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_sum<true, T>(out, in, mask);
  });
}

TC_REGISTER_KERNEL(sum_kernel, CPU, sum_cpu);
TC_REGISTER_KERNEL(mean_kernel, CPU, mean_cpu);

}  // namespace
}  // namespace tc
