// Deformable convolution v1/v2 (torchvision.ops.deform_conv2d). Each image is turned into
// sampled columns (Cin*kh*kw, oh*ow) by bilinear sampling at the offset positions (times the
// modulation mask), then multiplied by the weight per group with BLAS. Backward scatters the
// column gradient back to the input, and differentiates the sampling w.r.t. offsets and mask.
// The sampling kernels register per device in device_kernels.h's tables: the CPU ones here, the
// CUDA ones in vision/cuda/deform_cuda.cu (the same deform_sample.h code, backward scattering
// with atomics: nondeterministic); the products are core ops (cuBLAS on CUDA).
#include "tensorcore/autograd/function.h"
#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/linalg.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"
#include "vision/ops/deform_sample.h"
#include "vision/ops/device_kernels.h"
#include "vision/ops/ops.h"
#include "vision/ops/roi_common.h"

namespace tc::vision::ops {
namespace {
using namespace detail;

using Geometry = DeformGeometry;

template <typename T>
void im2col(const Geometry& g, const T* in, const T* off, const T* msk, T* cols) {
  const int64_t cpg = g.Cin / g.offset_groups;
  parallel_for(0, g.Cin, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const T* plane = in + c * g.H * g.W;
      for (int64_t k = 0; k < g.K(); ++k) {
        T* row = cols + (c * g.K() + k) * g.L();
        for (int64_t l = 0; l < g.L(); ++l) {
          auto p = deform_position<T>(g, off, msk, c / cpg, k, l);
          row[l] = p.m * deform_sample(plane, g.H, g.W, p.y, p.x);
        }
      }
    }
  });
}

// Gradients of the sampled columns w.r.t. input, offset and mask for one image.
template <typename T>
void col2im_grads(const Geometry& g, const T* in, const T* off, const T* msk, const T* gcols,
                  T* gin, T* goff, T* gmsk) {
  const int64_t cpg = g.Cin / g.offset_groups;
  const int64_t H = g.H, W = g.W;
  // Input gradient: each channel owns its plane.
  parallel_for(0, g.Cin, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      T* gplane = gin + c * H * W;
      for (int64_t k = 0; k < g.K(); ++k) {
        const T* grow = gcols + (c * g.K() + k) * g.L();
        for (int64_t l = 0; l < g.L(); ++l) {
          auto p = deform_position<T>(g, off, msk, c / cpg, k, l);
          if (!deform_inside(p.y, p.x, H, W)) continue;
          T gv = grow[l] * p.m;
          const DeformTaps<T> t = deform_taps(H, W, p.y, p.x);
          for (int q = 0; q < 4; ++q)
            if (t.off[q] >= 0) gplane[t.off[q]] += deform_tap_grad(t, q, gv);
        }
      }
    }
  });
  // Offset and mask gradients: each (offset group, kernel tap) owns its channels.
  parallel_for(0, g.offset_groups * g.K(), 1, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      int64_t og = q / g.K(), k = q % g.K();
      T* gy = goff + (og * 2 * g.K() + 2 * k) * g.L();
      T* gx = gy + g.L();
      T* gm = g.use_mask ? gmsk + (og * g.K() + k) * g.L() : nullptr;
      for (int64_t l = 0; l < g.L(); ++l) {
        auto p = deform_position<T>(g, off, msk, og, k, l);
        T acc_y = 0, acc_x = 0, acc_m = 0;
        if (deform_inside(p.y, p.x, H, W)) {
          const DeformTaps<T> t = deform_taps(H, W, p.y, p.x);
          for (int64_t c = og * cpg; c < (og + 1) * cpg; ++c)
            deform_coord_grads(t, in + c * H * W, gcols[(c * g.K() + k) * g.L() + l], p.m, acc_y,
                               acc_x, acc_m);
        }
        gy[l] = acc_y;
        gx[l] = acc_x;
        if (gm) gm[l] = acc_m;
      }
    }
  });
}

// The CPU kernels of the deform tables (device_kernels.h), one image n at a time.
void deform_im2col_cpu(const Geometry& g, const Tensor& x, const Tensor& off, const Tensor& msk,
                       int64_t n, const Tensor& cols) {
  dispatch_dtype<kRoiDTypes>(x.dtype(), "deform_conv2d", [&](auto tag) {
    using T = typename decltype(tag)::type;
    im2col<T>(g, x.data<T>() + n * g.Cin * g.H * g.W,
              off.data<T>() + n * 2 * g.offset_groups * g.K() * g.L(),
              g.use_mask ? msk.data<T>() + n * g.offset_groups * g.K() * g.L() : nullptr,
              cols.data<T>());
  });
}

void deform_col2im_cpu(const Geometry& g, const Tensor& x, const Tensor& off, const Tensor& msk,
                       int64_t n, const Tensor& gcols, const Tensor& gin, const Tensor& goff,
                       const Tensor& gmsk) {
  dispatch_dtype<kRoiDTypes>(x.dtype(), "deform_conv2d_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t ostride = 2 * g.offset_groups * g.K() * g.L();
    const int64_t mstride = g.offset_groups * g.K() * g.L();
    col2im_grads<T>(g, x.data<T>() + n * g.Cin * g.H * g.W, off.data<T>() + n * ostride,
                    g.use_mask ? msk.data<T>() + n * mstride : nullptr, gcols.data<T>(),
                    gin.data<T>() + n * g.Cin * g.H * g.W, goff.data<T>() + n * ostride,
                    g.use_mask ? gmsk.data<T>() + n * mstride : nullptr);
  });
}

TC_REGISTER_KERNEL(deform_im2col_kernel, CPU, deform_im2col_cpu);
TC_REGISTER_KERNEL(deform_col2im_kernel, CPU, deform_col2im_cpu);

Tensor columns(const Geometry& g, const Tensor& x, const Tensor& off, const Tensor& msk,
               int64_t n) {
  Tensor cols = empty({g.Cin * g.K(), g.L()}, TensorOptions(x.dtype()).device(x.device()));
  deform_im2col_kernel.get(x.device().type)(g, x, off, msk, n, cols);
  return cols;
}

// (G, Cout/G, Cin/G*K) view of the weight.
Tensor grouped_weight(const Geometry& g, const Tensor& w) {
  return reshape(w, {g.groups, g.Cout / g.groups, g.Cin / g.groups * g.K()});
}

TensorList backward(const Geometry& g, const Tensor& grad, const Tensor& x, const Tensor& off,
                    const Tensor& msk, const Tensor& weight, bool has_bias) {
  autograd::NoGradGuard no_grad;
  Tensor go = contiguous(grad);
  const TensorOptions opts = TensorOptions(x.dtype()).device(x.device());
  Tensor gin = zeros(x.sizes(), opts);
  Tensor goff = zeros(off.sizes(), opts);
  Tensor gmsk = g.use_mask ? zeros(msk.sizes(), opts) : Tensor();
  Tensor gw = zeros({g.groups, g.Cout / g.groups, g.Cin / g.groups * g.K()}, opts);
  Tensor wt = transpose(grouped_weight(g, weight), 1, 2);  // (G, Cin/G*K, Cout/G)
  for (int64_t n = 0; n < g.N; ++n) {
    Tensor gon = reshape(select(go, 0, n), {g.groups, g.Cout / g.groups, g.L()});
    Tensor gcols = contiguous(bmm(wt, gon));  // (G, Cin/G*K, L)
    Tensor cols = reshape(columns(g, x, off, msk, n), {g.groups, g.Cin / g.groups * g.K(), g.L()});
    gw = add(gw, bmm(gon, transpose(cols, 1, 2)));
    deform_col2im_kernel.get(x.device().type)(g, x, off, msk, n, gcols, gin, goff, gmsk);
  }
  Tensor gb = has_bias ? sum(go, {0, 2, 3}) : Tensor();
  return {gin, goff, reshape(gw, weight.sizes()), gmsk, gb};
}

}  // namespace

Tensor deform_conv2d(const Tensor& input, const Tensor& offset, const Tensor& weight,
                     const Tensor& bias, std::pair<int64_t, int64_t> stride,
                     std::pair<int64_t, int64_t> padding, std::pair<int64_t, int64_t> dilation,
                     const Tensor& mask) {
  const char* op = "deform_conv2d";
  for (const Tensor* t : {&offset, &weight, &bias, &mask})
    TC_CHECK_AS(::tc::Error, !t->defined() || t->device() == input.device(), op,
                ": all tensors must be on the input's device (", input.device().str(), "), got ",
                t->device().str());
  TC_CHECK(input.dim() == 4, op, ": input should be (N, Cin, H, W), got ",
           shape_str(input.sizes()));
  TC_CHECK(weight.dim() == 4, op, ": weight should be (Cout, Cin/groups, kh, kw), got ",
           shape_str(weight.sizes()));
  TC_CHECK(offset.dim() == 4, op, ": offset should be 4-D, got ", shape_str(offset.sizes()));
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": input must be float32 or float64, got ", dtype_name(input.dtype()));
  for (const Tensor* t : {&offset, &weight, &mask, &bias})
    if (t->defined())
      TC_CHECK_TYPE(t->dtype() == input.dtype(), op, ": all tensors must have the input's dtype (",
                    dtype_name(input.dtype()), "), got ", dtype_name(t->dtype()));
  Geometry g;
  g.N = input.size(0), g.Cin = input.size(1), g.H = input.size(2), g.W = input.size(3);
  g.Cout = weight.size(0), g.kh = weight.size(2), g.kw = weight.size(3);
  g.sh = stride.first, g.sw = stride.second, g.ph = padding.first, g.pw = padding.second;
  g.dh = dilation.first, g.dw = dilation.second;
  TC_CHECK(g.sh > 0 && g.sw > 0 && g.dh > 0 && g.dw > 0 && g.ph >= 0 && g.pw >= 0, op,
           ": stride and dilation must be positive and padding non-negative");
  TC_CHECK(weight.size(1) > 0 && g.Cin % weight.size(1) == 0, op, ": input channels (", g.Cin,
           ") must be a multiple of weight.size(1) (", weight.size(1), ")");
  g.groups = g.Cin / weight.size(1);
  TC_CHECK(g.Cout % g.groups == 0, op, ": output channels (", g.Cout,
           ") must be divisible by groups (", g.groups, ")");
  g.oh = (g.H + 2 * g.ph - (g.dh * (g.kh - 1) + 1)) / g.sh + 1;
  g.ow = (g.W + 2 * g.pw - (g.dw * (g.kw - 1) + 1)) / g.sw + 1;
  TC_CHECK(g.oh > 0 && g.ow > 0, op, ": the output would be empty");
  TC_CHECK(offset.size(1) % (2 * g.K()) == 0 && offset.size(1) > 0, op, ": offset channels (",
           offset.size(1), ") must be a multiple of 2*kh*kw (", 2 * g.K(), ")");
  g.offset_groups = offset.size(1) / (2 * g.K());
  TC_CHECK(g.Cin % g.offset_groups == 0, op,
           ": input channels must be divisible by the number "
           "of offset groups (",
           g.offset_groups, ")");
  TC_CHECK(offset.size(0) == g.N && offset.size(2) == g.oh && offset.size(3) == g.ow, op,
           ": offset should be (", g.N, ", ", offset.size(1), ", ", g.oh, ", ", g.ow, "), got ",
           shape_str(offset.sizes()));
  g.use_mask = mask.defined();
  if (g.use_mask)
    TC_CHECK(mask.dim() == 4 && mask.size(0) == g.N && mask.size(1) == g.offset_groups * g.K() &&
                 mask.size(2) == g.oh && mask.size(3) == g.ow,
             op, ": mask should be (", g.N, ", ", g.offset_groups * g.K(), ", ", g.oh, ", ", g.ow,
             "), got ", shape_str(mask.sizes()));
  if (bias.defined())
    TC_CHECK(bias.dim() == 1 && bias.size(0) == g.Cout, op, ": bias should be (", g.Cout,
             ",), got ", shape_str(bias.sizes()));
  Tensor x = contiguous(input.detach()), off = contiguous(offset.detach());
  Tensor msk = g.use_mask ? contiguous(mask.detach()) : Tensor();
  Tensor w = contiguous(weight.detach());
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    Tensor gw = grouped_weight(g, w);
    TensorList outs;
    for (int64_t n = 0; n < g.N; ++n) {
      Tensor cols =
          reshape(columns(g, x, off, msk, n), {g.groups, g.Cin / g.groups * g.K(), g.L()});
      outs.push_back(reshape(bmm(gw, cols), {1, g.Cout, g.oh, g.ow}));
    }
    out = cat(outs, 0);
    if (bias.defined()) out = add(out, reshape(bias.detach(), {1, g.Cout, 1, 1}));
  }
  // Graph inputs: input, offset, weight, then mask and bias when given (grads in that order).
  TensorList inputs = {input, offset, weight};
  if (g.use_mask) inputs.push_back(mask);
  if (bias.defined()) inputs.push_back(bias);
  if (autograd::needs_grad(inputs)) {
    bool has_bias = bias.defined();
    TensorList saved = {x, off, w};
    if (g.use_mask) saved.push_back(msk);
    autograd::record("DeformConv2DBackward0", inputs, {out}, saved,
                     [g, has_bias](const TensorList& s, const TensorList& gr) -> TensorList {
                       Tensor m = g.use_mask ? s[3] : Tensor();
                       TensorList all = backward(g, gr[0], s[0], s[1], m, s[2], has_bias);
                       TensorList res = {all[0], all[1], all[2]};
                       if (g.use_mask) res.push_back(all[3]);
                       if (has_bias) res.push_back(all[4]);
                       return res;
                     });
  }
  return out;
}

}  // namespace tc::vision::ops
