#include "tensorcore/core/allocator.h"
#include "tensorcore/core/cpu_cache.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sys/mman.h>
#endif

#include "tensorcore/core/error.h"
#include "tensorcore/core/storage.h"
#include "tensorcore/profiler/profiler.h"

namespace tc {

namespace {

std::atomic<int64_t> g_cpu_bytes{0};

// Freshly mapped blocks of 32 MB and more are backed by
// transparent huge pages where the kernel allows it (THP "madvise" or "always"): their first
// touch then costs one page fault per 2 MB instead of per 4 KB. Writing a new 128 MB tensor
// took 54 ms with 4 KB pages and 11 ms with huge pages here, which is most of a 16M-element
// float64 op. TC_CPU_HUGEPAGES=0 turns it off.
constexpr size_t kHugePageMin = size_t{32} << 20;
bool huge_pages_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("TC_CPU_HUGEPAGES");
    return v == nullptr || v[0] != '0';
  }();
  return on;
}
void advise_huge_pages(void* base, size_t total) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t k2M = uintptr_t{1} << 21;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(base) + k2M - 1) & ~(k2M - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(base) + total) & ~(k2M - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint
#else
  (void)base;
  (void)total;
#endif
}

// Blocks of kLargeMin bytes and more are mapped directly and, when freed, kept for reuse by a
// later allocation of the same size: a model run allocates the same activation sizes every
// iteration, and a fresh mapping pays a page fault (with zeroing) per 4 KB on first touch. On
// ResNet-50 inference that was ~40k faults and ~140 ms of system time per batch of 8.
//
// The cache must not raise the peak footprint much: live + cached bytes stay within kSlack of
// the high-water mark of live bytes (an allocation first unmaps the oldest cached bytes past
// it). A cached block larger than a request is split (its tail stays cached) and a freed block
// merges with adjacent cached ranges, so the different sizes of a model's stages share the
// same resident pages. Measured on ResNet-50 (one thread): inference at batch 8 took ~47k
// faults per batch with glibc, 34k with no slack, 9k with 16 MB, 0 with 32 MB; the training
// step at batch 16 needs 16 MB (1%) more peak memory than with glibc (32 MB would pass the
// 1.05x-of-torch target). Buffers that oneDNN would allocate for us (its reorders) come from
// this allocator too, so the live bytes are the whole of what a model step holds: before
// that, they sat outside the bound and raised the training peak by ~90 MB.
//
// A size that misses the cache again and again in a steady state (no cached block fits it
// though the live bytes are below their high-water mark) widens the slack to that size;
// otherwise the bound evicts it every iteration and it is mapped afresh each time.
// Default-size Wav2Letter under CPU autocast casts a 64 MB weight gradient each step: 30 new
// huge pages, which this VM backs at ~17 ms each (0.5 s of system time per 0.15 s step).
// Sizes that each miss once (ever-new shapes) keep the 16 MB slack. TC_CPU_CACHE_MB caps the
// cache (0 turns it off: glibc's malloc for every size, as before).
constexpr size_t kLargeMin = size_t{1} << 20;
constexpr size_t kMapGranule = size_t{64} << 10;
constexpr size_t kSlack = size_t{16} << 20;

// The cache splits, merges and trims blocks, which only page mappings allow (munmap of any
// page range); elsewhere it stays off and every size goes to malloc.
size_t cache_cap_bytes() {
#if defined(__linux__)
  static const size_t cap = [] {
    const char* v = std::getenv("TC_CPU_CACHE_MB");
    return (v != nullptr && v[0] != '\0') ? size_t(std::strtoull(v, nullptr, 10)) << 20
                                          : size_t{2} << 30;
  }();
  return cap;
#else
  return 0;
#endif
}

void* map_block(size_t size) {
#if defined(__linux__)
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
#else
  (void)size;
  return nullptr;  // unreachable: cache_cap_bytes() is 0
#endif
}

void unmap_block(void* base, size_t size) {
#if defined(__linux__)
  munmap(base, size);
#else
  (void)base;
  (void)size;
#endif
}

std::mutex& g_large_blocks_mu() {
  static std::mutex mu;
  return mu;
}

class LargeBlockCache {
 public:
  LargeBlockCache() {
#if defined(__linux__)
    // A fork while another thread holds the lock would leave the child's cache locked forever.
    pthread_atfork([] { g_large_blocks_mu().lock(); }, [] { g_large_blocks_mu().unlock(); },
                   [] { g_large_blocks_mu().unlock(); });
#endif
  }
  // A block of at least *size bytes (*size becomes its size): a cached one of that size, else
  // a fresh mapping; nullptr when the system has no memory left.
  void* acquire(size_t* size) {
    std::vector<Block> evicted;
    void* base = nullptr;
    {
      std::lock_guard<std::mutex> lock(g_large_blocks_mu());
      base = take_locked(*size);
      evicted.swap(pending_unmap_);
      // A miss below the high-water mark: the bytes were there once, the bound evicted them.
      if (base == nullptr && live_ + *size <= high_water_) note_miss_locked(*size);
      live_ += *size;
      high_water_ = std::max(high_water_, live_);
      const size_t limit = high_water_ + std::max(kSlack, churn_slack_);
      if (live_ + cached_ > limit) evict_locked(live_ + cached_ - limit, &evicted);
    }
    unmap_all(evicted);
    if (base != nullptr) return base;
    base = map_block(*size);
    if (base == nullptr) {  // a full cache may be what stands in the way
      release(SIZE_MAX);
      base = map_block(*size);
    }
    if (base == nullptr) {
      std::lock_guard<std::mutex> lock(g_large_blocks_mu());
      live_ -= *size;
    } else if (*size >= kHugePageMin && huge_pages_enabled()) {
      advise_huge_pages(base, *size);
    }
    return base;
  }
  // Takes back a block from acquire: kept for reuse, or unmapped when the cache is off or full.
  void give_back(void* base, size_t size) {
    const size_t cap = cache_cap_bytes();
    std::vector<Block> evicted;
    {
      std::lock_guard<std::mutex> lock(g_large_blocks_mu());
      live_ -= size;
      if (size > cap) {
        evicted.push_back({base, size, 0});
      } else {
        evict_locked(cached_ + size > cap ? cached_ + size - cap : 0, &evicted);
        cached_ += size;
        // Merge with cached neighbours (the tail split off this block, or any range that
        // happens to be adjacent), so that a split block becomes whole again.
        Block merged{base, size, ++clock_};
        for (size_t i = 0; i < free_.size();) {
          char* lo = static_cast<char*>(free_[i].base);
          char* mlo = static_cast<char*>(merged.base);
          if (lo + free_[i].size == mlo || mlo + merged.size == lo) {
            merged.base = std::min(lo, mlo);
            merged.size += free_[i].size;
            free_[i] = free_.back();
            free_.pop_back();
            i = 0;  // the grown block may now touch one already passed
          } else {
            ++i;
          }
        }
        free_.push_back(merged);
      }
    }
    unmap_all(evicted);
  }
  // Unmaps the oldest cached blocks until `bytes` are returned (all of them for SIZE_MAX).
  void release(size_t bytes) {
    std::vector<Block> evicted;
    {
      std::lock_guard<std::mutex> lock(g_large_blocks_mu());
      evict_locked(bytes, &evicted);
    }
    unmap_all(evicted);
  }
  size_t cached_bytes() {
    std::lock_guard<std::mutex> lock(g_large_blocks_mu());
    return cached_;
  }

 private:
  struct Block {
    void* base;
    size_t size;
    uint64_t stamp;
  };
  // A cached block for `size` bytes, taken out of the cache; nullptr when none is big enough.
  // An exact fit is preferred (the most recently freed: its pages are likeliest still in the
  // CPU cache); else the smallest larger block is split: its head is used and its tail stays
  // cached as a block of its own (an mmap'd range can be unmapped piecewise), so a loop whose
  // stages use different sizes keeps reusing the same resident pages.
  void* take_locked(size_t size) {
    const size_t none = free_.size();
    size_t exact = none, larger = none;
    for (size_t i = 0; i < free_.size(); ++i) {
      const Block& b = free_[i];
      if (b.size == size) {
        if (exact == none || b.stamp > free_[exact].stamp) exact = i;
      } else if (b.size > size && (larger == none || b.size < free_[larger].size)) {
        larger = i;
      }
    }
    const size_t pick = exact != none ? exact : larger;
    if (pick == none) return nullptr;
    Block b = free_[pick];
    free_[pick] = free_.back();
    free_.pop_back();
    cached_ -= b.size;
    if (b.size > size) {
      Block tail{static_cast<char*>(b.base) + size, b.size - size, b.stamp};
      if (tail.size >= kLargeMin) {
        free_.push_back(tail);
        cached_ += tail.size;
      } else {
        pending_unmap_.push_back(tail);
      }
    }
    return b.base;
  }
  // Takes at least `bytes` out of the cache, oldest blocks first, into *out (to unmap). Only
  // the tail that is needed is cut from the last block (a range unmaps piecewise), so the
  // cache keeps as much as the footprint bound allows.
  void evict_locked(size_t bytes, std::vector<Block>* out) {
    size_t freed = 0;
    while (freed < bytes && !free_.empty()) {
      size_t oldest = 0;
      for (size_t i = 1; i < free_.size(); ++i)
        if (free_[i].stamp < free_[oldest].stamp) oldest = i;
      Block& b = free_[oldest];
      const size_t left = bytes - freed;  // may be SIZE_MAX: compare before rounding up
      const size_t need =
          left >= b.size ? b.size : (left + kMapGranule - 1) / kMapGranule * kMapGranule;
      if (b.size >= need + kLargeMin) {
        b.size -= need;
        out->push_back({static_cast<char*>(b.base) + b.size, need, 0});
        cached_ -= need;
        freed += need;
        continue;
      }
      freed += b.size;
      cached_ -= b.size;
      out->push_back(b);
      free_[oldest] = free_.back();
      free_.pop_back();
    }
  }
  // A size that misses below the high-water mark for the second time (among the last 8 such
  // misses) is churning: the slack grows to hold it. The first iteration's misses raise the
  // high-water mark itself, so they do not count.
  void note_miss_locked(size_t size) {
    for (size_t missed : recent_misses_) {
      if (missed == size) {
        churn_slack_ = std::max(churn_slack_, size);
        return;
      }
    }
    recent_misses_[next_miss_++ % recent_misses_.size()] = size;
  }
  static void unmap_all(const std::vector<Block>& blocks) {
    for (const Block& b : blocks) unmap_block(b.base, b.size);
  }
  std::vector<Block> free_;
  std::vector<Block> pending_unmap_;  // split-off tails too small to cache, unmapped unlocked
  size_t cached_ = 0, live_ = 0, high_water_ = 0;  // bytes mapped
  size_t churn_slack_ = 0;                         // the largest size that missed the cache twice
  std::array<size_t, 8> recent_misses_{};
  size_t next_miss_ = 0;
  uint64_t clock_ = 0;
};

LargeBlockCache g_large_blocks;

// The block header (one cache line in front of the data) holds the requested size, the mapped
// size of a large block (0 for a malloc'd one), so release needs no lookup.
struct BlockHeader {
  size_t nbytes;
  size_t mapped;
};

struct CpuAllocator final : Allocator {
  static constexpr size_t kAlign = 64;  // one cache line; enough for AVX-512 loads
  static_assert(sizeof(BlockHeader) <= kAlign);

  Allocation allocate(size_t nbytes, Device) override {
    size_t total = kAlign + ((nbytes + kAlign - 1) / kAlign) * kAlign;
    void* base = nullptr;
    size_t mapped = 0;
    if (total >= kLargeMin && cache_cap_bytes() > 0) {
      mapped = (total + kMapGranule - 1) / kMapGranule * kMapGranule;
      base = g_large_blocks.acquire(&mapped);
    } else {  // small, or the cache is off (glibc's malloc, as before the cache)
      base = std::aligned_alloc(kAlign, total);
      if (base != nullptr && total >= kHugePageMin && huge_pages_enabled())
        advise_huge_pages(base, total);
    }
    if (!base)
      throw Error(detail::concat("CPU out of memory: failed to allocate ", nbytes, " bytes"));
    *static_cast<BlockHeader*>(base) = {nbytes, mapped};
    int64_t total_bytes = g_cpu_bytes.fetch_add(int64_t(nbytes), std::memory_order_relaxed);
    void* data = static_cast<char*>(base) + kAlign;
    if (profiler::memory_enabled()) [[unlikely]]
      profiler::on_memory(data, int64_t(nbytes), total_bytes + int64_t(nbytes), 0, -1);
    return {data, base, &CpuAllocator::release};
  }
  static void release(void* base) {
    const BlockHeader header = *static_cast<BlockHeader*>(base);
    const int64_t nbytes = int64_t(header.nbytes);
    int64_t total_bytes = g_cpu_bytes.fetch_sub(nbytes, std::memory_order_relaxed);
    if (profiler::memory_enabled()) [[unlikely]]
      profiler::on_memory(static_cast<char*>(base) + kAlign, -nbytes, total_bytes - nbytes, 0, -1);
    if (header.mapped == 0)
      std::free(base);
    else
      g_large_blocks.give_back(base, header.mapped);
  }
  void copy(void* dst, Device, const void* src, Device, size_t nbytes) override {
    if (nbytes) std::memcpy(dst, src, nbytes);
  }
};

CpuAllocator g_cpu_allocator;
Allocator* g_allocators[kNumDeviceTypes] = {&g_cpu_allocator, nullptr};

}  // namespace

Allocator& get_allocator(DeviceType type) {
  Allocator* a = g_allocators[int(type)];
  if (!a) {
    if (type == DeviceType::CUDA && !cuda_compiled())
      throw NotImplementedError(
          "tensorcore was not compiled with CUDA support (rebuild with -DTC_CUDA=ON)");
    throw Error(detail::concat("no allocator registered for device type ", device_type_name(type)));
  }
  return *a;
}

void register_allocator(DeviceType type, Allocator* allocator) {
  g_allocators[int(type)] = allocator;
}

int64_t cpu_memory_allocated() { return g_cpu_bytes.load(); }

int64_t cpu_memory_cached() { return int64_t(g_large_blocks.cached_bytes()); }

void cpu_empty_cache() { g_large_blocks.release(SIZE_MAX); }

Storage make_storage(size_t nbytes, Device device) {
  auto s = std::make_shared<StorageImpl>();
  Allocator& alloc = get_allocator(device.type);
  device = alloc.resolve(device);
  s->mem = alloc.allocate(nbytes, device);
  s->nbytes = nbytes;
  s->device = device;
  return s;
}

Storage storage_from_blob(void* data, size_t nbytes, Device device, std::function<void()> deleter) {
  auto s = std::make_shared<StorageImpl>();
  s->mem.ptr = data;
  s->mem.ctx = new std::function<void()>(std::move(deleter));
  s->mem.free_fn = [](void* ctx) {
    auto* fn = static_cast<std::function<void()>*>(ctx);
    if (*fn) (*fn)();
    delete fn;
  };
  s->nbytes = nbytes;
  s->device = device;
  return s;
}

}  // namespace tc
