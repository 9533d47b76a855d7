#pragma once
#include <atomic>
#include <functional>
#include <memory>

#include "tensorcore/core/allocator.h"

namespace tc {

// A block of device memory shared by a tensor and all of its views. The version counter lives
// here too: every in-place write through any view bumps it, which is what autograd checks.
struct StorageImpl {
  Allocation mem;
  size_t nbytes = 0;
  Device device;
  std::atomic<uint32_t> version{0};
  StorageImpl() = default;
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  ~StorageImpl() {
    if (mem.free_fn) mem.free_fn(mem.ctx);
  }
  void* data() const { return mem.ptr; }
};
using Storage = std::shared_ptr<StorageImpl>;

Storage make_storage(size_t nbytes, Device device);
// Wraps foreign memory (NumPy, DLPack); `deleter` runs when the last tensor using it dies.
Storage storage_from_blob(void* data, size_t nbytes, Device device, std::function<void()> deleter);

}  // namespace tc
