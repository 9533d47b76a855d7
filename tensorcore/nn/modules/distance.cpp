#include "tensorcore/nn/modules/distance.h"

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/module_args.h"

namespace tc::nn {

using namespace detail;

// ---- Distances ----
CosineSimilarityImpl::CosineSimilarityImpl(int64_t d, double e)
    : Module("CosineSimilarity"), dim(d), eps(e) {}

Tensor CosineSimilarityImpl::forward(const Tensor& a, const Tensor& b) {
  return functional::cosine_similarity(a, b, dim, eps);
}

ModulePtr CosineSimilarityImpl::clone() const {
  return with_state_of(std::make_shared<CosineSimilarityImpl>(dim, eps), *this);
}

PairwiseDistanceImpl::PairwiseDistanceImpl(double pp, double e, bool k)
    : Module("PairwiseDistance"), p(pp), eps(e), keepdim(k) {}

Tensor PairwiseDistanceImpl::forward(const Tensor& a, const Tensor& b) {
  return functional::pairwise_distance(a, b, p, eps, keepdim);
}

ModulePtr PairwiseDistanceImpl::clone() const {
  return with_state_of(std::make_shared<PairwiseDistanceImpl>(p, eps, keepdim), *this);
}

}  // namespace tc::nn
