#include "tensorcore/nn/loss.h"

#include "tensorcore/amp/autocast.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {
namespace functional {
namespace {

void check_reduction(const char* op, const std::string& r) {
  TC_CHECK(r == "mean" || r == "sum" || r == "none", op,
           ": reduction must be 'mean', 'sum' or 'none', got '", r, "'");
}

Tensor reduce(const Tensor& loss, const std::string& r) {
  if (r == "sum") return sum(loss);
  if (r == "mean") return mean(loss);
  return loss;
}

// [N, C, *] -> [M, C] with the class dim last; target [N, *] -> [M].
std::pair<Tensor, Tensor> flatten_classes(const char* op, const Tensor& input,
                                          const Tensor& target) {
  TC_CHECK(input.dim() >= 1, op, ": input must have a class dim, got a 0-d tensor");
  TC_CHECK_TYPE(target.dtype() == DType::Int64, op,
                ": expected int64 class indices as target, got ", dtype_name(target.dtype()));
  if (input.dim() == 1) {
    TC_CHECK(target.dim() == 0, op, ": for unbatched input ", shape_str(input.sizes()),
             " expected a 0-d target, got ", shape_str(target.sizes()));
    return {unsqueeze(input, 0), reshape(target, {1})};
  }
  Shape expect = input.sizes();
  expect.erase(expect.begin() + 1);
  TC_CHECK(target.sizes() == expect, op, ": expected target of shape ", shape_str(expect),
           " for input ", shape_str(input.sizes()), ", but got ", shape_str(target.sizes()));
  int64_t C = input.size(1);
  Tensor x = input.dim() == 2 ? input : reshape(movedim(input, {1}, {-1}), {-1, C});
  return {x, reshape(target, {-1})};
}

// Per-element weighted NLL of a [M, C] log-prob matrix, plus the per-element weights.
std::pair<Tensor, Tensor> nll_terms(const char* op, const Tensor& lp, const Tensor& tgt,
                                    const Tensor& weight, int64_t ignore_index) {
  int64_t C = lp.size(1);
  Tensor keep = ne(tgt, scalar_tensor(ignore_index, DType::Int64));
  Tensor safe = where(keep, tgt, zeros_like(tgt));
  TC_CHECK_INDEX(
      safe.numel() == 0 || (amin(safe).item<int64_t>() >= 0 && amax(safe).item<int64_t>() < C), op,
      ": target classes must be in [0, ", C, ") or ignore_index (", ignore_index, ")");
  Tensor picked = squeeze(gather(lp, 1, unsqueeze(safe, 1)), 1);
  Tensor w = to_dtype(keep, lp.dtype());
  if (weight.defined()) {
    TC_CHECK(weight.dim() == 1 && weight.size(0) == C, op, ": weight must have shape [", C,
             "], got ", shape_str(weight.sizes()));
    w = mul(w, index_select(weight, 0, safe));
  }
  return {neg(mul(picked, w)), w};
}

// Class-probability targets (same shape as input): -sum_c w_c q_c log p_c per sample, with
// q = (1 - s) target + s / C; "mean" divides by the number of samples (weights do not), as torch.
Tensor cross_entropy_probs(const Tensor& input, const Tensor& target, const Tensor& weight,
                           const std::string& reduction, double label_smoothing) {
  TC_CHECK(input.dim() >= 1 && target.sizes() == input.sizes(),
           "cross_entropy: expected probability targets of "
           "the input's shape ",
           shape_str(input.sizes()), ", but got ", shape_str(target.sizes()));
  const int64_t cdim = input.dim() == 1 ? 0 : 1, C = input.size(cdim);
  Tensor lp = log_softmax(input, cdim);
  Tensor q = label_smoothing > 0
                 ? add(mul(target, 1 - label_smoothing), label_smoothing / double(C))
                 : target;
  Tensor terms = mul(lp, q);
  if (weight.defined()) {
    TC_CHECK(weight.dim() == 1 && weight.size(0) == C, "cross_entropy: weight must have shape [", C,
             "], got ", shape_str(weight.sizes()));
    Shape ws(size_t(input.dim()), 1);
    ws[size_t(cdim)] = C;
    terms = mul(terms, reshape(weight, ws));
  }
  Tensor loss = neg(sum(terms, {cdim}));
  if (reduction == "sum") return sum(loss);
  if (reduction == "mean")
    return input.dim() == 1 ? loss : div(sum(loss), double(input.numel() / C));
  return loss;
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                int64_t ignore_index, const std::string& reduction) {
  TC_AUTOCAST("nll_loss", nll_loss, input, target, weight, ignore_index, reduction);
  check_reduction("nll_loss", reduction);
  auto [lp, tgt] = flatten_classes("nll_loss", input, target);
  auto [loss, w] = nll_terms("nll_loss", lp, tgt, weight, ignore_index);
  if (reduction == "sum") return sum(loss);
  if (reduction == "mean") return div(sum(loss), sum(w));
  return input.dim() == 1 ? reshape(loss, {}) : reshape(loss, target.sizes());
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                     int64_t ignore_index, const std::string& reduction, double label_smoothing) {
  TC_AUTOCAST("cross_entropy_loss", cross_entropy, input, target, weight, ignore_index, reduction,
              label_smoothing);
  check_reduction("cross_entropy", reduction);
  TC_CHECK(label_smoothing >= 0 && label_smoothing <= 1,
           "cross_entropy: label_smoothing must be in [0, 1], got ", label_smoothing);
  if (is_floating(target.dtype()))
    return cross_entropy_probs(input, target, weight, reduction, label_smoothing);
  if ((input.dtype() == DType::Float32 || input.dtype() == DType::Float64) && input.is_cpu() &&
      target.dtype() == DType::Int64)
    return cross_entropy_fused(input, target, weight, ignore_index, reduction, label_smoothing);
  auto [x, tgt] = flatten_classes("cross_entropy", input, target);
  Tensor lp = log_softmax(x, 1);
  auto [loss, w] = nll_terms("cross_entropy", lp, tgt, weight, ignore_index);
  if (label_smoothing > 0) {
    int64_t C = lp.size(1);
    Tensor keep = to_dtype(ne(tgt, scalar_tensor(ignore_index, DType::Int64)), lp.dtype());
    Tensor weighted = weight.defined() ? mul(lp, unsqueeze(weight, 0)) : lp;
    Tensor smooth = mul(neg(sum(weighted, {1})), keep);
    Tensor nll = loss;
    Tensor s_red, n_red;
    if (reduction == "none") {
      Tensor out = add(mul(nll, 1 - label_smoothing), mul(smooth, label_smoothing / double(C)));
      return input.dim() == 1 ? reshape(out, {}) : reshape(out, target.sizes());
    }
    n_red = sum(nll);
    s_red = sum(smooth);
    if (reduction == "mean") {
      Tensor denom = weight.defined() ? sum(w) : sum(keep);
      n_red = div(n_red, denom);
      s_red = div(s_red, denom);
    }
    return add(mul(n_red, 1 - label_smoothing), mul(s_red, label_smoothing / double(C)));
  }
  if (reduction == "sum") return sum(loss);
  if (reduction == "mean") return div(sum(loss), sum(w));
  return input.dim() == 1 ? reshape(loss, {}) : reshape(loss, target.sizes());
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  TC_AUTOCAST("mse_loss", mse_loss, input, target, reduction);
  check_reduction("mse_loss", reduction);
  TC_CHECK(input.sizes() == target.sizes(), "mse_loss: input ", shape_str(input.sizes()),
           " and target ", shape_str(target.sizes()), " must have the same shape");
  return reduce(square(sub(input, target)), reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& x, const Tensor& y, const Tensor& weight,
                                        const std::string& reduction, const Tensor& pos_weight) {
  TC_AUTOCAST("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits, x, y, weight,
              reduction, pos_weight);
  check_reduction("binary_cross_entropy_with_logits", reduction);
  TC_CHECK(x.sizes() == y.sizes(), "binary_cross_entropy_with_logits: input ", shape_str(x.sizes()),
           " and target ", shape_str(y.sizes()), " must have the same shape");
  // log(1 + exp(-|x|)) + max(-x, 0) is log(1 + exp(-x)) without overflow.
  Tensor softplus_neg = add(log1p(exp(neg(abs(x)))), clamp(neg(x), Scalar(0.0), std::nullopt));
  Tensor loss;
  if (pos_weight.defined()) {
    Tensor log_weight = add(mul(sub(pos_weight, 1.0), y), 1.0);
    loss = add(mul(rsub(y, 1.0), x), mul(log_weight, softplus_neg));
  } else {
    loss = add(mul(rsub(y, 1.0), x), softplus_neg);
  }
  if (weight.defined()) loss = mul(loss, weight);
  return reduce(loss, reduction);
}

}  // namespace functional

CrossEntropyLossImpl::CrossEntropyLossImpl(Tensor w, int64_t ii, std::string r, double ls)
    : Module("CrossEntropyLoss"), ignore_index(ii), reduction(std::move(r)), label_smoothing(ls) {
  if (w.defined()) weight = register_buffer("weight", w);
}
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing);
}

NLLLossImpl::NLLLossImpl(Tensor w, int64_t ii, std::string r)
    : Module("NLLLoss"), ignore_index(ii), reduction(std::move(r)) {
  if (w.defined()) weight = register_buffer("weight", w);
}
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::nll_loss(input, target, weight, ignore_index, reduction);
}

MSELossImpl::MSELossImpl(std::string r) : Module("MSELoss"), reduction(std::move(r)) {}
Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::mse_loss(input, target, reduction);
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(Tensor w, std::string r, Tensor pw)
    : Module("BCEWithLogitsLoss"), reduction(std::move(r)) {
  if (w.defined()) weight = register_buffer("weight", w);
  if (pw.defined()) pos_weight = register_buffer("pos_weight", pw);
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight);
}

CTCLossImpl::CTCLossImpl(int64_t b, std::string r, bool zi)
    : Module("CTCLoss"), blank(b), reduction(std::move(r)), zero_infinity(zi) {}
Tensor CTCLossImpl::forward(const Tensor& lp, const Tensor& targets, const Tensor& il,
                            const Tensor& tl) {
  return functional::ctc_loss(lp, targets, il, tl, blank, reduction, zero_infinity);
}

}  // namespace tc::nn
