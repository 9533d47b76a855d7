#pragma once
// Two kinds of dispatch:
//  * dtype dispatch: `dispatch_dtype<kFloating | kComplex>(dt, "exp", [&](auto tag) { using T =
//    typename decltype(tag)::type; ... })` instantiates the lambda only for the listed dtypes.
//  * device dispatch: each op family declares a `KernelTable<Fn>`; CPU and CUDA kernels register
//    into it, so a build without CUDA fails with a clear message instead of a link error, and an
//    out-of-tree backend can register its own kernels.
#include <cstdint>

#include "tensorcore/core/device.h"
#include "tensorcore/core/dtype.h"
#include "tensorcore/core/error.h"

namespace tc {

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
  Fn get(DeviceType type) const {
    Fn fn = kernels[int(type)];
    if (!fn) {
      if (type == DeviceType::CUDA && !cuda_compiled())
        throw NotImplementedError(detail::concat(
            name, ": tensorcore was not compiled with CUDA support (rebuild with -DTC_CUDA=ON)"));
      throw NotImplementedError(
          detail::concat(name, ": no kernel registered for device ", device_type_name(type)));
    }
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
