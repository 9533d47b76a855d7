// Thread-local autocast state, the weight-cast cache and the cast plans used by TC_AUTOCAST.
#include "tensorcore/amp/autocast.h"

#include <unordered_map>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/ops/copy.h"

namespace tc::amp {
namespace {

struct State {
  bool enabled[kNumDeviceTypes] = {false, false};
  DType dtype[kNumDeviceTypes] = {DType::BFloat16, DType::Float16};
  bool cache_enabled = true;
  bool excluded = false;  // inside an op autocast already wrapped
  bool armed = false;     // some device enabled && !excluded
  int nesting = 0;

  void refresh() { armed = (enabled[0] || enabled[1]) && !excluded; }
};

thread_local State state;

// The cache keys on the source TensorImpl; the weak pointer tells whether that impl is still the
// one we cast (an address can be reused after a free). The cast is redone when the source was
// modified in place since (version) or when it was made without autograd and is now needed
// with it, so a region never hands out stale or gradient-less weights.
struct CacheEntry {
  std::weak_ptr<TensorImpl> source;
  uint32_t version;
  bool with_grad;
  Tensor cast;
};
thread_local std::unordered_map<const TensorImpl*, CacheEntry> cast_cache;

void check_lower_dtype(DeviceType device, DType dtype) {
  TC_CHECK_TYPE(dtype == DType::Float16 || dtype == DType::BFloat16, "autocast: the ",
                device_type_name(device), " autocast dtype must be float16 or bfloat16, got ",
                dtype_name(dtype));
}

}  // namespace

bool is_autocast_enabled(DeviceType device) { return state.enabled[int(device)]; }
void set_autocast_enabled(DeviceType device, bool enabled) {
  state.enabled[int(device)] = enabled;
  state.refresh();
}
DType get_autocast_dtype(DeviceType device) { return state.dtype[int(device)]; }
void set_autocast_dtype(DeviceType device, DType dtype) {
  check_lower_dtype(device, dtype);
  state.dtype[int(device)] = dtype;
}
bool is_autocast_cache_enabled() { return state.cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { state.cache_enabled = enabled; }
int increment_nesting() { return ++state.nesting; }
int decrement_nesting() { return --state.nesting; }
void clear_cache() { cast_cache.clear(); }
size_t cache_size() { return cast_cache.size(); }
bool hook_armed() { return state.armed; }

AutocastMode::AutocastMode(DeviceType device, std::optional<DType> dtype, bool enabled,
                           bool cache_enabled)
    : device_(device),
      prev_enabled_(is_autocast_enabled(device)),
      prev_cache_enabled_(is_autocast_cache_enabled()),
      prev_dtype_(get_autocast_dtype(device)) {
  if (dtype) check_lower_dtype(device, *dtype);
  set_autocast_enabled(device, enabled);
  if (dtype) set_autocast_dtype(device, *dtype);
  set_autocast_cache_enabled(cache_enabled);
  increment_nesting();
}

AutocastMode::~AutocastMode() {
  if (decrement_nesting() == 0) clear_cache();
  state.enabled[int(device_)] = prev_enabled_;
  state.dtype[int(device_)] = prev_dtype_;
  state.cache_enabled = prev_cache_enabled_;
  state.refresh();
}

namespace detail {
ExcludeGuard::ExcludeGuard() : prev_(state.excluded) {
  state.excluded = true;
  state.refresh();
}
ExcludeGuard::~ExcludeGuard() {
  state.excluded = prev_;
  state.refresh();
}
}  // namespace detail

bool is_eligible(const Tensor& t, DeviceType device) {
  if (!t.defined() || t.device().type != device || t.impl()->is_wrapped_number) return false;
  DType d = t.dtype();
  return is_floating(d) && d != DType::Float64;
}

Tensor cached_cast(DType target, const Tensor& t, DeviceType device) {
  if (!is_eligible(t, device) || t.dtype() == target) return t;
  bool cacheable = target == get_autocast_dtype(device) && t.dtype() == DType::Float32 &&
                   state.cache_enabled && t.requires_grad() && t.is_leaf() && !t.impl()->view_base;
  if (!cacheable) return to_dtype(t, target);
  bool grad_now = autograd::grad_enabled();
  auto it = cast_cache.find(t.impl());
  if (it != cast_cache.end()) {
    const CacheEntry& e = it->second;
    bool same_source = e.source.lock() == t.impl_ptr();
    if (same_source && e.version == t.version() && e.cast.dtype() == target &&
        (e.with_grad || !grad_now))
      return e.cast;
  }
  Tensor cast = to_dtype(t, target);
  cast_cache[t.impl()] = CacheEntry{t.impl_ptr(), t.version(), grad_now, cast};
  return cast;
}

void PlanBuilder::add(const Tensor& t) {
  if (!t.defined()) return;
  if (!have_device_) {
    have_device_ = true;
    device_ = t.device().type;
    first_eligible_ = is_eligible(t, device_);
  }
  if (is_eligible(t, device_)) eligible_dtypes_ |= 1u << int(t.dtype());
}

CastPlan PlanBuilder::build() const {
  CastPlan plan;
  if (!have_device_ || !is_autocast_enabled(device_)) return plan;
  CastPolicy policy = cast_policy(op_, device_);
  DType lower = get_autocast_dtype(device_);
  plan.device = device_;
  switch (policy) {
    case CastPolicy::None:
      return plan;
    case CastPolicy::Banned:
      TC_FAIL(
          "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
          "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
          "In this case, combine the two layers using "
          "torch.nn.functional.binary_cross_entropy_with_logits\n"
          "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits "
          "are\nsafe to autocast.");
    case CastPolicy::LowerPrecision:
      plan.target = lower;
      break;
    case CastPolicy::Fp32:
      plan.target = DType::Float32;
      break;
    case CastPolicy::Fp32SetOptDtype:
      // An explicit dtype, or a first argument autocast does not touch (integers, float64),
      // runs the op unchanged, as torch does.
      if (explicit_dtype_ || !first_eligible_) return plan;
      plan.target = DType::Float32;
      break;
    case CastPolicy::Promote: {
      // float32 wins over the autocast dtype; the other 16-bit float mixed in (float16 with
      // bfloat16) also widens to float32. float64 inputs are left alone.
      plan.target = (eligible_dtypes_ & ~(1u << int(lower))) ? DType::Float32 : lower;
      break;
    }
  }
  plan.policy = policy;
  return plan;
}

Tensor CastPlan::operator()(const Tensor& t) const {
  return policy == CastPolicy::None ? t : cached_cast(target, t, device);
}

TensorList CastPlan::operator()(const TensorList& ts) const {
  if (policy == CastPolicy::None) return ts;
  TensorList out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(cached_cast(target, t, device));
  return out;
}

std::optional<Tensor> CastPlan::operator()(const std::optional<Tensor>& t) const {
  if (!t || policy == CastPolicy::None) return t;
  return cached_cast(target, *t, device);
}

}  // namespace tc::amp
