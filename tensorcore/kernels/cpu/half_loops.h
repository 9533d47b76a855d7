#pragma once
// Elementwise loops for float16/bfloat16 tensors that compute in float32. Contiguous (and
// scalar-broadcast) inner runs are processed in chunks: widen to float buffers with vector
// conversions (half_vec.h), run the float loop (which GCC vectorizes), narrow with round to
// nearest even. Each output is computed in float and rounded once, exactly as the scalar
// `T(op(float(a), float(b)))` form, which other layouts still use, so the bits do not depend on
// the layout. The chunks stay in L1 and in-place ops (out == input) are safe: a chunk is read
// before it is written.
#include <algorithm>
#include <type_traits>

#include "tensorcore/core/tensor_iter.h"
#include "tensorcore/kernels/cpu/half_vec.h"

namespace tc {

namespace half_loops {
constexpr int64_t kChunk = 512;
}

// out = op(a, b) with op: (float, float) -> float. An op that also takes (__m256, __m256) (a
// generic lambda with GCC vector arithmetic, e.g. `[](auto x, auto y) { return x + y; }`) runs
// bfloat16 in registers without the chunk buffers.
template <typename T, typename Op>
void cpu_half_binary_kernel(TensorIter& iter, Op op, int64_t grain = 32768) {
  using half_loops::kChunk;
  constexpr int64_t E = int64_t(sizeof(T));
  iter.for_each(
      [&](char** data, const int64_t* s, int64_t n) {
        T* out = reinterpret_cast<T*>(data[0]);
        const T* a = reinterpret_cast<const T*>(data[1]);
        const T* b = reinterpret_cast<const T*>(data[2]);
        const bool a_run = s[1] == E, b_run = s[2] == E;
        if (s[0] != E || !(a_run || s[1] == 0) || !(b_run || s[2] == 0)) {
          for (int64_t i = 0; i < n; ++i) {
            T x = *reinterpret_cast<const T*>(data[1] + i * s[1]);
            T y = *reinterpret_cast<const T*>(data[2] + i * s[2]);
            *reinterpret_cast<T*>(data[0] + i * s[0]) =
                half_vec::from_float<T>(op(half_vec::to_float(x), half_vec::to_float(y)));
          }
          return;
        }
        const float a0 = half_vec::to_float(a[0]), b0 = half_vec::to_float(b[0]);
#if defined(__AVX2__)
        if constexpr (std::is_same_v<T, BFloat16> && requires(Op & f, __m256 v) { f(v, v); }) {
          // bfloat16 widens and narrows cheaply in registers: one pass, no buffers.
          const __m256 va = _mm256_set1_ps(a0), vb = _mm256_set1_ps(b0);
          int64_t i = 0;
          for (; i + 16 <= n; i += 16) {
            __m256 x0 = a_run ? half_vec::load_bf16x8(a + i) : va;
            __m256 x1 = a_run ? half_vec::load_bf16x8(a + i + 8) : va;
            __m256 y0 = b_run ? half_vec::load_bf16x8(b + i) : vb;
            __m256 y1 = b_run ? half_vec::load_bf16x8(b + i + 8) : vb;
            half_vec::store_bf16x16(out + i, op(x0, y0), op(x1, y1));
          }
          for (; i < n; ++i)
            out[i] = half_vec::from_float<T>(
                op(a_run ? half_vec::to_float(a[i]) : a0, b_run ? half_vec::to_float(b[i]) : b0));
          return;
        }
#endif
        float fa[kChunk], fb[kChunk], fo[kChunk];
        for (int64_t off = 0; off < n; off += kChunk) {
          const int64_t len = std::min(kChunk, n - off);
          if (a_run && b_run) {
            half_vec::widen(a + off, fa, len);
            half_vec::widen(b + off, fb, len);
            for (int64_t i = 0; i < len; ++i) fo[i] = op(fa[i], fb[i]);
          } else if (a_run) {
            half_vec::widen(a + off, fa, len);
            for (int64_t i = 0; i < len; ++i) fo[i] = op(fa[i], b0);
          } else if (b_run) {
            half_vec::widen(b + off, fb, len);
            for (int64_t i = 0; i < len; ++i) fo[i] = op(a0, fb[i]);
          } else {
            std::fill_n(fo, len, op(a0, b0));
          }
          half_vec::narrow(fo, out + off, len);
        }
      },
      grain);
}

// out = f(a) where array(const float* in, float* out, n) maps a float run (e.g. vec_math's
// exp_array) and scalar(float) -> float maps one value (strided layouts); both must agree.
template <typename T, typename ArrayFn, typename ScalarFn>
void cpu_half_unary_kernel(TensorIter& iter, ArrayFn array, ScalarFn scalar,
                           int64_t grain = 32768) {
  using half_loops::kChunk;
  constexpr int64_t E = int64_t(sizeof(T));
  iter.for_each(
      [&](char** data, const int64_t* s, int64_t n) {
        if (s[0] != E || s[1] != E) {
          for (int64_t i = 0; i < n; ++i) {
            T x = *reinterpret_cast<const T*>(data[1] + i * s[1]);
            *reinterpret_cast<T*>(data[0] + i * s[0]) =
                half_vec::from_float<T>(scalar(half_vec::to_float(x)));
          }
          return;
        }
        T* out = reinterpret_cast<T*>(data[0]);
        const T* a = reinterpret_cast<const T*>(data[1]);
        float fa[kChunk], fo[kChunk];
        for (int64_t off = 0; off < n; off += kChunk) {
          const int64_t len = std::min(kChunk, n - off);
          half_vec::widen(a + off, fa, len);
          array(static_cast<const float*>(fa), static_cast<float*>(fo), len);
          half_vec::narrow(fo, out + off, len);
        }
      },
      grain);
}

// out = f(a) with f: float -> float, applied per element (the chunk loop vectorizes when f does).
// An f that also takes __m256 (a generic lambda with GCC vector arithmetic) runs contiguous
// bfloat16 in registers without the chunk buffers.
template <typename T, typename F>
void cpu_half_map(TensorIter& iter, F f, int64_t grain = 32768) {
#if defined(__AVX2__)
  if constexpr (std::is_same_v<T, BFloat16> && requires(F & g, __m256 v) { g(v); }) {
    constexpr int64_t E = int64_t(sizeof(T));
    iter.for_each(
        [&](char** data, const int64_t* s, int64_t n) {
          if (s[0] == E && s[1] == E) {
            T* out = reinterpret_cast<T*>(data[0]);
            const T* a = reinterpret_cast<const T*>(data[1]);
            int64_t i = 0;
            for (; i + 16 <= n; i += 16)
              half_vec::store_bf16x16(out + i, f(half_vec::load_bf16x8(a + i)),
                                      f(half_vec::load_bf16x8(a + i + 8)));
            for (; i < n; ++i) out[i] = half_vec::from_float<T>(f(half_vec::to_float(a[i])));
            return;
          }
          for (int64_t i = 0; i < n; ++i) {
            T x = *reinterpret_cast<const T*>(data[1] + i * s[1]);
            *reinterpret_cast<T*>(data[0] + i * s[0]) =
                half_vec::from_float<T>(f(half_vec::to_float(x)));
          }
        },
        grain);
    return;
  }
#endif
  cpu_half_unary_kernel<T>(
      iter,
      [f](const float* in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
      },
      f, grain);
}

}  // namespace tc
