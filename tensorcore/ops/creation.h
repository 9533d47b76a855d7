#pragma once
// Tensor factories (torch.empty, zeros, arange, ...).
#include <optional>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/options.h"

namespace tc {

Tensor empty(const Shape& sizes, TensorOptions opts = {});
Tensor empty_strided(const Shape& sizes, const Shape& strides, TensorOptions opts = {});
Tensor zeros(const Shape& sizes, TensorOptions opts = {});
Tensor ones(const Shape& sizes, TensorOptions opts = {});
Tensor full(const Shape& sizes, const Scalar& value, std::optional<TensorOptions> opts = {});
Tensor empty_like(const Tensor& t, std::optional<TensorOptions> opts = {});
Tensor zeros_like(const Tensor& t, std::optional<TensorOptions> opts = {});
Tensor ones_like(const Tensor& t, std::optional<TensorOptions> opts = {});
Tensor full_like(const Tensor& t, const Scalar& value, std::optional<TensorOptions> opts = {});
// A 0-dim tensor; `wrapped` marks a Python number (lower promotion priority).
Tensor scalar_tensor(const Scalar& value, std::optional<DType> dtype = {}, Device device = {},
                     bool wrapped = false);
// arange(start, end, step): dtype inferred like torch (int64 if all integral, else default float).
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
              std::optional<TensorOptions> opts = {});
Tensor arange(const Scalar& end, std::optional<TensorOptions> opts = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions opts = {});
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                TensorOptions opts = {});
Tensor eye(int64_t n, std::optional<int64_t> m = {}, TensorOptions opts = {});
// From flat host data (C++ convenience for tc::tensor({1, 2, 3})).
template <typename T>
Tensor from_vector(const std::vector<T>& data, const Shape& sizes,
                   TensorOptions opts = TensorOptions(dtype_of_v<T>));
template <typename T>
Tensor tensor(std::initializer_list<T> data) {
  return from_vector(std::vector<T>(data), {int64_t(data.size())}, TensorOptions(dtype_of_v<T>));
}
Tensor fill_(Tensor& t, const Scalar& value);
inline const Tensor& fill_(const Tensor& t, const Scalar& value) {
  Tensor x = t;
  fill_(x, value);
  return t;
}
Tensor zero_(Tensor& t);

}  // namespace tc

namespace tc {
template <typename T>
Tensor from_vector(const std::vector<T>& data, const Shape& sizes, TensorOptions opts) {
  TC_CHECK(int64_t(data.size()) == shape_numel(sizes), "from_vector: ", data.size(),
           " values do not fill shape ", shape_str(sizes));
  Tensor host = empty(sizes, TensorOptions(dtype_of_v<T>));
  T* dst = host.data<T>();
  for (size_t i = 0; i < data.size(); ++i) dst[i] = data[i];
  Tensor out = to(host, opts.device_, opts.dtype_);
  if (opts.requires_grad_) out.requires_grad_(true);
  return out;
}
}  // namespace tc
