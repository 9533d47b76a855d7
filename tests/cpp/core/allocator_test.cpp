// The CPU allocator's cache of large blocks: reuse, the no-growth rule, and threads.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "tensorcore/core/cpu_cache.h"
#include "tensorcore/tensorcore.h"

using namespace tc;

namespace {
constexpr int64_t kMiB = int64_t{1} << 20;
Tensor floats(int64_t bytes) { return empty({bytes / 4}, TensorOptions(DType::Float32)); }
}  // namespace

TEST(CpuAllocatorCache, FreedLargeBlockIsReusedForTheSameSize) {
  cpu_empty_cache();
  const void* first;
  {
    Tensor a = floats(4 * kMiB);
    first = a.data_ptr();
  }
  EXPECT_GE(cpu_memory_cached(), 4 * kMiB);
  Tensor b = floats(4 * kMiB);
  EXPECT_EQ(b.data_ptr(), first);
  EXPECT_EQ(cpu_memory_cached(), 0);
  Tensor z = zeros({kMiB}, TensorOptions(DType::Float32));  // a reused block is filled anew
  EXPECT_EQ(sum(z).item<float>(), 0.0f);
}

TEST(CpuAllocatorCache, AlternatingSizesKeepTheirBlocks) {
  // A model's layers alternate between a few sizes; a miss on one must not evict the other.
  cpu_empty_cache();
  const void *p4, *p6;
  { p4 = floats(4 * kMiB).data_ptr(); }
  { p6 = floats(6 * kMiB).data_ptr(); }
  for (int round = 0; round < 3; ++round) {
    { EXPECT_EQ(floats(4 * kMiB).data_ptr(), p4); }
    { EXPECT_EQ(floats(6 * kMiB).data_ptr(), p6); }
  }
}

TEST(CpuAllocatorCache, SmallBlocksAreNotCached) {
  cpu_empty_cache();
  { Tensor a = floats(64 * 1024); }
  EXPECT_EQ(cpu_memory_cached(), 0);
}

TEST(CpuAllocatorCache, ThreadsAllocateAndFreeConcurrently) {
  cpu_empty_cache();
  const int64_t live_before = cpu_memory_allocated();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      std::mt19937 rng(t);
      std::vector<Tensor> held;
      for (int i = 0; i < 200; ++i) {
        Tensor x = floats(int64_t(1 + rng() % 8) * kMiB);
        fill_(x, float(i));  // touch every page of reused and fresh blocks
        held.push_back(x);
        if (held.size() > 3) held.erase(held.begin() + int64_t(rng() % held.size()));
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(cpu_memory_allocated(), live_before);
  EXPECT_LE(cpu_memory_cached(), int64_t{2} << 30);
  cpu_empty_cache();
  EXPECT_EQ(cpu_memory_cached(), 0);
}
