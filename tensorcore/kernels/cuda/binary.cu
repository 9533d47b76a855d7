// Binary elementwise kernels on CUDA: add/mul/div, the binary math/bitwise/logical family,
// comparisons, where, lerp and tensor clamp. Ops of one family share a kernel per dtype (the op
// is a run-time switch, uniform across the grid), which keeps the instantiation count small.
#include "tensorcore/kernels/cuda/loops.cuh"
#include "tensorcore/kernels/special_functions.h"
#include "tensorcore/ops/elementwise_kernels.h"

namespace tc::cuda_kernels {
namespace {

constexpr uint32_t kFC = kFloating | kComplex;

template <typename T>
struct AddF {
  opmath_t<T> alpha;
  __device__ T operator()(T a, T b) const {
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>)
      return a || (alpha && b);
    else
      return cvt<T>(M(cvt<M>(a) + alpha * cvt<M>(b)));
  }
};
template <typename T>
struct AddOneF {
  __device__ T operator()(T a, T b) const {
    using M = opmath_t<T>;
    return cvt<T>(M(cvt<M>(a) + cvt<M>(b)));
  }
};

void add_cuda(TensorIter& iter, const Scalar& alpha) {
  dispatch_dtype<kAllTypes>(iter.common_dtype(), "add", [&](auto tag) {
    using H = typename decltype(tag)::type;
    using T = dev_t<H>;
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      gpu_kernel<T, T, T>(iter, AddF<T>{alpha.to<bool>()});
    } else {
      M a;
      if constexpr (is_cplx_v<M>) {
        auto c = alpha.to_complex();
        a = M(typename M::value_type(c.real()), typename M::value_type(c.imag()));
      } else {
        a = M(alpha.to<std::conditional_t<std::is_floating_point_v<M>, double, int64_t>>());
      }
      bool one = alpha.is_integral() && alpha.to_int() == 1;
      if (one)
        gpu_kernel<T, T, T>(iter, AddOneF<T>{});
      else
        gpu_kernel<T, T, T>(iter, AddF<T>{a});
    }
  });
}

template <typename T>
struct MulF {
  __device__ T operator()(T a, T b) const {
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else
      return cvt<T>(M(cvt<M>(a) * cvt<M>(b)));
  }
};
void mul_cuda(TensorIter& iter) {
  dispatch_dev<kAllTypes>(iter.common_dtype(), "mul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel<T, T, T>(iter, MulF<T>{});
  });
}

template <typename T>
struct DivTrueF {
  __device__ T operator()(T a, T b) const {
    using M = opmath_t<T>;
    return cvt<T>(M(cvt<M>(a) / cvt<M>(b)));
  }
};
void div_true_cuda(TensorIter& iter) {
  dispatch_dev<kFC>(iter.common_dtype(), "div", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel<T, T, T>(iter, DivTrueF<T>{});
  });
}

// Integer division by zero cannot raise from a kernel; like PyTorch on CUDA it gives -1 / 0
// patterns rather than trapping.
template <typename T, bool Floor>
struct DivRoundF {
  __device__ T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == 0) return T(-1);
      if constexpr (std::is_signed_v<T>) {
        if (y == T(-1)) return T(-x);
      }
      T q = T(x / y);
      if constexpr (Floor && std::is_signed_v<T>) {
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
      }
      return q;
    } else {
      using M = opmath_t<T>;
      M a = cvt<M>(x), b = cvt<M>(y);
      if constexpr (Floor) {
        if (b == 0) return cvt<T>(M(a / b));
        M mod = ::fmod(a, b);
        M d = (a - mod) / b;
        if (mod != 0 && ((b < 0) != (mod < 0))) d -= 1;
        M fl = ::floor(d);
        if (d - fl > M(0.5)) fl += 1;
        return cvt<T>(M(d == 0 ? ::copysign(M(0), a / b) : fl));
      } else {
        return cvt<T>(M(::trunc(a / b)));
      }
    }
  }
};
template <bool Floor>
void div_round_cuda(TensorIter& iter) {
  dispatch_dev<kIntegral | kFloating>(iter.common_dtype(), "div", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel_novec<T, T, T>(iter, DivRoundF<T, Floor>{});
  });
}

template <typename T>
__device__ __forceinline__ T int_pow(T base, T e) {
  if constexpr (std::is_signed_v<T>) {
    if (e < 0) {
      if (base == 1) return 1;
      if (base == -1) return (e & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  using U = std::make_unsigned_t<T>;
  U r = 1, b = U(base);
  U n = U(e);
  while (n) {
    if (n & 1) r = U(r * b);
    b = U(b * b);
    n >>= 1;
  }
  return T(r);
}

// The math/bitwise family with output dtype == input dtype.
template <typename T>
struct BinaryMathF {
  BinaryOp op;
  __device__ T operator()(T xa, T xb) const {
    using M = opmath_t<T>;
    M a = cvt<M>(xa), b = cvt<M>(xb);
    constexpr bool kFloat = std::is_floating_point_v<M>;
    constexpr bool kInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;
    constexpr bool kBool = std::is_same_v<T, bool>;
    constexpr bool kCplx = is_cplx_v<T>;
    switch (op) {
      case BinaryOp::Atan2:
        if constexpr (kFloat) return cvt<T>(M(::atan2(a, b)));
        break;
      case BinaryOp::Pow:
        if constexpr (kInt)
          return int_pow(xa, xb);
        else if constexpr (kFloat)
          return cvt<T>(M(::pow(a, b)));
        else if constexpr (kCplx)
          return ::cuda::std::pow(a, b);
        break;
      case BinaryOp::Maximum:
        if constexpr (kBool)
          return xa || xb;
        else if constexpr (!kCplx) {
          M r = a > b ? a : b;
          if constexpr (kFloat) {
            r = b != b ? b : r;
            r = a != a ? a : r;
          }
          return cvt<T>(r);
        }
        break;
      case BinaryOp::Minimum:
        if constexpr (kBool)
          return xa && xb;
        else if constexpr (!kCplx) {
          M r = a < b ? a : b;
          if constexpr (kFloat) {
            r = b != b ? b : r;
            r = a != a ? a : r;
          }
          return cvt<T>(r);
        }
        break;
      case BinaryOp::Fmax:
        if constexpr (kFloat)
          return cvt<T>(M(::fmax(a, b)));
        else if constexpr (kInt)
          return a > b ? a : b;
        break;
      case BinaryOp::Fmin:
        if constexpr (kFloat)
          return cvt<T>(M(::fmin(a, b)));
        else if constexpr (kInt)
          return a < b ? a : b;
        break;
      case BinaryOp::Fmod:
        if constexpr (kFloat)
          return cvt<T>(M(::fmod(a, b)));
        else if constexpr (kInt) {
          if (b == 0) return T(-1);
          if constexpr (std::is_signed_v<T>) {
            if (b == T(-1)) return T(0);
          }
          return T(a % b);
        }
        break;
      case BinaryOp::Remainder:
        if constexpr (kFloat) {
          M m = ::fmod(a, b);
          return cvt<T>((m != 0 && ((b < 0) != (m < 0))) ? M(m + b) : m);
        } else if constexpr (kInt) {
          if (b == 0) return T(-1);
          if constexpr (std::is_signed_v<T>) {
            if (b == T(-1)) return T(0);
            T m = T(a % b);
            return (m != 0 && ((b < 0) != (m < 0))) ? T(m + b) : m;
          } else {
            return T(a % b);
          }
        }
        break;
      case BinaryOp::Hypot:
        if constexpr (kFloat) return cvt<T>(M(::hypot(a, b)));
        break;
      case BinaryOp::BitAnd:
        if constexpr (kInt || kBool) return T(xa & xb);
        break;
      case BinaryOp::BitOr:
        if constexpr (kInt || kBool) return T(xa | xb);
        break;
      case BinaryOp::BitXor:
        if constexpr (kInt || kBool) return T(xa ^ xb);
        break;
      case BinaryOp::Lshift:
        if constexpr (kInt) {
          using U = std::make_unsigned_t<T>;
          constexpr int bits = int(sizeof(T) * 8);
          if constexpr (std::is_signed_v<T>) {
            if (xb < 0) return T(0);
          }
          return xb >= T(bits) ? T(0) : T(U(xa) << xb);
        }
        break;
      case BinaryOp::Igamma:
        if constexpr (kFloat) return cvt<T>(M(special_fn::igamma<M>(a, b)));
        break;
      case BinaryOp::Igammac:
        if constexpr (kFloat) return cvt<T>(M(special_fn::igammac<M>(a, b)));
        break;
      case BinaryOp::Nextafter:
        // float32/float64 only (checked by the op).
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
          return ::nextafter(xa, xb);
        break;
      case BinaryOp::Rshift:
        if constexpr (kInt) {
          constexpr int bits = int(sizeof(T) * 8);
          if constexpr (std::is_signed_v<T>) {
            if (xb < 0 || xb >= T(bits)) return T(xa >> (bits - 1));
          } else {
            if (xb >= T(bits)) return T(0);
          }
          return T(xa >> xb);
        }
        break;
      default:
        break;
    }
    return T(0);
  }
};

template <typename T>
struct LogicalF {
  BinaryOp op;
  __device__ bool operator()(T xa, T xb) const {
    using M = opmath_t<T>;
    bool a = cvt<M>(xa) != M(0), b = cvt<M>(xb) != M(0);
    switch (op) {
      case BinaryOp::LogicalAnd:
        return a && b;
      case BinaryOp::LogicalOr:
        return a || b;
      default:
        return a != b;
    }
  }
};

template <typename T>
struct LerpScalarF {
  opmath_t<T> w;
  bool small;
  __device__ T operator()(T xs, T xe) const {
    using M = opmath_t<T>;
    M s = cvt<M>(xs), e = cvt<M>(xe);
    return cvt<T>(small ? M(s + w * (e - s)) : M(e - (e - s) * (M(1) - w)));
  }
};

template <typename R>
struct ComplexF {
  __device__ cplx<R> operator()(R re, R im) const { return cplx<R>(re, im); }
};

bool op_supported(BinaryOp op, DType dt) {
  bool fl = is_floating(dt), cx = is_complex(dt), in = is_integral(dt), b = dt == DType::Bool;
  switch (op) {
    case BinaryOp::Atan2:
    case BinaryOp::Hypot:
    case BinaryOp::Igamma:
    case BinaryOp::Igammac:
    case BinaryOp::Nextafter:
      return fl;
    case BinaryOp::Pow:
      return fl || cx || in;
    case BinaryOp::Maximum:
    case BinaryOp::Minimum:
      return !cx;
    case BinaryOp::Fmax:
    case BinaryOp::Fmin:
    case BinaryOp::Fmod:
    case BinaryOp::Remainder:
      return fl || in;
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor:
      return in || b;
    case BinaryOp::Lshift:
    case BinaryOp::Rshift:
      return in;
    default:
      return false;
  }
}

const char* binary_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Atan2:
      return "atan2";
    case BinaryOp::Pow:
      return "pow";
    case BinaryOp::Maximum:
      return "maximum";
    case BinaryOp::Minimum:
      return "minimum";
    case BinaryOp::Fmax:
      return "fmax";
    case BinaryOp::Fmin:
      return "fmin";
    case BinaryOp::Fmod:
      return "fmod";
    case BinaryOp::Remainder:
      return "remainder";
    case BinaryOp::Hypot:
      return "hypot";
    case BinaryOp::BitAnd:
      return "bitwise_and";
    case BinaryOp::BitOr:
      return "bitwise_or";
    case BinaryOp::BitXor:
      return "bitwise_xor";
    case BinaryOp::Lshift:
      return "bitwise_left_shift";
    case BinaryOp::Rshift:
      return "bitwise_right_shift";
    case BinaryOp::Igamma:
      return "igamma";
    case BinaryOp::Igammac:
      return "igammac";
    case BinaryOp::Nextafter:
      return "nextafter";
    default:
      return "binary op";
  }
}

void binary_cuda(TensorIter& iter, BinaryOp op, const OpParams& p) {
  DType dt = iter.common_dtype();
  switch (op) {
    case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr:
    case BinaryOp::LogicalXor:
      return dispatch_dev<kAllTypes>(dt, "logical op", [&](auto tag) {
        using T = typename decltype(tag)::type;
        gpu_kernel_novec<bool, T, T>(iter, LogicalF<T>{op});
      });
    case BinaryOp::Complex:
      return dispatch_dtype<(1u << int(DType::Float32)) | (1u << int(DType::Float64))>(
          dt, "complex", [&](auto tag) {
            using R = typename decltype(tag)::type;
            gpu_kernel<cplx<R>, R, R>(iter, ComplexF<R>{});
          });
    case BinaryOp::LerpScalar:
      return dispatch_dev<kFC>(dt, "lerp", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using M = opmath_t<T>;
        M w;
        if constexpr (is_cplx_v<M>)
          w = M(typename M::value_type(p.ca.real()), typename M::value_type(p.ca.imag()));
        else
          w = M(p.a);
        bool small = std::abs(p.ca) < 0.5 && std::abs(p.a) < 0.5;
        if constexpr (!is_cplx_v<M>) small = std::abs(p.a) < 0.5;
        gpu_kernel<T, T, T>(iter, LerpScalarF<T>{w, small});
      });
    default:
      break;
  }
  TC_CHECK_TYPE(op_supported(op, dt), binary_name(op), ": not implemented for dtype ",
                dtype_name(dt));
  dispatch_dev<kAllTypes>(dt, binary_name(op), [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel_novec<T, T, T>(iter, BinaryMathF<T>{op});
  });
}

template <typename T>
struct CompareF {
  BinaryOp op;
  __device__ bool operator()(T xa, T xb) const {
    using M = opmath_t<T>;
    M a = cvt<M>(xa), b = cvt<M>(xb);
    switch (op) {
      case BinaryOp::Eq:
        return a == b;
      case BinaryOp::Ne:
        return a != b;
      default:
        break;
    }
    if constexpr (!is_cplx_v<M>) {
      switch (op) {
        case BinaryOp::Lt:
          return a < b;
        case BinaryOp::Le:
          return a <= b;
        case BinaryOp::Gt:
          return a > b;
        case BinaryOp::Ge:
          return a >= b;
        default:
          break;
      }
    }
    return false;
  }
};

void compare_cuda(TensorIter& iter, BinaryOp op, const OpParams&) {
  DType dt = iter.common_dtype();
  TC_CHECK_TYPE(!is_complex(dt) || op == BinaryOp::Eq || op == BinaryOp::Ne,
                "comparison: ordering is not defined for complex dtype ", dtype_name(dt));
  dispatch_dev<kAllTypes>(dt, "compare", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel_novec<bool, T, T>(iter, CompareF<T>{op});
  });
}

template <typename T>
struct WhereF {
  __device__ T operator()(bool c, T a, T b) const { return c ? a : b; }
};
struct alignas(8) Pair64 {
  uint64_t lo, hi;
};
void where_cuda(TensorIter& iter) {
  // A bit select: one kernel per element size.
  switch (itemsize(iter.common_dtype())) {
    case 1:
      return gpu_kernel<uint8_t, bool, uint8_t, uint8_t>(iter, WhereF<uint8_t>{});
    case 2:
      return gpu_kernel<uint16_t, bool, uint16_t, uint16_t>(iter, WhereF<uint16_t>{});
    case 4:
      return gpu_kernel<uint32_t, bool, uint32_t, uint32_t>(iter, WhereF<uint32_t>{});
    case 8:
      return gpu_kernel<uint64_t, bool, uint64_t, uint64_t>(iter, WhereF<uint64_t>{});
    default:
      return gpu_kernel<Pair64, bool, Pair64, Pair64>(iter, WhereF<Pair64>{});
  }
}

template <typename T>
struct LerpTensorF {
  __device__ T operator()(T xs, T xe, T xw) const {
    using M = opmath_t<T>;
    M w = cvt<M>(xw), a = cvt<M>(xs), b = cvt<M>(xe);
    bool small;
    if constexpr (is_cplx_v<M>)
      small = ::cuda::std::abs(w) < 0.5;
    else
      small = ::fabs(w) < M(0.5);
    return cvt<T>(small ? M(a + w * (b - a)) : M(b - (b - a) * (M(1) - w)));
  }
};
void lerp_tensor_cuda(TensorIter& iter) {
  dispatch_dev<kFC>(iter.common_dtype(), "lerp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel_novec<T, T, T, T>(iter, LerpTensorF<T>{});
  });
}

template <typename T>
struct ClampTensorF {
  __device__ T operator()(T xt, T lot, T hit) const {
    using M = opmath_t<T>;
    M x = cvt<M>(xt), lo = cvt<M>(lot), hi = cvt<M>(hit);
    M r = x < lo ? lo : x;
    r = r > hi ? hi : r;
    if constexpr (std::is_floating_point_v<M>) {
      r = (lo != lo) ? lo : r;
      r = (hi != hi) ? hi : r;
      r = (x != x) ? x : r;
    }
    return cvt<T>(r);
  }
};
void clamp_tensor_cuda(TensorIter& iter) {
  dispatch_dev<kIntegral | kFloating>(iter.common_dtype(), "clamp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel_novec<T, T, T, T>(iter, ClampTensorF<T>{});
  });
}

TC_REGISTER_KERNEL(add_kernel, CUDA, add_cuda);
TC_REGISTER_KERNEL(mul_kernel, CUDA, mul_cuda);
TC_REGISTER_KERNEL(div_true_kernel, CUDA, div_true_cuda);
TC_REGISTER_KERNEL(div_trunc_kernel, CUDA, div_round_cuda<false>);
TC_REGISTER_KERNEL(div_floor_kernel, CUDA, div_round_cuda<true>);
TC_REGISTER_KERNEL(binary_op_kernel, CUDA, binary_cuda);
TC_REGISTER_KERNEL(compare_op_kernel, CUDA, compare_cuda);
TC_REGISTER_KERNEL(where_kernel, CUDA, where_cuda);
TC_REGISTER_KERNEL(lerp_tensor_kernel, CUDA, lerp_tensor_cuda);
TC_REGISTER_KERNEL(clamp_tensor_kernel, CUDA, clamp_tensor_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
