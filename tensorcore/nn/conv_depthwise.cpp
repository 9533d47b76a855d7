// Depthwise 1-d convolution (one filter per channel: groups == in == out channels) by direct
// loops over each (batch, channel) row. oneDNN has no direct kernel for this case and runs it as
// one GEMM per channel over an im2col copy ("gemm:jit"), which for ConvTasNet's dilated
// depthwise layers was 3x the time of the whole 1x1 convolutions around them (bfloat16: 9 ms
// per backward-data call on a 4x256x1001 input). Here a kernel tap is one contiguous
// multiply-add over the row (stride 1), so the loops vectorize. bfloat16 rows are widened to
// float32 and the sums are float32, as oneDNN's bfloat16 kernels accumulate.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "tensorcore/core/half.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/nn/conv_internal.h"
#include "tensorcore/ops/creation.h"

namespace tc::nn::detail {

bool depthwise1d_direct(const ConvGeometry& g) {
  return g.nd == 1 && g.groups > 1 && g.groups == g.in_channels && g.groups == g.out_channels &&
         (g.dtype == DType::Float32 || g.dtype == DType::BFloat16);
}

namespace {

// One row's geometry: output o reads input o*stride - pad + k*dilation for tap k.
struct Row {
  int64_t in, out, taps, stride, pad, dilation;
  explicit Row(const ConvGeometry& g)
      : in(g.input[0]),
        out(g.output[0]),
        taps(g.kernel[0]),
        stride(g.stride[0]),
        pad(g.pad_l[0]),
        dilation(g.dilation[0]) {}
  // Offset of tap k's first input relative to output 0.
  int64_t shift(int64_t k) const { return k * dilation - pad; }
  // The outputs [lo, hi) whose tap k falls inside the input.
  int64_t lo(int64_t k) const {
    int64_t need = -shift(k);  // o*stride >= need
    return need <= 0 ? 0 : std::min(out, (need + stride - 1) / stride);
  }
  int64_t hi(int64_t k) const {
    int64_t limit = in - shift(k);  // o*stride < limit
    return limit <= 0 ? 0 : std::min(out, (limit - 1) / stride + 1);
  }
};

// A row as float32: the tensor's own memory for float32, a widened copy for bfloat16.
template <typename T>
const float* as_float(const T* src, int64_t n, std::vector<float>& scratch) {
  if constexpr (std::is_same_v<T, float>) {
    return src;
  } else {
    scratch.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) scratch[i] = float(src[i]);
    return scratch.data();
  }
}

// Where a row's float32 result is summed: the output itself for float32, scratch for bfloat16
// (rounded into the output by store()).
template <typename T>
float* accumulator(T* dst, int64_t n, std::vector<float>& scratch) {
  if constexpr (std::is_same_v<T, float>) {
    return dst;
  } else {
    scratch.resize(size_t(n));
    return scratch.data();
  }
}
template <typename T>
void store(const float* acc, int64_t n, T* dst) {
  if constexpr (!std::is_same_v<T, float>)
    for (int64_t i = 0; i < n; ++i) dst[i] = T(acc[i]);
}

// Rows are independent: split them over threads, each thread with its own scratch.
template <typename Fn>
void for_each_row(int64_t rows, int64_t row_work, const Fn& fn) {
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(row_work, 1)),
               [&](int64_t r0, int64_t r1) {
                 std::vector<float> a, b;
                 for (int64_t r = r0; r < r1; ++r) fn(r, a, b);
               });
}

// The taps of every row: a gather for the forward pass (out[o] += w_k * in[o*stride + shift_k])
// or a scatter for the input gradient (gx[o*stride + shift_k] += w_k * gy[o]), over the outputs
// o that tap k reaches. `src` rows have the length of the pass's input, `dst` rows its output's.
template <bool Scatter, typename T>
void tap_rows(const T* src, const T* w, const T* b, T* dst, const ConvGeometry& g) {
  const Row row(g);
  const int64_t C = g.in_channels;
  const int64_t src_len = Scatter ? row.out : row.in, dst_len = Scatter ? row.in : row.out;
  for_each_row(g.batch * C, row.out * row.taps, [&](int64_t r, auto& src_buf, auto& dst_buf) {
    const int64_t c = r % C;
    const float* in = as_float(src + r * src_len, src_len, src_buf);
    float* acc = accumulator(dst + r * dst_len, dst_len, dst_buf);
    std::fill(acc, acc + dst_len, b ? float(b[c]) : 0.f);
    for (int64_t k = 0; k < row.taps; ++k) {
      const float wk = float(w[c * row.taps + k]);
      const int64_t lo = row.lo(k), hi = row.hi(k), sh = row.shift(k);
      if (hi <= lo) continue;
      if (row.stride == 1) {  // contiguous on both sides: vectorizes
        const float* __restrict from = Scatter ? in + lo : in + lo + sh;
        float* __restrict to = Scatter ? acc + lo + sh : acc + lo;
        for (int64_t i = 0; i < hi - lo; ++i) to[i] += wk * from[i];
      } else if constexpr (Scatter) {
        for (int64_t o = lo; o < hi; ++o) acc[o * row.stride + sh] += wk * in[o];
      } else {
        for (int64_t o = lo; o < hi; ++o) acc[o] += wk * in[o * row.stride + sh];
      }
    }
    store(acc, dst_len, dst + r * dst_len);
  });
}

// Per channel (so each thread owns its channels' sums and the result does not depend on the
// thread count): gw[c, k] = sum over batch and outputs of gy * shifted x; gb[c] = sum of gy.
template <typename T>
void backward_weight_rows(const T* x, const T* gy, T* gw, T* gb, const ConvGeometry& g) {
  const Row row(g);
  const int64_t C = g.in_channels;
  for_each_row(C, g.batch * row.out * row.taps, [&](int64_t c, auto& xs, auto& gys) {
    std::vector<double> wsum(size_t(row.taps), 0.0);
    double bsum = 0.0;
    for (int64_t n = 0; n < g.batch; ++n) {
      const int64_t r = n * C + c;
      const float* xr = as_float(x + r * row.in, row.in, xs);
      const float* gyr = as_float(gy + r * row.out, row.out, gys);
      for (int64_t k = 0; k < row.taps; ++k) {
        const int64_t lo = row.lo(k), hi = row.hi(k), sh = row.shift(k);
        float dot = 0.f;
        if (row.stride == 1) {
#pragma omp simd reduction(+ : dot)
          for (int64_t o = lo; o < hi; ++o) dot += gyr[o] * xr[o + sh];
        } else {
          for (int64_t o = lo; o < hi; ++o) dot += gyr[o] * xr[o * row.stride + sh];
        }
        wsum[size_t(k)] += dot;
      }
      if (gb) {
        float s = 0.f;
#pragma omp simd reduction(+ : s)
        for (int64_t o = 0; o < row.out; ++o) s += gyr[o];
        bsum += s;
      }
    }
    for (int64_t k = 0; k < row.taps; ++k) gw[c * row.taps + k] = T(float(wsum[size_t(k)]));
    if (gb) gb[c] = T(float(bsum));
  });
}

template <typename Fn>
void by_dtype(DType dt, const Fn& fn) {
  if (dt == DType::Float32)
    fn(float{});
  else
    fn(BFloat16{});
}

}  // namespace

Tensor conv_forward_depthwise1d(const Tensor& x, const Tensor& w, const Tensor& b,
                                const ConvGeometry& g) {
  Tensor y = empty(g.output_shape(), TensorOptions(g.dtype));
  by_dtype(g.dtype, [&](auto tag) {
    using T = decltype(tag);
    tap_rows<false, T>(x.data<T>(), w.data<T>(), b.defined() ? b.data<T>() : nullptr, y.data<T>(),
                       g);
  });
  return y;
}

Tensor conv_backward_data_depthwise1d(const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  Tensor gx = empty(g.input_shape(), TensorOptions(g.dtype));
  by_dtype(g.dtype, [&](auto tag) {
    using T = decltype(tag);
    tap_rows<true, T>(gy.data<T>(), w.data<T>(), nullptr, gx.data<T>(), g);
  });
  return gx;
}

std::pair<Tensor, Tensor> conv_backward_weight_depthwise1d(const Tensor& x, const Tensor& gy,
                                                           const ConvGeometry& g, bool with_bias) {
  Tensor gw = empty(g.weight_shape(), TensorOptions(g.dtype));
  Tensor gb = with_bias ? empty({g.out_channels}, TensorOptions(g.dtype)) : Tensor();
  by_dtype(g.dtype, [&](auto tag) {
    using T = decltype(tag);
    backward_weight_rows<T>(x.data<T>(), gy.data<T>(), gw.data<T>(),
                            with_bias ? gb.data<T>() : nullptr, g);
  });
  return {gw, gb};
}

}  // namespace tc::nn::detail
