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

// Stacks each position of the examples along a new dim 0: a batch of TensorList examples
// [(x_i, y_i)] becomes [stack(x), stack(y)]. Throws ValueError naming the position whose shapes
// differ.
TensorList default_collate(const std::vector<TensorList>& examples);
Tensor default_collate(const std::vector<Tensor>& examples);

}  // namespace tc::data
