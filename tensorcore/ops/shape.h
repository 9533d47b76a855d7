#pragma once
// Views and shape manipulation. Views share storage with their input.
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc {

Tensor as_strided(const Tensor& a, const Shape& sizes, const Shape& strides, int64_t offset);
Tensor view(const Tensor& a, Shape sizes);  // one size may be -1
Tensor reshape(const Tensor& a, Shape sizes);
Tensor expand(const Tensor& a, const Shape& sizes);  // -1 keeps a size
Tensor expand_as(const Tensor& a, const Tensor& other);
Tensor broadcast_to(const Tensor& a, const Shape& sizes);
Tensor permute(const Tensor& a, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& a, int64_t d0, int64_t d1);
Tensor t(const Tensor& a);
Tensor unsqueeze(const Tensor& a, int64_t dim);
Tensor squeeze(const Tensor& a);
Tensor squeeze(const Tensor& a, int64_t dim);
Tensor flatten(const Tensor& a, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor select(const Tensor& a, int64_t dim, int64_t index);
Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length);
// Basic slicing a[start:end:step] along dim (end clamped; step > 0).
Tensor slice(const Tensor& a, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
// Resolves a single -1 in `sizes` against numel.
Shape infer_size(Shape sizes, int64_t numel);

}  // namespace tc
