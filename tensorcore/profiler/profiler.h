#pragma once
// The profiler's recording core (tc.profiler / torch.profiler): spans of ops, user scopes and
// autograd nodes, and the CPU allocator's allocations and frees, each in a per-thread buffer.
//
// Off, every hook costs one relaxed load of `detail::g_state`. On, a span is two clock reads
// and a push into the calling thread's buffer (guarded by an uncontended per-thread mutex, so
// stop() can collect while other threads still run). Spans are matched to their session by a
// generation number: a span begun in one session and ended after stop() is dropped.
//
// C++ users mark regions with RecordFunction (the Python record_function is the same thing):
//   { tc::profiler::RecordFunction scope("data_augmentation"); ... }
// and run a session with start()/stop(), or through the Python API.
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "tensorcore/profiler/device_timing.h"
#include "tensorcore/profiler/flag.h"

namespace tc::profiler {

inline bool memory_enabled() {
  constexpr uint32_t kBoth = detail::kEnabled | detail::kMemory;
  return (detail::g_state.load(std::memory_order_relaxed) & kBoth) == kBoth;
}

struct Config {
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_stack = false;
  // ProfilerActivity.CUDA: time CUDA kernels with events (needs the CUDA build; without a
  // registered device timer it records nothing on the device).
  bool cuda = false;
};

enum class EventType : uint8_t {
  Op = 0,              // a native op: called through the binding layer, or a kernel-table call
                       // made outside any op span (C++ callers; core/dispatch.h)
  UserAnnotation = 1,  // record_function / RecordFunction, DataLoader and optimizer spans
  Backward = 2,        // an autograd node run by the engine (MulBackward0 ...)
  External = 3,        // a span measured elsewhere (a DataLoader worker process) and added
};

struct Event {
  std::string name;
  int64_t start_ns = 0;  // steady_clock (CLOCK_MONOTONIC), shared by all processes
  int64_t end_ns = -1;   // -1: still open when the session stopped (closed at the stop time)
  uint64_t tid = 0;      // OS thread id (or the worker's pid for External spans)
  int64_t id = 0;        // unique within the session
  int64_t parent_id = -1;
  int64_t sequence_nr = -1;  // autograd link: a forward op and its backward node share it
  EventType type = EventType::Op;
  std::vector<std::vector<int64_t>> shapes;    // per input; empty for non-tensor inputs
  std::vector<std::string> dtypes;             // per input; "" for non-tensor inputs
  std::vector<std::string> stack;              // Python frames, innermost first
  std::vector<std::vector<int64_t>> int_args;  // per input: the values of int / int-list args
};

struct MemoryEvent {
  int64_t ts_ns = 0;
  int64_t bytes = 0;            // > 0 allocated, < 0 freed
  int64_t total_allocated = 0;  // bytes held on the device after this event
  int64_t total_reserved = 0;   // bytes the device's allocator holds (cached blocks included)
  uint64_t addr = 0;
  uint64_t tid = 0;
  int64_t event_id = -1;   // innermost open span on the thread (the op that allocated/freed)
  int8_t device_type = 0;  // DeviceType: 0 CPU, 1 CUDA
  int8_t device_index = -1;
};

struct Result {
  std::vector<Event> events;
  std::vector<MemoryEvent> memory;
  std::vector<DeviceEvent> device_events;  // CUDA kernels timed with events (Config::cuda)
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Starts a session; raises when one is already running ("nested profilers").
void start(const Config& config);
// Ends the session and returns everything recorded, spans sorted by start time.
Result stop();
bool is_running();
int64_t now_ns();

// Python frames for with_stack (set by the Python binding; innermost first).
using StackProvider = std::vector<std::string> (*)();
void set_stack_provider(StackProvider provider);

// Low-level span API (RecordFunction and the Python binding use it). begin() returns a token,
// 0 when nothing was recorded (profiler off), that end() takes.
uint64_t begin(std::string_view name, EventType type, int64_t sequence_nr = -1);
// The same for a name that outlives the session (the op hook's names): nothing is copied until
// stop().
uint64_t begin_static(const std::string* name, EventType type);
void end(uint64_t token);
// Drops the open span `token` (a call that turned out not to run the op).
void cancel(uint64_t token);
// Input shapes and dtypes of the open span `token` (only when record_shapes is on).
void set_inputs(uint64_t token, std::vector<std::vector<int64_t>> shapes,
                std::vector<std::string> dtypes, std::vector<std::vector<int64_t>> int_args = {});
// Adds a finished span measured elsewhere (a DataLoader worker) on the lane `tid`.
void add_external(std::string_view name, int64_t start_ns, int64_t end_ns, uint64_t tid);

// Hooks (each behind the enabled() check at its call site).
void on_autograd_node(int64_t sequence_nr);  // a node created inside the open span
// total_reserved < 0: the same as total_allocated (an allocator that caches nothing).
void on_memory(const void* addr, int64_t bytes, int64_t total_allocated, int8_t device_type,
               int8_t device_index, int64_t total_reserved = -1);

class RecordFunction {
 public:
  explicit RecordFunction(std::string_view name, EventType type = EventType::UserAnnotation)
      : token_(enabled() ? begin(name, type) : 0) {}
  // An autograd node's span, linked to its forward op by the sequence number.
  RecordFunction(std::string_view name, int64_t sequence_nr, EventType type)
      : token_(enabled() ? begin(name, type, sequence_nr) : 0) {}
  // Records the inputs' shapes and dtypes when record_shapes is on.
  RecordFunction(std::string_view name, const TensorList& inputs, EventType type = EventType::Op);
  ~RecordFunction() {
    if (token_) end(token_);
  }
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;
  bool active() const { return token_ != 0; }

 private:
  uint64_t token_;
};

}  // namespace tc::profiler
