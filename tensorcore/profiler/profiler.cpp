#include "tensorcore/profiler/profiler.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#include "tensorcore/core/error.h"

namespace tc::profiler {

namespace detail {
std::atomic<uint32_t> g_state{0};
}  // namespace detail

namespace {

constexpr int kGenerationShift = 40;
constexpr uint64_t kIdMask = (uint64_t(1) << kGenerationShift) - 1;

struct OpenSpan {
  int64_t id;
  size_t index;
};

struct ThreadBuffer {
  std::mutex mu;
  uint64_t tid = 0;
  uint32_t generation = 0;
  std::vector<Event> events;
  std::vector<MemoryEvent> memory;
  std::vector<OpenSpan> open;
};

std::mutex g_registry_mu;
std::vector<std::shared_ptr<ThreadBuffer>> g_buffers;  // every thread that recorded
std::atomic<uint32_t> g_generation{1};
std::atomic<int64_t> g_next_id{1};
std::atomic<StackProvider> g_stack_provider{nullptr};
int64_t g_session_start = 0;
bool g_running = false;  // under g_registry_mu

uint64_t os_thread_id() { return uint64_t(::syscall(SYS_gettid)); }

// A forked child (a DataLoader worker) does not record: nobody would collect its events.
const bool g_atfork_registered = [] {
  ::pthread_atfork(nullptr, nullptr, [] {
    detail::g_state.store(0, std::memory_order_relaxed);
    g_running = false;
  });
  return true;
}();

ThreadBuffer& local_buffer() {
  thread_local std::shared_ptr<ThreadBuffer> buffer = [] {
    auto b = std::make_shared<ThreadBuffer>();
    b->tid = os_thread_id();
    std::lock_guard<std::mutex> lock(g_registry_mu);
    g_buffers.push_back(b);
    return b;
  }();
  return *buffer;
}

// Drops what a previous session left in this thread's buffer (spans still open at its stop).
void sync_generation(ThreadBuffer& buf, uint32_t generation) {
  if (buf.generation != generation) {
    buf.generation = generation;
    buf.events.clear();
    buf.memory.clear();
    buf.open.clear();
  }
}

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void set_stack_provider(StackProvider provider) { g_stack_provider.store(provider); }

bool is_running() { return enabled(); }

void start(const Config& config) {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  TC_CHECK_AS(Error, !g_running,
              "Profiler is already enabled: nested profilers are not supported (stop the outer "
              "one first)");
  g_running = true;
  g_session_start = now_ns();
  uint32_t bits = detail::kEnabled;
  if (config.profile_memory) bits |= detail::kMemory;
  if (config.record_shapes) bits |= detail::kShapes;
  if (config.with_stack) bits |= detail::kStack;
  detail::g_state.store(bits, std::memory_order_release);
}

Result stop() {
  Result result;
  std::lock_guard<std::mutex> lock(g_registry_mu);
  TC_CHECK_AS(Error, g_running, "profiler: stop() without a running session");
  detail::g_state.store(0, std::memory_order_release);
  result.start_ns = g_session_start;
  result.end_ns = now_ns();
  const uint32_t generation = g_generation.fetch_add(1);
  for (auto& b : g_buffers) {
    std::lock_guard<std::mutex> blk(b->mu);
    if (b->generation != generation) continue;
    for (Event& e : b->events) {
      if (e.end_ns < 0) e.end_ns = result.end_ns;  // open at stop (an op that never returned)
      result.events.push_back(std::move(e));
    }
    result.memory.insert(result.memory.end(), b->memory.begin(), b->memory.end());
    b->events.clear();
    b->memory.clear();
    b->open.clear();
  }
  // Threads that have exited hold the only other reference: forget them.
  g_buffers.erase(std::remove_if(g_buffers.begin(), g_buffers.end(),
                                 [](const std::shared_ptr<ThreadBuffer>& b) {
                                   return b.use_count() == 1;
                                 }),
                  g_buffers.end());
  g_running = false;
  std::stable_sort(result.events.begin(), result.events.end(),
                   [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
  std::stable_sort(
      result.memory.begin(), result.memory.end(),
      [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts_ns < b.ts_ns; });
  return result;
}

uint64_t begin(std::string_view name, EventType type, int64_t sequence_nr) {
  const uint32_t bits = state();
  if (!(bits & detail::kEnabled)) return 0;
  std::vector<std::string> stack;
  if ((bits & detail::kStack) && type != EventType::Backward) {
    if (StackProvider provider = g_stack_provider.load(std::memory_order_relaxed))
      stack = provider();
  }
  ThreadBuffer& buf = local_buffer();
  const uint32_t generation = g_generation.load(std::memory_order_relaxed);
  const int64_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(buf.mu);
  sync_generation(buf, generation);
  Event& e = buf.events.emplace_back();
  e.name.assign(name.data(), name.size());
  e.tid = buf.tid;
  e.id = id;
  e.parent_id = buf.open.empty() ? -1 : buf.open.back().id;
  e.type = type;
  e.sequence_nr = sequence_nr;
  e.stack = std::move(stack);
  buf.open.push_back({id, buf.events.size() - 1});
  e.start_ns = now_ns();  // last, so the bookkeeping above is not charged to the span
  return (uint64_t(generation) << kGenerationShift) | uint64_t(id);
}

void end(uint64_t token) {
  const int64_t t = now_ns();
  const uint32_t generation = uint32_t(token >> kGenerationShift);
  if (generation != g_generation.load(std::memory_order_relaxed)) return;  // session ended
  const int64_t id = int64_t(token & kIdMask);
  ThreadBuffer& buf = local_buffer();
  std::lock_guard<std::mutex> lock(buf.mu);
  if (buf.generation != generation) return;
  for (size_t k = buf.open.size(); k-- > 0;) {
    if (buf.open[k].id == id) {
      buf.events[buf.open[k].index].end_ns = t;
      buf.open.erase(buf.open.begin() + std::ptrdiff_t(k));
      return;
    }
  }
}

void cancel(uint64_t token) {
  const uint32_t generation = uint32_t(token >> kGenerationShift);
  const int64_t id = int64_t(token & kIdMask);
  ThreadBuffer& buf = local_buffer();
  std::lock_guard<std::mutex> lock(buf.mu);
  if (buf.generation != generation || buf.open.empty() || buf.open.back().id != id) return;
  // Only the innermost span can be cancelled, and only while nothing was recorded inside it.
  if (buf.open.back().index + 1 == buf.events.size()) buf.events.pop_back();
  else buf.events[buf.open.back().index].end_ns = now_ns();
  buf.open.pop_back();
}

void set_inputs(uint64_t token, std::vector<std::vector<int64_t>> shapes,
                std::vector<std::string> dtypes, std::vector<std::vector<int64_t>> int_args) {
  const uint32_t generation = uint32_t(token >> kGenerationShift);
  const int64_t id = int64_t(token & kIdMask);
  ThreadBuffer& buf = local_buffer();
  std::lock_guard<std::mutex> lock(buf.mu);
  if (buf.generation != generation) return;
  for (size_t k = buf.open.size(); k-- > 0;) {
    if (buf.open[k].id == id) {
      Event& e = buf.events[buf.open[k].index];
      e.shapes = std::move(shapes);
      e.dtypes = std::move(dtypes);
      e.int_args = std::move(int_args);
      return;
    }
  }
}

void add_external(std::string_view name, int64_t start_ns, int64_t end_ns, uint64_t tid) {
  if (!enabled()) return;
  ThreadBuffer& buf = local_buffer();
  const uint32_t generation = g_generation.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(buf.mu);
  sync_generation(buf, generation);
  Event& e = buf.events.emplace_back();
  e.name.assign(name.data(), name.size());
  e.start_ns = start_ns;
  e.end_ns = std::max(start_ns, end_ns);
  e.tid = tid;
  e.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  e.type = EventType::External;
}

void on_autograd_node(int64_t sequence_nr) {
  if (!enabled()) return;
  ThreadBuffer& buf = local_buffer();
  std::lock_guard<std::mutex> lock(buf.mu);
  if (buf.generation != g_generation.load(std::memory_order_relaxed) || buf.open.empty()) return;
  // The op that created the node is the innermost open span. It keeps its first node: the op's
  // own FunctionNode comes before the AccumulateGrad nodes its leaf inputs get when it connects
  // them (a composite op is linked to the first node it built).
  Event& e = buf.events[buf.open.back().index];
  if (e.type != EventType::Backward && e.sequence_nr < 0) e.sequence_nr = sequence_nr;
}

void on_memory(const void* addr, int64_t bytes, int64_t total_allocated, int8_t device_type,
               int8_t device_index) {
  const int64_t t = now_ns();
  ThreadBuffer& buf = local_buffer();
  const uint32_t generation = g_generation.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(buf.mu);
  sync_generation(buf, generation);
  MemoryEvent& m = buf.memory.emplace_back();
  m.ts_ns = t;
  m.bytes = bytes;
  m.total_allocated = total_allocated;
  m.addr = uint64_t(reinterpret_cast<uintptr_t>(addr));
  m.tid = buf.tid;
  m.event_id = buf.open.empty() ? -1 : buf.open.back().id;
  m.device_type = device_type;
  m.device_index = device_index;
}

RecordFunction::RecordFunction(std::string_view name, const TensorList& inputs, EventType type)
    : token_(enabled() ? begin(name, type) : 0) {
  if (!token_ || !(state() & detail::kShapes)) return;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::string> dtypes;
  shapes.reserve(inputs.size());
  dtypes.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    shapes.push_back(t.defined() ? t.sizes() : std::vector<int64_t>{});
    dtypes.emplace_back(t.defined() ? dtype_name(t.dtype()) : "");
  }
  set_inputs(token_, std::move(shapes), std::move(dtypes));
}

}  // namespace tc::profiler
