// tc::data: TensorDataset, samplers, DataLoader with and without worker threads.
#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace data = tc::data;

namespace {

std::shared_ptr<data::TensorDataset> make_dataset(int64_t n) {
  Tensor x = reshape(arange(0, n * 2, 1, DType::Float32), {n, 2});
  Tensor y = arange(0, n, 1, DType::Int64);
  return std::make_shared<data::TensorDataset>(TensorList{x, y});
}

std::vector<int64_t> labels_of(data::DataLoader<data::TensorDataset>& loader,
                               std::vector<size_t>* sizes = nullptr) {
  std::vector<int64_t> out;
  for (TensorList& batch : loader) {
    EXPECT_EQ(batch.size(), 2u);
    EXPECT_EQ(batch[0].size(0), batch[1].size(0));
    if (sizes) sizes->push_back(size_t(batch[1].size(0)));
    const int64_t* p = contiguous(batch[1]).data<int64_t>();
    for (int64_t i = 0; i < batch[1].numel(); ++i) {
      // Row i of x is (2y, 2y+1): the fields stay paired.
      EXPECT_EQ(select(select(batch[0], 0, i), 0, 0).item<double>(), 2.0 * p[i]);
      out.push_back(p[i]);
    }
  }
  return out;
}

// Fails on one index, to test error propagation from workers.
struct FlakyDataset : data::Dataset<TensorList> {
  std::atomic<int> calls{0};
  TensorList get(size_t i) override {
    ++calls;
    if (i == 13) throw ValueError("FlakyDataset: example 13 is corrupt");
    return {full({3}, double(i))};
  }
  size_t size() const override { return 40; }
};

}  // namespace

TEST(NnCppData, SequentialBatchesAndDropLast) {
  auto ds = make_dataset(10);
  EXPECT_EQ(ds->size(), 10u);
  EXPECT_THROW(ds->get(10), IndexError);
  EXPECT_THROW(data::TensorDataset({zeros({3}), zeros({4})}), ValueError);
  data::DataLoader<data::TensorDataset> loader(ds, {.batch_size = 4});
  std::vector<size_t> sizes;
  auto labels = labels_of(loader, &sizes);
  EXPECT_EQ(labels, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 2}));
  EXPECT_EQ(loader.size(), 3u);
  data::DataLoader<data::TensorDataset> dl(ds, {.batch_size = 4, .drop_last = true});
  sizes.clear();
  labels_of(dl, &sizes);
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4}));
  EXPECT_EQ(dl.size(), 2u);
}

TEST(NnCppData, ShuffleIsAPermutationAndReproducible) {
  auto ds = make_dataset(50);
  auto g1 = std::make_shared<Generator>(), g2 = std::make_shared<Generator>();
  g1->manual_seed(7);
  g2->manual_seed(7);
  data::DataLoader<data::TensorDataset> a(ds, {.batch_size = 8, .shuffle = true, .generator = g1});
  data::DataLoader<data::TensorDataset> b(
      ds, {.batch_size = 8, .shuffle = true, .num_workers = 2, .generator = g2});
  auto la = labels_of(a), lb = labels_of(b);
  EXPECT_EQ(la, lb);  // same seed, same order, with or without workers
  std::set<int64_t> seen(la.begin(), la.end());
  EXPECT_EQ(seen.size(), 50u);
  std::vector<int64_t> sorted(la);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NE(la, sorted);
  EXPECT_NE(labels_of(a), la);  // the next epoch draws a new order
}

TEST(NnCppData, WorkersDeliverInOrder) {
  auto ds = make_dataset(37);
  data::DataLoader<data::TensorDataset> loader(
      ds, {.batch_size = 3, .num_workers = 2, .prefetch_factor = 1});
  for (int epoch = 0; epoch < 2; ++epoch) {
    auto labels = labels_of(loader);
    ASSERT_EQ(labels.size(), 37u);
    for (int64_t i = 0; i < 37; ++i) EXPECT_EQ(labels[size_t(i)], i);
  }
  // Leaving a loop early stops and joins the workers (no hang, no crash).
  int seen = 0;
  for (auto& batch : loader) {
    (void)batch;
    if (++seen == 2) break;
  }
  EXPECT_EQ(seen, 2);
}

TEST(NnCppData, WorkerExceptionReachesConsumer) {
  auto ds = std::make_shared<FlakyDataset>();
  data::DataLoader<FlakyDataset> loader(ds, {.batch_size = 4, .num_workers = 2});
  int batches = 0;
  try {
    for (auto& batch : loader) {
      EXPECT_EQ(batch[0].sizes(), (Shape{4, 3}));
      ++batches;
    }
    FAIL() << "expected the worker's error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("example 13 is corrupt"), std::string::npos);
  }
  EXPECT_EQ(batches, 3);  // batches 0..2 arrive before the failing batch 3
  // The loader is usable again afterwards (the failed epoch's threads are gone).
  data::DataLoader<FlakyDataset> sync(ds, {.batch_size = 4});
  EXPECT_THROW(for (auto& b : sync)(void) b, ValueError);
}

TEST(NnCppData, CollateErrors) {
  std::vector<TensorList> bad = {{zeros({2})}, {zeros({3})}};
  EXPECT_THROW(data::default_collate(bad), ValueError);
  std::vector<Tensor> ok = {zeros({2}), ones({2})};
  EXPECT_EQ(data::default_collate(ok).sizes(), (Shape{2, 2}));
}
