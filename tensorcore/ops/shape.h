#pragma once
// Views and shape manipulation. Views share storage with their input.
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc {

Tensor as_strided(const Tensor& a, const Shape& sizes, const Shape& strides, int64_t offset);
// In place: a itself takes the geometry (not for tensors that require grad).
Tensor& as_strided_(Tensor& a, const Shape& sizes, const Shape& strides, int64_t offset);
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
// torch's Tensor.view(dtype): the same bytes read as another dtype (no copy, not differentiable).
// Different element sizes need a unit-stride last dim, which is rescaled.
Tensor view(const Tensor& a, DType dtype);
// A view of a's memory in a dtype of the same scalars (complex <-> its real type), remembering
// a's base like the other views, so in-place ops on it rewrite the base's autograd history.
// Used by real, imag, view_as_real and view_as_complex.
Tensor scalar_view(const Tensor& a, Shape sizes, Shape strides, int64_t offset, DType dtype);
// Resolves a single -1 in `sizes` against numel.
Shape infer_size(Shape sizes, int64_t numel);

}  // namespace tc

// ---- joining, splitting and rearranging (shape_ops.cpp) ----
namespace tc {

// Inputs promote to a common dtype; 1-d empty tensors (shape [0]) are skipped (torch's legacy
// rule).
Tensor cat(const TensorList& tensors, int64_t dim = 0);
inline Tensor concat(const TensorList& tensors, int64_t dim = 0) { return cat(tensors, dim); }
Tensor stack(const TensorList& tensors, int64_t dim = 0);
Tensor hstack(const TensorList& tensors);
Tensor vstack(const TensorList& tensors);
Tensor atleast_1d(const Tensor& a);
Tensor atleast_2d(const Tensor& a);
// Views: pieces of `split_size` (last one smaller) or of the given sizes.
TensorList split(const Tensor& a, int64_t split_size, int64_t dim = 0);
TensorList split_with_sizes(const Tensor& a, const Shape& sizes, int64_t dim = 0);
TensorList chunk(const Tensor& a, int64_t chunks, int64_t dim = 0);
TensorList unbind(const Tensor& a, int64_t dim = 0);
Tensor flip(const Tensor& a, const std::vector<int64_t>& dims);
Tensor fliplr(const Tensor& a);
Tensor flipud(const Tensor& a);
// No dims: roll the flattened tensor and restore the shape.
Tensor roll(const Tensor& a, const std::vector<int64_t>& shifts,
            const std::vector<int64_t>& dims = {});
Tensor repeat(const Tensor& a, const Shape& repeats);
Tensor tile(const Tensor& a, const Shape& reps);
Tensor movedim(const Tensor& a, const std::vector<int64_t>& source,
               const std::vector<int64_t>& destination);
inline Tensor moveaxis(const Tensor& a, const std::vector<int64_t>& s,
                       const std::vector<int64_t>& d) {
  return movedim(a, s, d);
}
Tensor diagonal(const Tensor& a, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);  // view
Tensor diag(const Tensor& a, int64_t diagonal = 0);
Tensor tril(const Tensor& a, int64_t diagonal = 0);
Tensor triu(const Tensor& a, int64_t diagonal = 0);
Tensor unflatten(const Tensor& a, int64_t dim, const Shape& sizes);
Tensor squeeze(const Tensor& a, const std::vector<int64_t>& dims);

}  // namespace tc
