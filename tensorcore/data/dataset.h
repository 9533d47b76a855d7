#pragma once
// tc::data datasets and samplers (torch.utils.data's names).
#include <cstddef>
#include <memory>
#include <vector>

#include "tensorcore/core/generator.h"
#include "tensorcore/core/tensor.h"

namespace tc::data {

// A map-style dataset: size() examples, get(i) returns example i. get() may be called from
// several loader threads at once, so it must not mutate shared state without locking.
template <typename ExampleT>
class Dataset {
 public:
  using Example = ExampleT;
  virtual ~Dataset() = default;
  virtual Example get(size_t index) = 0;
  virtual size_t size() const = 0;
};

// Examples are the i-th rows of equally long tensors (a TensorList of one row per tensor).
class TensorDataset : public Dataset<TensorList> {
 public:
  explicit TensorDataset(TensorList tensors);
  TensorList get(size_t index) override;
  size_t size() const override;
  const TensorList& tensors() const { return tensors_; }

 private:
  TensorList tensors_;
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  // The example order of one epoch; called once per epoch.
  virtual std::vector<size_t> indices(size_t dataset_size) = 0;
  // How many indices one epoch yields.
  virtual size_t size(size_t dataset_size) const { return dataset_size; }
};

class SequentialSampler : public Sampler {
 public:
  std::vector<size_t> indices(size_t n) override;
};

// A permutation per epoch from `generator` (the default generator if none).
class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(GeneratorPtr generator = {}) : generator_(std::move(generator)) {}
  std::vector<size_t> indices(size_t n) override;

 private:
  GeneratorPtr generator_;
};

// A permutation of the given dataset indices per epoch.
class SubsetRandomSampler : public Sampler {
 public:
  explicit SubsetRandomSampler(std::vector<size_t> indices, GeneratorPtr generator = {})
      : subset_(std::move(indices)), generator_(std::move(generator)) {}
  std::vector<size_t> indices(size_t dataset_size) override;
  size_t size(size_t) const override { return subset_.size(); }

 private:
  std::vector<size_t> subset_;
  GeneratorPtr generator_;
};

// num_samples indices drawn with probability proportional to weights (with or without
// replacement), like torch.utils.data.WeightedRandomSampler.
class WeightedRandomSampler : public Sampler {
 public:
  WeightedRandomSampler(std::vector<double> weights, size_t num_samples, bool replacement = true,
                        GeneratorPtr generator = {});
  std::vector<size_t> indices(size_t dataset_size) override;
  size_t size(size_t) const override { return num_samples_; }

 private:
  Tensor weights_;
  size_t num_samples_;
  bool replacement_;
  GeneratorPtr generator_;
};

// Rank `rank`'s share of the dataset among num_replicas processes: the (seed + epoch)-seeded
// permutation (or 0..n-1 without shuffle), padded by repetition to a multiple of num_replicas
// (or cut, with drop_last), then every num_replicas-th index from `rank`. Same partition rule
// and seeding as tensorcore.utils.data.DistributedSampler; call set_epoch each epoch.
class DistributedSampler : public Sampler {
 public:
  DistributedSampler(size_t num_replicas, size_t rank, bool shuffle = true, uint64_t seed = 0,
                     bool drop_last = false);
  void set_epoch(uint64_t epoch) { epoch_ = epoch; }
  std::vector<size_t> indices(size_t dataset_size) override;
  // Indices this rank gets per epoch for a dataset of `dataset_size`.
  size_t num_samples(size_t dataset_size) const;
  size_t size(size_t dataset_size) const override { return num_samples(dataset_size); }

 private:
  size_t num_replicas_, rank_;
  bool shuffle_;
  uint64_t seed_, epoch_ = 0;
  bool drop_last_;
};

// Stacks each position of the examples along a new dim 0: a batch of TensorList examples
// [(x_i, y_i)] becomes [stack(x), stack(y)]. Throws ValueError naming the position whose shapes
// differ.
TensorList default_collate(const std::vector<TensorList>& examples);
Tensor default_collate(const std::vector<Tensor>& examples);

}  // namespace tc::data
