#pragma once
// CUDA runtime API of tensorcore (tc::cuda): devices, streams, events, the caching allocator's
// statistics, pinned host memory and the CUDA generators. The header has no CUDA types, so it is
// usable from any translation unit; in a build without CUDA every query answers "no device" and
// every action throws "not compiled with CUDA".
#include <cstdint>
#include <map>
#include <string>

#include "tensorcore/core/generator.h"
#include "tensorcore/core/tensor.h"

namespace tc::cuda {

bool is_available();
int device_count();
int current_device();
void set_device(int device);
void synchronize(int device = -1);  // -1: the current device

struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;
  int64_t total_memory = 0;
  int multi_processor_count = 0;
  int max_threads_per_multi_processor = 0;
  int warp_size = 32;
  int64_t l2_cache_size = 0;
};
DeviceProperties get_device_properties(int device = -1);
std::string get_device_name(int device = -1);
// Resolves -1 to the current device and checks the index.
int resolve_device(int device, const char* op = "cuda");

// A CUDA stream: a handle (cudaStream_t, nullptr = the legacy default stream) and its device.
// Streams come from a per-device pool and are never destroyed, like PyTorch's.
struct Stream {
  void* handle = nullptr;
  int device = 0;
  bool operator==(const Stream& o) const { return handle == o.handle && device == o.device; }
  bool query() const;  // true when all work queued on it has finished
  void synchronize() const;
  uint64_t id() const { return uint64_t(reinterpret_cast<uintptr_t>(handle)); }
};
Stream new_stream(int device = -1, int priority = 0);  // priority: 0 normal, -1 high
Stream default_stream(int device = -1);
Stream current_stream(int device = -1);
void set_current_stream(const Stream& s);  // per thread, for s.device
void stream_wait_stream(const Stream& waiter, const Stream& waitee);

// A CUDA event; owns its cudaEvent_t.
class Event {
 public:
  explicit Event(bool enable_timing = false, bool blocking = false, bool interprocess = false);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(const Stream& s);
  void wait(const Stream& s);  // makes `s` wait for this event
  bool query() const;
  void synchronize() const;
  float elapsed_time(const Event& end) const;  // milliseconds
  bool recorded() const { return recorded_; }

 private:
  void* event_ = nullptr;
  int device_ = -1;
  unsigned flags_ = 0;
  bool recorded_ = false;
  void ensure(int device);
};

// ---- caching allocator ----
int64_t memory_allocated(int device = -1);
int64_t max_memory_allocated(int device = -1);
int64_t memory_reserved(int device = -1);
int64_t max_memory_reserved(int device = -1);
void reset_peak_memory_stats(int device = -1);
// Returns cached, unused blocks to the driver.
void empty_cache();
// PyTorch-style keys: "allocated_bytes.all.current", "num_alloc_retries", ...
std::map<std::string, int64_t> memory_stats(int device = -1);
std::string memory_summary(int device = -1);
// Marks `t`'s memory as in use by `s`: it is not reused until work queued on `s` so far is done.
void record_stream(const Tensor& t, const Stream& s);

// ---- pinned host memory ----
Tensor pin_memory(const Tensor& t);
bool is_pinned(const Tensor& t);

// ---- random ----
// The default generator of a CUDA device (its Philox seed/offset).
const GeneratorPtr& default_generator(int device = -1);
void manual_seed(uint64_t seed);      // current device
void manual_seed_all(uint64_t seed);  // every device

// ---- matmul settings (tc.backends.cuda.matmul) ----
void set_allow_tf32(bool allow);
bool allow_tf32();
void set_allow_reduced_precision_reduction(bool allow);
bool allow_reduced_precision_reduction();

}  // namespace tc::cuda
