// Copy with dtype conversion, and fill.
#include <algorithm>
#include <cstring>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "tensorcore/core/convert.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/kernels/cpu/half_vec.h"
#include "tensorcore/kernels/cpu/loops.h"
#include "tensorcore/ops/kernel_tables.h"

namespace tc {
namespace {

// Element-sized trivially copyable stand-ins so one template per size covers every dtype.
template <size_t N>
struct Bytes {
  unsigned char b[N];
};

template <typename E>
inline void scalar_row(char* out, int64_t out_row, const char* in, int64_t in_col, int64_t i,
                       int64_t j0, int64_t j1) {
  E* o = reinterpret_cast<E*>(out + i * out_row);
  for (int64_t j = j0; j < j1; ++j)
    o[j] = *reinterpret_cast<const E*>(in + j * in_col + i * int64_t(sizeof(E)));
}

#if defined(__AVX2__)
// Output rows i..i+7, columns j..j+7: load 8 input rows (unit stride along i), transpose in
// registers (unpack, shuffle, 128-bit lane swap), store 8 output rows.
inline void transpose8x8_f32(char* out, int64_t out_row, const char* in, int64_t in_col, int64_t i,
                             int64_t j) {
  __m256 r[8], t[8];
  for (int b = 0; b < 8; ++b)
    r[b] = _mm256_loadu_ps(reinterpret_cast<const float*>(in + (j + b) * in_col) + i);
  for (int b = 0; b < 8; b += 2) {
    t[b] = _mm256_unpacklo_ps(r[b], r[b + 1]);
    t[b + 1] = _mm256_unpackhi_ps(r[b], r[b + 1]);
  }
  for (int h = 0; h < 8; h += 4) {
    r[h] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[h + 2] = _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[h + 3] = _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int a = 0; a < 4; ++a) {
    t[a] = _mm256_permute2f128_ps(r[a], r[a + 4], 0x20);
    t[a + 4] = _mm256_permute2f128_ps(r[a], r[a + 4], 0x31);
  }
  for (int a = 0; a < 8; ++a)
    _mm256_storeu_ps(reinterpret_cast<float*>(out + (i + a) * out_row) + j, t[a]);
}
#endif

// out[i][j] = in[j][i] for an (rows x cols) plane, both sides unit-stride in opposite dims:
// square tiles keep both the read and the write streams inside a few cache lines per row.
template <typename E>
void transpose_plane(char* out, int64_t out_row, const char* in, int64_t in_col, int64_t rows,
                     int64_t cols, int64_t row_begin, int64_t row_end) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = row_begin; i0 < row_end; i0 += kTile) {
    int64_t i1 = std::min(row_end, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      int64_t j1 = std::min(cols, j0 + kTile);
      int64_t i_vec = i0, j_vec = j0;
#if defined(__AVX2__)
      if constexpr (sizeof(E) == 4) {
        // Full 8x8 sub-tiles through registers; the ragged edges go through the scalar loop.
        int64_t ie = i0 + (i1 - i0) / 8 * 8, je = j0 + (j1 - j0) / 8 * 8;
        for (int64_t i = i0; i < ie; i += 8)
          for (int64_t j = j0; j < je; j += 8) transpose8x8_f32(out, out_row, in, in_col, i, j);
        for (int64_t i = i0; i < ie; ++i) scalar_row<E>(out, out_row, in, in_col, i, je, j1);
        i_vec = ie;
      }
#endif
      for (int64_t i = i_vec; i < i1; ++i) scalar_row<E>(out, out_row, in, in_col, i, j_vec, j1);
    }
  }
  (void)rows;
}

// Same-dtype copy whose coalesced iteration has the output contiguous along dim 0 and the input
// contiguous along dim 1 (a transposed view made contiguous, or the reverse): blocked transpose.
bool try_transpose_copy(TensorIter& iter) {
  if (iter.ndim() < 2) return false;
  const int64_t item = int64_t(itemsize(iter.output_dtype()));
  if (item != 1 && item != 2 && item != 4 && item != 8 && item != 16) return false;
  const Shape& shape = iter.iter_shape();  // innermost first
  // c: the dim along which the output is unit-stride; the input must be unit-stride along r.
  int c = 0, r = 1;
  if (!(iter.iter_stride(0, 0) == item && iter.iter_stride(1, 1) == item)) {
    if (!(iter.iter_stride(1, 0) == item && iter.iter_stride(0, 1) == item)) return false;
    c = 1, r = 0;
  }
  const int64_t cols = shape[size_t(c)], rows = shape[size_t(r)];
  if (cols < 8 || rows < 8) return false;
  const int64_t out_row = iter.iter_stride(r, 0), in_col = iter.iter_stride(c, 1);
  // Outer dims (if any) are walked plane by plane.
  int64_t planes = 1;
  for (int d = 2; d < iter.ndim(); ++d) planes *= shape[size_t(d)];
  char* out0 = static_cast<char*>(iter.output().data_ptr());
  const char* in0 = static_cast<const char*>(iter.input(0).data_ptr());
  auto plane_offsets = [&](int64_t p, int64_t& oo, int64_t& io) {
    oo = io = 0;
    for (int d = 2; d < iter.ndim(); ++d) {
      int64_t idx = p % shape[size_t(d)];
      p /= shape[size_t(d)];
      oo += idx * iter.iter_stride(d, 0);
      io += idx * iter.iter_stride(d, 1);
    }
  };
  auto run = [&](auto tag) {
    using E = typename decltype(tag)::type;
    // Work items: (plane, block of 32 output rows).
    const int64_t row_blocks = (rows + 31) / 32;
    parallel_for(0, planes * row_blocks, std::max<int64_t>(1, 65536 / (32 * cols)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t w = b; w < e; ++w) {
                     int64_t p = w / row_blocks, r0 = (w % row_blocks) * 32;
                     int64_t oo, io;
                     plane_offsets(p, oo, io);
                     transpose_plane<E>(out0 + oo, out_row, in0 + io, in_col, rows, cols, r0,
                                        std::min(rows, r0 + 32));
                   }
                 });
  };
  struct T1 {
    using type = uint8_t;
  };
  struct T2 {
    using type = uint16_t;
  };
  struct T4 {
    using type = uint32_t;
  };
  struct T8 {
    using type = uint64_t;
  };
  struct T16 {
    using type = Bytes<16>;
  };
  switch (item) {
    case 1:
      run(T1{});
      break;
    case 2:
      run(T2{});
      break;
    case 4:
      run(T4{});
      break;
    case 8:
      run(T8{});
      break;
    default:
      run(T16{});
      break;
  }
  return true;
}

// float32 <-> float16/bfloat16 (autocast's casts): unit-stride inner runs go through the vector
// conversions (same bits as the scalar conversions), other runs element by element.
template <typename D, typename S>
void half_float_copy(TensorIter& iter) {
  iter.for_each([](char** data, const int64_t* strides, int64_t n) {
    D* out = reinterpret_cast<D*>(data[0]);
    const S* in = reinterpret_cast<const S*>(data[1]);
    if (strides[0] == int64_t(sizeof(D)) && strides[1] == int64_t(sizeof(S))) {
      if constexpr (std::is_same_v<S, float>)
        half_vec::narrow(in, out, n);
      else
        half_vec::widen(in, out, n);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      const S v = *reinterpret_cast<const S*>(data[1] + i * strides[1]);
      D& o = *reinterpret_cast<D*>(data[0] + i * strides[0]);
      if constexpr (std::is_same_v<S, float>)
        o = half_vec::from_float<D>(v);
      else
        o = half_vec::to_float(v);
    }
  });
}

bool try_half_float_copy(TensorIter& iter, DType dst, DType src) {
  if (src == DType::Float32 && dst == DType::BFloat16)
    half_float_copy<BFloat16, float>(iter);
  else if (src == DType::Float32 && dst == DType::Float16)
    half_float_copy<Half, float>(iter);
  else if (src == DType::BFloat16 && dst == DType::Float32)
    half_float_copy<float, BFloat16>(iter);
  else if (src == DType::Float16 && dst == DType::Float32)
    half_float_copy<float, Half>(iter);
  else
    return false;
  return true;
}

void copy_cpu(TensorIter& iter) {
  DType dst = iter.output_dtype(), src = iter.input_dtype(0);
  if (dst == src && !iter.is_contiguous() && try_transpose_copy(iter)) return;
  if (dst == src && iter.is_contiguous()) {
    size_t item = itemsize(dst);
    char* out = static_cast<char*>(iter.output().data_ptr());
    const char* in = static_cast<const char*>(iter.input(0).data_ptr());
    parallel_for(0, iter.numel(), 1 << 18, [&](int64_t b, int64_t e) {
      std::memcpy(out + b * item, in + b * item, size_t(e - b) * item);
    });
    return;
  }
  if (try_half_float_copy(iter, dst, src)) return;
  dispatch_dtype<kAllTypes>(dst, "copy_", [&](auto dst_tag) {
    using D = typename decltype(dst_tag)::type;
    dispatch_dtype<kAllTypes>(src, "copy_", [&](auto src_tag) {
      using S = typename decltype(src_tag)::type;
      cpu_kernel(iter, [](S v) -> D { return convert<D>(v); });
    });
  });
}

void fill_cpu(const Tensor& t, const Scalar& value) {
  if (t.numel() == 0) return;
  dispatch_dtype<kAllTypes>(t.dtype(), "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    if constexpr (is_reduced_float_v<T>)
      v = T(value.to<float>());
    else
      v = value.to<T>();
    if (t.is_contiguous()) {
      // Store the value's bit pattern through an integer type of its size (a loop storing the
      // Half/BFloat16 struct was not vectorized); the value is captured by value so the stores
      // cannot alias it.
      char* base = static_cast<char*>(t.data_ptr());
      parallel_for(0, t.numel(), 1 << 16, [&, v](int64_t b, int64_t e) {
        if constexpr (sizeof(T) == 1) {
          std::memset(base + b, int(*reinterpret_cast<const unsigned char*>(&v)), size_t(e - b));
        } else if constexpr (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
          using U = std::conditional_t<sizeof(T) == 2, uint16_t,
                                       std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
          U pattern;
          std::memcpy(&pattern, &v, sizeof(T));
          std::fill(reinterpret_cast<U*>(base) + b, reinterpret_cast<U*>(base) + e, pattern);
        } else {
          T* p = reinterpret_cast<T*>(base);
          const T value = v;
          for (int64_t i = b; i < e; ++i) p[i] = value;
        }
      });
      return;
    }
    TensorIterConfig cfg;
    cfg.op_name = "fill_";
    cfg.promote_inputs = false;
    TensorIter iter(t, {}, cfg);
    iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(data[0] + i * strides[0]) = v;
    });
  });
}

TC_REGISTER_KERNEL(copy_kernel, CPU, copy_cpu);
TC_REGISTER_KERNEL(fill_kernel, CPU, fill_cpu);

}  // namespace
}  // namespace tc
