#pragma once
// tc::data::DataLoader: batches of a map-style Dataset with batch_size / shuffle / drop_last,
// loaded by native worker threads.
//
//   auto ds = std::make_shared<tc::data::TensorDataset>(tc::TensorList{x, y});
//   tc::data::DataLoader<tc::data::TensorDataset> loader(ds, {.batch_size = 32, .shuffle = true,
//                                                             .num_workers = 2});
//   for (tc::TensorList& batch : loader) { ... batch[0], batch[1] ... }
//
// Each epoch (each begin()) draws the sampler's order, cuts it into batches and, with
// num_workers > 0, starts that many std::threads. Workers claim batch numbers in order, but at
// most prefetch_factor * num_workers batches ahead of the consumer (a bounded queue); batches
// are delivered in order. An exception thrown while loading a batch (in a worker) is rethrown on
// the consumer thread when that batch is reached; the epoch's threads are stopped and joined when
// its iterators go away, including on early exit from the loop.
#include <concepts>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "tensorcore/data/dataset.h"

namespace tc::data {

struct DataLoaderOptions {
  size_t batch_size = 1;
  bool shuffle = false;
  bool drop_last = false;
  size_t num_workers = 0;
  size_t prefetch_factor = 2;
  GeneratorPtr generator = {};  // for shuffle; the default generator if none
};

template <typename DatasetT, typename Batch = TensorList>
class DataLoader {
 public:
  using Example = typename DatasetT::Example;
  using Collate = std::function<Batch(const std::vector<Example>&)>;

  DataLoader(std::shared_ptr<DatasetT> dataset, DataLoaderOptions options = {},
             Collate collate = {}, std::shared_ptr<Sampler> sampler = {})
      : dataset_(std::move(dataset)),
        options_(options),
        collate_(std::move(collate)),
        sampler_(std::move(sampler)) {
    TC_CHECK(dataset_ != nullptr, "DataLoader: dataset is null");
    TC_CHECK(options_.batch_size > 0, "DataLoader: batch_size must be positive");
    TC_CHECK(options_.prefetch_factor > 0, "DataLoader: prefetch_factor must be positive");
    TC_CHECK(!(sampler_ && options_.shuffle),
             "DataLoader: sampler and shuffle are mutually exclusive");
    if (!sampler_) {
      if (options_.shuffle)
        sampler_ = std::make_shared<RandomSampler>(options_.generator);
      else
        sampler_ = std::make_shared<SequentialSampler>();
    }
    if (!collate_) {
      if constexpr (requires(const std::vector<Example>& e) {
                      { default_collate(e) } -> std::convertible_to<Batch>;
                    }) {
        collate_ = [](const std::vector<Example>& e) -> Batch { return default_collate(e); };
      } else {
        throw ValueError("DataLoader: this example type needs a collate function");
      }
    }
  }

  // Batches per epoch.
  size_t size() const {
    size_t n = sampler_->size(dataset_->size()), b = options_.batch_size;
    return options_.drop_last ? n / b : (n + b - 1) / b;
  }
  const DataLoaderOptions& options() const { return options_; }

 private:
  struct Slot {
    std::optional<Batch> batch;
    std::exception_ptr error;
  };

  // One pass over the data; owns the worker threads.
  class Epoch {
   public:
    Epoch(DataLoader& loader) : loader_(loader) {
      std::vector<size_t> order = loader.sampler_->indices(loader.dataset_->size());
      size_t b = loader.options_.batch_size;
      for (size_t s = 0; s < order.size(); s += b) {
        if (s + b > order.size() && loader.options_.drop_last) break;
        batches_.emplace_back(order.begin() + s, order.begin() + std::min(order.size(), s + b));
      }
      window_ = loader.options_.prefetch_factor * loader.options_.num_workers;
      for (size_t w = 0; w < loader.options_.num_workers; ++w)
        workers_.emplace_back([this] { work(); });
    }
    ~Epoch() {
      {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
      }
      cv_.notify_all();
      for (auto& t : workers_) t.join();
    }
    size_t size() const { return batches_.size(); }

    // Batch i (in order), on the consumer thread; rethrows a worker's exception.
    Batch take(size_t i) {
      if (workers_.empty()) return load(i);
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return results_.count(i) > 0; });
      Slot slot = std::move(results_[i]);
      results_.erase(i);
      consumed_ = i + 1;
      lock.unlock();
      cv_.notify_all();
      if (slot.error) std::rethrow_exception(slot.error);
      return std::move(*slot.batch);
    }

   private:
    Batch load(size_t i) {
      std::vector<Example> examples;
      examples.reserve(batches_[i].size());
      for (size_t idx : batches_[i]) examples.push_back(loader_.dataset_->get(idx));
      return loader_.collate_(examples);
    }
    void work() {
      for (;;) {
        size_t i;
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait(lock, [&] {
            return stop_ || next_ >= batches_.size() || next_ < consumed_ + window_;
          });
          if (stop_ || next_ >= batches_.size()) return;
          i = next_++;
        }
        Slot slot;
        try {
          slot.batch.emplace(load(i));
        } catch (...) {
          slot.error = std::current_exception();
        }
        {
          std::lock_guard<std::mutex> lock(mu_);
          results_[i] = std::move(slot);
        }
        cv_.notify_all();
      }
    }

    DataLoader& loader_;
    std::vector<std::vector<size_t>> batches_;
    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::map<size_t, Slot> results_;
    size_t next_ = 0, consumed_ = 0, window_ = 0;
    bool stop_ = false;
  };

 public:
  class Iterator {
   public:
    Iterator() = default;
    explicit Iterator(std::shared_ptr<Epoch> epoch) : epoch_(std::move(epoch)) { fetch(); }
    Batch& operator*() { return *current_; }
    Batch* operator->() { return &*current_; }
    Iterator& operator++() {
      ++index_;
      fetch();
      return *this;
    }
    bool operator==(const Iterator& o) const {
      return at_end() == o.at_end() && (at_end() || index_ == o.index_);
    }
    bool operator!=(const Iterator& o) const { return !(*this == o); }

   private:
    bool at_end() const { return epoch_ == nullptr; }
    void fetch() {
      current_.reset();
      if (!epoch_ || index_ >= epoch_->size()) {
        epoch_.reset();
        return;
      }
      try {
        current_.emplace(epoch_->take(index_));
      } catch (...) {
        epoch_.reset();  // stops the workers before the error reaches the caller
        throw;
      }
    }
    std::shared_ptr<Epoch> epoch_;
    size_t index_ = 0;
    std::optional<Batch> current_;
  };

  Iterator begin() { return Iterator(std::make_shared<Epoch>(*this)); }
  Iterator end() { return Iterator(); }

 private:
  std::shared_ptr<DatasetT> dataset_;
  DataLoaderOptions options_;
  Collate collate_;
  std::shared_ptr<Sampler> sampler_;
};

}  // namespace tc::data
