// Unary elementwise kernels on CUDA: neg/exp/log/sqrt/conj and the unary math family (one kernel
// per dtype and output kind, the op being a grid-uniform switch).
#include <cmath>

#include "tensorcore/kernels/cuda/loops.cuh"
#include "tensorcore/kernels/special_functions.h"
#include "tensorcore/ops/elementwise_kernels.h"

namespace tc::cuda_kernels {
namespace {

constexpr uint32_t kFC = kFloating | kComplex;

template <typename T>
struct NegF {
  __device__ T operator()(T x) const {
    using M = opmath_t<T>;
    return cvt<T>(M(-cvt<M>(x)));
  }
};
template <typename T>
struct ExpF {
  __device__ T operator()(T x) const {
    using M = opmath_t<T>;
    if constexpr (is_cplx_v<M>)
      return ::cuda::std::exp(x);
    else
      return cvt<T>(M(::exp(cvt<M>(x))));
  }
};
template <typename T>
struct LogF {
  __device__ T operator()(T x) const {
    using M = opmath_t<T>;
    if constexpr (is_cplx_v<M>)
      return ::cuda::std::log(x);
    else
      return cvt<T>(M(::log(cvt<M>(x))));
  }
};
template <typename T>
struct SqrtF {
  __device__ T operator()(T x) const {
    using M = opmath_t<T>;
    if constexpr (is_cplx_v<M>)
      return ::cuda::std::sqrt(x);
    else
      return cvt<T>(M(::sqrt(cvt<M>(x))));
  }
};
template <typename T>
struct ConjF {
  __device__ T operator()(T x) const { return ::cuda::std::conj(x); }
};

void neg_cuda(TensorIter& iter) {
  dispatch_dev<kIntegral | kFC>(iter.common_dtype(), "neg", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel<T, T>(iter, NegF<T>{});
  });
}
void exp_cuda(TensorIter& iter) {
  dispatch_dev<kFC>(iter.common_dtype(), "exp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel<T, T>(iter, ExpF<T>{});
  });
}
void log_cuda(TensorIter& iter) {
  dispatch_dev<kFC>(iter.common_dtype(), "log", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel<T, T>(iter, LogF<T>{});
  });
}
void sqrt_cuda(TensorIter& iter) {
  dispatch_dev<kFC>(iter.common_dtype(), "sqrt", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel<T, T>(iter, SqrtF<T>{});
  });
}
void conj_cuda(TensorIter& iter) {
  dispatch_dev<kComplex>(iter.common_dtype(), "conj", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel<T, T>(iter, ConjF<T>{});
  });
}

// digamma via the recurrence up to x >= 6 and the asymptotic series (as the CPU version).
template <typename M>
__device__ M digamma_of(M x) {
  const M pi = M(3.14159265358979323846);
  if (x == M(0)) return ::copysign(M(INFINITY), -x);
  if (x < M(0)) {
    if (x == ::trunc(x)) return M(NAN);
    return digamma_of(M(1) - x) - pi / ::tan(pi * x);
  }
  M r = 0;
  while (x < M(6)) {
    r -= M(1) / x;
    x += M(1);
  }
  M f = M(1) / (x * x);
  M t = f *
        (M(-1) / 12 + f * (M(1) / 120 + f * (M(-1) / 252 + f * (M(1) / 240 + f * (M(-1) / 132)))));
  return r + ::log(x) - M(0.5) / x + t;
}

template <typename M>
__device__ M trigamma_of(M x) {
  const M pi = M(3.14159265358979323846);
  M sign = 1, r = 0;
  if (x < M(0.5)) {
    sign = -1;
    M s = ::sin(pi * x);
    r = -pi * pi / (s * s);
    x = M(1) - x;
  }
  M acc = 0;
  while (x < M(6)) {
    acc += M(1) / (x * x);
    x += M(1);
  }
  M f = M(1) / (x * x);
  M t =
      M(1) / x + f / 2 + f / x * (M(1) / 6 + f * (M(-1) / 30 + f * (M(1) / 42 + f * (M(-1) / 30))));
  return sign * (acc + t) + r;
}

struct UnaryParams {
  UnaryOp op;
  double a, b, c;
  bool has_a, has_b;
  int64_t i;
};

template <typename T>
struct UnaryMathF {
  UnaryParams p;
  __device__ T operator()(T xt) const {
    using M = opmath_t<T>;
    constexpr bool kFloat = std::is_floating_point_v<M>;
    constexpr bool kCplx = is_cplx_v<M>;
    constexpr bool kBool = std::is_same_v<T, bool>;
    constexpr bool kInt = std::is_integral_v<T> && !kBool;
    M x = cvt<M>(xt);
    switch (p.op) {
      case UnaryOp::Abs:
        if constexpr (kFloat)
          return cvt<T>(M(::fabs(x)));
        else if constexpr (kInt && std::is_signed_v<T>)
          return T(x < 0 ? -x : x);
        else if constexpr (kInt)
          return xt;
        break;
      case UnaryOp::Sign:
      case UnaryOp::Sgn:
        if constexpr (kBool)
          return xt;
        else if constexpr (std::is_unsigned_v<M>)
          return cvt<T>(M(x != M(0)));
        else if constexpr (kCplx) {
          auto a = ::cuda::std::abs(x);
          return a == 0 ? T(0) : T(x / a);
        } else
          return cvt<T>(M((M(0) < x) - (x < M(0))));
        break;
#define TC_FLOAT_FN(OP, expr_f, expr_c) \
  case UnaryOp::OP:                     \
    if constexpr (kFloat)               \
      return cvt<T>(M(expr_f));         \
    else if constexpr (kCplx)           \
      return T(expr_c);                 \
    break;
        TC_FLOAT_FN(Exp2, ::exp2(x),
                    ::cuda::std::exp(x * typename M::value_type(0.693147180559945309417232121458)))
        TC_FLOAT_FN(Expm1, ::expm1(x), ::cuda::std::exp(x) - M(1))
        TC_FLOAT_FN(Log2, ::log2(x),
                    ::cuda::std::log(x) / typename M::value_type(0.693147180559945309417232121458))
        TC_FLOAT_FN(Log10, ::log10(x), ::cuda::std::log10(x))
        TC_FLOAT_FN(Log1p, ::log1p(x), ::cuda::std::log(M(1) + x))
        TC_FLOAT_FN(Rsqrt, ::rsqrt(x), M(1) / ::cuda::std::sqrt(x))
        TC_FLOAT_FN(Sin, ::sin(x), ::cuda::std::sin(x))
        TC_FLOAT_FN(Cos, ::cos(x), ::cuda::std::cos(x))
        TC_FLOAT_FN(Tan, ::tan(x), ::cuda::std::tan(x))
        TC_FLOAT_FN(Asin, ::asin(x), ::cuda::std::asin(x))
        TC_FLOAT_FN(Acos, ::acos(x), ::cuda::std::acos(x))
        TC_FLOAT_FN(Atan, ::atan(x), ::cuda::std::atan(x))
        TC_FLOAT_FN(Sinh, ::sinh(x), ::cuda::std::sinh(x))
        TC_FLOAT_FN(Cosh, ::cosh(x), ::cuda::std::cosh(x))
        TC_FLOAT_FN(Tanh, ::tanh(x), ::cuda::std::tanh(x))
        TC_FLOAT_FN(Asinh, ::asinh(x), ::cuda::std::asinh(x))
        TC_FLOAT_FN(Acosh, ::acosh(x), ::cuda::std::acosh(x))
        TC_FLOAT_FN(Atanh, ::atanh(x), ::cuda::std::atanh(x))
        TC_FLOAT_FN(Sigmoid, M(1) / (M(1) + ::exp(-x)), M(1) / (M(1) + ::cuda::std::exp(-x)))
        TC_FLOAT_FN(Reciprocal, M(1) / x, M(1) / x)
#undef TC_FLOAT_FN
      case UnaryOp::Erf:
        if constexpr (kFloat) return cvt<T>(M(::erf(x)));
        break;
      case UnaryOp::Erfc:
        if constexpr (kFloat) return cvt<T>(M(::erfc(x)));
        break;
      case UnaryOp::Erfinv:
        if constexpr (kFloat) return cvt<T>(M(::erfinv(x)));
        break;
      case UnaryOp::Lgamma:
        if constexpr (kFloat) return cvt<T>(M(::lgamma(x)));
        break;
      case UnaryOp::Digamma:
        if constexpr (kFloat) return cvt<T>(M(digamma_of<M>(x)));
        break;
      case UnaryOp::I0:
        if constexpr (kFloat) return cvt<T>(M(special_fn::i0<M>(x)));
        break;
      case UnaryOp::I1:
        if constexpr (kFloat) return cvt<T>(M(special_fn::i1<M>(x)));
        break;
      case UnaryOp::Trigamma:
        if constexpr (kFloat) return cvt<T>(M(trigamma_of<M>(x)));
        break;
      case UnaryOp::Floor:
        if constexpr (kFloat) return cvt<T>(M(::floor(x)));
        break;
      case UnaryOp::Ceil:
        if constexpr (kFloat) return cvt<T>(M(::ceil(x)));
        break;
      case UnaryOp::Trunc:
        if constexpr (kFloat) return cvt<T>(M(::trunc(x)));
        break;
      case UnaryOp::Round:
        if constexpr (kFloat) return cvt<T>(M(::rint(x)));
        break;
      case UnaryOp::RoundDecimals:
        if constexpr (kFloat) {
          int64_t d = p.i;
          M ten = M(::pow(10.0, double(d < 0 ? -d : d)));
          return cvt<T>(M(d < 0 ? ::rint(x / ten) * ten : ::rint(x * ten) / ten));
        }
        break;
      case UnaryOp::Frac:
        if constexpr (kFloat) return cvt<T>(M(x - ::trunc(x)));
        break;
      case UnaryOp::Square:
        if constexpr (!kBool) return cvt<T>(M(x * x));
        break;
      case UnaryOp::Relu:
        if constexpr (std::is_unsigned_v<M>)
          return xt;
        else if constexpr (!kBool && !kCplx)
          return cvt<T>(x < M(0) ? M(0) : x);
        break;
      case UnaryOp::Angle:
        if constexpr (kFloat)
          return cvt<T>(M(x != x ? x : (x < M(0) ? M(3.14159265358979323846) : M(0))));
        break;
      case UnaryOp::NanToNum:
        if constexpr (kFloat) {
          const M big = M(std::is_same_v<T, half>    ? 65504.0
                          : std::is_same_v<T, bf16>  ? 3.3895313892515355e38
                          : std::is_same_v<M, float> ? 3.4028234663852886e38
                                                     : 1.7976931348623157e308);
          const M pinf = p.has_a ? M(p.b) : big;
          const M ninf = p.has_b ? M(p.c) : -big;
          return cvt<T>(x != x ? M(p.a) : (::isinf(x) ? (x > 0 ? pinf : ninf) : x));
        }
        break;
      case UnaryOp::BitwiseNot:
        if constexpr (kBool)
          return !xt;
        else if constexpr (kInt)
          return T(~xt);
        break;
      case UnaryOp::ClampScalar:
        if constexpr (kFloat) {
          M r = p.has_a && x < M(p.a) ? M(p.a) : x;
          r = p.has_b && r > M(p.b) ? M(p.b) : r;
          return cvt<T>(x != x ? x : r);
        } else if constexpr (kInt) {
          // Bounds compare in double like the CPU's opmath (int64 bounds beyond 2^53 round).
          T r = xt;
          if (p.has_a && double(r) < p.a) r = T(p.a);
          if (p.has_b && double(r) > p.b) r = T(p.b);
          return r;
        }
        break;
      default:
        break;
    }
    return T(0);
  }
};

template <typename T>
struct PredicateF {
  UnaryOp op;
  __device__ bool operator()(T xt) const {
    using M = opmath_t<T>;
    M x = cvt<M>(xt);
    if constexpr (is_cplx_v<M>) {
      using R = typename M::value_type;
      R re = x.real(), im = x.imag();
      switch (op) {
        case UnaryOp::LogicalNot:
          return re == R(0) && im == R(0);
        case UnaryOp::IsNan:
          return re != re || im != im;
        case UnaryOp::IsInf:
          return ::isinf(re) || ::isinf(im);
        case UnaryOp::IsFinite:
          return ::isfinite(re) && ::isfinite(im);
        case UnaryOp::IsReal:
          return im == R(0);
        default:
          return false;
      }
    } else if constexpr (std::is_floating_point_v<M>) {
      switch (op) {
        case UnaryOp::LogicalNot:
          return x == M(0);
        case UnaryOp::IsNan:
          return x != x;
        case UnaryOp::IsInf:
          return ::isinf(x);
        case UnaryOp::IsPosInf:
          return ::isinf(x) && x > 0;
        case UnaryOp::IsNegInf:
          return ::isinf(x) && x < 0;
        case UnaryOp::IsFinite:
          return ::isfinite(x);
        case UnaryOp::IsReal:
          return true;
        default:
          return false;
      }
    } else {
      switch (op) {
        case UnaryOp::LogicalNot:
          return x == M(0);
        case UnaryOp::IsFinite:
        case UnaryOp::IsReal:
          return true;
        default:
          return false;
      }
    }
  }
};

template <typename T>
struct ComplexToRealF {
  bool angle;
  __device__ real_t<T> operator()(T x) const {
    return angle ? ::cuda::std::arg(x) : ::cuda::std::abs(x);
  }
};

bool is_predicate(UnaryOp op) {
  switch (op) {
    case UnaryOp::LogicalNot:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
    case UnaryOp::IsPosInf:
    case UnaryOp::IsNegInf:
    case UnaryOp::IsFinite:
    case UnaryOp::IsReal:
      return true;
    default:
      return false;
  }
}

bool supported(UnaryOp op, DType dt) {
  bool fl = is_floating(dt), cx = is_complex(dt), in = is_integral(dt), b = dt == DType::Bool;
  switch (op) {
    case UnaryOp::Abs:
    case UnaryOp::Square:
      return in || fl || cx;
    case UnaryOp::Sign:
      return !cx;
    case UnaryOp::Sgn:
      return true;
    case UnaryOp::Erf:
    case UnaryOp::Erfc:
    case UnaryOp::Erfinv:
    case UnaryOp::Lgamma:
    case UnaryOp::Digamma:
    case UnaryOp::Trigamma:
    case UnaryOp::I0:
    case UnaryOp::I1:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Trunc:
    case UnaryOp::Round:
    case UnaryOp::RoundDecimals:
    case UnaryOp::Frac:
    case UnaryOp::NanToNum:
      return fl;
    case UnaryOp::Relu:
    case UnaryOp::ClampScalar:
      return in || fl;
    case UnaryOp::Angle:
      return fl || cx;
    case UnaryOp::BitwiseNot:
      return in || b;
    default:
      return fl || cx;  // the transcendental functions
  }
}

void unary_cuda(TensorIter& iter, UnaryOp op, const OpParams& p) {
  DType dt = iter.common_dtype();
  if (is_predicate(op)) {
    return dispatch_dev<kAllTypes>(dt, "unary predicate", [&](auto tag) {
      using T = typename decltype(tag)::type;
      gpu_kernel_novec<bool, T>(iter, PredicateF<T>{op});
    });
  }
  if (is_complex(dt) && (op == UnaryOp::Abs || op == UnaryOp::Angle) &&
      !is_complex(iter.output_dtype())) {
    return dispatch_dev<kComplex>(dt, "abs", [&](auto tag) {
      using T = typename decltype(tag)::type;
      gpu_kernel_novec<real_t<T>, T>(iter, ComplexToRealF<T>{op == UnaryOp::Angle});
    });
  }
  TC_CHECK_TYPE(supported(op, dt), "unary op ", int(op), ": not implemented for dtype ",
                dtype_name(dt), " on CUDA");
  UnaryParams up{op, p.a, p.b, p.c, p.has_a, p.has_b, p.i};
  dispatch_dev<kAllTypes>(dt, "unary op", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel_novec<T, T>(iter, UnaryMathF<T>{up});
  });
}

TC_REGISTER_KERNEL(neg_kernel, CUDA, neg_cuda);
TC_REGISTER_KERNEL(exp_kernel, CUDA, exp_cuda);
TC_REGISTER_KERNEL(log_kernel, CUDA, log_cuda);
TC_REGISTER_KERNEL(sqrt_kernel, CUDA, sqrt_cuda);
TC_REGISTER_KERNEL(conj_kernel, CUDA, conj_cuda);
TC_REGISTER_KERNEL(unary_op_kernel, CUDA, unary_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
