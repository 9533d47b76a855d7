#include "tensorcore/profiler/profiler.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/error.h"
#include "tensorcore/core/tensor_iter.h"

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
  EventType type;
};

// What every span records, kept small (56 bytes) so the hot path writes one cache line; names
// that are not static, inputs and stacks live in `extras`.
struct Record {
  const std::string* static_name;
  int64_t start_ns;
  int64_t end_ns;
  int64_t id;
  int64_t parent_id;
  int64_t sequence_nr;
  int32_t extra;  // index into ThreadBuffer::extras, -1: none
  EventType type;
};

struct Extra {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::string> dtypes;
  std::vector<std::string> stack;
  std::vector<std::vector<int64_t>> int_args;
  uint64_t lane = 0;  // External spans: the lane (tid) they are drawn on, 0: the thread's
};

// Records in fixed chunks: appending never moves what is already there.
class RecordLog {
 public:
  static constexpr size_t kChunk = 4096;
  Record& push() {
    if (size_ == chunks_.size() * kChunk) chunks_.emplace_back(new Record[kChunk]);
    Record& r = chunks_[size_ / kChunk][size_ % kChunk];
    ++size_;
    return r;
  }
  Record& operator[](size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  size_t size() const { return size_; }
  void pop_back() { --size_; }
  void clear() {
    chunks_.clear();
    size_ = 0;
  }

 private:
  std::vector<std::unique_ptr<Record[]>> chunks_;
  size_t size_ = 0;
};

// The buffer is written by its own thread and read by stop(): a spin lock is enough (and
// cheaper than a mutex on the hot path).
class SpinLock {
 public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

struct ThreadBuffer {
  SpinLock mu;
  uint64_t tid = 0;
  uint32_t generation = 0;
  RecordLog records;
  std::vector<Extra> extras;
  std::vector<MemoryEvent> memory;
  std::vector<OpenSpan> open;
  int open_ops = 0;                    // spans of type Op in `open`: kernel calls inside add none
  std::vector<PendingKernel> kernels;  // CUDA kernel calls timed by the device timer

  Extra& extra_of(Record& r) {
    if (r.extra < 0) {
      r.extra = int32_t(extras.size());
      extras.emplace_back();
    }
    return extras[size_t(r.extra)];
  }
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

std::shared_ptr<ThreadBuffer> new_buffer() {
  auto b = std::make_shared<ThreadBuffer>();
  b->tid = os_thread_id();
  std::lock_guard<std::mutex> lock(g_registry_mu);
  g_buffers.push_back(b);
  return b;
}

ThreadBuffer& local_buffer() {
  // The owning pointer keeps the buffer registered while the thread lives; the raw pointer is
  // the fast path.
  thread_local std::shared_ptr<ThreadBuffer> owner;
  thread_local ThreadBuffer* buffer = nullptr;
  if (!buffer) [[unlikely]] {
    owner = new_buffer();
    buffer = owner.get();
  }
  return *buffer;
}

// Drops what a previous session left in this thread's buffer (spans still open at its stop).
void sync_generation(ThreadBuffer& buf, uint32_t generation) {
  if (buf.generation != generation) {
    buf.generation = generation;
    buf.records.clear();
    buf.extras.clear();
    buf.memory.clear();
    buf.open.clear();
    buf.open_ops = 0;
    buf.kernels.clear();
  }
}

// Pops the open span at `k`, keeping the count of open op spans.
void close_open(ThreadBuffer& buf, size_t k) {
  if (buf.open[k].type == EventType::Op) --buf.open_ops;
  buf.open.erase(buf.open.begin() + std::ptrdiff_t(k));
}

// Names of kernel-call spans and device events live for the process (a few hundred distinct
// ones): the recorder stores a pointer, as for the bindings' static names. `raw` may be any
// const char* (TensorIterConfig::op_name), so the per-thread cache checks the text too.
const std::string* interned(const char* raw, bool kernel_suffix) {
  struct Cached {
    std::string raw;
    const std::string* name;
  };
  thread_local std::unordered_map<const char*, Cached> cache[2];
  auto& local = cache[kernel_suffix ? 1 : 0];
  auto it = local.find(raw);
  if (it != local.end() && it->second.raw == raw) return it->second.name;
  static std::mutex mu;
  static std::unordered_map<std::string, std::unique_ptr<std::string>> names;
  std::string full = kernel_suffix ? std::string(raw) + "_kernel" : "aten::" + std::string(raw);
  const std::string* name;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto& slot = names[full];
    if (!slot) slot = std::make_unique<std::string>(full);
    name = slot.get();
  }
  local[raw] = {raw, name};
  return name;
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
  if (config.cuda) {
    if (DeviceTimer* timer = device_timer()) {
      timer->start_session();
      bits |= detail::kCuda;
    }
  }
  detail::g_state.store(bits, std::memory_order_release);
}

Result stop() {
  Result result;
  std::lock_guard<std::mutex> lock(g_registry_mu);
  TC_CHECK_AS(Error, g_running, "profiler: stop() without a running session");
  const bool device_timing = state() & detail::kCuda;
  detail::g_state.store(0, std::memory_order_release);
  std::vector<PendingKernel> kernels;
  result.start_ns = g_session_start;
  result.end_ns = now_ns();
  const uint32_t generation = g_generation.fetch_add(1);
  for (auto& b : g_buffers) {
    std::lock_guard<SpinLock> blk(b->mu);
    if (b->generation != generation) continue;
    for (size_t i = 0; i < b->records.size(); ++i) {
      Record& rec = b->records[i];
      Event& e = result.events.emplace_back();
      e.start_ns = rec.start_ns;
      e.end_ns = rec.end_ns < 0 ? result.end_ns : rec.end_ns;  // open at stop: never returned
      e.tid = b->tid;
      e.id = rec.id;
      e.parent_id = rec.parent_id;
      e.sequence_nr = rec.sequence_nr;
      e.type = rec.type;
      if (rec.extra >= 0) {
        Extra& x = b->extras[size_t(rec.extra)];
        e.name = std::move(x.name);
        e.shapes = std::move(x.shapes);
        e.dtypes = std::move(x.dtypes);
        e.stack = std::move(x.stack);
        e.int_args = std::move(x.int_args);
        if (x.lane) e.tid = x.lane;
      }
      if (rec.static_name) e.name = *rec.static_name;
    }
    result.memory.insert(result.memory.end(), b->memory.begin(), b->memory.end());
    kernels.insert(kernels.end(), b->kernels.begin(), b->kernels.end());
    b->records.clear();
    b->extras.clear();
    b->memory.clear();
    b->open.clear();
    b->open_ops = 0;
    b->kernels.clear();
  }
  if (device_timing) {
    // One wait per device here, none per op: the marks are read back now.
    std::vector<ResolvedMark> marks = device_timer()->stop_session();
    result.device_events = assemble_device_events(kernels, marks);
  }
  // Threads that have exited hold the only other reference: forget them.
  g_buffers.erase(
      std::remove_if(g_buffers.begin(), g_buffers.end(),
                     [](const std::shared_ptr<ThreadBuffer>& b) { return b.use_count() == 1; }),
      g_buffers.end());
  g_running = false;
  std::stable_sort(result.events.begin(), result.events.end(),
                   [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
  std::stable_sort(result.memory.begin(), result.memory.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts_ns < b.ts_ns; });
  return result;
}

namespace {

uint64_t begin_impl(std::string_view name, const std::string* static_name, EventType type,
                    int64_t sequence_nr) {
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
  std::lock_guard<SpinLock> lock(buf.mu);
  sync_generation(buf, generation);
  Record& r = buf.records.push();
  r.static_name = static_name;
  r.end_ns = -1;
  r.id = id;
  r.parent_id = buf.open.empty() ? -1 : buf.open.back().id;
  r.sequence_nr = sequence_nr;
  r.extra = -1;
  r.type = type;
  if (!static_name) buf.extra_of(r).name.assign(name.data(), name.size());
  if (!stack.empty()) buf.extra_of(r).stack = std::move(stack);
  buf.open.push_back({id, buf.records.size() - 1, type});
  if (type == EventType::Op) ++buf.open_ops;
  r.start_ns = now_ns();  // last, so the bookkeeping above is not charged to the span
  return (uint64_t(generation) << kGenerationShift) | uint64_t(id);
}

}  // namespace

uint64_t begin(std::string_view name, EventType type, int64_t sequence_nr) {
  return begin_impl(name, nullptr, type, sequence_nr);
}

uint64_t begin_static(const std::string* name, EventType type) {
  return begin_impl({}, name, type, -1);
}

void end(uint64_t token) {
  const int64_t t = now_ns();
  const uint32_t generation = uint32_t(token >> kGenerationShift);
  if (generation != g_generation.load(std::memory_order_relaxed)) return;  // session ended
  const int64_t id = int64_t(token & kIdMask);
  ThreadBuffer& buf = local_buffer();
  std::lock_guard<SpinLock> lock(buf.mu);
  if (buf.generation != generation) return;
  for (size_t k = buf.open.size(); k-- > 0;) {
    if (buf.open[k].id == id) {
      buf.records[buf.open[k].index].end_ns = t;
      close_open(buf, k);
      return;
    }
  }
}

void cancel(uint64_t token) {
  const uint32_t generation = uint32_t(token >> kGenerationShift);
  const int64_t id = int64_t(token & kIdMask);
  ThreadBuffer& buf = local_buffer();
  std::lock_guard<SpinLock> lock(buf.mu);
  if (buf.generation != generation || buf.open.empty() || buf.open.back().id != id) return;
  // Only the innermost span can be cancelled, and only while nothing was recorded inside it.
  const size_t index = buf.open.back().index;
  if (index + 1 == buf.records.size() && buf.records[index].extra < 0)
    buf.records.pop_back();
  else
    buf.records[index].end_ns = now_ns();
  close_open(buf, buf.open.size() - 1);
}

void set_inputs(uint64_t token, std::vector<std::vector<int64_t>> shapes,
                std::vector<std::string> dtypes, std::vector<std::vector<int64_t>> int_args) {
  const uint32_t generation = uint32_t(token >> kGenerationShift);
  const int64_t id = int64_t(token & kIdMask);
  ThreadBuffer& buf = local_buffer();
  std::lock_guard<SpinLock> lock(buf.mu);
  if (buf.generation != generation) return;
  for (size_t k = buf.open.size(); k-- > 0;) {
    if (buf.open[k].id == id) {
      Extra& x = buf.extra_of(buf.records[buf.open[k].index]);
      x.shapes = std::move(shapes);
      x.dtypes = std::move(dtypes);
      x.int_args = std::move(int_args);
      return;
    }
  }
}

void add_external(std::string_view name, int64_t start_ns, int64_t end_ns, uint64_t tid) {
  if (!enabled()) return;
  ThreadBuffer& buf = local_buffer();
  const uint32_t generation = g_generation.load(std::memory_order_relaxed);
  std::lock_guard<SpinLock> lock(buf.mu);
  sync_generation(buf, generation);
  Record& r = buf.records.push();
  r.static_name = nullptr;
  r.start_ns = start_ns;
  r.end_ns = std::max(start_ns, end_ns);
  r.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  r.parent_id = -1;
  r.sequence_nr = -1;
  r.extra = -1;
  r.type = EventType::External;
  Extra& x = buf.extra_of(r);
  x.name.assign(name.data(), name.size());
  x.lane = tid;
}

void on_autograd_node(int64_t sequence_nr) {
  if (!enabled()) return;
  ThreadBuffer& buf = local_buffer();
  std::lock_guard<SpinLock> lock(buf.mu);
  if (buf.generation != g_generation.load(std::memory_order_relaxed) || buf.open.empty()) return;
  // The op that created the node is the innermost open span. It keeps its first node: the op's
  // own FunctionNode comes before the AccumulateGrad nodes its leaf inputs get when it connects
  // them (a composite op is linked to the first node it built).
  Record& r = buf.records[buf.open.back().index];
  if (r.type != EventType::Backward && r.sequence_nr < 0) r.sequence_nr = sequence_nr;
}

void on_memory(const void* addr, int64_t bytes, int64_t total_allocated, int8_t device_type,
               int8_t device_index, int64_t total_reserved) {
  const int64_t t = now_ns();
  ThreadBuffer& buf = local_buffer();
  const uint32_t generation = g_generation.load(std::memory_order_relaxed);
  std::lock_guard<SpinLock> lock(buf.mu);
  sync_generation(buf, generation);
  MemoryEvent& m = buf.memory.emplace_back();
  m.ts_ns = t;
  m.bytes = bytes;
  m.total_allocated = total_allocated;
  m.total_reserved = total_reserved < 0 ? total_allocated : total_reserved;
  m.addr = uint64_t(reinterpret_cast<uintptr_t>(addr));
  m.tid = buf.tid;
  m.event_id = buf.open.empty() ? -1 : buf.open.back().id;
  m.device_type = device_type;
  m.device_index = device_index;
}

namespace {

void shape_of(const Tensor& t, std::vector<std::vector<int64_t>>& shapes,
              std::vector<std::string>& dtypes) {
  shapes.push_back(t.defined() ? t.sizes() : std::vector<int64_t>{});
  dtypes.emplace_back(t.defined() ? dtype_name(t.dtype()) : "");
}

// The CUDA device a kernel call works on: its TensorIter's output, else its first CUDA tensor;
// -1: the current device.
int kernel_device(const KernelArgs& args) {
  if (args.iter && args.iter->ntensors() > 0) {
    const Tensor& out = args.iter->operand(0);
    if (out.defined() && out.device().is_cuda()) return out.device().index;
  }
  for (int i = 0; i < args.num_tensors; ++i) {
    const Tensor& t = *args.tensors[i];
    if (t.defined() && t.device().is_cuda()) return t.device().index;
  }
  return -1;
}

constexpr int kMarkShift = 40;

}  // namespace

KernelToken kernel_begin(const KernelArgs& args) {
  KernelToken token;
  const uint32_t bits = state();
  if (!(bits & detail::kEnabled)) return token;
  const char* raw = args.iter && args.iter->op_name()[0] ? args.iter->op_name() : args.table;
  ThreadBuffer& buf = local_buffer();
  const uint32_t generation = g_generation.load(std::memory_order_relaxed);
  int64_t owner = -1;  // the span the device work is charged to
  {
    std::lock_guard<SpinLock> lock(buf.mu);
    sync_generation(buf, generation);
    if (buf.open_ops > 0) {
      // Inside an op span (an op called from Python, or an outer kernel call): that op is the
      // span; the device work is charged to the innermost open span.
      owner = buf.open.back().id;
    }
  }
  if (owner < 0) {
    // Outermost: this kernel call is the op span (C++ callers).
    token.span = begin_static(interned(raw, false), EventType::Op);
    if (!token.span) return token;
    owner = int64_t(token.span & kIdMask);
    if (bits & detail::kShapes) {
      std::vector<std::vector<int64_t>> shapes;
      std::vector<std::string> dtypes;
      if (args.iter) {
        for (int i = 1; i < args.iter->ntensors(); ++i)
          shape_of(args.iter->operand(i), shapes, dtypes);
      } else {
        for (int i = 0; i < args.num_tensors; ++i) shape_of(*args.tensors[i], shapes, dtypes);
      }
      set_inputs(token.span, std::move(shapes), std::move(dtypes));
    }
  }
  if (args.device == DeviceType::CUDA && (bits & detail::kCuda)) {
    DeviceTimer* timer = device_timer();
    const int64_t mark = timer ? timer->begin(kernel_device(args)) : -1;
    if (mark >= 0) {
      std::lock_guard<SpinLock> lock(buf.mu);
      if (buf.generation == generation) {
        PendingKernel& k = buf.kernels.emplace_back();
        k.mark = mark;
        k.name = interned(args.table, true);
        k.op_id = owner;
        k.correlation = g_next_id.fetch_add(1, std::memory_order_relaxed);
        k.tid = buf.tid;
        k.launch_start_ns = now_ns();
        token.device_mark =
            int64_t((uint64_t(generation) << kMarkShift) | uint64_t(buf.kernels.size() - 1));
      }
    }
  }
  return token;
}

void kernel_end(const KernelToken& token) noexcept {
  if (token.device_mark >= 0) {
    const uint32_t generation = uint32_t(uint64_t(token.device_mark) >> kMarkShift);
    const size_t index = size_t(uint64_t(token.device_mark) & kIdMask);
    ThreadBuffer& buf = local_buffer();
    int64_t mark = -1;
    {
      std::lock_guard<SpinLock> lock(buf.mu);
      if (buf.generation == generation && index < buf.kernels.size()) {
        mark = buf.kernels[index].mark;
        buf.kernels[index].launch_end_ns = now_ns();
      }
    }
    if (mark >= 0) {
      if (DeviceTimer* timer = device_timer()) timer->end(mark);
    }
  }
  if (token.span) end(token.span);
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
