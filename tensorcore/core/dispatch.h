#pragma once
// Two kinds of dispatch:
//  * dtype dispatch: `dispatch_dtype<kFloating | kComplex>(dt, "exp", [&](auto tag) { using T =
//    typename decltype(tag)::type; ... })` instantiates the lambda only for the listed dtypes.
//  * device dispatch: each op family declares a `KernelTable<Fn>`; CPU and CUDA kernels register
//    into it, so a build without CUDA fails with a clear message instead of a link error, and an
//    out-of-tree backend can register its own kernels.
//
// The device dispatch is also the profiler's op hook for C++ callers: `table.get(device)` hands
// back a KernelCall whose call checks one relaxed flag (profiler::enabled()) and, when the
// profiler is on, records the call as an op span (outermost only: inside an op the Python
// binding already recorded, it adds no span) and, for a CUDA kernel with the CUDA activity on,
// times it with a pair of CUDA events on the current stream.
#include <cstdint>
#include <type_traits>

#include "tensorcore/core/device.h"
#include "tensorcore/core/dtype.h"
#include "tensorcore/core/error.h"
#include "tensorcore/profiler/flag.h"

namespace tc {

class Tensor;
class TensorIter;

namespace profiler {
// What the kernel hook knows about a call: the kernel table's name, the device, and the first
// TensorIter or the Tensor arguments (name, shapes and device of the op).
struct KernelArgs {
  static constexpr int kMaxTensors = 8;
  const char* table = "";
  DeviceType device = DeviceType::CPU;
  const TensorIter* iter = nullptr;
  const Tensor* tensors[kMaxTensors] = {};
  int num_tensors = 0;
};
struct KernelToken {
  uint64_t span = 0;         // the op span opened for the call, 0: none (not outermost)
  int64_t device_mark = -1;  // the CUDA event pair timing it, -1: none
};
// Defined in profiler.cpp; called only while the profiler is on.
KernelToken kernel_begin(const KernelArgs& args);
void kernel_end(const KernelToken& token) noexcept;

template <typename A>
void collect_kernel_arg(KernelArgs& k, A& a) {
  using T = std::remove_cv_t<std::remove_reference_t<A>>;
  if constexpr (std::is_same_v<T, TensorIter>) {
    if (!k.iter) k.iter = &a;
  } else if constexpr (std::is_same_v<T, Tensor>) {
    if (k.num_tensors < KernelArgs::kMaxTensors) k.tensors[k.num_tensors++] = &a;
  }
}

class KernelScope {
 public:
  KernelScope(const KernelArgs& args) : token_(kernel_begin(args)) {}
  ~KernelScope() { kernel_end(token_); }
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;

 private:
  KernelToken token_;
};
}  // namespace profiler

// A kernel looked up for a device, called like the function pointer it holds.
template <typename Fn>
class KernelCall;
template <typename R, typename... Args>
class KernelCall<R (*)(Args...)> {
 public:
  using Fn = R (*)(Args...);
  KernelCall(Fn fn, const char* table, DeviceType device)
      : fn_(fn), table_(table), device_(device) {}
  // Not a template: braced arguments ({idx}, {size}) convert as they would for the pointer.
  R operator()(Args... args) const {
    if (!profiler::enabled()) [[likely]]
      return fn_(static_cast<Args&&>(args)...);
    profiler::KernelArgs k;
    k.table = table_;
    k.device = device_;
    (profiler::collect_kernel_arg(k, args), ...);
    profiler::KernelScope scope(k);
    return fn_(static_cast<Args&&>(args)...);
  }
  Fn function() const { return fn_; }

 private:
  Fn fn_;
  const char* table_;
  DeviceType device_;
};

template <typename T>
struct TypeTag {
  using type = T;
};

enum DTypeSet : uint32_t {
  kBoolSet = 1u << int(DType::Bool),
  kUnsignedInts = (1u << int(DType::UInt8)) | (1u << int(DType::UInt16)),
  kSignedInts = (1u << int(DType::Int8)) | (1u << int(DType::Int16)) | (1u << int(DType::Int32)) |
                (1u << int(DType::Int64)),
  kIntegral = kUnsignedInts | kSignedInts,
  kReducedFloat = (1u << int(DType::Float16)) | (1u << int(DType::BFloat16)),
  kFloating = kReducedFloat | (1u << int(DType::Float32)) | (1u << int(DType::Float64)),
  kComplex = (1u << int(DType::Complex64)) | (1u << int(DType::Complex128)),
  kAllReal = kBoolSet | kIntegral | kFloating,
  kAllTypes = kAllReal | kComplex,
};

template <uint32_t Set, typename F>
decltype(auto) dispatch_dtype(DType dt, const char* op, F&& f) {
  switch (dt) {
#define TC_DISPATCH_CASE(E, T, N, S)                                   \
  case DType::E:                                                       \
    if constexpr ((Set >> int(DType::E)) & 1u) return f(TypeTag<T>{}); \
    break;
    TC_FORALL_DTYPES(TC_DISPATCH_CASE)
#undef TC_DISPATCH_CASE
  }
  throw TypeError(detail::concat(op, ": not implemented for dtype ", dtype_name(dt)));
}

template <typename Fn>
struct KernelTable {
  const char* name;
  Fn kernels[kNumDeviceTypes] = {};

  // constexpr: the table is constant-initialized, so registrations from other files (dynamic
  // initialization, any order) always see it ready.
  constexpr explicit KernelTable(const char* n) : name(n) {}
  using Call = std::conditional_t<std::is_pointer_v<Fn>, KernelCall<Fn>, Fn>;

  // The kernel for `type`, wrapped for the profiler (see KernelCall).
  Call get(DeviceType type) const {
    Fn fn = kernels[int(type)];
    if (!fn) {
      if (type == DeviceType::CUDA && !cuda_compiled())
        throw NotImplementedError(detail::concat(
            name, ": tensorcore was not compiled with CUDA support (rebuild with -DTC_CUDA=ON)"));
      throw NotImplementedError(
          detail::concat(name, ": no kernel registered for device ", device_type_name(type)));
    }
    if constexpr (std::is_pointer_v<Fn>)
      return Call(fn, name, type);
    else
      return fn;
  }
  void set(DeviceType type, Fn fn) { kernels[int(type)] = fn; }
};

// A table `name_kernel` of kernels of type `type`, declared in a header and defined once.
#define TC_DECLARE_KERNEL(name, type) extern ::tc::KernelTable<type> name##_kernel
#define TC_DEFINE_KERNEL(name, type) ::tc::KernelTable<type> name##_kernel(#name)

// Registers a kernel at load time: TC_REGISTER_KERNEL(add_table, CPU, add_cpu);
#define TC_CONCAT_INNER(a, b) a##b
#define TC_CONCAT(a, b) TC_CONCAT_INNER(a, b)
#define TC_REGISTER_KERNEL(table, device, fn)                     \
  static const bool TC_CONCAT(tc_registered_, __COUNTER__) = [] { \
    table.set(::tc::DeviceType::device, fn);                      \
    return true;                                                  \
  }()

}  // namespace tc
