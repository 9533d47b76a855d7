#pragma once
// Device-side timing for the profiler (ProfilerActivity.CUDA): the parts that do not need a GPU,
// so they are built and tested everywhere, and the interface the CUDA build implements
// (profiler/cuda_timer.cpp).
//
// How a CUDA kernel is timed: when an op dispatches a CUDA kernel (core/dispatch.h) the timer
// records a start event on the device's current stream before the call and an end event after
// it; the events come from a pool and go back to it once read, so a steady state allocates no
// events. Nothing waits on the device per op: pairs whose end event has completed are read
// (cudaEventElapsedTime against a per-device reference event) whenever many are pending, and
// the rest when the session stops, after one wait per device. The reference event is recorded
// and waited for once per device and session, and the CPU clock read right after it anchors
// the device times on the CPU clock of the spans.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tc::profiler {

// A stretch of device work (the kernels one kernel-table call queued), on the CPU clock.
struct DeviceEvent {
  std::string name;  // the kernel table's name ("add", "conv_forward"), + "_kernel"
  int device = 0;
  uint64_t stream = 0;   // the cudaStream_t handle (0: the legacy default stream)
  int64_t start_ns = 0;  // device start, CPU clock (steady_clock)
  int64_t end_ns = 0;
  int64_t correlation = 0;      // links the device event to its launch (below)
  int64_t op_id = -1;           // the CPU op span that launched it (Event::id)
  uint64_t tid = 0;             // the launching thread
  int64_t launch_start_ns = 0;  // the host side of the launch: the kernel call's CPU interval
  int64_t launch_end_ns = 0;
};

// A pool of reusable handles (cudaEvent_t in the CUDA build): acquire() hands out a free one or
// creates one, release() puts it back. Not thread-safe (the timer holds its own lock).
template <typename H>
class HandlePool {
 public:
  HandlePool(std::function<H()> create, std::function<void(H)> destroy)
      : create_(std::move(create)), destroy_(std::move(destroy)) {}
  ~HandlePool() {
    for (H h : free_) destroy_(h);
  }
  HandlePool(const HandlePool&) = delete;
  HandlePool& operator=(const HandlePool&) = delete;
  H acquire() {
    ++in_use_;
    if (free_.empty()) {
      ++created_;
      return create_();
    }
    H h = free_.back();
    free_.pop_back();
    return h;
  }
  void release(H h) {
    --in_use_;
    free_.push_back(h);
  }
  int64_t created() const { return created_; }  // handles ever created
  int64_t in_use() const { return in_use_; }
  size_t cached() const { return free_.size(); }

 private:
  std::function<H()> create_;
  std::function<void(H)> destroy_;
  std::vector<H> free_;
  int64_t created_ = 0;
  int64_t in_use_ = 0;
};

// A device time given as milliseconds after the device's reference event (what
// cudaEventElapsedTime reports) on the CPU clock, the reference having completed at
// `ref_cpu_ns`.
int64_t device_ms_to_cpu_ns(int64_t ref_cpu_ns, double ms_after_ref);

// One timed kernel call as the recorder keeps it until the session stops.
struct PendingKernel {
  int64_t mark = -1;  // the timer's event pair
  const std::string* name = nullptr;
  int64_t op_id = -1;
  int64_t correlation = 0;
  uint64_t tid = 0;
  int64_t launch_start_ns = 0;
  int64_t launch_end_ns = 0;
};

// An event pair read back: milliseconds after the device's reference event; ok == false when
// the pair could not be read (the device failed, or the session ended before the end mark).
struct ResolvedMark {
  int device = 0;
  uint64_t stream = 0;
  int64_t ref_cpu_ns = 0;
  double start_ms = 0;
  double end_ms = 0;
  bool ok = false;
};

// The device events of a session from its pending kernels and their read-back marks (indexed by
// mark_index(PendingKernel::mark)); unreadable marks are dropped. Sorted by start.
std::vector<DeviceEvent> assemble_device_events(const std::vector<PendingKernel>& pending,
                                                const std::vector<ResolvedMark>& marks);

// A timer's mark: the session in the high bits, the pair's index in the vector stop_session()
// returns in the low ones.
constexpr int kMarkSessionShift = 40;
inline size_t mark_index(int64_t mark) {
  return size_t(uint64_t(mark) & ((uint64_t(1) << kMarkSessionShift) - 1));
}

// The CUDA build registers one (cuda_timer.cpp); without it the CUDA activity records nothing
// on the device. Calls come from any thread; the implementation locks.
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  // A session with device timing starts / stops; stop returns every pair read back.
  virtual void start_session() = 0;
  virtual std::vector<ResolvedMark> stop_session() = 0;
  // Records a start event on `device`'s current stream (-1: the current device); returns the
  // pair's mark, -1 when the device cannot be timed.
  virtual int64_t begin(int device) = 0;
  virtual void end(int64_t mark) = 0;
};
void register_device_timer(DeviceTimer* timer);
DeviceTimer* device_timer();

}  // namespace tc::profiler
