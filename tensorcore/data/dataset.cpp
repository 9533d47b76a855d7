#include "tensorcore/data/dataset.h"

#include <cmath>
#include <numeric>

#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/random.h"
#include "tensorcore/ops/shape.h"

namespace tc::data {

TensorDataset::TensorDataset(TensorList tensors) : tensors_(std::move(tensors)) {
  TC_CHECK(!tensors_.empty(), "TensorDataset: needs at least one tensor");
  for (size_t i = 0; i < tensors_.size(); ++i) {
    TC_CHECK(tensors_[i].defined() && tensors_[i].dim() >= 1, "TensorDataset: tensor ", i,
             " must have at least one dim");
    TC_CHECK(tensors_[i].size(0) == tensors_[0].size(0),
             "TensorDataset: size mismatch between tensors: tensor 0 has ", tensors_[0].size(0),
             " rows but tensor ", i, " has ", tensors_[i].size(0));
  }
}

TensorList TensorDataset::get(size_t index) {
  TC_CHECK_INDEX(index < size(), "TensorDataset: index ", index, " is out of range for ", size(),
                 " examples");
  TensorList out;
  for (auto& t : tensors_) out.push_back(select(t, 0, int64_t(index)));
  return out;
}

size_t TensorDataset::size() const { return size_t(tensors_[0].size(0)); }

std::vector<size_t> SequentialSampler::indices(size_t n) {
  std::vector<size_t> out(n);
  std::iota(out.begin(), out.end(), size_t(0));
  return out;
}

std::vector<size_t> RandomSampler::indices(size_t n) {
  Tensor perm = randperm(int64_t(n), generator_);
  const int64_t* p = perm.data<int64_t>();
  return std::vector<size_t>(p, p + n);
}

std::vector<size_t> SubsetRandomSampler::indices(size_t n) {
  for (size_t i : subset_)
    TC_CHECK_INDEX(i < n, "SubsetRandomSampler: index ", i, " is out of range for a dataset of ", n,
                   " examples");
  Tensor perm = randperm(int64_t(subset_.size()), generator_);
  const int64_t* p = perm.data<int64_t>();
  std::vector<size_t> out;
  out.reserve(subset_.size());
  for (size_t k = 0; k < subset_.size(); ++k) out.push_back(subset_[size_t(p[k])]);
  return out;
}

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, size_t num_samples,
                                             bool replacement, GeneratorPtr generator)
    : num_samples_(num_samples), replacement_(replacement), generator_(std::move(generator)) {
  TC_CHECK(num_samples > 0,
           "WeightedRandomSampler: num_samples should be a positive integer value, but got ",
           num_samples);
  TC_CHECK(!weights.empty(), "WeightedRandomSampler: weights must not be empty");
  double total = 0;
  for (double w : weights) {
    TC_CHECK(w >= 0 && std::isfinite(w),
             "WeightedRandomSampler: weights must be finite and non-negative, got ", w);
    total += w;
  }
  TC_CHECK(total > 0, "WeightedRandomSampler: the weights sum to zero");
  TC_CHECK(replacement || num_samples <= weights.size(), "WeightedRandomSampler: cannot draw ",
           num_samples, " samples without replacement from ", weights.size(), " weights");
  weights_ = from_vector(weights, {int64_t(weights.size())});
}

std::vector<size_t> WeightedRandomSampler::indices(size_t n) {
  TC_CHECK(size_t(weights_.numel()) <= n, "WeightedRandomSampler: ", weights_.numel(),
           " weights for a dataset of ", n, " examples");
  Tensor draw = multinomial(weights_, int64_t(num_samples_), replacement_, generator_);
  const int64_t* p = draw.data<int64_t>();
  return std::vector<size_t>(p, p + draw.numel());
}

DistributedSampler::DistributedSampler(size_t num_replicas, size_t rank, bool shuffle,
                                       uint64_t seed, bool drop_last)
    : num_replicas_(num_replicas),
      rank_(rank),
      shuffle_(shuffle),
      seed_(seed),
      drop_last_(drop_last) {
  TC_CHECK(num_replicas > 0, "DistributedSampler: num_replicas must be positive");
  TC_CHECK(rank < num_replicas, "DistributedSampler: invalid rank ", rank,
           ", rank should be in the interval [0, ", num_replicas - 1, "]");
}

size_t DistributedSampler::num_samples(size_t n) const {
  const size_t r = num_replicas_;
  if (drop_last_ && n % r != 0) return n >= r ? (n - r + r - 1) / r : 0;  // ceil((n - r) / r)
  return (n + r - 1) / r;
}

std::vector<size_t> DistributedSampler::indices(size_t n) {
  std::vector<size_t> order(n);
  if (shuffle_) {
    auto g = std::make_shared<Generator>();
    g->manual_seed(seed_ + epoch_);
    Tensor perm = randperm(int64_t(n), g);
    const int64_t* p = perm.data<int64_t>();
    for (size_t i = 0; i < n; ++i) order[i] = size_t(p[i]);
  } else {
    for (size_t i = 0; i < n; ++i) order[i] = i;
  }
  const size_t total = num_samples(n) * num_replicas_;
  if (!drop_last_) {
    TC_CHECK(n > 0 || total == 0, "DistributedSampler: the dataset is empty");
    for (size_t i = 0; order.size() < total; ++i) order.push_back(order[i % n]);
  } else {
    order.resize(total);
  }
  std::vector<size_t> mine;
  for (size_t i = rank_; i < total; i += num_replicas_) mine.push_back(order[i]);
  return mine;
}

Tensor default_collate(const std::vector<Tensor>& examples) {
  TC_CHECK(!examples.empty(), "default_collate: empty batch");
  for (size_t i = 1; i < examples.size(); ++i)
    TC_CHECK(examples[i].sizes() == examples[0].sizes(), "default_collate: example ", i,
             " has shape ", shape_str(examples[i].sizes()), " but example 0 has ",
             shape_str(examples[0].sizes()));
  return stack(examples, 0);
}

TensorList default_collate(const std::vector<TensorList>& examples) {
  TC_CHECK(!examples.empty(), "default_collate: empty batch");
  size_t fields = examples[0].size();
  TensorList out;
  for (size_t f = 0; f < fields; ++f) {
    std::vector<Tensor> column;
    for (size_t i = 0; i < examples.size(); ++i) {
      TC_CHECK(examples[i].size() == fields, "default_collate: example ", i, " has ",
               examples[i].size(), " fields but example 0 has ", fields);
      TC_CHECK(examples[i][f].sizes() == examples[0][f].sizes(), "default_collate: field ", f,
               " of example ", i, " has shape ", shape_str(examples[i][f].sizes()),
               " but example 0 has ", shape_str(examples[0][f].sizes()));
      column.push_back(examples[i][f]);
    }
    out.push_back(stack(column, 0));
  }
  return out;
}

}  // namespace tc::data
