// RoIAlign and position-sensitive RoIAlign. Each RoI's bilinear sample plan (offsets and weights)
// is computed once and reused for every channel. Forward runs in parallel over RoIs; backward in
// parallel over channel blocks, so threads never write the same gradient element.
// The kernels register per device in device_kernels.h's tables: the CPU ones here, the CUDA ones
// in vision/cuda/ops_cuda.cu (backward with atomics, flagged for tc.use_deterministic_algorithms).
#include <memory>

#include "tensorcore/autograd/function.h"
#include "vision/ops/device_kernels.h"
#include "vision/ops/ops.h"
#include "vision/ops/roi_common.h"

namespace tc::vision::ops {
namespace {
using namespace detail;

struct AlignParams {
  double scale;
  int64_t ph, pw, sampling_ratio;
  bool aligned;
  bool position_sensitive;
};

// Plan for one RoI: samples of bin i are plan[starts[i] .. starts[i+1]).
template <typename T>
AlignGeometry<T> make_plan(const T* roi, const AlignParams& p, int64_t H, int64_t W,
                           std::vector<Sample<T>>& plan, std::vector<int64_t>& starts) {
  // torchvision's ps_roi_align always uses the half-pixel offset and no minimum RoI size.
  bool aligned = p.position_sensitive ? true : p.aligned;
  auto g = align_geometry<T>(roi, T(p.scale), p.ph, p.pw, p.sampling_ratio, aligned, !aligned);
  plan.clear();
  starts.assign(1, 0);
  for (int64_t py = 0; py < p.ph; ++py)
    for (int64_t px = 0; px < p.pw; ++px) {
      bin_samples<T>(g, H, W, py, px, plan);
      starts.push_back(int64_t(plan.size()));
    }
  return g;
}

template <typename T>
void align_forward(const Tensor& input, const Tensor& rois, const AlignParams& p, Tensor& out) {
  const int64_t N = input.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  const int64_t K = rois.size(0), bins = p.ph * p.pw, out_c = out.size(1);
  const T* in = input.data<T>();
  const T* r = rois.data<T>();
  T* o = out.data<T>();
  parallel_for(0, K, 1, [&](int64_t k0, int64_t k1) {
    std::vector<Sample<T>> plan;
    std::vector<int64_t> starts;
    for (int64_t k = k0; k < k1; ++k) {
      const T* roi = r + k * 5;
      int64_t b = roi_batch_index(p.position_sensitive ? "ps_roi_align" : "roi_align", roi, N);
      auto g = make_plan<T>(roi, p, H, W, plan, starts);
      T inv_count = T(1) / g.count;
      for (int64_t c = 0; c < out_c; ++c) {
        T* oc = o + (k * out_c + c) * bins;
        for (int64_t bin = 0; bin < bins; ++bin) {
          int64_t cin = p.position_sensitive ? c * bins + bin : c;
          const T* plane = in + (b * C + cin) * H * W;
          T acc = 0;
          for (int64_t s = starts[bin]; s < starts[bin + 1]; ++s) {
            const Sample<T>& sm = plan[s];
            acc += sm.w1 * plane[sm.o1] + sm.w2 * plane[sm.o2] + sm.w3 * plane[sm.o3] +
                   sm.w4 * plane[sm.o4];
          }
          oc[bin] = acc * inv_count;
        }
      }
    }
  });
}

// Channels-last layout: (N, H, W, C). A bilinear tap then reads C contiguous values, so the
// inner loop runs across channels with SIMD instead of gathering one value per tap.
// (n, rows, cols) -> (n, cols, rows) in square tiles: both the reads and the writes stay within
// a few dozen cache lines and pages per tile.
template <typename T>
void transpose_planes(const T* src, T* dst, int64_t N, int64_t rows, int64_t cols) {
  constexpr int64_t B = 32;
  const int64_t rb = (rows + B - 1) / B, cb = (cols + B - 1) / B;
  parallel_for(0, N * rb, 1, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      int64_t n = q / rb, r0 = (q % rb) * B, r1 = std::min(rows, r0 + B);
      const T* s = src + n * rows * cols;
      T* d = dst + n * rows * cols;
      for (int64_t t = 0; t < cb; ++t) {
        int64_t c0 = t * B, c1 = std::min(cols, c0 + B);
        if (r1 - r0 == B && c1 - c0 == B) {
          T tile[B][B];
          for (int64_t r = 0; r < B; ++r)
            for (int64_t c = 0; c < B; ++c) tile[c][r] = s[(r0 + r) * cols + c0 + c];
          for (int64_t c = 0; c < B; ++c)
            for (int64_t r = 0; r < B; ++r) d[(c0 + c) * rows + r0 + r] = tile[c][r];
        } else {
          for (int64_t r = r0; r < r1; ++r)
            for (int64_t c = c0; c < c1; ++c) d[c * rows + r] = s[r * cols + c];
        }
      }
    }
  });
}

// Channels-last layout: (N, H, W, C). A bilinear tap then reads C contiguous values, so the
// inner loop runs across channels with SIMD instead of gathering one value per tap.
template <typename T>
void to_channels_last(const T* src, T* dst, int64_t N, int64_t C, int64_t HW) {
  transpose_planes(src, dst, N, C, HW);
}

template <typename T>
void from_channels_last(const T* src, T* dst, int64_t N, int64_t C, int64_t HW) {
  transpose_planes(src, dst, N, HW, C);
}

// acc[0..C) += w * row[0..C)
template <typename T>
inline void axpy(T* __restrict acc, const T* __restrict row, T w, int64_t C) {
  for (int64_t c = 0; c < C; ++c) acc[c] += w * row[c];
}

template <typename T>
void align_forward_cl(const Tensor& input, const Tensor& rois, const AlignParams& p, Tensor& out) {
  const int64_t N = input.size(0), C = input.size(1), H = input.size(2), W = input.size(3);
  const int64_t K = rois.size(0), bins = p.ph * p.pw;
  std::unique_ptr<T[]> xcl(new T[size_t(N * C * H * W)]), ocl(new T[size_t(K * bins * C)]);
  to_channels_last(input.data<T>(), xcl.get(), N, C, H * W);
  const T* r = rois.data<T>();
  parallel_for(0, K, 1, [&](int64_t k0, int64_t k1) {
    std::vector<Sample<T>> plan;
    std::vector<int64_t> starts;
    for (int64_t k = k0; k < k1; ++k) {
      const T* roi = r + k * 5;
      int64_t b = roi_batch_index("roi_align", roi, N);
      auto g = make_plan<T>(roi, p, H, W, plan, starts);
      const T* img = xcl.get() + b * H * W * C;
      for (int64_t bin = 0; bin < bins; ++bin) {
        T* acc = ocl.get() + (k * bins + bin) * C;
        std::fill(acc, acc + C, T(0));
        for (int64_t s = starts[bin]; s < starts[bin + 1]; ++s) {
          const Sample<T>& sm = plan[s];
          if (sm.w1 != 0) axpy(acc, img + sm.o1 * C, sm.w1, C);
          if (sm.w2 != 0) axpy(acc, img + sm.o2 * C, sm.w2, C);
          if (sm.w3 != 0) axpy(acc, img + sm.o3 * C, sm.w3, C);
          if (sm.w4 != 0) axpy(acc, img + sm.o4 * C, sm.w4, C);
        }
        const T inv = T(1) / g.count;
        for (int64_t c = 0; c < C; ++c) acc[c] *= inv;
      }
    }
  });
  from_channels_last(ocl.get(), out.data<T>(), K, C, bins);
}

template <typename T>
void align_backward_cl(const Tensor& grad, const Tensor& rois, const AlignParams& p, Tensor& gin) {
  const int64_t N = gin.size(0), C = gin.size(1), H = gin.size(2), W = gin.size(3);
  const int64_t K = rois.size(0), bins = p.ph * p.pw;
  std::vector<T> gcl(size_t(K * bins * C)), gicl(size_t(N * H * W * C), T(0));
  to_channels_last(grad.data<T>(), gcl.data(), K, C, bins);
  const T* r = rois.data<T>();
  // Threads own channel blocks of the (channels-last) input gradient.
  const int64_t threads = std::max(1, get_num_threads());
  const int64_t block = std::max<int64_t>(8, (C + threads - 1) / threads);
  parallel_for(0, (C + block - 1) / block, 1, [&](int64_t b0, int64_t b1) {
    std::vector<Sample<T>> plan;
    std::vector<int64_t> starts;
    const int64_t c0 = b0 * block, c1 = std::min(C, b1 * block), nc = c1 - c0;
    for (int64_t k = 0; k < K; ++k) {
      const T* roi = r + k * 5;
      int64_t b = roi_batch_index("roi_align", roi, N);
      auto g = make_plan<T>(roi, p, H, W, plan, starts);
      T* img = gicl.data() + b * H * W * C + c0;
      for (int64_t bin = 0; bin < bins; ++bin) {
        const T* gv = gcl.data() + (k * bins + bin) * C + c0;
        const T inv = T(1) / g.count;
        for (int64_t s = starts[bin]; s < starts[bin + 1]; ++s) {
          const Sample<T>& sm = plan[s];
          if (sm.w1 != 0) axpy(img + sm.o1 * C, gv, sm.w1 * inv, nc);
          if (sm.w2 != 0) axpy(img + sm.o2 * C, gv, sm.w2 * inv, nc);
          if (sm.w3 != 0) axpy(img + sm.o3 * C, gv, sm.w3 * inv, nc);
          if (sm.w4 != 0) axpy(img + sm.o4 * C, gv, sm.w4 * inv, nc);
        }
      }
    }
  });
  from_channels_last(gicl.data(), gin.data<T>(), N, C, H * W);
}

// Channels-last pays for its transposes (and the first touch of a feature-map-sized buffer) when
// there are many channels and many bilinear taps per feature-map pixel.
bool use_channels_last(const AlignParams& p, int64_t N, int64_t C, int64_t H, int64_t W,
                       int64_t K) {
  if (p.position_sensitive || C < 16) return false;
  int64_t per_bin = p.sampling_ratio > 0 ? p.sampling_ratio * p.sampling_ratio : 4;
  return K * p.ph * p.pw * per_bin * 4 >= 4 * N * H * W;
}

template <typename T>
void align_backward(const Tensor& grad, const Tensor& rois, const AlignParams& p, Tensor& gin) {
  const int64_t N = gin.size(0), C = gin.size(1), H = gin.size(2), W = gin.size(3);
  const int64_t K = rois.size(0), bins = p.ph * p.pw, out_c = grad.size(1);
  const T* go = grad.data<T>();
  const T* r = rois.data<T>();
  T* gi = gin.data<T>();
  // Threads own disjoint output channels (and so disjoint input-gradient planes).
  parallel_for(0, out_c, grain_for(out_c), [&](int64_t c0, int64_t c1) {
    std::vector<Sample<T>> plan;
    std::vector<int64_t> starts;
    for (int64_t k = 0; k < K; ++k) {
      const T* roi = r + k * 5;
      int64_t b = roi_batch_index(p.position_sensitive ? "ps_roi_align" : "roi_align", roi, N);
      auto g = make_plan<T>(roi, p, H, W, plan, starts);
      for (int64_t c = c0; c < c1; ++c) {
        const T* gc = go + (k * out_c + c) * bins;
        for (int64_t bin = 0; bin < bins; ++bin) {
          int64_t cin = p.position_sensitive ? c * bins + bin : c;
          T* plane = gi + (b * C + cin) * H * W;
          T gv = gc[bin] / g.count;
          for (int64_t s = starts[bin]; s < starts[bin + 1]; ++s) {
            const Sample<T>& sm = plan[s];
            plane[sm.o1] += gv * sm.w1;
            plane[sm.o2] += gv * sm.w2;
            plane[sm.o3] += gv * sm.w3;
            plane[sm.o4] += gv * sm.w4;
          }
        }
      }
    }
  });
}

RoiAlignArgs kernel_args(const AlignParams& p) {
  return {p.scale, p.ph, p.pw, p.sampling_ratio, p.aligned, p.position_sensitive};
}

AlignParams params_of(const RoiAlignArgs& a) {
  return {a.spatial_scale,  a.pooled_height, a.pooled_width,
          a.sampling_ratio, a.aligned,       a.position_sensitive};
}

// The CPU kernels of the roi_align tables.
void roi_align_forward_cpu(const Tensor& x, const Tensor& r, const RoiAlignArgs& a,
                           const Tensor& out) {
  const AlignParams p = params_of(a);
  const bool cl = use_channels_last(p, x.size(0), x.size(1), x.size(2), x.size(3), r.size(0));
  Tensor o = out;
  dispatch_dtype<kRoiDTypes>(x.dtype(), p.position_sensitive ? "ps_roi_align" : "roi_align",
                             [&](auto tag) {
                               using T = typename decltype(tag)::type;
                               if (cl)
                                 align_forward_cl<T>(x, r, p, o);
                               else
                                 align_forward<T>(x, r, p, o);
                             });
}

// gin arrives zero-filled; the channels-last path overwrites it whole.
void roi_align_backward_cpu(const Tensor& g, const Tensor& r, const RoiAlignArgs& a,
                            const Tensor& gin) {
  const AlignParams p = params_of(a);
  const bool cl =
      use_channels_last(p, gin.size(0), gin.size(1), gin.size(2), gin.size(3), r.size(0));
  Tensor gi = gin;
  dispatch_dtype<kRoiDTypes>(g.dtype(), "roi_align_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (cl)
      align_backward_cl<T>(g, r, p, gi);
    else
      align_backward<T>(g, r, p, gi);
  });
}

TC_REGISTER_KERNEL(roi_align_forward_kernel, CPU, roi_align_forward_cpu);
TC_REGISTER_KERNEL(roi_align_backward_kernel, CPU, roi_align_backward_cpu);

Tensor align_backward_op(const Tensor& grad, const Tensor& rois, const AlignParams& p,
                         const Shape& input_shape) {
  TC_CHECK_AS(::tc::Error, rois.device() == grad.device(),
              "roi_align_backward: grad and rois must be on the same device, got ",
              grad.device().str(), " and ", rois.device().str());
  const int64_t out_c = p.position_sensitive ? input_shape[1] / (p.ph * p.pw) : input_shape[1];
  const char* op = p.position_sensitive ? "ps_roi_align_backward" : "roi_align_backward";
  TC_CHECK(grad.dim() == 4 && grad.size(0) == rois.size(0) && grad.size(1) == out_c &&
               grad.size(2) == p.ph && grad.size(3) == p.pw,
           op, ": grad should be (K, C, ph, pw) = (", rois.size(0), ", ", out_c, ", ", p.ph, ", ",
           p.pw, "), got shape ", shape_str(grad.sizes()));
  Tensor g = contiguous(grad), r = contiguous(rois);
  check_batch_indices_on_host(op, r, input_shape[0]);
  Tensor gin = zeros(input_shape, TensorOptions(g.dtype()).device(g.device()));
  roi_align_backward_kernel.get(g.device().type)(g, r, kernel_args(p), gin);
  return gin;
}

Tensor align_op(const Tensor& input, const Tensor& rois, const AlignParams& p) {
  const char* op = p.position_sensitive ? "ps_roi_align" : "roi_align";
  check_roi_args(op, input, rois, p.ph, p.pw);
  int64_t out_c = input.size(1);
  if (p.position_sensitive) {
    TC_CHECK(input.size(1) % (p.ph * p.pw) == 0, op, ": input channels (", input.size(1),
             ") must be a multiple of output_size[0] * output_size[1] (", p.ph * p.pw, ")");
    out_c = input.size(1) / (p.ph * p.pw);
  }
  Tensor x = contiguous(input), r = contiguous(rois);
  Tensor out = empty({r.size(0), out_c, p.ph, p.pw}, TensorOptions(x.dtype()).device(x.device()));
  check_batch_indices_on_host(op, r, x.size(0));
  roi_align_forward_kernel.get(x.device().type)(x, r, kernel_args(p), out);
  if (autograd::needs_grad({input})) {
    Shape shape = input.sizes();
    autograd::record(p.position_sensitive ? "PsRoiAlignBackward0" : "RoiAlignBackward0",
                     {input, rois}, {out}, {r},
                     [p, shape](const TensorList& saved, const TensorList& grads) -> TensorList {
                       return {align_backward_op(grads[0], saved[0], p, shape), Tensor()};
                     });
  }
  return out;
}

}  // namespace

Tensor roi_align(const Tensor& input, const Tensor& rois, double spatial_scale,
                 int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                 bool aligned) {
  return align_op(input, rois,
                  {spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned, false});
}

Tensor roi_align_backward(const Tensor& grad, const Tensor& rois, double spatial_scale,
                          int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                          bool aligned, const Shape& input_shape) {
  TC_CHECK(input_shape.size() == 4, "roi_align_backward: input_shape must have 4 dims");
  return align_backward_op(
      grad, rois, {spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned, false},
      input_shape);
}

Tensor ps_roi_align(const Tensor& input, const Tensor& rois, double spatial_scale,
                    int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio) {
  return align_op(input, rois,
                  {spatial_scale, pooled_height, pooled_width, sampling_ratio, true, true});
}

}  // namespace tc::vision::ops
