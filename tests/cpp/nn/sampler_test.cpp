// C++ samplers: SubsetRandomSampler, WeightedRandomSampler, DistributedSampler (partition rule of
// torch / tensorcore.utils.data), and the DataLoader driven by them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace data = tc::data;

TEST(NnCppSamplers, SubsetAndWeighted) {
  auto g = std::make_shared<Generator>();
  g->manual_seed(1);
  data::SubsetRandomSampler sub({2, 5, 7, 9}, g);
  auto a = sub.indices(10);
  std::vector<size_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<size_t>{2, 5, 7, 9}));
  EXPECT_EQ(sub.size(10), 4u);
  EXPECT_THROW(sub.indices(8), IndexError);

  // Frequencies follow the weights; a zero weight is never drawn.
  data::WeightedRandomSampler w({1.0, 0.0, 3.0}, 20000, true, g);
  std::map<size_t, int> count;
  for (size_t i : w.indices(3)) ++count[i];
  EXPECT_EQ(count[1], 0);
  EXPECT_NEAR(count[2] / 20000.0, 0.75, 0.02);
  data::WeightedRandomSampler once({1.0, 1.0, 1.0, 1.0}, 4, false, g);
  auto perm = once.indices(4);
  EXPECT_EQ(std::set<size_t>(perm.begin(), perm.end()).size(), 4u);
  EXPECT_THROW(data::WeightedRandomSampler({1.0, 2.0}, 3, false), ValueError);
  EXPECT_THROW(data::WeightedRandomSampler({1.0, -2.0}, 3), ValueError);
}

TEST(NnCppSamplers, DistributedPartition) {
  // 10 examples over 3 replicas: padded to 12 by repeating the head, 4 each, disjoint apart from
  // the padding; the same epoch gives the same split on every rank, a new epoch a new one.
  for (bool shuffle : {false, true}) {
    std::vector<size_t> all;
    std::vector<std::vector<size_t>> parts;
    for (size_t rank = 0; rank < 3; ++rank) {
      data::DistributedSampler s(3, rank, shuffle, 7);
      s.set_epoch(2);
      auto part = s.indices(10);
      EXPECT_EQ(part.size(), 4u);
      EXPECT_EQ(s.size(10), 4u);
      all.insert(all.end(), part.begin(), part.end());
      parts.push_back(part);
    }
    std::set<size_t> covered(all.begin(), all.end());
    EXPECT_EQ(covered.size(), 10u) << "shuffle " << shuffle;
    if (!shuffle) {
      EXPECT_EQ(parts[0], (std::vector<size_t>{0, 3, 6, 9}));
      EXPECT_EQ(parts[1], (std::vector<size_t>{1, 4, 7, 0}));  // padding repeats index 0, 1
      EXPECT_EQ(parts[2], (std::vector<size_t>{2, 5, 8, 1}));
    } else {
      data::DistributedSampler again(3, 0, true, 7);
      again.set_epoch(2);
      EXPECT_EQ(again.indices(10), parts[0]);
      again.set_epoch(3);
      EXPECT_NE(again.indices(10), parts[0]);
    }
  }
  data::DistributedSampler cut(3, 1, false, 0, /*drop_last=*/true);
  EXPECT_EQ(cut.indices(10), (std::vector<size_t>{1, 4, 7}));
  EXPECT_THROW(data::DistributedSampler(2, 2), ValueError);
}

TEST(NnCppSamplers, LoaderUsesSamplerLength) {
  Tensor x = reshape(arange(20, DType::Float32), {10, 2});
  auto ds = std::make_shared<data::TensorDataset>(TensorList{x});
  auto sampler = std::make_shared<data::DistributedSampler>(2, 1, false);
  data::DataLoader<data::TensorDataset> loader(ds, {.batch_size = 2, .num_workers = 2}, {},
                                               sampler);
  EXPECT_EQ(loader.size(), 3u);  // 5 indices for rank 1
  std::vector<float> firsts;
  size_t batches = 0;
  for (TensorList& b : loader) {
    ++batches;
    firsts.push_back(b[0].data<float>()[0]);
  }
  EXPECT_EQ(batches, 3u);
  EXPECT_EQ(firsts, (std::vector<float>{2, 10, 18}));  // rows 1, 5, 9
}
