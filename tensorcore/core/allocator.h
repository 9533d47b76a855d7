#pragma once
// Per-device allocator interface. CPU registers at start-up; the CUDA backend registers its
// caching allocator when compiled in.
#include <cstddef>

#include "tensorcore/core/device.h"

namespace tc {

// Memory handed out by an allocator: `free_fn(ctx)` releases it (ctx is often `ptr` itself).
struct Allocation {
  void* ptr = nullptr;
  void* ctx = nullptr;
  void (*free_fn)(void*) = nullptr;
};

struct Allocator {
  virtual ~Allocator() = default;
  virtual Allocation allocate(size_t nbytes, Device device) = 0;
  // Copies between this device and host or within the device (used by Tensor.to/copy_).
  virtual void copy(void* dst, Device dst_device, const void* src, Device src_device,
                    size_t nbytes) = 0;
  // The concrete device an allocation lands on ("cuda" -> "cuda:<current>").
  virtual Device resolve(Device device) { return device; }
};

// Throws "tensorcore was not compiled with CUDA" for a device type without an allocator.
Allocator& get_allocator(DeviceType type);
void register_allocator(DeviceType type, Allocator* allocator);

// Bytes currently held by CPU tensors (for memory tests and the profiler).
int64_t cpu_memory_allocated();

}  // namespace tc
