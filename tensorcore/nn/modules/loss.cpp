#include "tensorcore/nn/loss_more.h"
#include "tensorcore/nn/modules/module_args.h"

#include <cmath>
#include <numbers>

#include "tensorcore/tensorcore.h"

namespace tc::nn {
using detail::with_state_of;
namespace functional {
namespace {

void check_reduction(const char* op, const std::string& r, bool batchmean = false) {
  TC_CHECK(r == "mean" || r == "sum" || r == "none" || (batchmean && r == "batchmean"), op,
           ": reduction must be 'mean', 'sum' or 'none'", batchmean ? " (or 'batchmean')" : "",
           ", got '", r, "'");
}

Tensor reduce(const Tensor& loss, const std::string& r) {
  if (r == "sum") return sum(loss);
  if (r == "mean") return mean(loss);
  return loss;
}

void check_same(const char* op, const Tensor& a, const Tensor& b, const char* an = "input",
                const char* bn = "target") {
  TC_CHECK(a.defined() && b.defined(), op, ": expected defined tensors");
  TC_CHECK(a.sizes() == b.sizes(), op, ": ", an, " ", shape_str(a.sizes()), " and ", bn, " ",
           shape_str(b.sizes()), " must have the same shape");
}

Tensor scalar_like(double v, const Tensor& t) { return scalar_tensor(v, t.dtype()); }

}  // namespace

Tensor l1_loss(const Tensor& x, const Tensor& t, const std::string& r) {
  check_reduction("l1_loss", r);
  check_same("l1_loss", x, t);
  return reduce(abs(sub(x, t)), r);
}

Tensor smooth_l1_loss(const Tensor& x, const Tensor& t, const std::string& r, double beta) {
  check_reduction("smooth_l1_loss", r);
  check_same("smooth_l1_loss", x, t);
  TC_CHECK(beta >= 0, "smooth_l1_loss: beta must be non-negative, got ", beta);
  Tensor d = abs(sub(x, t));
  if (beta == 0) return reduce(d, r);
  Tensor quad = mul(square(d), 0.5 / beta);
  return reduce(where(lt(d, scalar_like(beta, d)), quad, sub(d, 0.5 * beta)), r);
}

Tensor huber_loss(const Tensor& x, const Tensor& t, const std::string& r, double delta) {
  check_reduction("huber_loss", r);
  check_same("huber_loss", x, t);
  TC_CHECK(delta > 0, "huber_loss: delta must be positive, got ", delta);
  Tensor d = abs(sub(x, t));
  return reduce(
      where(le(d, scalar_like(delta, d)), mul(square(d), 0.5), mul(sub(d, 0.5 * delta), delta)), r);
}

Tensor binary_cross_entropy(const Tensor& x, const Tensor& t, const Tensor& w,
                            const std::string& r) {
  check_reduction("binary_cross_entropy", r);
  check_same("binary_cross_entropy", x, t);
  if (x.numel() > 0) {
    double lo = amin(x.detach()).item<double>(), hi = amax(x.detach()).item<double>();
    TC_CHECK(lo >= 0 && hi <= 1,
             "binary_cross_entropy: all elements of input should be between 0 and 1");
  }
  Tensor log_x = clamp(log(x), Scalar(-100.0), std::nullopt);
  Tensor log_1mx = clamp(log(rsub(x, 1.0)), Scalar(-100.0), std::nullopt);
  Tensor loss = neg(add(mul(t, log_x), mul(rsub(t, 1.0), log_1mx)));
  if (w.defined()) loss = mul(loss, w);
  return reduce(loss, r);
}

Tensor kl_div(const Tensor& x, const Tensor& t, const std::string& r, bool log_target) {
  check_reduction("kl_div", r, true);
  TC_CHECK(x.defined() && t.defined(), "kl_div: expected defined tensors");
  Tensor loss;
  if (log_target) {
    loss = mul(exp(t), sub(t, x));
  } else {
    // t * (log t - x), with 0 where t == 0 (xlogy)
    Tensor zero = scalar_like(0.0, t);
    Tensor safe_t = where(gt(t, zero), t, scalar_like(1.0, t));
    loss = where(gt(t, zero), mul(t, sub(log(safe_t), x)), mul(t, neg(x)));
  }
  if (r == "batchmean") return x.dim() == 0 ? sum(loss) : div(sum(loss), double(x.size(0)));
  return reduce(loss, r);
}

Tensor margin_ranking_loss(const Tensor& a, const Tensor& b, const Tensor& y, double margin,
                           const std::string& r) {
  check_reduction("margin_ranking_loss", r);
  check_same("margin_ranking_loss", a, b, "input1", "input2");
  check_same("margin_ranking_loss", a, y, "input1", "target");
  return reduce(relu(add(mul(neg(y), sub(a, b)), margin)), r);
}

Tensor cosine_embedding_loss(const Tensor& a, const Tensor& b, const Tensor& y, double margin,
                             const std::string& r) {
  check_reduction("cosine_embedding_loss", r);
  check_same("cosine_embedding_loss", a, b, "input1", "input2");
  TC_CHECK(a.dim() == 1 || a.dim() == 2, "cosine_embedding_loss: expected 1-d or 2-d inputs, got ",
           shape_str(a.sizes()));
  const int64_t d = a.dim() - 1;
  Shape ys = a.dim() == 2 ? Shape{a.size(0)} : Shape{};
  TC_CHECK(y.sizes() == ys, "cosine_embedding_loss: expected target of shape ", shape_str(ys),
           ", got ", shape_str(y.sizes()));
  const double eps = 1e-12;  // torch's EPSILON
  Tensor prod = sum(mul(a, b), {d});
  Tensor mag = sqrt(mul(add(sum(square(a), {d}), eps), add(sum(square(b), {d}), eps)));
  Tensor cos = div(prod, mag);
  Tensor zero = scalar_like(0.0, cos);
  Tensor pos = rsub(cos, 1.0), negl = relu(sub(cos, margin));
  Tensor yf = to_dtype(y, cos.dtype());
  Tensor loss =
      where(eq(yf, scalar_like(1.0, yf)), pos, where(eq(yf, scalar_like(-1.0, yf)), negl, zero));
  return reduce(loss, r);
}

Tensor triplet_margin_loss(const Tensor& a, const Tensor& p, const Tensor& n, double margin,
                           double norm_p, double eps, bool swap, const std::string& r) {
  check_reduction("triplet_margin_loss", r);
  check_same("triplet_margin_loss", a, p, "anchor", "positive");
  check_same("triplet_margin_loss", a, n, "anchor", "negative");
  TC_CHECK(a.dim() == 1 || a.dim() == 2, "triplet_margin_loss: expected 1-d or 2-d inputs, got ",
           shape_str(a.sizes()));
  TC_CHECK(margin > 0, "triplet_margin_loss: margin must be greater than 0, got ", margin);
  auto dist = [&](const Tensor& u, const Tensor& v) {
    return norm(add(sub(u, v), eps), norm_p, {-1});
  };
  Tensor d_ap = dist(a, p), d_an = dist(a, n);
  if (swap) d_an = minimum(d_an, dist(p, n));
  return reduce(relu(add(sub(d_ap, d_an), margin)), r);
}

Tensor poisson_nll_loss(const Tensor& x, const Tensor& t, bool log_input, bool full, double eps,
                        const std::string& r) {
  check_reduction("poisson_nll_loss", r);
  check_same("poisson_nll_loss", x, t);
  Tensor loss = log_input ? sub(exp(x), mul(t, x)) : sub(x, mul(t, log(add(x, eps))));
  if (full) {
    // Stirling term t log t - t + 0.5 log(2 pi t), for t > 1.
    Tensor one = scalar_like(1.0, t);
    Tensor safe = where(gt(t, one), t, one);
    Tensor stirling =
        add(sub(mul(safe, log(safe)), safe), mul(log(mul(safe, 2 * std::numbers::pi)), 0.5));
    loss = add(loss, where(gt(t, one), stirling, zeros_like(stirling)));
  }
  return reduce(loss, r);
}

Tensor gaussian_nll_loss(const Tensor& x, const Tensor& t, const Tensor& var_in, bool full,
                         double eps, const std::string& r) {
  check_reduction("gaussian_nll_loss", r);
  check_same("gaussian_nll_loss", x, t);
  TC_CHECK(var_in.defined(), "gaussian_nll_loss: var is undefined");
  Tensor var = var_in;
  // torch: var may lack the last dim, or have it of size 1 (homoscedastic).
  if (var.dim() == x.dim() - 1 && x.dim() > 0 &&
      Shape(x.sizes().begin(), x.sizes().end() - 1) == var.sizes())
    var = unsqueeze(var, -1);
  TC_CHECK(var.dim() == x.dim(), "gaussian_nll_loss: var of shape ", shape_str(var_in.sizes()),
           " does not match input of shape ", shape_str(x.sizes()));
  for (int64_t i = 0; i < x.dim(); ++i)
    TC_CHECK(var.size(i) == x.size(i) || (i == x.dim() - 1 && var.size(i) == 1),
             "gaussian_nll_loss: var of shape ", shape_str(var_in.sizes()),
             " does not match input of shape ", shape_str(x.sizes()));
  TC_CHECK(var.numel() == 0 || amin(var.detach()).item<double>() >= 0,
           "gaussian_nll_loss: var has negative entry/entries");
  // The clamp is not differentiated, as torch's in-place clamp under no_grad.
  Tensor v = add(var, sub(clamp(var.detach(), Scalar(eps), std::nullopt), var.detach()));
  Tensor loss = mul(add(log(v), div(square(sub(x, t)), v)), 0.5);
  if (full) loss = add(loss, 0.5 * std::log(2 * std::numbers::pi));
  return reduce(loss, r);
}

}  // namespace functional

namespace {
Tensor copy_of(const Tensor& t) { return t.defined() ? clone(t.detach()) : Tensor(); }
}  // namespace

L1LossImpl::L1LossImpl(std::string r) : Module("L1Loss"), reduction(std::move(r)) {}
Tensor L1LossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::l1_loss(x, t, reduction);
}
ModulePtr L1LossImpl::clone() const {
  return with_state_of(std::make_shared<L1LossImpl>(reduction), *this);
}

SmoothL1LossImpl::SmoothL1LossImpl(std::string r, double b)
    : Module("SmoothL1Loss"), reduction(std::move(r)), beta(b) {}
Tensor SmoothL1LossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::smooth_l1_loss(x, t, reduction, beta);
}
ModulePtr SmoothL1LossImpl::clone() const {
  return with_state_of(std::make_shared<SmoothL1LossImpl>(reduction, beta), *this);
}

HuberLossImpl::HuberLossImpl(std::string r, double d)
    : Module("HuberLoss"), reduction(std::move(r)), delta(d) {}
Tensor HuberLossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::huber_loss(x, t, reduction, delta);
}
ModulePtr HuberLossImpl::clone() const {
  return with_state_of(std::make_shared<HuberLossImpl>(reduction, delta), *this);
}

BCELossImpl::BCELossImpl(Tensor w, std::string r) : Module("BCELoss"), reduction(std::move(r)) {
  if (w.defined()) weight = register_buffer("weight", w);
}
Tensor BCELossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::binary_cross_entropy(x, t, weight, reduction);
}
ModulePtr BCELossImpl::clone() const {
  return with_state_of(std::make_shared<BCELossImpl>(copy_of(weight), reduction), *this);
}

KLDivLossImpl::KLDivLossImpl(std::string r, bool lt)
    : Module("KLDivLoss"), reduction(std::move(r)), log_target(lt) {}
Tensor KLDivLossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::kl_div(x, t, reduction, log_target);
}
ModulePtr KLDivLossImpl::clone() const {
  return with_state_of(std::make_shared<KLDivLossImpl>(reduction, log_target), *this);
}

MarginRankingLossImpl::MarginRankingLossImpl(double m, std::string r)
    : Module("MarginRankingLoss"), margin(m), reduction(std::move(r)) {}
Tensor MarginRankingLossImpl::forward(const Tensor& a, const Tensor& b, const Tensor& y) {
  return functional::margin_ranking_loss(a, b, y, margin, reduction);
}
ModulePtr MarginRankingLossImpl::clone() const {
  return with_state_of(std::make_shared<MarginRankingLossImpl>(margin, reduction), *this);
}

CosineEmbeddingLossImpl::CosineEmbeddingLossImpl(double m, std::string r)
    : Module("CosineEmbeddingLoss"), margin(m), reduction(std::move(r)) {}
Tensor CosineEmbeddingLossImpl::forward(const Tensor& a, const Tensor& b, const Tensor& y) {
  return functional::cosine_embedding_loss(a, b, y, margin, reduction);
}
ModulePtr CosineEmbeddingLossImpl::clone() const {
  return with_state_of(std::make_shared<CosineEmbeddingLossImpl>(margin, reduction), *this);
}

TripletMarginLossImpl::TripletMarginLossImpl(double m, double p, double e, bool s, std::string r)
    : Module("TripletMarginLoss"), margin(m), p(p), eps(e), swap(s), reduction(std::move(r)) {}
Tensor TripletMarginLossImpl::forward(const Tensor& a, const Tensor& pos, const Tensor& neg) {
  return functional::triplet_margin_loss(a, pos, neg, margin, p, eps, swap, reduction);
}
ModulePtr TripletMarginLossImpl::clone() const {
  return with_state_of(std::make_shared<TripletMarginLossImpl>(margin, p, eps, swap, reduction),
                       *this);
}

PoissonNLLLossImpl::PoissonNLLLossImpl(bool li, bool f, double e, std::string r)
    : Module("PoissonNLLLoss"), log_input(li), full(f), eps(e), reduction(std::move(r)) {}
Tensor PoissonNLLLossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::poisson_nll_loss(x, t, log_input, full, eps, reduction);
}
ModulePtr PoissonNLLLossImpl::clone() const {
  return with_state_of(std::make_shared<PoissonNLLLossImpl>(log_input, full, eps, reduction),
                       *this);
}

GaussianNLLLossImpl::GaussianNLLLossImpl(bool f, double e, std::string r)
    : Module("GaussianNLLLoss"), full(f), eps(e), reduction(std::move(r)) {}
Tensor GaussianNLLLossImpl::forward(const Tensor& x, const Tensor& t, const Tensor& v) {
  return functional::gaussian_nll_loss(x, t, v, full, eps, reduction);
}
ModulePtr GaussianNLLLossImpl::clone() const {
  return with_state_of(std::make_shared<GaussianNLLLossImpl>(full, eps, reduction), *this);
}

}  // namespace tc::nn
