// tc::nn::functional's normalize, cosine_similarity and pairwise_distance (core-op composites).
#include <algorithm>

#include "tensorcore/core/tensor_iter.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::functional {

Tensor normalize(const Tensor& x, double p, int64_t dim, double eps) {
  const int64_t d = wrap_dim(dim, x.dim(), "normalize");
  return div(x, expand_as(clamp(norm(x, p, {d}, true), Scalar(eps), std::nullopt), x));
}
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
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

}  // namespace tc::nn::functional
