#include "tensorcore/data/dataset.h"

#include <numeric>

#include "tensorcore/ops/random.h"
#include "tensorcore/ops/shape.h"

namespace tc::data {

TensorDataset::TensorDataset(TensorList tensors) : tensors_(std::move(tensors)) {
  TC_CHECK(!tensors_.empty(), "TensorDataset: needs at least one tensor");
  for (size_t i = 0; i < tensors_.size(); ++i) {
    TC_CHECK(tensors_[i].defined() && tensors_[i].dim() >= 1, "TensorDataset: tensor ", i,
             " must have at least one dim");
    TC_CHECK(tensors_[i].size(0) == tensors_[0].size(0), "TensorDataset: size mismatch between tensors: tensor 0 has ",
             tensors_[0].size(0), " rows but tensor ", i, " has ", tensors_[i].size(0));
  }
}

TensorList TensorDataset::get(size_t index) {
  TC_CHECK_INDEX(index < size(), "TensorDataset: index ", index, " is out of range for ", size(), " examples");
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

Tensor default_collate(const std::vector<Tensor>& examples) {
  TC_CHECK(!examples.empty(), "default_collate: empty batch");
  for (size_t i = 1; i < examples.size(); ++i)
    TC_CHECK(examples[i].sizes() == examples[0].sizes(), "default_collate: example ", i, " has shape ",
             shape_str(examples[i].sizes()), " but example 0 has ", shape_str(examples[0].sizes()));
  return stack(examples, 0);
}

TensorList default_collate(const std::vector<TensorList>& examples) {
  TC_CHECK(!examples.empty(), "default_collate: empty batch");
  size_t fields = examples[0].size();
  TensorList out;
  for (size_t f = 0; f < fields; ++f) {
    std::vector<Tensor> column;
    for (size_t i = 0; i < examples.size(); ++i) {
      TC_CHECK(examples[i].size() == fields, "default_collate: example ", i, " has ", examples[i].size(),
               " fields but example 0 has ", fields);
      TC_CHECK(examples[i][f].sizes() == examples[0][f].sizes(), "default_collate: field ", f, " of example ", i,
               " has shape ", shape_str(examples[i][f].sizes()), " but example 0 has ",
               shape_str(examples[0][f].sizes()));
      column.push_back(examples[i][f]);
    }
    out.push_back(stack(column, 0));
  }
  return out;
}

}  // namespace tc::data
