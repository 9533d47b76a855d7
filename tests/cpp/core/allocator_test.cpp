// The CPU allocator's cache of large blocks: reuse, the no-growth rule, and threads.
#include <gtest/gtest.h>
#include <algorithm>

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
  // Freed blocks that happen to be adjacent merge and are split again, so a size may come back
  // at another address, but always inside the two first mappings, and the same every round.
  cpu_empty_cache();
  const char *p4, *p6;
  { p4 = static_cast<const char*>(floats(4 * kMiB).data_ptr()); }
  { p6 = static_cast<const char*>(floats(6 * kMiB).data_ptr()); }
  // The two first mappings (a block starts 64 bytes before its data and is rounded up to
  // 64 KB); every later allocation must lie inside them.
  const char* b4 = p4 - 64;
  const char* b6 = p6 - 64;
  const int64_t m4 = 16 * kMiB + (64 << 10), m6 = 24 * kMiB + (64 << 10);
  auto inside = [&](const void* p, int64_t n) {
    const char* c = static_cast<const char*>(p);
    if (b4 + m4 == b6 || b6 + m6 == b4) {  // adjacent: merged into one range
      const char* lo = std::min(b4, b6);
      return c >= lo && c + n <= lo + m4 + m6;
    }
    return (c >= b4 && c + n <= b4 + m4) || (c >= b6 && c + n <= b6 + m6);
  };
  const void *first4 = nullptr, *first6 = nullptr;
  for (int round = 0; round < 3; ++round) {
    const void *q4, *q6;
    { q4 = floats(4 * kMiB).data_ptr(); }
    { q6 = floats(6 * kMiB).data_ptr(); }
    EXPECT_TRUE(inside(q4, 16 * kMiB)) << "round " << round;
    EXPECT_TRUE(inside(q6, 24 * kMiB)) << "round " << round;
    if (round == 0) {
      first4 = q4;
      first6 = q6;
    } else {
      EXPECT_EQ(q4, first4);
      EXPECT_EQ(q6, first6);
    }
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
