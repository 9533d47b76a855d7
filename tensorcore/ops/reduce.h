#pragma once
// Reductions (torch names: dim is an int or a list, keepdim, dtype).
#include <optional>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc {

using DimList = std::vector<int64_t>;

// An empty `dims` reduces over every dimension.
Tensor sum(const Tensor& a, const DimList& dims = {}, bool keepdim = false,
           std::optional<DType> dtype = {});
Tensor mean(const Tensor& a, const DimList& dims = {}, bool keepdim = false,
            std::optional<DType> dtype = {});
// Sums a broadcast result back down to `shape` (vjp of broadcasting).
Tensor sum_to_size(const Tensor& a, const Shape& shape);

}  // namespace tc
