// Devices, streams, events and the CUDA generators. Without TC_WITH_CUDA every query reports
// "no device" and every action throws, so the Python package and tests work in any build.
#include "tensorcore/cuda/cuda.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "tensorcore/core/error.h"

#ifdef TC_WITH_CUDA
#include <cuda_runtime.h>

#include "tensorcore/cuda/cuda_check.h"
#endif

namespace tc::cuda {

#ifdef TC_WITH_CUDA

namespace {

constexpr int kMaxDevices = 64;
constexpr int kStreamsPerPool = 32;

int count_devices() {
  static int n = [] {
    int c = 0;
    if (cudaGetDeviceCount(&c) != cudaSuccess) {
      cudaGetLastError();  // no driver / no device: clear the sticky error and report none
      return 0;
    }
    return c;
  }();
  return n;
}

// Streams handed out round-robin from a lazily created pool per device and priority.
struct StreamPool {
  std::mutex mu;
  std::vector<cudaStream_t> streams[2];
  unsigned next[2] = {0, 0};
};
StreamPool& pool(int device) {
  static std::array<StreamPool, kMaxDevices> pools;
  return pools[device];
}

thread_local std::array<cudaStream_t, kMaxDevices> t_current_stream{};

}  // namespace

bool is_available() { return count_devices() > 0; }
int device_count() { return count_devices(); }

int resolve_device(int device, const char* op) {
  int n = count_devices();
  // NotImplementedError (a RuntimeError in Python), like a build without CUDA.
  TC_CHECK_AS(NotImplementedError, n > 0, op,
              ": no CUDA device is available (the CUDA driver "
              "reports 0 devices)");
  if (device < 0) {
    int d = 0;
    TC_CUDA_CHECK(cudaGetDevice(&d));
    return d;
  }
  TC_CHECK_INDEX(device < n, op, ": invalid CUDA device index ", device, " (", n,
                 " device(s) available)");
  return device;
}

int current_device() { return resolve_device(-1, "current_device"); }

void set_device(int device) { TC_CUDA_CHECK(cudaSetDevice(resolve_device(device, "set_device"))); }

void synchronize(int device) {
  DeviceGuard g(resolve_device(device, "synchronize"));
  TC_CUDA_CHECK(cudaDeviceSynchronize());
}

DeviceProperties get_device_properties(int device) {
  device = resolve_device(device, "get_device_properties");
  cudaDeviceProp p{};
  TC_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  DeviceProperties d;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.total_memory = int64_t(p.totalGlobalMem);
  d.multi_processor_count = p.multiProcessorCount;
  d.max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
  d.warp_size = p.warpSize;
  d.l2_cache_size = p.l2CacheSize;
  return d;
}

std::string get_device_name(int device) { return get_device_properties(device).name; }

bool Stream::query() const {
  DeviceGuard g(device);
  cudaError_t e = cudaStreamQuery(static_cast<cudaStream_t>(handle));
  if (e == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  TC_CUDA_CHECK(e);
  return true;
}

void Stream::synchronize() const {
  DeviceGuard g(device);
  TC_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle)));
}

Stream new_stream(int device, int priority) {
  device = resolve_device(device, "Stream");
  int which = priority < 0 ? 1 : 0;
  StreamPool& p = pool(device);
  std::lock_guard<std::mutex> lock(p.mu);
  auto& list = p.streams[which];
  if (list.size() < kStreamsPerPool) {
    DeviceGuard g(device);
    int lo = 0, hi = 0;
    TC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t s;
    TC_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, which ? hi : lo));
    list.push_back(s);
    return {s, device};
  }
  cudaStream_t s = list[p.next[which]++ % kStreamsPerPool];
  return {s, device};
}

Stream default_stream(int device) { return {nullptr, resolve_device(device, "default_stream")}; }

Stream current_stream(int device) {
  device = resolve_device(device, "current_stream");
  return {t_current_stream[device], device};
}

void set_current_stream(const Stream& s) {
  resolve_device(s.device, "set_stream");
  t_current_stream[s.device] = static_cast<cudaStream_t>(s.handle);
}

void stream_wait_stream(const Stream& waiter, const Stream& waitee) {
  if (waiter == waitee) return;
  Event e;
  e.record(waitee);
  e.wait(waiter);
}

Event::Event(bool enable_timing, bool blocking, bool interprocess) {
  flags_ = (enable_timing ? cudaEventDefault : cudaEventDisableTiming) |
           (blocking ? cudaEventBlockingSync : 0u) | (interprocess ? cudaEventInterprocess : 0u);
}

Event::~Event() {
  if (event_) {
    DeviceGuard g(device_);
    cudaEventDestroy(static_cast<cudaEvent_t>(event_));
  }
}

void Event::ensure(int device) {
  if (event_) {
    TC_CHECK(device == device_, "Event: recorded on cuda:", device_,
             " and then used on cuda:", device);
    return;
  }
  DeviceGuard g(device);
  cudaEvent_t e;
  TC_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags_));
  event_ = e;
  device_ = device;
}

void Event::record(const Stream& s) {
  ensure(s.device);
  DeviceGuard g(s.device);
  TC_CUDA_CHECK(
      cudaEventRecord(static_cast<cudaEvent_t>(event_), static_cast<cudaStream_t>(s.handle)));
  recorded_ = true;
}

void Event::wait(const Stream& s) {
  if (!recorded_) return;  // like PyTorch: waiting on an unrecorded event is a no-op
  DeviceGuard g(s.device);
  TC_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(s.handle),
                                    static_cast<cudaEvent_t>(event_), 0));
}

bool Event::query() const {
  if (!recorded_) return true;
  DeviceGuard g(device_);
  cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(event_));
  if (e == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  TC_CUDA_CHECK(e);
  return true;
}

void Event::synchronize() const {
  if (!recorded_) return;
  DeviceGuard g(device_);
  TC_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event_)));
}

float Event::elapsed_time(const Event& end) const {
  TC_CHECK(recorded_ && end.recorded_, "Event.elapsed_time: both events must be recorded first");
  TC_CHECK(!(flags_ & cudaEventDisableTiming) && !(end.flags_ & cudaEventDisableTiming),
           "Event.elapsed_time: both events must be created with enable_timing=True");
  float ms = 0;
  DeviceGuard g(device_);
  TC_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(event_),
                                     static_cast<cudaEvent_t>(end.event_)));
  return ms;
}

namespace {
std::vector<GeneratorPtr>& cuda_generators() {
  static std::vector<GeneratorPtr> gens = [] {
    std::vector<GeneratorPtr> v;
    for (int i = 0; i < std::max(1, count_devices()); ++i)
      v.push_back(std::make_shared<Generator>(Device(DeviceType::CUDA, i)));
    return v;
  }();
  return gens;
}
const GeneratorPtr& generator_for_index(int index) {
  return cuda_generators()[resolve_device(index, "cuda generator")];
}
const bool g_registered = [] {
  register_default_generator(DeviceType::CUDA, &generator_for_index);
  return true;
}();
}  // namespace

const GeneratorPtr& default_generator(int device) { return generator_for_index(device); }
void manual_seed(uint64_t seed) {
  if (is_available()) default_generator(-1)->manual_seed(seed);
}
void manual_seed_all(uint64_t seed) {
  for (int i = 0; i < count_devices(); ++i) cuda_generators()[i]->manual_seed(seed);
}

#else  // !TC_WITH_CUDA

namespace {
[[noreturn]] void not_compiled(const char* what) {
  throw NotImplementedError(detail::concat(
      what, ": tensorcore was not compiled with CUDA support (rebuild with -DTC_CUDA=ON)"));
}
}  // namespace

bool is_available() { return false; }
int device_count() { return 0; }
int resolve_device(int, const char* op) { not_compiled(op); }
int current_device() { not_compiled("current_device"); }
void set_device(int) { not_compiled("set_device"); }
void synchronize(int) { not_compiled("synchronize"); }
DeviceProperties get_device_properties(int) { not_compiled("get_device_properties"); }
std::string get_device_name(int) { not_compiled("get_device_name"); }
bool Stream::query() const { not_compiled("Stream.query"); }
void Stream::synchronize() const { not_compiled("Stream.synchronize"); }
Stream new_stream(int, int) { not_compiled("Stream"); }
Stream default_stream(int) { not_compiled("default_stream"); }
Stream current_stream(int) { not_compiled("current_stream"); }
void set_current_stream(const Stream&) { not_compiled("set_stream"); }
void stream_wait_stream(const Stream&, const Stream&) { not_compiled("wait_stream"); }
Event::Event(bool, bool, bool) { not_compiled("Event"); }
Event::~Event() = default;
void Event::record(const Stream&) { not_compiled("Event.record"); }
void Event::wait(const Stream&) { not_compiled("Event.wait"); }
bool Event::query() const { not_compiled("Event.query"); }
void Event::synchronize() const { not_compiled("Event.synchronize"); }
float Event::elapsed_time(const Event&) const { not_compiled("Event.elapsed_time"); }
void Event::ensure(int) {}
const GeneratorPtr& default_generator(int) { not_compiled("cuda generator"); }
void manual_seed(uint64_t) {}  // like torch.cuda.manual_seed: silently ignored without CUDA
void manual_seed_all(uint64_t) {}

#endif

namespace {
std::atomic<bool> g_allow_tf32{false};
std::atomic<bool> g_allow_reduced_reduction{true};
}  // namespace
void set_allow_tf32(bool allow) { g_allow_tf32 = allow; }
bool allow_tf32() { return g_allow_tf32; }
void set_allow_reduced_precision_reduction(bool allow) { g_allow_reduced_reduction = allow; }
bool allow_reduced_precision_reduction() { return g_allow_reduced_reduction; }

}  // namespace tc::cuda
