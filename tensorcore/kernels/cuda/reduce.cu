// Value reductions on CUDA (sum, mean, prod, amax/amin, nansum, logsumexp, norm, var, all/any)
// and argmax/argmin over rows, all through the generic reduction in reduce.cuh.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "tensorcore/kernels/cuda/reduce.cuh"
#include "tensorcore/ops/kernel_tables.h"
#include "tensorcore/ops/reduce_kernels.h"

namespace tc::cuda_kernels {

ReduceGeom reduce_geometry(const Tensor& in, const std::vector<bool>& mask) {
  ReduceGeom g;
  std::vector<std::pair<int64_t, int64_t>> red;  // (size, stride)
  for (int d = int(in.dim()) - 1; d >= 0; --d) {
    int64_t sz = in.sizes()[d], st = in.strides()[d];
    if (mask[d]) {
      if (sz != 1) red.push_back({sz, st});
    } else {
      TC_CHECK(g.nk < kReduceMaxDims, "cuda reduce: too many dimensions");
      g.ksize[g.nk] = sz;
      g.kstride[g.nk] = st;
      ++g.nk;
      g.n_out *= sz;
    }
  }
  // Reduced dims: smallest stride first, merging dims that are contiguous with each other.
  std::stable_sort(red.begin(), red.end(), [](auto a, auto b) { return a.second < b.second; });
  for (auto [sz, st] : red) {
    if (g.nr > 0 && g.rstride[g.nr - 1] * g.rsize[g.nr - 1] == st) {
      g.rsize[g.nr - 1] *= sz;
    } else {
      TC_CHECK(g.nr < kReduceMaxDims, "cuda reduce: too many dimensions");
      g.rsize[g.nr] = sz;
      g.rstride[g.nr] = st;
      ++g.nr;
    }
    g.n_red *= sz;
  }
  if (g.nr == 0) {
    g.nr = 1;
    g.rsize[0] = 1;
    g.rstride[0] = 0;
  }
  return g;
}

static int pow2_at_most(int64_t n, int cap) {
  int p = 1;
  while (p * 2 <= n && p * 2 <= cap) p *= 2;
  return p;
}

ReduceLaunch reduce_launch(const ReduceGeom& g) {
  ReduceLaunch L;
  // Is the reduction contiguous (stride 1) while outputs are not?
  bool red_contig = g.rstride[0] == 1 || g.n_out == 1;
  bool out_contig = g.nk > 0 && g.kstride[0] == 1;
  L.red_inner = red_contig || !out_contig;
  if (L.red_inner) {
    int64_t want = (g.n_red + 3) / 4;  // ~4 elements per thread before the merge tree
    L.red_lanes = std::max(1, pow2_at_most(std::max<int64_t>(want, 1), kBlockSize));
    if (L.red_lanes < 32 && g.n_red >= 32) L.red_lanes = 32;
    L.out_lanes = kBlockSize / L.red_lanes;
  } else {
    L.out_lanes = pow2_at_most(std::max<int64_t>(g.n_out, 1), kBlockSize);
    if (L.out_lanes < 32) L.out_lanes = std::min(kBlockSize, 32);
    L.red_lanes = kBlockSize / L.out_lanes;
  }
  int64_t blocks = (g.n_out + L.out_lanes - 1) / L.out_lanes;
  int64_t target = int64_t(sm_count()) * 4;
  if (blocks < target) {
    // Few outputs: split each reduction over several blocks (each thread still >= 16 elements).
    int64_t by_work = g.n_red / (int64_t(L.red_lanes) * 16);
    int64_t s = std::min<int64_t>((target + blocks - 1) / blocks, by_work);
    L.splits = int(std::clamp<int64_t>(s, 1, 1024));
  }
  return L;
}

namespace {

constexpr uint32_t kF32 = 1u << int(DType::Float32), kF64 = 1u << int(DType::Float64),
                   kI64 = 1u << int(DType::Int64);
constexpr uint32_t kFloats = kF32 | kF64;

template <typename T>
using sum_acc_t =
    std::conditional_t<is_cplx_v<T>, T, std::conditional_t<is_float_v<T>, opmath_t<T>, int64_t>>;

template <typename T, bool Mean>
struct SumOp {
  using acc_t = sum_acc_t<T>;
  __device__ acc_t init() const { return acc_t(0); }
  __device__ acc_t fold(acc_t a, T x, int64_t) const { return a + cvt<acc_t>(x); }
  __device__ acc_t merge(acc_t a, acc_t b) const { return a + b; }
  __device__ void write(OutPtrs o, int64_t i, acc_t a, int64_t n) const {
    if constexpr (Mean) {
      if constexpr (is_cplx_v<acc_t>)
        a = a / typename acc_t::value_type(n);
      else
        a = acc_t(a / acc_t(n));
    }
    static_cast<T*>(o.p0)[i] = cvt<T>(a);
  }
};

// Products accumulate in double (or int64) like the CPU: float products of many factors
// under/overflow long before the result does. Complex products accumulate in complex<double>.
template <typename T>
struct ProdOp {
  using acc_t =
      std::conditional_t<is_cplx_v<T>, cplx<double>,
                         std::conditional_t<std::is_floating_point_v<T>, double, int64_t>>;
  __device__ acc_t init() const { return acc_t(1); }
  __device__ acc_t fold(acc_t a, T x, int64_t) const { return a * cvt<acc_t>(x); }
  __device__ acc_t merge(acc_t a, acc_t b) const { return a * b; }
  __device__ void write(OutPtrs o, int64_t i, acc_t a, int64_t) const {
    static_cast<T*>(o.p0)[i] = cvt<T>(a);
  }
};

template <typename T, bool Max>
struct MinMaxOp {
  using acc_t = T;
  __device__ acc_t init() const {
    if constexpr (std::is_floating_point_v<T>)
      return Max ? T(-INFINITY) : T(INFINITY);
    else
      return Max ? ::cuda::std::numeric_limits<T>::lowest() : ::cuda::std::numeric_limits<T>::max();
  }
  __device__ acc_t fold(acc_t a, T x, int64_t) const { return merge(a, x); }
  __device__ acc_t merge(acc_t a, acc_t x) const {
    if constexpr (Max)
      return ((x > a) | (x != x)) ? x : a;
    else
      return ((x < a) | (x != x)) ? x : a;
  }
  __device__ void write(OutPtrs o, int64_t i, acc_t a, int64_t) const {
    static_cast<T*>(o.p0)[i] = a;
  }
};

template <typename T>
struct NanSumOp {
  using acc_t = T;
  __device__ acc_t init() const { return 0; }
  __device__ acc_t fold(acc_t a, T x, int64_t) const { return a + (x != x ? T(0) : x); }
  __device__ acc_t merge(acc_t a, acc_t b) const { return a + b; }
  __device__ void write(OutPtrs o, int64_t i, acc_t a, int64_t) const {
    static_cast<T*>(o.p0)[i] = a;
  }
};

template <typename T>
struct Lse {
  T m, s;
};
template <typename T>
struct LogSumExpOp {
  using acc_t = Lse<T>;
  __device__ acc_t init() const { return {T(-INFINITY), T(0)}; }
  __device__ acc_t fold(acc_t a, T x, int64_t) const { return merge(a, acc_t{x, T(1)}); }
  __device__ acc_t merge(acc_t a, acc_t b) const {
    if (a.m != a.m || b.m != b.m) return {T(NAN), T(1)};
    if (b.s == 0) return a;
    if (a.s == 0) return b;
    if (a.m < b.m) {
      acc_t t = a;
      a = b;
      b = t;
    }
    if (::isinf(a.m) && a.m == b.m) return {a.m, a.s + b.s};
    return {a.m, a.s + b.s * ::exp(b.m - a.m)};
  }
  __device__ void write(OutPtrs o, int64_t i, acc_t a, int64_t) const {
    T r = a.s == 0 ? T(-INFINITY) : (::isinf(a.m) ? a.m : a.m + ::log(a.s));
    static_cast<T*>(o.p0)[i] = r;
  }
};

enum class NormKind : int { P2, P1, Inf, NegInf, Zero, General };
template <typename T>
struct NormOp {
  using acc_t = T;
  NormKind kind;
  T p;
  __device__ acc_t init() const { return kind == NormKind::NegInf ? T(INFINITY) : T(0); }
  __device__ acc_t fold(acc_t a, T x, int64_t) const {
    T ax = ::fabs(x);
    switch (kind) {
      case NormKind::P2:
        return a + x * x;
      case NormKind::P1:
        return a + ax;
      case NormKind::Inf:
        return (ax > a || ax != ax) ? ax : a;
      case NormKind::NegInf:
        return (ax < a || ax != ax) ? ax : a;
      case NormKind::Zero:
        return a + (x != T(0) ? T(1) : T(0));
      default:
        return a + ::pow(ax, p);
    }
  }
  __device__ acc_t merge(acc_t a, acc_t b) const {
    if (kind == NormKind::Inf) return (b > a || b != b) ? b : a;
    if (kind == NormKind::NegInf) return (b < a || b != b) ? b : a;
    return a + b;
  }
  __device__ void write(OutPtrs o, int64_t i, acc_t a, int64_t) const {
    T r = kind == NormKind::P2 ? ::sqrt(a) : (kind == NormKind::General ? ::pow(a, T(1) / p) : a);
    static_cast<T*>(o.p0)[i] = r;
  }
};

template <typename T>
struct Welford {
  T n, mean, m2;
};
template <typename T>
struct VarOp {
  using acc_t = Welford<T>;
  T correction;
  __device__ acc_t init() const { return {0, 0, 0}; }
  __device__ acc_t fold(acc_t a, T x, int64_t) const {
    T n = a.n + 1, d = x - a.mean, mean = a.mean + d / n;
    return {n, mean, a.m2 + d * (x - mean)};
  }
  __device__ acc_t merge(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    T n = a.n + b.n, d = b.mean - a.mean;
    return {n, a.mean + d * b.n / n, a.m2 + b.m2 + d * d * a.n * b.n / n};
  }
  __device__ void write(OutPtrs o, int64_t i, acc_t a, int64_t) const {
    T denom = a.n - correction;
    static_cast<T*>(o.p0)[i] = a.m2 / (denom > T(0) ? denom : T(0));
  }
};

template <bool All>
struct AllAnyOp {
  using acc_t = bool;
  __device__ acc_t init() const { return All; }
  __device__ acc_t fold(acc_t a, bool x, int64_t) const { return All ? (a && x) : (a || x); }
  __device__ acc_t merge(acc_t a, acc_t b) const { return All ? (a && b) : (a || b); }
  __device__ void write(OutPtrs o, int64_t i, acc_t a, int64_t) const {
    static_cast<bool*>(o.p0)[i] = a;
  }
};

// argmax/argmin: NaN wins, ties keep the first index.
template <typename T>
struct ArgAcc {
  T v;
  int64_t i;
};
template <typename T, bool Max>
struct ArgOp {
  using acc_t = ArgAcc<T>;
  __device__ acc_t init() const { return {T(0), -1}; }
  __device__ acc_t fold(acc_t a, T x, int64_t idx) const { return merge(a, acc_t{x, idx}); }
  __device__ acc_t merge(acc_t a, acc_t b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn) {
      if (an && bn) return a.i < b.i ? a : b;
      return an ? a : b;
    }
    if (a.v == b.v) return a.i < b.i ? a : b;
    return (Max ? b.v > a.v : b.v < a.v) ? b : a;
  }
  __device__ void write(OutPtrs o, int64_t i, acc_t a, int64_t) const {
    if (o.p0) static_cast<T*>(o.p0)[i] = a.v;
    static_cast<int64_t*>(o.p1)[i] = a.i;
  }
};

OutPtrs out1(const Tensor& out) { return {out.data_ptr(), nullptr}; }

void sum_cuda(const Tensor& out, const Tensor& in, const std::vector<bool>& mask) {
  dispatch_dev<kIntegral | kFloating | kComplex>(in.dtype(), "sum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(in, mask, SumOp<T, false>{}, out1(out));
  });
}
void mean_cuda(const Tensor& out, const Tensor& in, const std::vector<bool>& mask) {
  dispatch_dev<kFloating | kComplex>(in.dtype(), "mean", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(in, mask, SumOp<T, true>{}, out1(out));
  });
}
void prod_cuda(const Tensor& out, const Tensor& in, const std::vector<bool>& mask, double) {
  dispatch_dev<kFloats | kI64 | kComplex>(in.dtype(), "prod", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(in, mask, ProdOp<T>{}, out1(out));
  });
}
template <bool Max>
void minmax_cuda(const Tensor& out, const Tensor& in, const std::vector<bool>& mask, double) {
  dispatch_dtype<kFloats | kI64>(in.dtype(), Max ? "amax" : "amin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(in, mask, MinMaxOp<T, Max>{}, out1(out));
  });
}
void nansum_cuda(const Tensor& out, const Tensor& in, const std::vector<bool>& mask, double) {
  dispatch_dtype<kFloats>(in.dtype(), "nansum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(in, mask, NanSumOp<T>{}, out1(out));
  });
}
void logsumexp_cuda(const Tensor& out, const Tensor& in, const std::vector<bool>& mask, double) {
  dispatch_dtype<kFloats>(in.dtype(), "logsumexp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(in, mask, LogSumExpOp<T>{}, out1(out));
  });
}
void norm_cuda(const Tensor& out, const Tensor& in, const std::vector<bool>& mask, double p) {
  NormKind k = p == 2                     ? NormKind::P2
               : p == 1                   ? NormKind::P1
               : (std::isinf(p) && p > 0) ? NormKind::Inf
               : std::isinf(p)            ? NormKind::NegInf
               : p == 0                   ? NormKind::Zero
                                          : NormKind::General;
  dispatch_dtype<kFloats>(in.dtype(), "norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(in, mask, NormOp<T>{k, T(p)}, out1(out));
  });
}
void var_cuda(const Tensor& out, const Tensor& in, const std::vector<bool>& mask, double c) {
  dispatch_dtype<kFloats>(in.dtype(), "var", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(in, mask, VarOp<T>{T(c)}, out1(out));
  });
}
template <bool All>
void allany_cuda(const Tensor& out, const Tensor& in, const std::vector<bool>& mask, double) {
  launch_reduce<bool>(in, mask, AllAnyOp<All>{}, out1(out));
}

template <bool Max>
void argminmax_cuda(const Tensor& in, const Tensor& values, const Tensor& indices,
                    const RowParams&) {
  // in is contiguous [rows, n]: reduce the last dim.
  std::vector<bool> mask(size_t(in.dim()), false);
  mask.back() = true;
  dispatch_dtype<kFloats | kI64>(in.dtype(), Max ? "argmax" : "argmin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(in, mask, ArgOp<T, Max>{},
                     OutPtrs{values.defined() ? values.data_ptr() : nullptr, indices.data_ptr()});
  });
}

TC_REGISTER_KERNEL(sum_kernel, CUDA, sum_cuda);
TC_REGISTER_KERNEL(mean_kernel, CUDA, mean_cuda);
TC_REGISTER_KERNEL(prod_kernel, CUDA, prod_cuda);
TC_REGISTER_KERNEL(amax_kernel, CUDA, minmax_cuda<true>);
TC_REGISTER_KERNEL(amin_kernel, CUDA, minmax_cuda<false>);
TC_REGISTER_KERNEL(nansum_kernel, CUDA, nansum_cuda);
TC_REGISTER_KERNEL(logsumexp_kernel, CUDA, logsumexp_cuda);
TC_REGISTER_KERNEL(norm_kernel, CUDA, norm_cuda);
TC_REGISTER_KERNEL(var_kernel, CUDA, var_cuda);
TC_REGISTER_KERNEL(all_kernel, CUDA, allany_cuda<true>);
TC_REGISTER_KERNEL(any_kernel, CUDA, allany_cuda<false>);
TC_REGISTER_KERNEL(argmax_kernel, CUDA, argminmax_cuda<true>);
TC_REGISTER_KERNEL(argmin_kernel, CUDA, argminmax_cuda<false>);

}  // namespace
}  // namespace tc::cuda_kernels
