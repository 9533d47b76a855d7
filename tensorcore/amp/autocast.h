#pragma once
// Automatic mixed precision (torch.autocast). The state is thread-local and per device type; an op
// on the autocast lists starts with TC_AUTOCAST(...), which (only when some autocast region is
// active) casts its floating arguments by the op's policy for the arguments' device and re-runs
// the op with autocast excluded, so ops it is built from are not cast again. The casts are
// ordinary differentiable conversions, so gradients flow back in each input's own dtype.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::amp {

// PyTorch 1.13's cast policies (aten/src/ATen/autocast_mode.h).
enum class CastPolicy : uint8_t {
  None,             // not listed: runs in whatever dtypes it receives
  LowerPrecision,   // eligible inputs cast to the autocast dtype (float16 / bfloat16)
  Fp32,             // eligible inputs cast to float32
  Fp32SetOptDtype,  // float32, unless the caller passed an explicit dtype= (then untouched)
  Promote,          // eligible inputs cast to the widest floating dtype among them
  Banned,           // raises: unsafe under autocast (CUDA binary_cross_entropy)
};
const char* policy_name(CastPolicy policy);

// The op's policy on `device` (None for unlisted ops). Op names are torch's aten names.
CastPolicy cast_policy(std::string_view op, DeviceType device);
// Every listed op for `device`, sorted by name (for docs and tests).
std::vector<std::pair<std::string, CastPolicy>> policy_table(DeviceType device);

bool is_autocast_enabled(DeviceType device);
void set_autocast_enabled(DeviceType device, bool enabled);
// The lower-precision dtype of `device` (defaults: CPU bfloat16, CUDA float16).
DType get_autocast_dtype(DeviceType device);
void set_autocast_dtype(DeviceType device, DType dtype);
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);
// Depth of nested autocast regions; leaving the outermost one clears the weight-cast cache.
int increment_nesting();
int decrement_nesting();
void clear_cache();
size_t cache_size();

// RAII region for C++ callers, the same as Python's `with tc.autocast(device, ...)`:
// AutocastMode region(DeviceType::CPU);  // bfloat16 on the CPU
class AutocastMode {
 public:
  explicit AutocastMode(DeviceType device, std::optional<DType> dtype = {}, bool enabled = true,
                        bool cache_enabled = true);
  ~AutocastMode();
  AutocastMode(const AutocastMode&) = delete;
  AutocastMode& operator=(const AutocastMode&) = delete;

 private:
  DeviceType device_;
  bool prev_enabled_, prev_cache_enabled_;
  DType prev_dtype_;
};

// True when an autocast region is active on this thread and we are not inside an op that
// autocast already wrapped. Ops test only this on their fast path.
bool hook_armed();

// How one call of an op casts its arguments (from its policy and the arguments).
struct CastPlan {
  CastPolicy policy = CastPolicy::None;
  DType target = DType::Float32;
  DeviceType device = DeviceType::CPU;

  // False for policy None: then the calls below return their argument unchanged.
  explicit operator bool() const { return policy != CastPolicy::None; }
  Tensor operator()(const Tensor& t) const;
  TensorList operator()(const TensorList& ts) const;
  std::optional<Tensor> operator()(const std::optional<Tensor>& t) const;
  template <typename T>
  const T& operator()(const T& other) const {
    return other;
  }
};

// Collects what the plan depends on: the tensors' device and dtypes, and whether an explicit
// dtype argument was given.
class PlanBuilder {
 public:
  explicit PlanBuilder(std::string_view op) : op_(op) {}
  void add(const Tensor& t);
  void add(const TensorList& ts) {
    for (const Tensor& t : ts) add(t);
  }
  void add(const std::optional<Tensor>& t) {
    if (t) add(*t);
  }
  void add(const std::optional<DType>& dtype) {
    explicit_dtype_ = explicit_dtype_ || dtype.has_value();
  }
  template <typename T>
  void add(const T&) {}
  CastPlan build() const;

 private:
  std::string_view op_;
  bool have_device_ = false;
  DeviceType device_ = DeviceType::CPU;
  bool first_eligible_ = false;  // the first tensor argument is eligible for casting
  bool explicit_dtype_ = false;
  uint32_t eligible_dtypes_ = 0;  // bit per DType among the eligible tensors
};

template <typename... Args>
CastPlan make_plan(std::string_view op, const Args&... args) {
  PlanBuilder builder(op);
  (builder.add(args), ...);
  return builder.build();
}

// Casting a tensor for `device`'s autocast: floating (not float64) tensors of that device only.
bool is_eligible(const Tensor& t, DeviceType device);
// Casts with the weight cache: float32 leaves requiring grad cast to the autocast dtype are
// reused within the outermost autocast region.
Tensor cached_cast(DType target, const Tensor& t, DeviceType device);

namespace detail {
// Marks "inside an autocast-wrapped op" for the current thread (nested ops are not re-cast).
class ExcludeGuard {
 public:
  ExcludeGuard();
  ~ExcludeGuard();
  ExcludeGuard(const ExcludeGuard&) = delete;
  ExcludeGuard& operator=(const ExcludeGuard&) = delete;

 private:
  bool prev_;
};

template <typename Fn, typename... Args>
auto call_with_plan(const CastPlan& plan, Fn&& fn, const Args&... args) {
  ExcludeGuard exclude;
  return fn(plan(args)...);
}
}  // namespace detail

}  // namespace tc::amp

// First statement of an op on the autocast lists: `TC_AUTOCAST("mm", mm, a, b);` (pass every
// argument of the op, in order). When autocast applies, the op returns the result of `fn` called
// with the cast arguments; otherwise execution continues normally, and ops it calls may still
// autocast (torch's fallthrough for composite ops).
#define TC_AUTOCAST(op_name, fn, ...) TC_AUTOCAST_IMPL(false, op_name, fn, __VA_ARGS__)

// For ops that are single kernels in torch but composites here (mv = mm + squeeze): inside an
// autocast region they run with autocast excluded even when their own policy is "none", so the
// ops they are built from (mm) are not cast where torch's kernel would not be.
#define TC_AUTOCAST_NATIVE(op_name, fn, ...) TC_AUTOCAST_IMPL(true, op_name, fn, __VA_ARGS__)

#define TC_AUTOCAST_IMPL(native, op_name, fn, ...)                                         \
  do {                                                                                     \
    if (::tc::amp::hook_armed()) {                                                         \
      const ::tc::amp::CastPlan tc_amp_plan_ = ::tc::amp::make_plan(op_name, __VA_ARGS__); \
      if (tc_amp_plan_ || (native))                                                        \
        return ::tc::amp::detail::call_with_plan(                                          \
            tc_amp_plan_, [&](const auto&... tc_amp_xs_) { return fn(tc_amp_xs_...); },    \
            __VA_ARGS__);                                                                  \
    }                                                                                      \
  } while (0)
