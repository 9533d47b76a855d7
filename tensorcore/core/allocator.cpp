#include "tensorcore/core/allocator.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "tensorcore/core/error.h"
#include "tensorcore/core/storage.h"
#include "tensorcore/profiler/profiler.h"

namespace tc {

namespace {

std::atomic<int64_t> g_cpu_bytes{0};

// Blocks of 32 MB and more (which glibc maps freshly for every allocation) are backed by
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

// Size is stashed in front of the block so free can account for it without a lookup.
struct CpuAllocator final : Allocator {
  static constexpr size_t kAlign = 64;  // one cache line; enough for AVX-512 loads

  Allocation allocate(size_t nbytes, Device) override {
    size_t total = kAlign + ((nbytes + kAlign - 1) / kAlign) * kAlign;
    void* base = std::aligned_alloc(kAlign, total);
    if (!base)
      throw Error(detail::concat("CPU out of memory: failed to allocate ", nbytes, " bytes"));
    if (total >= kHugePageMin && huge_pages_enabled()) advise_huge_pages(base, total);
    *static_cast<size_t*>(base) = nbytes;
    int64_t total_bytes = g_cpu_bytes.fetch_add(int64_t(nbytes), std::memory_order_relaxed);
    void* data = static_cast<char*>(base) + kAlign;
    if (profiler::memory_enabled()) [[unlikely]]
      profiler::on_memory(data, int64_t(nbytes), total_bytes + int64_t(nbytes), 0, -1);
    return {data, base, &CpuAllocator::release};
  }
  static void release(void* base) {
    const int64_t nbytes = int64_t(*static_cast<size_t*>(base));
    int64_t total_bytes = g_cpu_bytes.fetch_sub(nbytes, std::memory_order_relaxed);
    if (profiler::memory_enabled()) [[unlikely]]
      profiler::on_memory(static_cast<char*>(base) + kAlign, -nbytes, total_bytes - nbytes, 0, -1);
    std::free(base);
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
