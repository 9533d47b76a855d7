#pragma once
// The CPU allocator's cache of freed large blocks (core/allocator.cpp): what it holds, and a
// way to hand it all back to the system.
#include <cstdint>

namespace tc {

// Bytes of freed CPU blocks (>= 1 MB) kept mapped for reuse.
int64_t cpu_memory_cached();
// Unmaps every cached block.
void cpu_empty_cache();

}  // namespace tc
