// tc::nn::functional::linear and bilinear: GEMM-shaped contractions (addmm / matmul / bmm).
#include "tensorcore/amp/autocast.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::functional {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  TC_AUTOCAST("linear", linear, x, weight, bias);
  TC_CHECK(x.defined() && weight.defined(), "linear: input and weight must be tensors");
  TC_CHECK(x.dim() >= 1, "linear: expected input with at least 1 dimension, got a 0-d tensor");
  // (the message names only shapes: size(-1) of a 0-d weight does not exist)
  TC_CHECK((weight.dim() == 1 || weight.dim() == 2) && x.size(-1) == weight.size(-1),
           "linear: expected weight of shape [out_features, ", x.size(-1), "] or [", x.size(-1),
           "] for input of size ", shape_str(x.sizes()), ", but got weight of size ",
           shape_str(weight.sizes()));
  if (weight.dim() == 1) {
    Tensor y = matmul(x, weight);
    return bias.defined() ? add(y, bias) : y;
  }
  if (x.dim() == 2 && bias.defined()) return addmm(bias, x, t(weight));
  Tensor y = matmul(x, t(weight));
  return bias.defined() ? add(y, bias) : y;
}

Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& weight, const Tensor& bias) {
  TC_AUTOCAST_NATIVE("bilinear", bilinear, x1, x2, weight, bias);
  TC_CHECK(x1.dim() >= 1 && x2.dim() == x1.dim() &&
               Shape(x1.sizes().begin(), x1.sizes().end() - 1) ==
                   Shape(x2.sizes().begin(), x2.sizes().end() - 1),
           "bilinear: input1 and input2 must have the same leading dimensions, got ",
           shape_str(x1.sizes()), " and ", shape_str(x2.sizes()));
  TC_CHECK(weight.dim() == 3 && weight.size(1) == x1.size(-1) && weight.size(2) == x2.size(-1),
           "bilinear: expected weight of shape [out, ", x1.size(-1), ", ", x2.size(-1),
           "], but got ", shape_str(weight.sizes()));
  const int64_t O = weight.size(0), I = weight.size(1), J = weight.size(2);
  TC_CHECK(!bias.defined() || bias.sizes() == Shape{O}, "bilinear: expected bias of shape [", O,
           "], but got ", shape_str(bias.sizes()));
  Shape lead(x1.sizes().begin(), x1.sizes().end() - 1);
  Tensor a = reshape(x1, {-1, I}), b = reshape(x2, {-1, J});
  // (B, I) @ (I, O*J) -> (B, O, J), then contract J with x2 as one batched matrix-vector product.
  Tensor tmp = reshape(matmul(a, reshape(permute(weight, {1, 0, 2}), {I, O * J})), {-1, O, J});
  Tensor out = squeeze(bmm(tmp, unsqueeze(b, 2)), 2);
  if (bias.defined()) out = add(out, bias);
  lead.push_back(O);
  return reshape(out, lead);
}

}  // namespace tc::nn::functional
