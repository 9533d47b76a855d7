// The hinge and margin losses torch.nn.functional adds to those of loss.cpp: hinge embedding,
// soft margin, multi-label soft margin, multi-class and multi-label margin, and the triplet loss
// with a user distance. Tensor-op composites (autograd and double backward from the core ops);
// messages follow torch 1.13.
#include "tensorcore/amp/autocast.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/loss_util.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn::functional {

using namespace loss_detail;

namespace {

// log(1 + exp(z)) without overflow: max(z, 0) + log1p(exp(-|z|)).
Tensor softplus_stable(const Tensor& z) {
  return add(clamp(z, Scalar(0.0), std::nullopt), log1p(exp(neg(abs(z)))));
}

// [C] -> [1, C] and 0-d -> [1] for the losses that treat a 1-D input as one sample.
std::pair<Tensor, bool> as_batch(const Tensor& t, int64_t batched_dim) {
  if (t.dim() == batched_dim - 1) return {unsqueeze(t, 0), true};
  return {t, false};
}

}  // namespace

Tensor hinge_embedding_loss(const Tensor& x, const Tensor& y, double margin, const std::string& r) {
  TC_AUTOCAST("hinge_embedding_loss", hinge_embedding_loss, x, y, margin, r);
  check_reduction("hinge_embedding_loss", r);
  TC_CHECK(x.defined() && y.defined(), "hinge_embedding_loss: expected defined tensors");
  Tensor zero = scalar_like(0.0, x);
  Tensor margin_part = ::tc::relu(rsub(x, margin));
  Tensor yf = to_dtype(y, x.dtype());
  Tensor loss = add(where(ne(yf, scalar_like(1.0, yf)), margin_part, zero),
                    where(ne(yf, scalar_like(-1.0, yf)), x, zero));
  return reduce(loss, r);
}

Tensor soft_margin_loss(const Tensor& x, const Tensor& y, const std::string& r) {
  TC_AUTOCAST("soft_margin_loss", soft_margin_loss, x, y, r);
  check_reduction("soft_margin_loss", r);
  TC_CHECK(x.defined() && y.defined(), "soft_margin_loss: expected defined tensors");
  return reduce(softplus_stable(neg(mul(y, x))), r);
}

Tensor multilabel_soft_margin_loss(const Tensor& x, const Tensor& y, const Tensor& weight,
                                   const std::string& r) {
  check_reduction("multilabel_soft_margin_loss", r);
  TC_CHECK(x.defined() && y.defined(), "multilabel_soft_margin_loss: expected defined tensors");
  TC_CHECK(x.dim() >= 1,
           "multilabel_soft_margin_loss: input must have a class dim, got a 0-d "
           "tensor");
  // -(y log sigmoid(x) + (1 - y) log sigmoid(-x)) = y softplus(-x) + (1 - y) softplus(x)
  Tensor loss = add(mul(y, softplus_stable(neg(x))), mul(rsub(y, 1.0), softplus_stable(x)));
  if (weight.defined()) loss = mul(loss, weight);
  const int64_t cdim = x.dim() - 1;
  loss = div(sum(loss, {cdim}), double(x.size(cdim)));
  return reduce(loss, r);
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target_in, int64_t p, double margin,
                         const Tensor& weight, const std::string& r) {
  TC_AUTOCAST("multi_margin_loss", multi_margin_loss, input, target_in, p, margin, weight, r);
  check_reduction("multi_margin_loss", r);
  TC_CHECK(p == 1 || p == 2, "multi_margin_loss: only p == 1 and p == 2 supported, got ", p);
  TC_CHECK(input.defined(), "multi_margin_loss: expected a defined input");
  TC_CHECK((input.dim() == 1 && input.numel() > 0) || (input.dim() == 2 && input.size(1) > 0),
           "multi_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch "
           "size, but got: ",
           shape_str(input.sizes()));
  Tensor target = class_indices("multi_margin_loss", target_in);
  auto [x, unbatched] = as_batch(input, 2);
  const int64_t N = x.size(0), C = x.size(1);
  TC_CHECK(target.numel() == N && target.dim() <= 1,
           "multi_margin_loss: inconsistent target size, expected ", N, " but got ",
           shape_str(target.sizes()));
  if (weight.defined())
    TC_CHECK(weight.dim() == 1 && weight.size(0) == C,
             "multi_margin_loss: weight must be one-dimensional with ", C, " entries, got shape ",
             shape_str(weight.sizes()));
  Tensor t = reshape(target, {N});
  if (N > 0)
    TC_CHECK_INDEX(amin(t).item<int64_t>() >= 0 && amax(t).item<int64_t>() < C,
                   "multi_margin_loss: target out of range (classes must be in [0, ", C, "))");
  Tensor picked = gather(x, 1, unsqueeze(t, 1));  // [N, 1]
  Tensor m = ::tc::relu(add(sub(x, picked), margin));
  if (p == 2) m = square(m);
  if (weight.defined()) m = mul(m, unsqueeze(index_select(to_dtype(weight, x.dtype()), 0, t), 1));
  // The target class itself does not count.
  Tensor classes = arange(C, TensorOptions(DType::Int64).device(x.device()));
  Tensor not_target = ne(unsqueeze(classes, 0), unsqueeze(t, 1));
  Tensor loss = div(sum(mul(m, to_dtype(not_target, m.dtype())), {1}), double(C));
  if (unbatched) loss = reshape(loss, {});
  return reduce(loss, r);
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target_in, const std::string& r) {
  TC_AUTOCAST("multilabel_margin_loss", multilabel_margin_loss, input, target_in, r);
  check_reduction("multilabel_margin_loss", r);
  TC_CHECK(input.defined(), "multilabel_margin_loss: expected a defined input");
  TC_CHECK((input.dim() == 1 && input.numel() > 0) || (input.dim() == 2 && input.size(1) > 0),
           "multilabel_margin_loss: Expected non-empty vector or matrix with optional 0-dim "
           "batch size, but got: ",
           shape_str(input.sizes()));
  Tensor target = class_indices("multilabel_margin_loss", target_in);
  TC_CHECK(target.sizes() == input.sizes(),
           "multilabel_margin_loss: inconsistent target size: ", shape_str(target.sizes()),
           " for input of size: ", shape_str(input.sizes()));
  auto [x, unbatched] = as_batch(input, 2);
  Tensor t = unbatched ? unsqueeze(target, 0) : target;
  const int64_t C = x.size(1);
  if (t.numel() > 0)
    TC_CHECK_INDEX(amin(t).item<int64_t>() >= -1 && amax(t).item<int64_t>() < C,
                   "multilabel_margin_loss: target out of range (classes must be in [0, ", C,
                   ") or -1)");
  // Each row's labels are its entries before the first -1.
  Tensor ended =
      gt(cumsum(to_dtype(lt(t, scalar_tensor(int64_t(0), DType::Int64)), DType::Int64), 1),
         scalar_tensor(int64_t(0), DType::Int64));
  Tensor is_label = logical_not(ended);  // [N, C] over label positions
  Tensor safe = where(is_label, t, zeros_like(t));
  Tensor lab_f = to_dtype(is_label, x.dtype());
  // is_target[n, c]: class c is one of row n's labels.
  Tensor is_target = gt(scatter_add(zeros_like(x), 1, safe, lab_f), scalar_like(0.0, x));
  Tensor picked = gather(x, 1, safe);  // [N, P] scores of the labels
  // hinge[n, j, c] = max(0, 1 - (x[n, y_j] - x[n, c])) for labels j and non-target classes c.
  Tensor hinge = ::tc::relu(add(rsub(unsqueeze(picked, 2), 1.0), unsqueeze(x, 1)));
  Tensor mask = mul(unsqueeze(lab_f, 2), unsqueeze(to_dtype(logical_not(is_target), x.dtype()), 1));
  Tensor loss = div(sum(mul(hinge, mask), {1, 2}), double(C));
  if (unbatched) loss = reshape(loss, {});
  return reduce(loss, r);
}

Tensor triplet_margin_with_distance_loss(const Tensor& a, const Tensor& p, const Tensor& n,
                                         const DistanceFunction& distance_function, double margin,
                                         bool swap, const std::string& r) {
  check_reduction("triplet_margin_with_distance_loss", r);
  TC_CHECK(margin > 0,
           "triplet_margin_with_distance_loss: expected margin to be greater than 0, got ", margin,
           " instead");
  check_triplet_dims("triplet_margin_with_distance_loss", a, p, n);
  auto dist = [&](const Tensor& u, const Tensor& v) {
    Tensor d = distance_function ? distance_function(u, v) : pairwise_distance_default(u, v);
    TC_CHECK(d.defined(),
             "triplet_margin_with_distance_loss: distance_function returned no tensor");
    return d;
  };
  Tensor d_pos = dist(a, p), d_neg = dist(a, n);
  if (swap) d_neg = minimum(d_neg, dist(p, n));
  return reduce(::tc::relu(add(sub(d_pos, d_neg), margin)), r);
}

}  // namespace tc::nn::functional
