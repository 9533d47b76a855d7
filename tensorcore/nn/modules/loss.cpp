#include "tensorcore/nn/modules/loss.h"

#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/ops/copy.h"

namespace tc::nn {
using detail::with_state_of;

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

HingeEmbeddingLossImpl::HingeEmbeddingLossImpl(double m, std::string r)
    : Module("HingeEmbeddingLoss"), margin(m), reduction(std::move(r)) {}
Tensor HingeEmbeddingLossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::hinge_embedding_loss(x, t, margin, reduction);
}
ModulePtr HingeEmbeddingLossImpl::clone() const {
  return with_state_of(std::make_shared<HingeEmbeddingLossImpl>(margin, reduction), *this);
}

SoftMarginLossImpl::SoftMarginLossImpl(std::string r)
    : Module("SoftMarginLoss"), reduction(std::move(r)) {}
Tensor SoftMarginLossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::soft_margin_loss(x, t, reduction);
}
ModulePtr SoftMarginLossImpl::clone() const {
  return with_state_of(std::make_shared<SoftMarginLossImpl>(reduction), *this);
}

MultiLabelSoftMarginLossImpl::MultiLabelSoftMarginLossImpl(Tensor w, std::string r)
    : Module("MultiLabelSoftMarginLoss"), reduction(std::move(r)) {
  if (w.defined()) weight = register_buffer("weight", w);
}
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::multilabel_soft_margin_loss(x, t, weight, reduction);
}
ModulePtr MultiLabelSoftMarginLossImpl::clone() const {
  return with_state_of(std::make_shared<MultiLabelSoftMarginLossImpl>(copy_of(weight), reduction),
                       *this);
}

MultiMarginLossImpl::MultiMarginLossImpl(int64_t p, double m, Tensor w, std::string r)
    : Module("MultiMarginLoss"), p(p), margin(m), reduction(std::move(r)) {
  if (w.defined()) weight = register_buffer("weight", w);
}
Tensor MultiMarginLossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::multi_margin_loss(x, t, p, margin, weight, reduction);
}
ModulePtr MultiMarginLossImpl::clone() const {
  return with_state_of(std::make_shared<MultiMarginLossImpl>(p, margin, copy_of(weight), reduction),
                       *this);
}

MultiLabelMarginLossImpl::MultiLabelMarginLossImpl(std::string r)
    : Module("MultiLabelMarginLoss"), reduction(std::move(r)) {}
Tensor MultiLabelMarginLossImpl::forward(const Tensor& x, const Tensor& t) {
  return functional::multilabel_margin_loss(x, t, reduction);
}
ModulePtr MultiLabelMarginLossImpl::clone() const {
  return with_state_of(std::make_shared<MultiLabelMarginLossImpl>(reduction), *this);
}

TripletMarginWithDistanceLossImpl::TripletMarginWithDistanceLossImpl(functional::DistanceFunction d,
                                                                     double m, bool s,
                                                                     std::string r)
    : Module("TripletMarginWithDistanceLoss"),
      distance_function(std::move(d)),
      margin(m),
      swap(s),
      reduction(std::move(r)) {}
Tensor TripletMarginWithDistanceLossImpl::forward(const Tensor& a, const Tensor& pos,
                                                  const Tensor& neg) {
  return functional::triplet_margin_with_distance_loss(a, pos, neg, distance_function, margin, swap,
                                                       reduction);
}
ModulePtr TripletMarginWithDistanceLossImpl::clone() const {
  return with_state_of(std::make_shared<TripletMarginWithDistanceLossImpl>(distance_function,
                                                                           margin, swap, reduction),
                       *this);
}

}  // namespace tc::nn
