// Pooling on CUDA: max (with torch's flat per-plane indices), average and adaptive pooling over
// [planes, D, H, W] (1-d and 2-d run with size-1 leading axes), with the window rules of the CPU
// kernels in tensorcore/nn/pooling.cpp. Forward kernels use one thread per output; backward
// kernels one thread per input element, gathering from the outputs whose window can hold it, so
// they need no atomics and are deterministic.
#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/kernels/cuda/launch_on.cuh"
#include "tensorcore/nn/device_kernels.h"

namespace tc::nn {
namespace {

using cuda_kernels::cvt;
using cuda_kernels::dev_t;
using cuda_kernels::opmath_t;

constexpr uint32_t kPoolTypes = kFloating;

__device__ __forceinline__ int64_t ceil_div_signed(int64_t n, int64_t s) {
  return n >= 0 ? (n + s - 1) / s : -((-n) / s);
}

// Splits a flat [planes, D, H, W] index (sizes taken from `in` or `out` of each axis).
struct PoolPos {
  int64_t plane, d, h, w;
};
__device__ __forceinline__ PoolPos unravel(int64_t i, int64_t D, int64_t H, int64_t W) {
  const int64_t w = i % W, t = i / W;
  const int64_t h = t % H, t2 = t / H;
  return {t2 / D, t2 % D, h, w};
}

// Max-pool window of output o along one axis: [lo, hi) in steps of `step`, clamped to the input.
__device__ __forceinline__ void max_window(const PoolAxisParams& a, bool adaptive, int64_t o,
                                           int64_t& lo, int64_t& hi, int64_t& step) {
  if (adaptive) {
    lo = (o * a.in) / a.out;
    hi = ((o + 1) * a.in + a.out - 1) / a.out;
    step = 1;
    return;
  }
  int64_t s0 = o * a.s - a.p, s1 = s0 + (a.k - 1) * a.d + 1;
  step = a.d;
  lo = s0 < 0 ? s0 + ((-s0 + step - 1) / step) * step : s0;
  hi = s1 < a.in ? s1 : a.in;
}

// Average window of output o: clamped [lo, hi) and its padded extent (count_include_pad).
struct AvgWindow {
  int64_t lo, hi, padded;
};
__device__ __forceinline__ AvgWindow avg_window(const PoolAxisParams& a, bool adaptive, int64_t o) {
  if (adaptive) {
    int64_t lo = (o * a.in) / a.out, hi = ((o + 1) * a.in + a.out - 1) / a.out;
    return {lo, hi, hi - lo};
  }
  int64_t s0 = o * a.s - a.p;
  int64_t s1 = s0 + a.k < a.in + a.p ? s0 + a.k : a.in + a.p;
  return {s0 > 0 ? s0 : 0, s1 < a.in ? s1 : a.in, s1 - s0};
}

// Outputs along one axis whose window may contain input i (a superset for dilated windows).
__device__ __forceinline__ void outputs_touching(const PoolAxisParams& a, bool adaptive, int64_t i,
                                                 int64_t span, int64_t& olo, int64_t& ohi) {
  if (adaptive) {
    olo = (i * a.out) / a.in;
    ohi = ((i + 1) * a.out + a.in - 1) / a.in;
  } else {
    olo = ceil_div_signed(i + a.p - (span - 1), a.s);
    ohi = (i + a.p) / a.s + 1;
  }
  if (olo < 0) olo = 0;
  if (ohi > a.out) ohi = a.out;
}

__device__ __forceinline__ double avg_scale(const PoolParams& p, const AvgWindow& d,
                                            const AvgWindow& h, const AvgWindow& w) {
  int64_t count = (d.hi - d.lo) * (h.hi - h.lo) * (w.hi - w.lo);
  int64_t divisor = p.divisor_override                     ? p.divisor_override
                    : (p.count_include_pad && !p.adaptive) ? d.padded * h.padded * w.padded
                                                           : count;
  return divisor > 0 ? 1.0 / double(divisor) : 0.0;
}

#define TC_GRID_STRIDE(i, n)                                                \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

template <typename T>
__global__ void max_pool_forward_device(const T* x, T* y, int64_t* idx, PoolParams p,
                                        int64_t total) {
  using A = opmath_t<T>;
  const PoolAxisParams &ad = p.axis[0], &ah = p.axis[1], &aw = p.axis[2];
  const int64_t in_plane = ad.in * ah.in * aw.in, out_plane = ad.out * ah.out * aw.out;
  TC_GRID_STRIDE(i, total) {
    const PoolPos pos = unravel(i, ad.out, ah.out, aw.out);
    const int64_t plane = pos.plane, od = pos.d, oh = pos.h, ow = pos.w;
    int64_t dl, dh, ds, hl, hh, hs, wl, wh, ws;
    max_window(ad, p.adaptive, od, dl, dh, ds);
    max_window(ah, p.adaptive, oh, hl, hh, hs);
    max_window(aw, p.adaptive, ow, wl, wh, ws);
    const T* xp = x + plane * in_plane;
    A best = -INFINITY;
    int64_t best_i = (dl * ah.in + hl) * aw.in + wl;
    for (int64_t id = dl; id < dh; id += ds)
      for (int64_t ih = hl; ih < hh; ih += hs)
        for (int64_t iw = wl; iw < wh; iw += ws) {
          int64_t j = (id * ah.in + ih) * aw.in + iw;
          A v = cvt<A>(xp[j]);
          if (v > best || v != v) {  // NaN propagates, as on the CPU
            best = v;
            best_i = j;
          }
        }
    y[plane * out_plane + (od * ah.out + oh) * aw.out + ow] = cvt<T>(best);
    idx[plane * out_plane + (od * ah.out + oh) * aw.out + ow] = best_i;
  }
}

template <typename T>
__global__ void max_pool_backward_device(const T* gy, const int64_t* idx, T* gx, PoolParams p,
                                         int64_t total) {
  using A = opmath_t<T>;
  const PoolAxisParams &ad = p.axis[0], &ah = p.axis[1], &aw = p.axis[2];
  const int64_t in_plane = ad.in * ah.in * aw.in, out_plane = ad.out * ah.out * aw.out;
  TC_GRID_STRIDE(i, total) {
    const PoolPos pos = unravel(i, ad.in, ah.in, aw.in);
    const int64_t plane = pos.plane, id = pos.d, ih = pos.h, iw = pos.w;
    int64_t j = i - plane * in_plane;
    int64_t d0, d1, h0, h1, w0, w1;
    outputs_touching(ad, p.adaptive, id, (ad.k - 1) * ad.d + 1, d0, d1);
    outputs_touching(ah, p.adaptive, ih, (ah.k - 1) * ah.d + 1, h0, h1);
    outputs_touching(aw, p.adaptive, iw, (aw.k - 1) * aw.d + 1, w0, w1);
    const T* gp = gy + plane * out_plane;
    const int64_t* ip = idx + plane * out_plane;
    A acc = 0;
    for (int64_t od = d0; od < d1; ++od)
      for (int64_t oh = h0; oh < h1; ++oh)
        for (int64_t ow = w0; ow < w1; ++ow) {
          int64_t o = (od * ah.out + oh) * aw.out + ow;
          if (ip[o] == j) acc += cvt<A>(gp[o]);
        }
    gx[i] = cvt<T>(acc);
  }
}

template <typename T>
__global__ void avg_pool_forward_device(const T* x, T* y, PoolParams p, int64_t total) {
  using A = opmath_t<T>;
  const PoolAxisParams &ad = p.axis[0], &ah = p.axis[1], &aw = p.axis[2];
  const int64_t in_plane = ad.in * ah.in * aw.in;
  TC_GRID_STRIDE(i, total) {
    const PoolPos pos = unravel(i, ad.out, ah.out, aw.out);
    const int64_t plane = pos.plane, od = pos.d, oh = pos.h, ow = pos.w;
    AvgWindow wd = avg_window(ad, p.adaptive, od), wh = avg_window(ah, p.adaptive, oh),
              ww = avg_window(aw, p.adaptive, ow);
    const T* xp = x + plane * in_plane;
    A acc = 0;
    for (int64_t id = wd.lo; id < wd.hi; ++id)
      for (int64_t ih = wh.lo; ih < wh.hi; ++ih)
        for (int64_t iw = ww.lo; iw < ww.hi; ++iw)
          acc += cvt<A>(xp[(id * ah.in + ih) * aw.in + iw]);
    y[i] = cvt<T>(acc * A(avg_scale(p, wd, wh, ww)));
  }
}

template <typename T>
__global__ void avg_pool_backward_device(const T* gy, T* gx, PoolParams p, int64_t total) {
  using A = opmath_t<T>;
  const PoolAxisParams &ad = p.axis[0], &ah = p.axis[1], &aw = p.axis[2];
  const int64_t out_plane = ad.out * ah.out * aw.out;
  TC_GRID_STRIDE(i, total) {
    const PoolPos pos = unravel(i, ad.in, ah.in, aw.in);
    const int64_t plane = pos.plane, id = pos.d, ih = pos.h, iw = pos.w;
    int64_t d0, d1, h0, h1, w0, w1;
    outputs_touching(ad, p.adaptive, id, ad.k, d0, d1);
    outputs_touching(ah, p.adaptive, ih, ah.k, h0, h1);
    outputs_touching(aw, p.adaptive, iw, aw.k, w0, w1);
    const T* gp = gy + plane * out_plane;
    A acc = 0;
    for (int64_t od = d0; od < d1; ++od) {
      AvgWindow wd = avg_window(ad, p.adaptive, od);
      if (id < wd.lo || id >= wd.hi) continue;
      for (int64_t oh = h0; oh < h1; ++oh) {
        AvgWindow wh = avg_window(ah, p.adaptive, oh);
        if (ih < wh.lo || ih >= wh.hi) continue;
        for (int64_t ow = w0; ow < w1; ++ow) {
          AvgWindow ww = avg_window(aw, p.adaptive, ow);
          if (iw < ww.lo || iw >= ww.hi) continue;
          acc += cvt<A>(gp[(od * ah.out + oh) * aw.out + ow]) * A(avg_scale(p, wd, wh, ww));
        }
      }
    }
    gx[i] = cvt<T>(acc);
  }
}

int64_t in_elems(const PoolParams& p) {
  return p.planes * p.axis[0].in * p.axis[1].in * p.axis[2].in;
}
int64_t out_elems(const PoolParams& p) {
  return p.planes * p.axis[0].out * p.axis[1].out * p.axis[2].out;
}

using cuda_kernels::launch_on;

void max_pool_forward_cuda(const Tensor& x, const Tensor& y, const Tensor& idx,
                           const PoolParams& p) {
  int64_t n = out_elems(p);
  cuda_kernels::dispatch_dev<kPoolTypes>(x.dtype(), "max_pool (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(x, n, [&](int grid, cudaStream_t s) {
      max_pool_forward_device<T><<<grid, cuda_kernels::kBlockSize, 0, s>>>(
          static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()),
          static_cast<int64_t*>(idx.data_ptr()), p, n);
    });
  });
}

void max_pool_backward_cuda(const Tensor& gy, const Tensor& idx, const Tensor& gx,
                            const PoolParams& p) {
  int64_t n = in_elems(p);
  cuda_kernels::dispatch_dev<kPoolTypes>(gy.dtype(), "max_pool backward (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(gy, n, [&](int grid, cudaStream_t s) {
      max_pool_backward_device<T><<<grid, cuda_kernels::kBlockSize, 0, s>>>(
          static_cast<const T*>(gy.data_ptr()), static_cast<const int64_t*>(idx.data_ptr()),
          static_cast<T*>(gx.data_ptr()), p, n);
    });
  });
}

void avg_pool_forward_cuda(const Tensor& x, const Tensor& y, const PoolParams& p) {
  int64_t n = out_elems(p);
  cuda_kernels::dispatch_dev<kPoolTypes>(x.dtype(), "avg_pool (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(x, n, [&](int grid, cudaStream_t s) {
      avg_pool_forward_device<T><<<grid, cuda_kernels::kBlockSize, 0, s>>>(
          static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()), p, n);
    });
  });
}

void avg_pool_backward_cuda(const Tensor& gy, const Tensor& gx, const PoolParams& p) {
  int64_t n = in_elems(p);
  cuda_kernels::dispatch_dev<kPoolTypes>(gy.dtype(), "avg_pool backward (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_on(gy, n, [&](int grid, cudaStream_t s) {
      avg_pool_backward_device<T><<<grid, cuda_kernels::kBlockSize, 0, s>>>(
          static_cast<const T*>(gy.data_ptr()), static_cast<T*>(gx.data_ptr()), p, n);
    });
  });
}

}  // namespace

TC_REGISTER_KERNEL(max_pool_forward_kernel, CUDA, max_pool_forward_cuda);
TC_REGISTER_KERNEL(max_pool_backward_kernel, CUDA, max_pool_backward_cuda);
TC_REGISTER_KERNEL(avg_pool_forward_kernel, CUDA, avg_pool_forward_cuda);
TC_REGISTER_KERNEL(avg_pool_backward_kernel, CUDA, avg_pool_backward_cuda);

}  // namespace tc::nn
