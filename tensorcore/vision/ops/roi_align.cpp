// RoIAlign and position-sensitive RoIAlign. Each RoI's bilinear sample plan (offsets and weights)
// is computed once and reused for every channel. Forward runs in parallel over RoIs; backward in
// parallel over channel blocks, so threads never write the same gradient element.
#include "tensorcore/autograd/function.h"
#include "tensorcore/vision/ops/ops.h"
#include "tensorcore/vision/ops/roi_common.h"

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
  auto g = align_geometry<T>(roi, T(p.scale), p.ph, p.pw, p.sampling_ratio, aligned,
                             !aligned);
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

Tensor align_backward_op(const Tensor& grad, const Tensor& rois, const AlignParams& p,
                         const Shape& input_shape) {
  Tensor g = contiguous(grad), r = contiguous(rois);
  Tensor gin = zeros(input_shape, TensorOptions(g.dtype()));
  dispatch_dtype<kRoiDTypes>(g.dtype(), "roi_align_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    align_backward<T>(g, r, p, gin);
  });
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
  Tensor out = empty({r.size(0), out_c, p.ph, p.pw}, TensorOptions(x.dtype()));
  dispatch_dtype<kRoiDTypes>(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    align_forward<T>(x, r, p, out);
  });
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
