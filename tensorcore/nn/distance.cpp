// tc::nn::functional's normalize, cosine_similarity, pairwise_distance and pdist (core-op
// composites, so autograd comes from the core ops).
#include <algorithm>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/core/tensor_iter.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::functional {

Tensor normalize(const Tensor& x, double p, int64_t dim, double eps) {
  const int64_t d = wrap_dim(dim, x.dim(), "normalize");
  return div(x, expand_as(clamp(norm(x, p, {d}, true), Scalar(eps), std::nullopt), x));
}
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  TC_AUTOCAST("cosine_similarity", cosine_similarity, x1, x2, dim, eps);
  Shape shape = broadcast_shapes(x1.sizes(), x2.sizes(), "cosine_similarity");
  Tensor a = expand(x1, shape), b = expand(x2, shape);
  const int64_t d = wrap_dim(dim, int64_t(shape.size()), "cosine_similarity");
  Tensor na = clamp(norm(a, 2.0, {d}, true), Scalar(eps), std::nullopt);
  Tensor nb = clamp(norm(b, 2.0, {d}, true), Scalar(eps), std::nullopt);
  return sum(mul(div(a, na), div(b, nb)), {d});
}
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  broadcast_shapes(x1.sizes(), x2.sizes(), "pairwise_distance");
  const int64_t nd = std::max(x1.dim(), x2.dim());
  return norm(add(sub(x1, x2), eps), p, {nd > 0 ? -1 : 0}, keepdim);
}

Tensor pdist(const Tensor& input, double p) {
  TC_AUTOCAST("pdist", pdist, input, p);
  TC_CHECK(input.defined() && input.dim() == 2, "pdist: expected a 2-D input, got shape ",
           input.defined() ? shape_str(input.sizes()) : std::string("None"));
  TC_CHECK(p >= 0, "pdist: only supports non-negative p values, got ", p);  // NaN fails too
  TC_CHECK_TYPE(input.is_floating_point(), "pdist: only supports floating-point dtypes, got ",
                dtype_name(input.dtype()));
  const int64_t n = input.size(0);
  if (n < 2) return empty({0}, TensorOptions(input.dtype()).device(input.device()));
  // Row and column of each upper-triangle pair, row by row.
  std::vector<int64_t> rows, cols;
  rows.reserve(size_t(n * (n - 1) / 2));
  cols.reserve(rows.capacity());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      rows.push_back(i);
      cols.push_back(j);
    }
  const int64_t m = int64_t(rows.size());
  Tensor ri = to_device(from_vector(rows, {m}), input.device());
  Tensor ci = to_device(from_vector(cols, {m}), input.device());
  return norm(sub(index_select(input, 0, ri), index_select(input, 0, ci)), p, {1}, false);
}

}  // namespace tc::nn::functional
