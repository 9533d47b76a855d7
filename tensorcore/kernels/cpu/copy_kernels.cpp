// Copy with dtype conversion, and fill.
#include <cstring>

#include "tensorcore/core/convert.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/kernels/cpu/loops.h"
#include "tensorcore/ops/kernel_tables.h"

namespace tc {
namespace {

void copy_cpu(TensorIter& iter) {
  DType dst = iter.output_dtype(), src = iter.input_dtype(0);
  if (dst == src && iter.is_contiguous()) {
    size_t item = itemsize(dst);
    char* out = static_cast<char*>(iter.output().data_ptr());
    const char* in = static_cast<const char*>(iter.input(0).data_ptr());
    parallel_for(0, iter.numel(), 1 << 18, [&](int64_t b, int64_t e) {
      std::memcpy(out + b * item, in + b * item, size_t(e - b) * item);
    });
    return;
  }
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
    if constexpr (is_reduced_float_v<T>) v = T(value.to<float>());
    else v = value.to<T>();
    if (t.is_contiguous()) {
      T* p = static_cast<T*>(t.data_ptr());
      parallel_for(0, t.numel(), 1 << 16, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) p[i] = v;
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
