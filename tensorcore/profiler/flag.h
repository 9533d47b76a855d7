#pragma once
// The profiler's one global flag word, apart from profiler.h so that the op dispatch
// (core/dispatch.h, included by every kernel) can check it without pulling in the recorder.
#include <atomic>
#include <cstdint>

namespace tc::profiler {

namespace detail {
enum StateBits : uint32_t {
  kEnabled = 1u,
  kMemory = 2u,
  kShapes = 4u,
  kStack = 8u,
  kCuda = 16u,  // time the kernels of CUDA ops with events (ProfilerActivity.CUDA)
};
extern std::atomic<uint32_t> g_state;
}  // namespace detail

// The one check every hook makes.
inline bool enabled() { return detail::g_state.load(std::memory_order_relaxed) & detail::kEnabled; }
inline uint32_t state() { return detail::g_state.load(std::memory_order_relaxed); }

}  // namespace tc::profiler
