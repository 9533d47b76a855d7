// RoIPool (max over integer bins, argmax kept for backward) and position-sensitive RoIPool
// (average over integer bins), following torchvision's rounding rules. The kernels register per
// device in device_kernels.h's tables: the CPU ones here, the CUDA ones in vision/cuda/ops_cuda.cu
// with the same bins (roi_geometry.h), whose backward passes scatter with atomics and are flagged
// for tc.use_deterministic_algorithms.
#include <limits>

#include "tensorcore/autograd/function.h"
#include "vision/ops/device_kernels.h"
#include "vision/ops/ops.h"
#include "vision/ops/roi_common.h"

namespace tc::vision::ops {
namespace {
using namespace detail;

using Bin = PoolBin;

// All bins of a RoI, row-major (pool_bin in roi_geometry.h, shared with the CUDA kernels).
template <typename T>
void pool_bins(const T* roi, double scale, int64_t ph, int64_t pw, int64_t H, int64_t W,
               bool plus_one, bool clamp_last, std::vector<Bin>& bins) {
  bins.clear();
  for (int64_t py = 0; py < ph; ++py)
    for (int64_t px = 0; px < pw; ++px)
      bins.push_back(pool_bin<T>(roi, T(scale), ph, pw, H, W, plus_one, clamp_last, py, px));
}

template <typename T>
void roi_pool_forward(const Tensor& input, const Tensor& rois, double scale, int64_t ph, int64_t pw,
                      Tensor& out, Tensor& argmax) {
  const int64_t N = input.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  const int64_t K = rois.size(0), nb = ph * pw;
  const T* in = input.data<T>();
  const T* r = rois.data<T>();
  T* o = out.data<T>();
  int64_t* am = argmax.data<int64_t>();
  parallel_for(0, K, 1, [&](int64_t k0, int64_t k1) {
    std::vector<Bin> bins;
    for (int64_t k = k0; k < k1; ++k) {
      const T* roi = r + k * 5;
      int64_t b = roi_batch_index("roi_pool", roi, N);
      pool_bins<T>(roi, scale, ph, pw, H, W, true, false, bins);
      for (int64_t c = 0; c < C; ++c) {
        const T* plane = in + (b * C + c) * H * W;
        for (int64_t i = 0; i < nb; ++i) {
          const Bin& bn = bins[i];
          T best = bn.empty() ? T(0) : std::numeric_limits<T>::lowest();
          int64_t best_idx = -1;
          for (int64_t h = bn.hs; h < bn.he; ++h)
            for (int64_t w = bn.ws; w < bn.we; ++w)
              if (plane[h * W + w] > best) best = plane[h * W + w], best_idx = h * W + w;
          o[(k * C + c) * nb + i] = best;
          am[(k * C + c) * nb + i] = best_idx;
        }
      }
    }
  });
}

// The CPU kernels of the roi_pool tables (device_kernels.h); gin arrives zero-filled.
void roi_pool_backward_cpu(const Tensor& g, const Tensor& rois, const Tensor& argmax,
                           const Tensor& gin) {
  const int64_t C = gin.size(1), HW = gin.size(2) * gin.size(3), K = rois.size(0);
  const int64_t nb = argmax.numel() / std::max<int64_t>(1, K * C);
  dispatch_dtype<kRoiDTypes>(g.dtype(), "roi_pool_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* go = g.data<T>();
    const T* r = rois.data<T>();
    const int64_t* am = argmax.data<int64_t>();
    T* gi = gin.data<T>();
    parallel_for(0, C, grain_for(C), [&](int64_t c0, int64_t c1) {
      for (int64_t k = 0; k < K; ++k) {
        int64_t b = int64_t(r[k * 5]);
        for (int64_t c = c0; c < c1; ++c)
          for (int64_t i = 0; i < nb; ++i) {
            int64_t idx = am[(k * C + c) * nb + i];
            if (idx >= 0) gi[(b * C + c) * HW + idx] += go[(k * C + c) * nb + i];
          }
      }
    });
  });
}

Tensor roi_pool_backward(const Tensor& grad, const Tensor& rois, const Tensor& argmax,
                         const Shape& shape) {
  Tensor g = contiguous(grad);
  Tensor gin = zeros(shape, TensorOptions(g.dtype()).device(g.device()));
  roi_pool_backward_kernel.get(g.device().type)(g, rois, argmax, gin);
  return gin;
}

template <typename T>
void ps_pool(const Tensor& rois, double scale, int64_t ph, int64_t pw, const Shape& in_shape,
             int64_t out_c, const T* in, T* out, const T* grad, T* grad_in) {
  const int64_t N = in_shape[0], C = in_shape[1], H = in_shape[2], W = in_shape[3];
  const int64_t K = rois.size(0), nb = ph * pw;
  const T* r = rois.data<T>();
  auto run = [&](int64_t k, int64_t c0, int64_t c1, std::vector<Bin>& bins) {
    const T* roi = r + k * 5;
    int64_t b = roi_batch_index("ps_roi_pool", roi, N);
    pool_bins<T>(roi, scale, ph, pw, H, W, false, true, bins);
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t i = 0; i < nb; ++i) {
        const Bin& bn = bins[i];
        int64_t plane = (b * C + c * nb + i) * H * W;
        int64_t oi = (k * out_c + c) * nb + i;
        T area = T((bn.he - bn.hs) * (bn.we - bn.ws));
        if (out) {
          T acc = 0;
          for (int64_t h = bn.hs; h < bn.he; ++h)
            for (int64_t w = bn.ws; w < bn.we; ++w) acc += in[plane + h * W + w];
          out[oi] = bn.empty() ? T(0) : acc / area;
        } else if (!bn.empty()) {
          T gv = grad[oi] / area;
          for (int64_t h = bn.hs; h < bn.he; ++h)
            for (int64_t w = bn.ws; w < bn.we; ++w) grad_in[plane + h * W + w] += gv;
        }
      }
  };
  if (out) {
    parallel_for(0, K, 1, [&](int64_t k0, int64_t k1) {
      std::vector<Bin> bins;
      for (int64_t k = k0; k < k1; ++k) run(k, 0, out_c, bins);
    });
  } else {
    parallel_for(0, out_c, grain_for(out_c), [&](int64_t c0, int64_t c1) {
      std::vector<Bin> bins;
      for (int64_t k = 0; k < K; ++k) run(k, c0, c1, bins);
    });
  }
}

void roi_pool_forward_cpu(const Tensor& x, const Tensor& r, double scale, int64_t ph, int64_t pw,
                          const Tensor& out, const Tensor& argmax) {
  Tensor o = out, am = argmax;
  dispatch_dtype<kRoiDTypes>(x.dtype(), "roi_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    roi_pool_forward<T>(x, r, scale, ph, pw, o, am);
  });
}

void ps_roi_pool_forward_cpu(const Tensor& x, const Tensor& r, double scale, int64_t ph, int64_t pw,
                             const Tensor& out) {
  dispatch_dtype<kRoiDTypes>(x.dtype(), "ps_roi_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ps_pool<T>(r, scale, ph, pw, x.sizes(), out.size(1), x.data<T>(), out.data<T>(), nullptr,
               nullptr);
  });
}

void ps_roi_pool_backward_cpu(const Tensor& g, const Tensor& rois, double scale, int64_t ph,
                              int64_t pw, const Tensor& gin) {
  dispatch_dtype<kRoiDTypes>(g.dtype(), "ps_roi_pool_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    ps_pool<T>(rois, scale, ph, pw, gin.sizes(), g.size(1), nullptr, nullptr, g.data<T>(),
               gin.data<T>());
  });
}

TC_REGISTER_KERNEL(roi_pool_forward_kernel, CPU, roi_pool_forward_cpu);
TC_REGISTER_KERNEL(roi_pool_backward_kernel, CPU, roi_pool_backward_cpu);
TC_REGISTER_KERNEL(ps_roi_pool_forward_kernel, CPU, ps_roi_pool_forward_cpu);
TC_REGISTER_KERNEL(ps_roi_pool_backward_kernel, CPU, ps_roi_pool_backward_cpu);

Tensor ps_pool_backward(const Tensor& grad, const Tensor& rois, double scale, int64_t ph,
                        int64_t pw, const Shape& shape) {
  Tensor g = contiguous(grad);
  Tensor gin = zeros(shape, TensorOptions(g.dtype()).device(g.device()));
  ps_roi_pool_backward_kernel.get(g.device().type)(g, rois, scale, ph, pw, gin);
  return gin;
}

}  // namespace

Tensor roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale,
                int64_t pooled_height, int64_t pooled_width) {
  check_roi_args("roi_pool", input, rois, pooled_height, pooled_width);
  Tensor x = contiguous(input), r = contiguous(rois);
  Shape os = {r.size(0), x.size(1), pooled_height, pooled_width};
  Tensor out = empty(os, TensorOptions(x.dtype()).device(x.device()));
  Tensor argmax = empty(os, TensorOptions(DType::Int64).device(x.device()));
  check_batch_indices_on_host("roi_pool", r, x.size(0));
  roi_pool_forward_kernel.get(x.device().type)(x, r, spatial_scale, pooled_height, pooled_width,
                                               out, argmax);
  if (autograd::needs_grad({input})) {
    Shape shape = input.sizes();
    autograd::record("RoiPoolBackward0", {input, rois}, {out}, {r, argmax},
                     [shape](const TensorList& s, const TensorList& g) -> TensorList {
                       return {roi_pool_backward(g[0], s[0], s[1], shape), Tensor()};
                     });
  }
  return out;
}

Tensor ps_roi_pool(const Tensor& input, const Tensor& rois, double spatial_scale,
                   int64_t pooled_height, int64_t pooled_width) {
  check_roi_args("ps_roi_pool", input, rois, pooled_height, pooled_width);
  int64_t nb = pooled_height * pooled_width;
  TC_CHECK(input.size(1) % nb == 0, "ps_roi_pool: input channels (", input.size(1),
           ") must be a multiple of output_size[0] * output_size[1] (", nb, ")");
  Tensor x = contiguous(input), r = contiguous(rois);
  int64_t out_c = x.size(1) / nb;
  Tensor out = empty({r.size(0), out_c, pooled_height, pooled_width},
                     TensorOptions(x.dtype()).device(x.device()));
  check_batch_indices_on_host("ps_roi_pool", r, x.size(0));
  ps_roi_pool_forward_kernel.get(x.device().type)(x, r, spatial_scale, pooled_height, pooled_width,
                                                  out);
  if (autograd::needs_grad({input})) {
    Shape shape = input.sizes();
    autograd::record(
        "PsRoiPoolBackward0", {input, rois}, {out}, {r},
        [=](const TensorList& s, const TensorList& g) -> TensorList {
          return {ps_pool_backward(g[0], s[0], spatial_scale, pooled_height, pooled_width, shape),
                  Tensor()};
        });
  }
  return out;
}

}  // namespace tc::vision::ops
