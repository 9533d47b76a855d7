// CPU kernels for indexing: offsets from index tensors, gather/scatter through offsets, masked
// fill, nonzero, tril/triu. Data movement dispatches on element size (1/2/4/8/16 bytes).
#include <cmath>
#include <cstring>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/tensor_iter.h"
#include "tensorcore/kernels/itemsize_dispatch.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/index_kernels.h"

namespace tc {
namespace {

void index_offsets_cpu(const Tensor& out, const TensorList& idx, const Shape& sizes,
                       const Shape& strides, const Shape& dims) {
  int64_t n = out.numel();
  int64_t* o = out.data<int64_t>();
  std::memset(o, 0, size_t(n) * sizeof(int64_t));
  for (size_t k = 0; k < idx.size(); ++k) {
    const int64_t* p = idx[k].data<int64_t>();
    int64_t size = sizes[k], stride = strides[k];
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = p[i];
      if (__builtin_expect(v < -size || v >= size, 0))
        throw IndexError(detail::concat("index ", v, " is out of bounds for dimension ", dims[k],
                                        " with size ", size));
      if (v < 0) v += size;
      o[i] += v * stride;
    }
  }
}

void index_gather_cpu(TensorIter& iter) {
  dispatch_itemsize(iter.output().itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    iter.for_each([](char** data, const int64_t* s, int64_t n) {
      char* out = data[0];
      const char* src = data[1];
      const char* off = data[2];
      for (int64_t i = 0; i < n; ++i) {
        int64_t o = *reinterpret_cast<const int64_t*>(off + i * s[2]);
        std::memcpy(out + i * s[0], src + i * s[1] + o * int64_t(sizeof(T)), sizeof(T));
      }
    });
  });
}

template <typename T, typename Op>
void scatter_loop(TensorIter& iter, Op op) {
  iter.serial_for_each(
      [&](char** data, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          int64_t o = *reinterpret_cast<const int64_t*>(data[2] + i * s[2]);
          T* d = reinterpret_cast<T*>(data[0] + i * s[0] + o * int64_t(sizeof(T)));
          const T v = *reinterpret_cast<const T*>(data[1] + i * s[1]);
          op(*d, v);
        }
      },
      0, iter.numel());
}

template <typename T>
bool is_nan(const T& v) {
  if constexpr (is_floating_v<T>)
    return std::isnan(float(opmath_t<T>(v)));
  else
    return false;
}

void index_scatter_cpu(TensorIter& iter, ScatterMode mode) {
  if (iter.numel() == 0) return;
  DType dt = iter.output().dtype();
  if (mode == ScatterMode::Assign) {
    dispatch_itemsize(itemsize(dt), [&](auto tag) {
      using T = typename decltype(tag)::type;
      scatter_loop<T>(iter, [](T& d, const T& v) { d = v; });
    });
    return;
  }
  if (mode == ScatterMode::Add || mode == ScatterMode::Mul) {
    dispatch_dtype<kAllTypes>(dt, "scatter", [&](auto tag) {
      using T = typename decltype(tag)::type;
      using O = opmath_t<T>;
      if constexpr (std::is_same_v<T, bool>) {
        if (mode == ScatterMode::Add)
          scatter_loop<T>(iter, [](T& d, const T& v) { d = d || v; });
        else
          scatter_loop<T>(iter, [](T& d, const T& v) { d = d && v; });
      } else if (mode == ScatterMode::Add) {
        scatter_loop<T>(iter, [](T& d, const T& v) { d = T(O(d) + O(v)); });
      } else {
        scatter_loop<T>(iter, [](T& d, const T& v) { d = T(O(d) * O(v)); });
      }
    });
    return;
  }
  dispatch_dtype<kAllReal>(dt, "scatter (amax/amin)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using O = opmath_t<T>;
    if (mode == ScatterMode::Max)
      scatter_loop<T>(iter, [](T& d, const T& v) {
        if (is_nan(v) || O(v) > O(d)) d = v;
      });
    else
      scatter_loop<T>(iter, [](T& d, const T& v) {
        if (is_nan(v) || O(v) < O(d)) d = v;
      });
  });
}

void masked_fill_cpu(TensorIter& iter, const Tensor& value) {
  dispatch_itemsize(iter.output().itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, value.data_ptr(), sizeof(T));
    iter.for_each([v](char** data, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        if (*reinterpret_cast<const bool*>(data[1] + i * s[1]))
          std::memcpy(data[0] + i * s[0], &v, sizeof(T));
    });
  });
}

Tensor nonzero_cpu(const Tensor& mask) {
  const bool* p = mask.data<bool>();
  int64_t n = mask.numel(), nd = mask.dim(), count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i];
  Tensor out = empty({count, nd}, TensorOptions(DType::Int64));
  int64_t* o = out.data<int64_t>();
  Shape coord(size_t(nd), 0);
  const Shape& sizes = mask.sizes();
  for (int64_t i = 0; i < n; ++i) {
    if (p[i]) {
      for (int64_t d = 0; d < nd; ++d) *o++ = coord[d];
    }
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++coord[d] < sizes[d]) break;
      coord[d] = 0;
    }
  }
  return out;
}

void tri_cpu(const Tensor& out, const Tensor& in, int64_t k, bool lower) {
  int64_t nd = in.dim();
  int64_t R = in.sizes()[nd - 2], C = in.sizes()[nd - 1];
  int64_t batch = R * C == 0 ? 0 : in.numel() / (R * C);
  size_t is = in.itemsize();
  const char* src = static_cast<const char*>(in.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < R; ++i) {
      size_t row = size_t((b * R + i) * C) * is;
      // keep columns [c0, c1)
      int64_t c0 = lower ? 0 : std::clamp<int64_t>(i + k, 0, C);
      int64_t c1 = lower ? std::clamp<int64_t>(i + k + 1, 0, C) : C;
      if (dst != src) std::memcpy(dst + row + c0 * is, src + row + c0 * is, size_t(c1 - c0) * is);
      std::memset(dst + row, 0, size_t(c0) * is);
      std::memset(dst + row + c1 * is, 0, size_t(C - c1) * is);
    }
  }
}

void div_count_cpu(const Tensor& out, const Tensor& count) {
  dispatch_dtype<kAllTypes & ~kBoolSet>(out.dtype(), "scatter_reduce (mean)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using O = opmath_t<T>;
    T* o = out.data<T>();
    const T* c = count.data<T>();
    for (int64_t i = 0, n = out.numel(); i < n; ++i) {
      if (O(c[i]) == O(0)) continue;
      if constexpr (std::is_integral_v<T>) {
        T q = T(o[i] / c[i]);
        if ((o[i] % c[i] != 0) && ((o[i] < 0) != (c[i] < 0))) --q;
        o[i] = q;
      } else {
        o[i] = T(O(o[i]) / O(c[i]));
      }
    }
  });
}

}  // namespace

TC_REGISTER_KERNEL(index_offsets_kernel, CPU, index_offsets_cpu);
TC_REGISTER_KERNEL(index_gather_kernel, CPU, index_gather_cpu);
TC_REGISTER_KERNEL(index_scatter_kernel, CPU, index_scatter_cpu);
TC_REGISTER_KERNEL(masked_fill_kernel, CPU, masked_fill_cpu);
TC_REGISTER_KERNEL(nonzero_kernel, CPU, nonzero_cpu);
TC_REGISTER_KERNEL(tri_kernel, CPU, tri_cpu);
TC_REGISTER_KERNEL(div_count_kernel, CPU, div_count_cpu);

}  // namespace tc
