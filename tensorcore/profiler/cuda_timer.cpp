// The profiler's CUDA kernel timer (ProfilerActivity.CUDA): event pairs on the op's current
// stream, from per-device pools, read back without a wait per op (device_timing.h says how).
#include "tensorcore/profiler/device_timing.h"

#ifdef TC_WITH_CUDA

#include <memory>
#include <mutex>

#include "tensorcore/cuda/cuda_check.h"
#include "tensorcore/profiler/profiler.h"

namespace tc::profiler {
namespace {

using cuda::DeviceGuard;

class CudaTimer final : public DeviceTimer {
 public:
  void start_session() override {
    std::lock_guard<std::mutex> lock(mu_);
    ++session_;
    active_ = true;
    pairs_.clear();
    first_unread_ = 0;
    unread_ = 0;
  }

  int64_t begin(int device) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!active_) return -1;
    try {
      if (device < 0) TC_CUDA_CHECK(cudaGetDevice(&device));
      DeviceGuard g(device);
      DeviceRef& ref = ensure_ref(device);
      Pair& p = pairs_.emplace_back();
      p.out.device = device;
      p.out.ref_cpu_ns = ref.cpu_ns;
      p.ref = ref.event;
      p.stream = cuda::stream_of(device);
      p.out.stream = uint64_t(reinterpret_cast<uintptr_t>(p.stream));
      p.start = pool(device).acquire();
      TC_CUDA_CHECK(cudaEventRecord(p.start, p.stream));
      return int64_t((uint64_t(session_) << kMarkSessionShift) | uint64_t(pairs_.size() - 1));
    } catch (const std::exception&) {
      return -1;  // the device cannot be timed (it reports the error to the op itself)
    }
  }

  void end(int64_t mark) override {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t i = mark_index(mark);
    if (!active_ || uint32_t(uint64_t(mark) >> kMarkSessionShift) != session_ || i >= pairs_.size())
      return;
    Pair& p = pairs_[i];
    try {
      DeviceGuard g(p.out.device);
      p.end = pool(p.out.device).acquire();
      TC_CUDA_CHECK(cudaEventRecord(p.end, p.stream));
      p.ended = true;
      ++unread_;
    } catch (const std::exception&) {
      return;
    }
    // Read what has completed now and then, so the pools stay as small as the device's queue.
    if (unread_ >= kReadBatch) read(false);
  }

  std::vector<ResolvedMark> stop_session() override {
    std::lock_guard<std::mutex> lock(mu_);
    active_ = false;
    for (size_t d = 0; d < refs_.size(); ++d) {
      if (!refs_[d].event) continue;
      DeviceGuard g(static_cast<int>(d));
      cudaDeviceSynchronize();  // the one wait per device of the session
      cudaGetLastError();
    }
    read(true);
    std::vector<ResolvedMark> out;
    out.reserve(pairs_.size());
    for (Pair& p : pairs_) out.push_back(p.out);
    pairs_.clear();
    for (size_t d = 0; d < refs_.size(); ++d) {
      if (refs_[d].event) pool(int(d)).release(refs_[d].event);
      refs_[d] = {};
    }
    return out;
  }

 private:
  static constexpr size_t kReadBatch = 1024;

  struct Pair {
    cudaEvent_t start = nullptr, end = nullptr, ref = nullptr;
    cudaStream_t stream = nullptr;
    bool ended = false, read = false;
    ResolvedMark out;
  };
  struct DeviceRef {
    cudaEvent_t event = nullptr;
    int64_t cpu_ns = 0;
  };

  HandlePool<cudaEvent_t>& pool(int device) {
    while (pools_.size() <= size_t(device)) {
      pools_.push_back(std::make_unique<HandlePool<cudaEvent_t>>(
          [] {
            cudaEvent_t e = nullptr;
            TC_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDefault));  // timing on
            return e;
          },
          [](cudaEvent_t e) { cudaEventDestroy(e); }));
    }
    return *pools_[size_t(device)];
  }

  // The device's reference event, recorded and waited for once per session: the CPU clock read
  // right after it completes anchors the device's times.
  DeviceRef& ensure_ref(int device) {
    if (refs_.size() <= size_t(device)) refs_.resize(size_t(device) + 1);
    DeviceRef& ref = refs_[size_t(device)];
    if (!ref.event) {
      cudaEvent_t e = pool(device).acquire();
      cudaStream_t s = cuda::stream_of(device);
      TC_CUDA_CHECK(cudaEventRecord(e, s));
      TC_CUDA_CHECK(cudaEventSynchronize(e));
      ref.event = e;
      ref.cpu_ns = now_ns();
    }
    return ref;
  }

  // Reads the ended pairs in order; without `all`, stops at the first whose end event has not
  // completed (cudaEventQuery, no wait).
  void read(bool all) {
    for (; first_unread_ < pairs_.size(); ++first_unread_) {
      Pair& p = pairs_[first_unread_];
      if (p.read) continue;
      if (!p.ended) {
        if (!all) return;  // still running on its thread: read it later
        if (p.start) pool(p.out.device).release(p.start);
        p.start = nullptr;
        p.read = true;
        continue;
      }
      DeviceGuard g(p.out.device);
      if (!all) {
        cudaError_t q = cudaEventQuery(p.end);
        if (q != cudaSuccess) {
          cudaGetLastError();  // cudaErrorNotReady is not an error here
          return;
        }
      }
      float a = 0, b = 0;
      const bool ok = cudaEventElapsedTime(&a, p.ref, p.start) == cudaSuccess &&
                      cudaEventElapsedTime(&b, p.ref, p.end) == cudaSuccess;
      if (!ok) cudaGetLastError();
      p.out.start_ms = a;
      p.out.end_ms = b;
      p.out.ok = ok;
      pool(p.out.device).release(p.start);
      pool(p.out.device).release(p.end);
      p.start = p.end = nullptr;
      p.read = true;
      --unread_;
    }
  }

  std::mutex mu_;
  std::vector<std::unique_ptr<HandlePool<cudaEvent_t>>> pools_;  // per device; never freed
  std::vector<DeviceRef> refs_;
  std::vector<Pair> pairs_;
  size_t first_unread_ = 0;
  size_t unread_ = 0;
  uint32_t session_ = 0;
  bool active_ = false;
};

// Every CUDA build registers it; on a machine without a device begin() answers -1 (no timing).
const bool g_registered = [] {
  static CudaTimer* timer = new CudaTimer();  // outlives static tensors at exit
  register_device_timer(timer);
  return true;
}();

}  // namespace
}  // namespace tc::profiler

#endif  // TC_WITH_CUDA
