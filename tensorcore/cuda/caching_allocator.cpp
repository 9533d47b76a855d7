// Caching device allocator (the design of PyTorch's, written small): freed blocks stay cached per
// device and per stream, best-fit reuse with block splitting and neighbour merging, two pools
// (small requests share 2 MiB segments), record_stream via events, and PyTorch's statistics.
#include "tensorcore/cuda/cuda.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tensorcore/core/allocator.h"
#include "tensorcore/core/storage.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/profiler/profiler.h"

#ifdef TC_WITH_CUDA
#include "tensorcore/cuda/cuda_check.h"
#endif

namespace tc::cuda {

#ifdef TC_WITH_CUDA

namespace {

constexpr size_t kRound = 512;              // every block size is a multiple of this
constexpr size_t kSmallSize = 1 << 20;      // requests up to 1 MiB use the small pool
constexpr size_t kSmallSegment = 2 << 20;   // small pool segments
constexpr size_t kLargeSegment = 20 << 20;  // requests under 10 MiB share 20 MiB segments
constexpr size_t kMinLargeAlloc = 10 << 20;
constexpr size_t kRoundLarge = 2 << 20;     // larger requests round to 2 MiB
constexpr size_t kMinLargeSplit = 1 << 20;  // large-pool remainders below this are not split off

struct Block;
struct BlockLess {
  bool operator()(const Block* a, const Block* b) const;
};
using Pool = std::set<Block*, BlockLess>;

struct Block {
  int device = 0;
  cudaStream_t stream = nullptr;
  size_t size = 0;
  size_t requested = 0;
  char* ptr = nullptr;
  bool allocated = false;
  bool small = false;
  Block* prev = nullptr;  // neighbours inside the same cudaMalloc segment
  Block* next = nullptr;
  std::unordered_set<cudaStream_t> stream_uses;
  int pending_events = 0;
};

bool BlockLess::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return uintptr_t(a->stream) < uintptr_t(b->stream);
  if (a->size != b->size) return a->size < b->size;
  return uintptr_t(a->ptr) < uintptr_t(b->ptr);
}

struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void add(int64_t n) {
    current += n;
    if (n > 0)
      allocated += n;
    else
      freed -= n;
    peak = std::max(peak, current);
  }
};

struct DeviceState {
  std::recursive_mutex mu;
  Pool small_pool, large_pool;
  std::deque<std::pair<cudaEvent_t, Block*>> events;
  std::vector<cudaEvent_t> spare_events;
  Stat allocated_bytes, reserved_bytes, active_blocks, segments, requested_bytes;
  int64_t num_alloc_retries = 0, num_ooms = 0, num_allocs = 0, num_frees = 0;
};

size_t round_size(size_t n) { return n < kRound ? kRound : (n + kRound - 1) / kRound * kRound; }
size_t segment_size(size_t n) {
  if (n <= kSmallSize) return kSmallSegment;
  if (n < kMinLargeAlloc) return kLargeSegment;
  return (n + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

class CachingAllocator final : public Allocator {
 public:
  Allocation allocate(size_t nbytes, Device device) override {
    if (nbytes == 0) return {};
    int dev = resolve_device(device.index, "cuda allocator");
    Block* b = malloc_block(dev, nbytes, stream_of(dev));
    return {b->ptr, b, &CachingAllocator::release};
  }

  Device resolve(Device device) override {
    if (device.index < 0) device.index = int8_t(resolve_device(-1, "cuda allocator"));
    return device;
  }

  void copy(void* dst, Device dst_device, const void* src, Device src_device,
            size_t nbytes) override {
    if (nbytes == 0) return;
    if (dst_device.is_cuda() && src_device.is_cuda()) {
      DeviceGuard g(dst_device.index);
      cudaStream_t s = stream_of(dst_device.index);
      if (dst_device.index == src_device.index) {
        TC_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, s));
      } else {
        // The source stream's pending writes must land first.
        stream_wait_stream(current_stream(dst_device.index), current_stream(src_device.index));
        TC_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_device.index, src, src_device.index, nbytes, s));
      }
      return;
    }
    int dev = dst_device.is_cuda() ? dst_device.index : src_device.index;
    DeviceGuard g(dev);
    cudaStream_t s = stream_of(dev);
    cudaMemcpyKind kind = dst_device.is_cuda() ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    TC_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, kind, s));
    // Host memory may be read or freed as soon as we return (and pinned sources are not
    // staged by the driver), so wait here; device-to-device copies stay asynchronous.
    TC_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  static void release(void* ctx) { instance().free_block(static_cast<Block*>(ctx)); }

  static CachingAllocator& instance() {
    static CachingAllocator* a = new CachingAllocator();  // outlives static tensors at exit
    return *a;
  }

  DeviceState& state(int dev) {
    std::lock_guard<std::mutex> lock(states_mu_);
    if (states_.size() <= size_t(dev)) states_.resize(dev + 1);
    if (!states_[dev]) states_[dev] = std::make_unique<DeviceState>();
    return *states_[dev];
  }

  Block* malloc_block(int dev, size_t nbytes, cudaStream_t stream) {
    DeviceState& st = state(dev);
    std::lock_guard<std::recursive_mutex> lock(st.mu);
    process_events(st);
    size_t size = round_size(nbytes);
    bool small = size <= kSmallSize;
    Pool& pool = small ? st.small_pool : st.large_pool;
    Block key;
    key.stream = stream;
    key.size = size;
    Block* b = nullptr;
    auto it = pool.lower_bound(&key);
    // Oversized cached blocks are not carved up for big requests (fragmentation).
    if (it != pool.end() && (*it)->stream == stream &&
        (small || size < kMinLargeAlloc || (*it)->size <= size + kLargeSegment)) {
      b = *it;
      pool.erase(it);
    } else {
      b = new_segment(st, dev, size, stream, small);
    }
    size_t remaining = b->size - size;
    if (remaining >= (small ? kRound : kMinLargeSplit)) {
      Block* rest = new Block();
      rest->device = dev;
      rest->stream = stream;
      rest->small = small;
      rest->ptr = b->ptr + size;
      rest->size = remaining;
      rest->prev = b;
      rest->next = b->next;
      if (b->next) b->next->prev = rest;
      b->next = rest;
      b->size = size;
      pool.insert(rest);
    }
    b->allocated = true;
    b->requested = nbytes;
    st.allocated_bytes.add(int64_t(b->size));
    st.requested_bytes.add(int64_t(nbytes));
    st.active_blocks.add(1);
    ++st.num_allocs;
    if (profiler::memory_enabled()) [[unlikely]]
      profiler::on_memory(b->ptr, int64_t(b->size), st.allocated_bytes.current,
                          int8_t(DeviceType::CUDA), int8_t(dev), st.reserved_bytes.current);
    return b;
  }

  Block* new_segment(DeviceState& st, int dev, size_t size, cudaStream_t stream, bool small) {
    size_t seg = segment_size(size);
    DeviceGuard g(dev);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, seg);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      ++st.num_alloc_retries;
      synchronize_and_process(st, dev);
      release_cached(st, dev);
      err = cudaMalloc(&p, seg);
    }
    if (err != cudaSuccess) {
      cudaGetLastError();
      ++st.num_ooms;
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      throw OutOfMemoryError(detail::concat(
          "CUDA out of memory. Tried to allocate ", format_bytes(int64_t(size)), " (cuda:", dev,
          "; ", format_bytes(int64_t(total_b)), " total capacity; ",
          format_bytes(st.allocated_bytes.current), " already allocated; ",
          format_bytes(int64_t(free_b)), " free; ", format_bytes(st.reserved_bytes.current),
          " reserved in total by tensorcore): ", cudaGetErrorString(err)));
    }
    st.reserved_bytes.add(int64_t(seg));
    st.segments.add(1);
    Block* b = new Block();
    b->device = dev;
    b->stream = stream;
    b->size = seg;
    b->ptr = static_cast<char*>(p);
    b->small = small;
    return b;
  }

  void free_block(Block* b) {
    DeviceState& st = state(b->device);
    std::lock_guard<std::recursive_mutex> lock(st.mu);
    st.allocated_bytes.add(-int64_t(b->size));
    st.requested_bytes.add(-int64_t(b->requested));
    st.active_blocks.add(-1);
    ++st.num_frees;
    b->allocated = false;
    if (profiler::memory_enabled()) [[unlikely]]
      profiler::on_memory(b->ptr, -int64_t(b->size), st.allocated_bytes.current,
                          int8_t(DeviceType::CUDA), int8_t(b->device), st.reserved_bytes.current);
    if (!b->stream_uses.empty()) {
      // Other streams may still use the memory: reuse it once their queued work is done.
      DeviceGuard g(b->device);
      for (cudaStream_t s : b->stream_uses) {
        cudaEvent_t e;
        if (st.spare_events.empty()) {
          TC_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        } else {
          e = st.spare_events.back();
          st.spare_events.pop_back();
        }
        TC_CUDA_CHECK(cudaEventRecord(e, s));
        st.events.emplace_back(e, b);
        ++b->pending_events;
      }
      b->stream_uses.clear();
      return;
    }
    return_to_pool(st, b);
  }

  void return_to_pool(DeviceState& st, Block* b) {
    Pool& pool = b->small ? st.small_pool : st.large_pool;
    // Merge with free neighbours of the same segment.
    if (b->prev && !b->prev->allocated && b->prev->pending_events == 0) {
      Block* p = b->prev;
      pool.erase(p);
      p->size += b->size;
      p->next = b->next;
      if (b->next) b->next->prev = p;
      delete b;
      b = p;
    }
    if (b->next && !b->next->allocated && b->next->pending_events == 0) {
      Block* n = b->next;
      pool.erase(n);
      b->size += n->size;
      b->next = n->next;
      if (n->next) n->next->prev = b;
      delete n;
    }
    pool.insert(b);
  }

  void process_events(DeviceState& st) {
    while (!st.events.empty()) {
      auto [e, b] = st.events.front();
      cudaError_t r = cudaEventQuery(e);
      if (r == cudaErrorNotReady) {
        cudaGetLastError();
        break;
      }
      st.events.pop_front();
      st.spare_events.push_back(e);
      if (--b->pending_events == 0) return_to_pool(st, b);
    }
  }

  void synchronize_and_process(DeviceState& st, int dev) {
    DeviceGuard g(dev);
    for (auto& [e, b] : st.events) cudaEventSynchronize(e);
    process_events(st);
  }

  // Frees whole cached segments (blocks with no neighbours).
  void release_cached(DeviceState& st, int dev) {
    DeviceGuard g(dev);
    for (Pool* pool : {&st.small_pool, &st.large_pool}) {
      for (auto it = pool->begin(); it != pool->end();) {
        Block* b = *it;
        if (!b->prev && !b->next) {
          cudaFree(b->ptr);
          st.reserved_bytes.add(-int64_t(b->size));
          st.segments.add(-1);
          delete b;
          it = pool->erase(it);
        } else {
          ++it;
        }
      }
    }
  }

  void empty_cache() {
    for (int d = 0; d < device_count(); ++d) {
      DeviceState& st = state(d);
      std::lock_guard<std::recursive_mutex> lock(st.mu);
      synchronize_and_process(st, d);
      release_cached(st, d);
    }
  }

  static std::string format_bytes(int64_t n) {
    std::ostringstream os;
    os.precision(2);
    os << std::fixed;
    if (n >= (int64_t(1) << 30))
      os << double(n) / double(1 << 30) << " GiB";
    else if (n >= (1 << 20))
      os << double(n) / double(1 << 20) << " MiB";
    else if (n >= 1024)
      os << double(n) / 1024.0 << " KiB";
    else
      os << n << " bytes";
    return os.str();
  }

 private:
  std::mutex states_mu_;
  std::vector<std::unique_ptr<DeviceState>> states_;
};

const bool g_registered = [] {
  register_allocator(DeviceType::CUDA, &CachingAllocator::instance());
  return true;
}();

DeviceState& state_for(int device) {
  return CachingAllocator::instance().state(resolve_device(device, "memory stats"));
}

}  // namespace

int64_t memory_allocated(int device) {
  if (!is_available()) return 0;
  return state_for(device).allocated_bytes.current;
}
int64_t max_memory_allocated(int device) {
  if (!is_available()) return 0;
  return state_for(device).allocated_bytes.peak;
}
int64_t memory_reserved(int device) {
  if (!is_available()) return 0;
  return state_for(device).reserved_bytes.current;
}
int64_t max_memory_reserved(int device) {
  if (!is_available()) return 0;
  return state_for(device).reserved_bytes.peak;
}

void reset_peak_memory_stats(int device) {
  if (!is_available()) return;
  DeviceState& st = state_for(device);
  std::lock_guard<std::recursive_mutex> lock(st.mu);
  for (Stat* s : {&st.allocated_bytes, &st.reserved_bytes, &st.active_blocks, &st.segments,
                  &st.requested_bytes})
    s->peak = s->current;
}

void empty_cache() {
  if (is_available()) CachingAllocator::instance().empty_cache();
}

std::map<std::string, int64_t> memory_stats(int device) {
  std::map<std::string, int64_t> m;
  if (!is_available()) return m;
  DeviceState& st = state_for(device);
  std::lock_guard<std::recursive_mutex> lock(st.mu);
  auto put = [&](const std::string& name, const Stat& s) {
    m[name + ".all.current"] = s.current;
    m[name + ".all.peak"] = s.peak;
    m[name + ".all.allocated"] = s.allocated;
    m[name + ".all.freed"] = s.freed;
  };
  put("allocated_bytes", st.allocated_bytes);
  put("reserved_bytes", st.reserved_bytes);
  put("active", st.active_blocks);
  put("segment", st.segments);
  put("requested_bytes", st.requested_bytes);
  int64_t inactive = 0, inactive_bytes = 0;
  for (const Pool* p : {&st.small_pool, &st.large_pool})
    for (const Block* b : *p) {
      ++inactive;
      inactive_bytes += int64_t(b->size);
    }
  m["inactive_split.all.current"] = inactive;
  m["inactive_split_bytes.all.current"] = inactive_bytes;
  m["num_alloc_retries"] = st.num_alloc_retries;
  m["num_ooms"] = st.num_ooms;
  m["num_allocs"] = st.num_allocs;
  m["num_frees"] = st.num_frees;
  return m;
}

std::string memory_summary(int device) {
  if (!is_available()) return "No CUDA device available.\n";
  int dev = resolve_device(device, "memory_summary");
  auto m = memory_stats(dev);
  auto f = [](int64_t n) { return CachingAllocator::format_bytes(n); };
  std::ostringstream os;
  os << "tensorcore CUDA memory summary, device " << dev << "\n";
  os << "  metric                 current        peak   allocated       freed\n";
  for (const char* k : {"allocated_bytes", "reserved_bytes", "requested_bytes"}) {
    std::string key(k);
    os << "  " << key << std::string(20 - key.size(), ' ') << " " << f(m[key + ".all.current"])
       << "  " << f(m[key + ".all.peak"]) << "  " << f(m[key + ".all.allocated"]) << "  "
       << f(m[key + ".all.freed"]) << "\n";
  }
  os << "  active blocks: " << m["active.all.current"] << ", segments: " << m["segment.all.current"]
     << ", cached free blocks: " << m["inactive_split.all.current"]
     << ", alloc retries: " << m["num_alloc_retries"] << ", OOMs: " << m["num_ooms"] << "\n";
  return os.str();
}

void record_stream(const Tensor& t, const Stream& s) {
  TC_CHECK(t.is_cuda(), "record_stream: expected a CUDA tensor, got one on ", t.device().str());
  const Allocation& mem = t.storage()->mem;
  if (mem.free_fn != &CachingAllocator::release) return;  // foreign memory (DLPack): not ours
  Block* b = static_cast<Block*>(mem.ctx);
  DeviceState& st = CachingAllocator::instance().state(b->device);
  std::lock_guard<std::recursive_mutex> lock(st.mu);
  cudaStream_t h = static_cast<cudaStream_t>(s.handle);
  if (h != b->stream) b->stream_uses.insert(h);
}

Tensor pin_memory(const Tensor& t) {
  TC_CHECK(t.is_cpu(), "pin_memory: expected a CPU tensor, got one on ", t.device().str());
  resolve_device(-1, "pin_memory");
  Tensor src = contiguous(t);
  size_t n = std::max<size_t>(src.nbytes(), 1);
  void* p = nullptr;
  TC_CUDA_CHECK(cudaHostAlloc(&p, n, cudaHostAllocDefault));
  if (src.nbytes()) std::memcpy(p, src.data_ptr(), src.nbytes());
  Storage s = storage_from_blob(p, src.nbytes(), Device(), [p] { cudaFreeHost(p); });
  return make_tensor(s, src.sizes(), contiguous_strides(src.sizes()), 0, src.dtype());
}

bool is_pinned(const Tensor& t) {
  if (!t.is_cpu() || !is_available() || !t.storage()->data()) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, t.storage()->data()) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

#else  // !TC_WITH_CUDA

int64_t memory_allocated(int) { return 0; }
int64_t max_memory_allocated(int) { return 0; }
int64_t memory_reserved(int) { return 0; }
int64_t max_memory_reserved(int) { return 0; }
void reset_peak_memory_stats(int) {}
void empty_cache() {}
std::map<std::string, int64_t> memory_stats(int) { return {}; }
std::string memory_summary(int) { return "tensorcore was not compiled with CUDA support.\n"; }
void record_stream(const Tensor&, const Stream&) {
  throw NotImplementedError("record_stream: tensorcore was not compiled with CUDA support");
}
Tensor pin_memory(const Tensor&) {
  throw NotImplementedError("pin_memory: tensorcore was not compiled with CUDA support");
}
bool is_pinned(const Tensor&) { return false; }

#endif

}  // namespace tc::cuda
