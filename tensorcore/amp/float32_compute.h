#pragma once
// float16/bfloat16 inputs for kernels written for float32/float64 only (conv, norms, pooling,
// interpolation): the call computes in float32 and its floating outputs are rounded back to the
// input's dtype, so the result dtypes are torch's (whose reduced-precision CPU kernels also
// accumulate in float32). Autocast needs this: on the CPU it hands these ops bfloat16 tensors.
// Tensors the kernel updates in place (batch-norm running stats) are written back.
#include <tuple>
#include <utility>
#include <vector>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/core/tensor.h"
#include "tensorcore/ops/copy.h"

namespace tc::amp {

inline bool is_reduced_float(const Tensor& t) {
  return t.defined() && (t.dtype() == DType::Float16 || t.dtype() == DType::BFloat16);
}

namespace detail {

// Remembers the float32 copies made for reduced-precision arguments, to write back in-place
// updates after the call.
struct Float32Args {
  std::vector<std::pair<Tensor, Tensor>> copies;  // (original, float32 copy)
  std::vector<uint32_t> versions;

  Tensor operator()(const Tensor& t) {
    if (!is_reduced_float(t)) return t;
    Tensor f = to_dtype(t, DType::Float32);
    copies.emplace_back(t, f);
    versions.push_back(f.version());
    return f;
  }
  template <typename T>
  const T& operator()(const T& other) {
    return other;
  }

  void write_back() {
    // Not differentiable (running stats, embedding max_norm renorm), like the kernels' own
    // in-place updates.
    autograd::NoGradGuard no_grad;
    for (size_t i = 0; i < copies.size(); ++i)
      if (copies[i].second.version() != versions[i]) copy_(copies[i].first, copies[i].second);
  }
};

inline Tensor round_back(const Tensor& t, DType dtype) {
  return t.defined() && t.dtype() == DType::Float32 ? to_dtype(t, dtype) : t;
}
inline std::pair<Tensor, Tensor> round_back(const std::pair<Tensor, Tensor>& r, DType dtype) {
  return {round_back(r.first, dtype), round_back(r.second, dtype)};
}
inline std::tuple<Tensor, Tensor, Tensor> round_back(const std::tuple<Tensor, Tensor, Tensor>& r,
                                                     DType dtype) {
  return {round_back(std::get<0>(r), dtype), round_back(std::get<1>(r), dtype),
          round_back(std::get<2>(r), dtype)};
}

template <typename Fn, typename... Args>
auto call_in_float32(DType out_dtype, Fn&& fn, const Args&... args) {
  Float32Args cast;
  auto result = fn(cast(args)...);
  cast.write_back();
  return round_back(result, out_dtype);
}

}  // namespace detail
}  // namespace tc::amp

// First statement of a float32/float64-only kernel entry point: when `dtype_of` (a tensor
// argument) is float16/bfloat16, re-runs `fn` on float32 copies of every reduced-precision tensor
// argument and returns the outputs in dtype_of's dtype. Pass every argument of the op, in order.
#define TC_REDUCED_FLOAT_VIA_FLOAT32(dtype_of, fn, ...)                                     \
  do {                                                                                      \
    if (::tc::amp::is_reduced_float(dtype_of))                                              \
      return ::tc::amp::detail::call_in_float32(                                            \
          (dtype_of).dtype(), [&](const auto&... tc_f32_xs_) { return fn(tc_f32_xs_...); }, \
          __VA_ARGS__);                                                                     \
  } while (0)
