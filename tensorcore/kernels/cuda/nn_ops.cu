// nn kernels on CUDA, registered into the tables of nn/device_kernels.h: grid_sample (4-d and 5-d;
// grid_sample_point.h, the CPU kernel's own per-location code, one thread per output location),
// embedding_bag (one thread per bag element) and ctc_loss (one block per batch element running the
// CPU's log-space alpha / beta recursions, threads across the extended target positions).
#include <limits>

#include "tensorcore/core/deterministic.h"
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/kernels/cuda/launch_on.cuh"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/ops/creation.h"

namespace tc::nn::gpu {
namespace {

using cuda_kernels::kBlockSize;
using detail::GridGeom;

constexpr uint32_t kOpTypes = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

#define TC_NN_GRID_STRIDE(i, n)                                             \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

using cuda_kernels::launch_on;

template <typename T>
const T* cptr(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}
template <typename T>
T* mptr(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr;
}

// ---- grid_sample ----

struct AtomicAdd {
  template <typename T>
  __device__ void operator()(T* p, T v) const {
    atomicAdd(p, v);
  }
};

template <typename T>
__global__ void grid_forward_kernel(const T* in, const T* grid, T* out, GridGeom g, int64_t total) {
  TC_NN_GRID_STRIDE(i, total) { detail::grid_point_forward(in, grid, out, g, i); }
}

template <typename T>
__global__ void grid_backward_kernel(const T* gout, const T* in, const T* grid, T* gin, T* ggrid,
                                     GridGeom g, int64_t total) {
  TC_NN_GRID_STRIDE(i, total) {
    detail::grid_point_backward(gout, in, grid, gin, ggrid, g, i, AtomicAdd{});
  }
}

template <typename T>
__global__ void grid3d_kernel(const T* in, const T* grid, T* out, const T* gout, T* gin, T* ggrid,
                              detail::GridGeom3 g, int64_t total) {
  TC_NN_GRID_STRIDE(i, total) {
    detail::grid3d_point(in, grid, out, gout, gin, ggrid, g, i, AtomicAdd{});
  }
}

// ---- embedding_bag ----

// One thread per (bag, column): the CPU's loop over the bag's entries for that column.
template <typename T>
__global__ void embedding_bag_kernel(const T* weight, const int64_t* idx, const int64_t* starts,
                                     const int64_t* ends, const double* scale, const T* psw,
                                     int64_t pad, bool max_mode, int64_t D, T* out,
                                     int64_t* max_idx, int64_t total) {
  TC_NN_GRID_STRIDE(i, total) {
    const int64_t b = i / D, d = i % D;
    T o = out[i];
    int64_t m = max_mode ? max_idx[i] : -1;
    for (int64_t j = starts[b]; j < ends[b]; ++j) {
      const int64_t row = idx[j];
      if (row == pad) continue;
      const T v = weight[row * D + d];
      if (max_mode) {
        if (m < 0 || v > o) o = v, m = row;
      } else {
        o += T(scale[j]) * (psw ? psw[j] : T(1)) * v;
      }
    }
    out[i] = o;
    if (max_mode) max_idx[i] = m;
  }
}

// ---- ctc_loss ----

template <typename T>
__device__ __forceinline__ T ninf() {
  return -std::numeric_limits<T>::infinity();
}

template <typename T>
__device__ __forceinline__ T log_add(T a, T b) {
  if (a == ninf<T>()) return b;
  if (b == ninf<T>()) return a;
  T m = a > b ? a : b;
  return m + log1p(exp(-fabs(a - b)));
}

// log(exp(a) + exp(b) + exp(c)) with one log; -inf terms drop out.
template <typename T>
__device__ __forceinline__ T log_add3(T a, T b, T c) {
  T m = a > b ? a : b;
  m = m > c ? m : c;
  if (m == ninf<T>()) return ninf<T>();
  return m + log(exp(a - m) + exp(b - m) + exp(c - m));
}

// Blank-extended target of one sample: label(s) is blank for even s, the (s/2)-th target else.
struct ExtTarget {
  const int64_t* tg;
  int64_t blank;
  __device__ int64_t operator()(int64_t s) const { return (s & 1) ? tg[s >> 1] : blank; }
};

// One block per sample n; threads stride over the extended positions s of each time step.
template <typename T>
__global__ void ctc_alpha_kernel(const T* lp, const int64_t* targets, const int64_t* offsets,
                                 const int64_t* in_len, const int64_t* tg_len, int64_t blank,
                                 int64_t Tmax, int64_t N, int64_t C, int64_t max_ext, T* nll,
                                 T* alpha) {
  const int64_t n = blockIdx.x;
  const int64_t Tn = in_len[n], S = tg_len[n], E = 2 * S + 1;
  const ExtTarget label{targets + offsets[n], blank};
  T* a = alpha + n * Tmax * max_ext;
  for (int64_t i = threadIdx.x; i < Tmax * max_ext; i += blockDim.x) a[i] = ninf<T>();
  __syncthreads();
  if (Tn == 0) {
    if (threadIdx.x == 0) nll[n] = S == 0 ? T(0) : std::numeric_limits<T>::infinity();
    return;
  }
  if (threadIdx.x == 0) {
    a[0] = lp[n * C + blank];
    if (E > 1) a[1] = lp[n * C + label(1)];
  }
  __syncthreads();
  for (int64_t t = 1; t < Tn; ++t) {
    const T* prev = a + (t - 1) * max_ext;
    T* cur = a + t * max_ext;
    // Positions that cannot reach the end in the remaining steps stay -inf.
    const int64_t s_lo = E - 2 * (Tn - t) > 0 ? E - 2 * (Tn - t) : 0;
    const int64_t s_hi = E < 2 * (t + 1) ? E : 2 * (t + 1);
    for (int64_t s = s_lo + threadIdx.x; s < s_hi; s += blockDim.x) {
      const int64_t l = label(s);
      const T b = s > 0 ? prev[s - 1] : ninf<T>();
      const T c = (s > 1 && l != blank && l != label(s - 2)) ? prev[s - 2] : ninf<T>();
      const T v = log_add3(prev[s], b, c);
      cur[s] = v == ninf<T>() ? ninf<T>() : v + lp[(t * N + n) * C + l];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const T* last = a + (Tn - 1) * max_ext;
    T ll = last[E - 1];
    if (E > 1) ll = log_add(ll, last[E - 2]);
    nll[n] = -ll;
  }
}

// One block per sample n: the beta recursion backwards in time (two rows in `beta`, (N, 2,
// max_ext)), and at each step the gradient of every class that appears in the extended target,
// summed over its positions in ascending order as on the CPU.
template <typename T>
__global__ void ctc_grad_kernel(const T* lp, const int64_t* targets, const int64_t* offsets,
                                const int64_t* in_len, const int64_t* tg_len, int64_t blank,
                                int64_t Tmax, int64_t N, int64_t C, int64_t max_ext, const T* nll,
                                const T* alpha, const T* gout, bool zero_infinity, T* beta,
                                T* grad) {
  const int64_t n = blockIdx.x;
  const int64_t Tn = in_len[n], S = tg_len[n], E = 2 * S + 1;
  const ExtTarget label{targets + offsets[n], blank};
  const T* a = alpha + n * Tmax * max_ext;
  for (int64_t i = threadIdx.x; i < Tmax * C; i += blockDim.x)
    grad[((i / C) * N + n) * C + i % C] = T(0);
  __syncthreads();
  const T loss = nll[n];
  if (Tn == 0 || isinf(loss) || isnan(loss)) {
    // Infeasible alignment: zero_infinity zeroes the gradient; otherwise it is undefined
    // (nan, as torch and the CPU kernel).
    if (!zero_infinity && Tn > 0)
      for (int64_t i = threadIdx.x; i < Tn * C; i += blockDim.x)
        grad[((i / C) * N + n) * C + i % C] = std::numeric_limits<T>::quiet_NaN();
    return;
  }
  const T go = gout[n];
  T* beta_cur = beta + n * 2 * max_ext;
  T* beta_next = beta_cur + max_ext;
  for (int64_t t = Tn - 1; t >= 0; --t) {
    const T* lpt = lp + (t * N + n) * C;
    const int64_t s_hi = E < 2 * (t + 1) ? E : 2 * (t + 1);
    const int64_t s_lo = E - 2 * (Tn - t) > 0 ? E - 2 * (Tn - t) : 0;
    for (int64_t s = threadIdx.x; s < E; s += blockDim.x) {
      T v = ninf<T>();
      const int64_t l = label(s);
      if (t == Tn - 1) {
        if (s == E - 1)
          v = lpt[blank];
        else if (s == E - 2)
          v = lpt[l];
      } else if (s >= s_lo && s < s_hi) {
        const T b = s + 1 < E ? beta_next[s + 1] : ninf<T>();
        const T c = (s + 2 < E && l != blank && l != label(s + 2)) ? beta_next[s + 2] : ninf<T>();
        const T w = log_add3(beta_next[s], b, c);
        v = w == ninf<T>() ? ninf<T>() : w + lpt[l];
      }
      beta_cur[s] = v;
    }
    __syncthreads();
    // The first position of each class gathers that class's alpha * beta over all positions.
    const T* at = a + t * max_ext;
    for (int64_t s = threadIdx.x; s < E; s += blockDim.x) {
      const int64_t l = label(s);
      bool first = true;
      for (int64_t q = 0; q < s && first; ++q) first = label(q) != l;
      if (!first) continue;
      T lc = ninf<T>();
      for (int64_t q = s; q < E; ++q)
        if (label(q) == l) lc = log_add(lc, at[q] + beta_cur[q]);
      if (lc != ninf<T>()) grad[(t * N + n) * C + l] = -exp(lc + loss - lpt[l]) * go;
    }
    __syncthreads();
    T* tmp = beta_cur;
    beta_cur = beta_next;
    beta_next = tmp;
  }
}

// The small ctc tables must be int64 on lp's device (the front end guarantees it).
void check_ctc_tables(const Tensor& lp, std::initializer_list<const Tensor*> tables) {
  for (const Tensor* t : tables)
    TC_CHECK(t->dtype() == DType::Int64 && t->device() == lp.device() && t->is_contiguous(),
             "ctc_loss (CUDA): malformed index table (internal error)");
}

}  // namespace

void grid_sample_forward(const Tensor& x, const Tensor& grid, const GridGeom& g,
                         const Tensor& out) {
  const int64_t total = g.N * g.Ho * g.Wo;
  cuda_kernels::dispatch_dev<kOpTypes>(x.dtype(), "grid_sample (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(x, total, [&](int blocks, cudaStream_t s) {
      grid_forward_kernel<T>
          <<<blocks, kBlockSize, 0, s>>>(cptr<T>(x), cptr<T>(grid), mptr<T>(out), g, total);
    });
  });
}

void grid_sample_backward(const Tensor& gout, const Tensor& x, const Tensor& grid,
                          const GridGeom& g, const Tensor& gin, const Tensor& ggrid) {
  // The input gradient is scattered with atomicAdd.
  if (gin.defined()) alert_not_deterministic("grid_sampler_2d_backward (CUDA)");
  const int64_t total = g.N * g.Ho * g.Wo;
  cuda_kernels::dispatch_dev<kOpTypes>(x.dtype(), "grid_sample backward (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(x, total, [&](int blocks, cudaStream_t s) {
      grid_backward_kernel<T><<<blocks, kBlockSize, 0, s>>>(
          cptr<T>(gout), cptr<T>(x), cptr<T>(grid), mptr<T>(gin), mptr<T>(ggrid), g, total);
    });
  });
}

void grid_sample3d(const Tensor& x, const Tensor& grid, const Tensor& out, const Tensor& gout,
                   const Tensor& gin, const Tensor& ggrid, const detail::GridGeom3& g) {
  if (gout.defined() && gin.defined()) alert_not_deterministic("grid_sampler_3d_backward (CUDA)");
  const int64_t total = g.N * g.Do * g.Ho * g.Wo;
  cuda_kernels::dispatch_dev<kOpTypes>(x.dtype(), "grid_sample (5-d, CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(x, total, [&](int blocks, cudaStream_t s) {
      grid3d_kernel<T><<<blocks, kBlockSize, 0, s>>>(cptr<T>(x), cptr<T>(grid), mptr<T>(out),
                                                     cptr<T>(gout), mptr<T>(gin), mptr<T>(ggrid), g,
                                                     total);
    });
  });
}

void embedding_bag_forward(const Tensor& weight, const Tensor& idx,
                           const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                           const std::vector<double>& scale, const Tensor& psw, int64_t pad,
                           bool max_mode, const Tensor& out, const Tensor& max_idx) {
  const int64_t B = int64_t(starts.size()), D = weight.size(1), total = B * D;
  if (total == 0) return;
  const Device dev = weight.device();
  auto upload = [&](const auto& v) {
    using V = typename std::decay_t<decltype(v)>::value_type;
    return from_vector(v, {int64_t(v.size())}, TensorOptions(dtype_of_v<V>).device(dev));
  };
  Tensor s_dev = upload(starts), e_dev = upload(ends);
  Tensor sc_dev = scale.empty() ? Tensor() : upload(scale);
  cuda_kernels::dispatch_dev<kOpTypes>(weight.dtype(), "embedding_bag (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(weight, total, [&](int blocks, cudaStream_t s) {
      embedding_bag_kernel<T><<<blocks, kBlockSize, 0, s>>>(
          cptr<T>(weight), cptr<int64_t>(idx), cptr<int64_t>(s_dev), cptr<int64_t>(e_dev),
          cptr<double>(sc_dev), cptr<T>(psw), pad, max_mode, D, mptr<T>(out),
          max_mode ? mptr<int64_t>(max_idx) : nullptr, total);
    });
  });
}

void ctc_forward(const Tensor& lp, const Tensor& targets, const Tensor& offsets,
                 const Tensor& in_len, const Tensor& tg_len, int64_t blank, int64_t max_ext,
                 const Tensor& nll, const Tensor& alpha) {
  check_ctc_tables(lp, {&targets, &offsets, &in_len, &tg_len});
  const int64_t Tmax = lp.size(0), N = lp.size(1), C = lp.size(2);
  if (N == 0) return;
  cuda_kernels::dispatch_dev<kOpTypes>(lp.dtype(), "ctc_loss (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda_kernels::DeviceGuard guard(lp.device().index);
    cudaStream_t s = cuda_kernels::stream_of(lp.device().index);
    ctc_alpha_kernel<T><<<unsigned(N), kBlockSize, 0, s>>>(
        cptr<T>(lp), cptr<int64_t>(targets), cptr<int64_t>(offsets), cptr<int64_t>(in_len),
        cptr<int64_t>(tg_len), blank, Tmax, N, C, max_ext, mptr<T>(nll), mptr<T>(alpha));
    TC_CUDA_KERNEL_CHECK();
  });
}

void ctc_backward(const Tensor& lp, const Tensor& targets, const Tensor& offsets,
                  const Tensor& in_len, const Tensor& tg_len, int64_t blank, int64_t max_ext,
                  const Tensor& nll, const Tensor& alpha, const Tensor& gout, bool zero_infinity,
                  const Tensor& grad) {
  check_ctc_tables(lp, {&targets, &offsets, &in_len, &tg_len});
  const int64_t Tmax = lp.size(0), N = lp.size(1), C = lp.size(2);
  if (N == 0) return;
  Tensor beta = empty({N, 2, max_ext}, TensorOptions(lp.dtype()).device(lp.device()));
  cuda_kernels::dispatch_dev<kOpTypes>(lp.dtype(), "ctc_loss backward (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda_kernels::DeviceGuard guard(lp.device().index);
    cudaStream_t s = cuda_kernels::stream_of(lp.device().index);
    ctc_grad_kernel<T><<<unsigned(N), kBlockSize, 0, s>>>(
        cptr<T>(lp), cptr<int64_t>(targets), cptr<int64_t>(offsets), cptr<int64_t>(in_len),
        cptr<int64_t>(tg_len), blank, Tmax, N, C, max_ext, cptr<T>(nll), cptr<T>(alpha),
        cptr<T>(gout), zero_infinity, mptr<T>(beta), mptr<T>(grad));
    TC_CUDA_KERNEL_CHECK();
  });
}

}  // namespace tc::nn::gpu

namespace tc::nn {
TC_REGISTER_KERNEL(grid_sample_forward_kernel, CUDA, gpu::grid_sample_forward);
TC_REGISTER_KERNEL(grid_sample_backward_kernel, CUDA, gpu::grid_sample_backward);
TC_REGISTER_KERNEL(grid_sample3d_kernel, CUDA, gpu::grid_sample3d);
TC_REGISTER_KERNEL(embedding_bag_forward_kernel, CUDA, gpu::embedding_bag_forward);
TC_REGISTER_KERNEL(ctc_forward_kernel, CUDA, gpu::ctc_forward);
TC_REGISTER_KERNEL(ctc_backward_kernel, CUDA, gpu::ctc_backward);
}  // namespace tc::nn
