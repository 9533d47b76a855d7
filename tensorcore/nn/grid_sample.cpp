// grid_sample (4-d input: bilinear / nearest / bicubic; 5-d: trilinear / nearest; zeros / border /
// reflection padding) with fused forward and backward kernels (gradients for input and grid)
// per device through device_kernels.h's tables (CPU here, CUDA in kernels/cuda/nn_ops.cu, both
// running grid_sample_point.h), and affine_grid as a composite.
// Coordinate conventions follow torch: grid values in [-1, 1] map to pixel centers
// (align_corners=False) or corner pixels (align_corners=True).
#include <cmath>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/amp/float32_compute.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/nn/cuda_composites.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/grid_sample_point.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/linalg.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {
namespace {

constexpr uint32_t kF32F64 = (1u << int(DType::Float32)) | (1u << int(DType::Float64));

using Pad = detail::GridPad;
using detail::grid_source_index;
using detail::GridGeom;

// Input-gradient accumulation on the CPU: threads own disjoint samples.
struct PlainAdd {
  template <typename T>
  void operator()(T* p, T v) const {
    *p += v;
  }
};

template <typename T>
void grid_forward(const T* in, const T* grid, T* out, const GridGeom& g) {
  const int64_t P = g.Ho * g.Wo;
  parallel_for(0, g.N * P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(4 * g.C, 1)),
               [&](int64_t i0, int64_t i1) {
                 for (int64_t i = i0; i < i1; ++i) detail::grid_point_forward(in, grid, out, g, i);
               });
}

// Input gradients scatter into the sample's planes: parallel over samples keeps writes disjoint.
template <typename T>
void grid_backward(const T* gout, const T* in, const T* grid, T* gin, T* ggrid, const GridGeom& g) {
  const int64_t P = g.Ho * g.Wo;
  parallel_for(0, g.N, 1, [&](int64_t n0, int64_t n1) {
    for (int64_t i = n0 * P; i < n1 * P; ++i)
      detail::grid_point_backward(gout, in, grid, gin, ggrid, g, i, PlainAdd{});
  });
}

using detail::GridGeom3;

// Volumetric sampling; with gout, the backward pass (input gradient scattered per sample, grid
// gradient per location). Parallel over samples keeps the input-gradient writes disjoint.
template <typename T>
void grid3d(const T* in, const T* grid, T* out, const T* gout, T* gin, T* ggrid,
            const GridGeom3& g) {
  const int64_t P = g.Do * g.Ho * g.Wo;
  parallel_for(0, g.N, 1, [&](int64_t n0, int64_t n1) {
    for (int64_t i = n0 * P; i < n1 * P; ++i)
      detail::grid3d_point(in, grid, out, gout, gin, ggrid, g, i, PlainAdd{});
  });
}

// The CPU kernels of the grid_sample tables (device_kernels.h).
void grid_sample_forward_cpu(const Tensor& x, const Tensor& grid, const GridGeom& g,
                             const Tensor& out) {
  dispatch_dtype<kF32F64>(x.dtype(), "grid_sample", [&](auto tag) {
    using T = typename decltype(tag)::type;
    grid_forward<T>(x.data<T>(), grid.data<T>(), out.data<T>(), g);
  });
}

template <typename T>
T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

void grid_sample_backward_cpu(const Tensor& gout, const Tensor& x, const Tensor& grid,
                              const GridGeom& g, const Tensor& gin, const Tensor& ggrid) {
  dispatch_dtype<kF32F64>(x.dtype(), "grid_sample backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    grid_backward<T>(gout.data<T>(), x.data<T>(), grid.data<T>(), data_or_null<T>(gin),
                     data_or_null<T>(ggrid), g);
  });
}

void grid_sample3d_cpu(const Tensor& x, const Tensor& grid, const Tensor& out, const Tensor& gout,
                       const Tensor& gin, const Tensor& ggrid, const GridGeom3& g) {
  dispatch_dtype<kF32F64>(
      x.dtype(), out.defined() ? "grid_sample" : "grid_sample backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        grid3d<T>(x.data<T>(), grid.data<T>(), data_or_null<T>(out), data_or_null<T>(gout),
                  data_or_null<T>(gin), data_or_null<T>(ggrid), g);
      });
}

TC_REGISTER_KERNEL(grid_sample_forward_kernel, CPU, grid_sample_forward_cpu);
TC_REGISTER_KERNEL(grid_sample_backward_kernel, CPU, grid_sample_backward_cpu);
TC_REGISTER_KERNEL(grid_sample3d_kernel, CPU, grid_sample3d_cpu);

// Records the backward node of a grid_sample: `run(go, xs, gs, gx, gg)` fills the input gradient
// (zero-initialised; undefined when not needed) and the grid gradient (likewise) on the inputs'
// device.
template <typename Run>
void record_grid_backward(const char* node, const Tensor& input, const Tensor& grid,
                          const Tensor& out, Run run) {
  if (!autograd::needs_grad({input, grid})) return;
  const bool need_x = input.requires_grad(), need_g = grid.requires_grad();
  autograd::record(node, {input, grid}, {out}, {input, grid},
                   [=](const TensorList& s, const TensorList& gr_) -> TensorList {
                     Tensor go = contiguous(gr_[0]).detach(), xs = contiguous(s[0]).detach(),
                            gs = contiguous(s[1]).detach();
                     const TensorOptions opts = TensorOptions(xs.dtype()).device(xs.device());
                     Tensor gx = need_x ? zeros(xs.sizes(), opts) : Tensor();
                     Tensor gg = need_g ? empty(gs.sizes(), opts) : Tensor();
                     run(go, xs, gs, gx, gg);
                     return {gx, gg};
                   });
}

Pad parse_grid_padding(const std::string& padding_mode) {
  TC_CHECK(padding_mode == "zeros" || padding_mode == "border" || padding_mode == "reflection",
           "grid_sample", ": padding_mode must be 'zeros', 'border' or 'reflection', got '",
           padding_mode, "'");
  return padding_mode == "zeros"    ? Pad::Zeros
         : padding_mode == "border" ? Pad::Border
                                    : Pad::Reflection;
}

Tensor grid_sample_3d(const Tensor& input, const Tensor& grid, const std::string& mode, Pad pad,
                      bool align_corners) {
  const char* op = "grid_sample";
  TC_CHECK(grid.dim() == 5 && grid.size(4) == 3 && grid.size(0) == input.size(0), op,
           ": expected grid of shape [", input.size(0),
           ", D_out, H_out, W_out, 3] for a 5-d input, got ", shape_str(grid.sizes()));
  TC_CHECK(mode == "bilinear" || mode == "nearest", op,
           ": mode must be 'bilinear' or 'nearest' for 5-d inputs, got '", mode, "'");
  GridGeom3 g{input.size(0),
              input.size(1),
              input.size(2),
              input.size(3),
              input.size(4),
              grid.size(1),
              grid.size(2),
              grid.size(3),
              mode == "nearest",
              align_corners,
              pad};
  TC_CHECK(g.D > 0 && g.H > 0 && g.W > 0, op, ": input ", shape_str(input.sizes()),
           " has an empty spatial dim");
  Tensor x = contiguous(input), gr = contiguous(grid);
  Tensor out = empty({g.N, g.C, g.Do, g.Ho, g.Wo}, TensorOptions(x.dtype()).device(x.device()));
  grid_sample3d_kernel.get(x.device().type)(x, gr, out, Tensor(), Tensor(), Tensor(), g);
  record_grid_backward("GridSampler3DBackward0", input, grid, out,
                       [g](const Tensor& go, const Tensor& xs, const Tensor& gs, const Tensor& gx,
                           const Tensor& gg) {
                         grid_sample3d_kernel.get(xs.device().type)(xs, gs, Tensor(), go, gx, gg,
                                                                    g);
                       });
  return out;
}

}  // namespace

namespace functional {

Tensor grid_sample(const Tensor& input, const Tensor& grid, const std::string& mode,
                   const std::string& padding_mode, bool align_corners) {
  TC_AUTOCAST("grid_sampler", grid_sample, input, grid, mode, padding_mode, align_corners);
  TC_REDUCED_FLOAT_VIA_FLOAT32(input, grid_sample, input, grid, mode, padding_mode, align_corners);
  const char* op = "grid_sample";
  TC_CHECK(input.defined() && grid.defined(), op, ": input and grid must be tensors");
  detail::require_same_device(op, {&input, &grid});
  TC_CHECK_TYPE(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, op,
                ": expected a float32 or float64 input, got ", dtype_name(input.dtype()));
  TC_CHECK_TYPE(grid.dtype() == input.dtype(), op, ": grid dtype ", dtype_name(grid.dtype()),
                " must match input dtype ", dtype_name(input.dtype()));
  TC_CHECK(input.dim() == 4 || input.dim() == 5, op,
           ": expected a 4-d (N, C, H, W) or 5-d (N, C, D, H, W) input, got shape ",
           shape_str(input.sizes()));
  const Pad pad = parse_grid_padding(padding_mode);
  if (input.dim() == 5) return grid_sample_3d(input, grid, mode, pad, align_corners);
  TC_CHECK(grid.dim() == 4 && grid.size(3) == 2 && grid.size(0) == input.size(0), op,
           ": expected grid of shape [", input.size(0), ", H_out, W_out, 2], got ",
           shape_str(grid.sizes()));
  TC_CHECK(mode == "bilinear" || mode == "nearest" || mode == "bicubic", op,
           ": mode must be 'bilinear', 'nearest' or 'bicubic', got '", mode, "'");
  GridGeom g{input.size(0),     input.size(1), input.size(2),
             input.size(3),     grid.size(1),  grid.size(2),
             mode == "nearest", align_corners, pad};
  g.bicubic = mode == "bicubic";
  TC_CHECK(g.H > 0 && g.W > 0, op, ": input ", shape_str(input.sizes()),
           " has an empty spatial dim");
  Tensor x = contiguous(input), gr = contiguous(grid);
  Tensor out = empty({g.N, g.C, g.Ho, g.Wo}, TensorOptions(x.dtype()).device(x.device()));
  grid_sample_forward_kernel.get(x.device().type)(x, gr, g, out);
  record_grid_backward("GridSampler2DBackward0", input, grid, out,
                       [g](const Tensor& go, const Tensor& xs, const Tensor& gs, const Tensor& gx,
                           const Tensor& gg) {
                         grid_sample_backward_kernel.get(xs.device().type)(go, xs, gs, g, gx, gg);
                       });
  return out;
}

Tensor affine_grid(const Tensor& theta, const IntList& size, bool align_corners) {
  const char* op = "affine_grid";
  TC_CHECK(theta.defined() && theta.is_floating_point(), op,
           ": theta must be a floating point tensor");
  TC_CHECK(size.size() == 4 || size.size() == 5, op,
           ": size must be (N, C, H, W) or (N, C, D, H, W), got ", shape_str(size));
  int64_t sd = int64_t(size.size()) - 2;
  TC_CHECK(theta.dim() == 3 && theta.size(0) == size[0] && theta.size(1) == sd &&
               theta.size(2) == sd + 1,
           op, ": expected theta of shape [", size[0], ", ", sd, ", ", sd + 1, "] for size ",
           shape_str(size), ", got ", shape_str(theta.sizes()));
  // base[..., :] = (x, y[, z], 1) for each output location, x varying fastest.
  auto axis = [&](int64_t n) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      double t = n > 1 ? -1.0 + 2.0 * double(i) / double(n - 1) : 0.0;
      v[size_t(i)] = align_corners ? t : t * double(n - 1) / double(n);
    }
    return v;
  };
  Shape spatial(size.begin() + 2, size.end());  // [D,] H, W
  int64_t P = shape_numel(spatial);
  std::vector<double> base(static_cast<size_t>(P * (sd + 1)));
  std::vector<std::vector<double>> ax;
  for (int64_t d = 0; d < sd; ++d) ax.push_back(axis(spatial[size_t(d)]));
  for (int64_t p = 0; p < P; ++p) {
    int64_t rem = p;
    std::vector<int64_t> coord(static_cast<size_t>(sd));
    for (int64_t d = sd - 1; d >= 0; --d) {
      coord[size_t(d)] = rem % spatial[size_t(d)];
      rem /= spatial[size_t(d)];
    }
    // Component k of the base is the coordinate along spatial dim sd-1-k (x is the last dim).
    for (int64_t k = 0; k < sd; ++k)
      base[size_t(p * (sd + 1) + k)] = ax[size_t(sd - 1 - k)][size_t(coord[size_t(sd - 1 - k)])];
    base[size_t(p * (sd + 1) + sd)] = 1.0;
  }
  Tensor b = to_dtype(from_vector(base, {1, P, sd + 1}), theta.dtype());
  Tensor grid = matmul(b, transpose(theta, 1, 2));  // [N, P, sd]
  Shape out = {size[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(sd);
  return reshape(grid, out);
}

}  // namespace functional
}  // namespace tc::nn
