// Convolution front end: argument checking, geometry, back-end choice and autograd.
// Three differentiable primitives close under differentiation, so higher-order gradients work:
//   forward  y  = F(x, w)      vjp: gx = D(gy, w), gw = W(x, gy)
//   data     gx = D(gy, w)     vjp: g_gy = F(g, w), g_w = W(g, gy)
//   weight   gw = W(x, gy)     vjp: g_x = D(gy, g), g_gy = F(x, g)
// Transposed convolution is D with the roles of input and output swapped.
#include <sstream>

#include "tensorcore/amp/autocast.h"
#include "tensorcore/amp/float32_compute.h"
#include "tensorcore/autograd/function.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/nn/conv_internal.h"
#include "tensorcore/nn/cuda_composites.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"
#include "tensorcore/profiler/profiler.h"

#ifdef TC_WITH_DNNL
#include <dnnl.hpp>
using DnnlError = dnnl::error;
#else
struct DnnlError : std::exception {};  // never thrown: the oneDNN path is compiled out
#endif

namespace tc::nn {
namespace detail {

namespace {
thread_local bool training_weight = false;
}  // namespace

TrainingWeightScope::TrainingWeightScope(bool training) : previous_(training_weight) {
  training_weight = training;
}
TrainingWeightScope::~TrainingWeightScope() { training_weight = previous_; }
bool TrainingWeightScope::active() { return training_weight; }

std::string ConvGeometry::key() const {
  std::ostringstream os;
  os << nd << ':' << int(dtype) << ':' << batch << ',' << in_channels << ',' << out_channels << ','
     << groups;
  for (const Shape* s : {&input, &kernel, &output, &stride, &pad_l, &pad_r, &dilation}) {
    os << '|';
    for (auto v : *s) os << v << ',';
  }
  return os.str();
}

Shape ConvGeometry::input_shape() const {
  Shape s = {batch, in_channels};
  s.insert(s.end(), input.begin(), input.end());
  return s;
}
Shape ConvGeometry::weight_shape() const {
  Shape s = {out_channels, in_channels / groups};
  s.insert(s.end(), kernel.begin(), kernel.end());
  return s;
}
bool ConvGeometry::is_pointwise() const {
  if (groups != 1) return false;
  for (int i = 0; i < nd; ++i)
    if (kernel[i] != 1 || stride[i] != 1 || pad_l[i] != 0 || pad_r[i] != 0) return false;
  return true;
}
Shape ConvGeometry::output_shape() const {
  Shape s = {batch, out_channels};
  s.insert(s.end(), output.begin(), output.end());
  return s;
}

namespace {

// Depthwise 1-d geometries have their own direct kernels, ahead of oneDNN.
bool use_dnnl(DType dtype, const ConvGeometry& g) {
  return (dtype == DType::Float32 || dtype == DType::BFloat16) && !depthwise1d_direct(g) &&
         dnnl_conv_available(g);
}

// A float32 1x1 convolution with stride 1 and no padding is one GEMM per image on the NCHW data
// as it lies. oneDNN would reorder the activations into its blocked layout and back around the
// same GEMM, which at detection sizes (2x256x200x272) costs more than the GEMM: 1.3-1.9x torch's
// time, which takes this route too (docs/benchmarks.md, ## detection). With more than one thread
// the GEMM is split over our own threads with a one-thread BLAS (conv_gemm.cpp): OpenBLAS's own
// threads competed with the spinning OpenMP workers (ResNet-50 batch 1, 2 threads: 170 -> 298 ms).
bool pointwise_float32(const ConvGeometry& g) {
  return g.dtype == DType::Float32 && g.is_pointwise();
}

// bfloat16 without a oneDNN kernel: the GEMM path in float32, rounded back.
Tensor f32(const Tensor& t) { return t.defined() ? to_dtype(t, DType::Float32) : t; }
ConvGeometry as_f32(ConvGeometry g) {
  g.dtype = DType::Float32;
  return g;
}

DimList bias_dims(int nd);

// The CPU kernels (oneDNN, else im2col + GEMM) take contiguous tensors; the cuDNN kernels
// (cudnn/conv_cudnn.cpp) take any layout, so channels-last views keep their layout through them.
Tensor conv_forward_cpu(const Tensor& x_in, const Tensor& w_in, const Tensor& b_in,
                        const ConvGeometry& g) {
  Tensor x = contiguous(x_in), w = contiguous(w_in), b = b_in.defined() ? contiguous(b_in) : b_in;
  if (depthwise1d_direct(g)) return conv_forward_depthwise1d(x, w, b, g);
  if (pointwise_bfloat16(g)) {
    Tensor y = conv_forward_pointwise_bf16(x, w, b, g);
    if (y.defined()) return y;
  }
  if (use_dnnl(x.dtype(), g) && !pointwise_float32(g)) {
    try {
      return conv_forward_dnnl(x, w, b, g);
    } catch (const DnnlError&) {
      // oneDNN declined this geometry: the GEMM path handles everything.
    }
  }
  if (x.dtype() == DType::BFloat16)
    return to_dtype(conv_forward_gemm(f32(x), f32(w), f32(b), as_f32(g)), x.dtype());
  return conv_forward_gemm(x, w, b, g);
}

// conv + epilogue on the CPU in one pass over the output (float32 and bfloat16); an undefined
// result means the caller runs the ops one by one.
Tensor conv_forward_fused_cpu(const Tensor& x_in, const Tensor& w_in, const Tensor& b_in,
                              const ConvGeometry& g, const ConvEpilogue& epi) {
  Tensor w = contiguous(w_in), b = b_in.defined() ? contiguous(b_in) : b_in;
  const bool res_cl = epi.residual.defined() && is_nhwc(epi.residual);
  // Channels-last data stays so through oneDNN, 1x1 convolutions included (the GEMM route reads
  // NCHW only).
  const bool cl = is_nhwc(x_in) || res_cl || (g.nd == 2 && epi.channels_last);
  if (use_dnnl(x_in.dtype(), g) && (cl || !pointwise_float32(g))) {
    try {
      return conv_forward_dnnl(is_nhwc(x_in) ? x_in : contiguous(x_in), w, b, g, &epi);
    } catch (const DnnlError&) {
    }
  }
  if (x_in.dtype() != DType::Float32 || res_cl || depthwise1d_direct(g)) return Tensor();
  return conv_forward_gemm(contiguous(x_in), w, b, g, &epi);
}

Tensor conv_backward_data_cpu(const Tensor& gy_in, const Tensor& w_in, const ConvGeometry& g) {
  Tensor gy = contiguous(gy_in), w = contiguous(w_in);
  if (depthwise1d_direct(g)) return conv_backward_data_depthwise1d(gy, w, g);
  if (pointwise_bfloat16(g)) {
    Tensor gx = conv_backward_data_pointwise_bf16(gy, w, g);
    if (gx.defined()) return gx;
  }
  if (use_dnnl(gy.dtype(), g)) {
    try {
      return conv_backward_data_dnnl(gy, w, g);
    } catch (const DnnlError&) {
    }
  }
  if (gy.dtype() == DType::BFloat16)
    return to_dtype(conv_backward_data_gemm(f32(gy), f32(w), as_f32(g)), gy.dtype());
  return conv_backward_data_gemm(gy, w, g);
}

Tensor conv_backward_weight_cpu(const Tensor& x_in, const Tensor& gy_in, const ConvGeometry& g) {
  Tensor x = contiguous(x_in), gy = contiguous(gy_in);
  if (depthwise1d_direct(g)) return conv_backward_weight_depthwise1d(x, gy, g, false).first;
  if (pointwise_bfloat16(g)) {
    Tensor gw = conv_backward_weight_pointwise_bf16(x, gy, g);
    if (gw.defined()) return gw;
  }
  if (x.dtype() == DType::BFloat16)
    return to_dtype(conv_backward_weight_gemm(f32(x), f32(gy), as_f32(g)), x.dtype());
  return conv_backward_weight_gemm(x, gy, g);
}

TC_REGISTER_KERNEL(conv_forward_kernel, CPU, conv_forward_cpu);
TC_REGISTER_KERNEL(conv_backward_data_kernel, CPU, conv_backward_data_cpu);
TC_REGISTER_KERNEL(conv_backward_weight_kernel, CPU, conv_backward_weight_cpu);

Tensor raw_forward(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g) {
  return conv_forward_kernel.get(x.device().type)(x, w, b, g);
}

Tensor raw_backward_data(const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  return conv_backward_data_kernel.get(gy.device().type)(gy, w, g);
}

// Weight (and bias) gradients. On the CPU, oneDNN computes both in one kernel.
std::pair<Tensor, Tensor> raw_backward_weight(const Tensor& x, const Tensor& gy,
                                              const ConvGeometry& g, bool with_bias) {
  if (x.is_cpu() && depthwise1d_direct(g))
    return conv_backward_weight_depthwise1d(contiguous(x), contiguous(gy), g, with_bias);
  // bfloat16 1x1: the kernel below (a matmul; the bias gradient is the sum after it).
  if (x.is_cpu() && use_dnnl(x.dtype(), g) && !pointwise_bfloat16(g)) {
    try {
      return conv_backward_weight_dnnl(contiguous(x), contiguous(gy), g, with_bias);
    } catch (const DnnlError&) {
    }
  }
  Tensor gw = conv_backward_weight_kernel.get(x.device().type)(x, gy, g);
  return {gw, with_bias ? sum(gy, bias_dims(g.nd)) : Tensor()};
}

DimList bias_dims(int nd) {
  DimList dims = {0};
  for (int i = 0; i < nd; ++i) dims.push_back(2 + i);
  return dims;
}

Tensor conv_data_op(const Tensor& gy, const Tensor& w, const ConvGeometry& g);
Tensor conv_weight_op(const Tensor& x, const Tensor& gy, const ConvGeometry& g);

Tensor conv_forward_op(const Tensor& x_in, const Tensor& w_in, const Tensor& b_in,
                       const ConvGeometry& g) {
  TrainingWeightScope weight_scope(autograd::needs_grad({w_in}));
  Tensor y = raw_forward(x_in.detach(), w_in.detach(), b_in.defined() ? b_in.detach() : b_in, g);
  if (autograd::needs_grad({x_in, w_in, b_in})) {
    bool need_x = x_in.requires_grad(), need_w = w_in.requires_grad();
    bool need_b = b_in.defined() && b_in.requires_grad();
    autograd::record(
        "ConvolutionBackward0", {x_in, w_in, b_in}, {y}, {x_in, w_in},
        [g, need_x, need_w, need_b](const TensorList& s, const TensorList& gr) -> TensorList {
          const Tensor& gy = gr[0];
          Tensor gx, gw, gb;
          // oneDNN's fused backward computes all three gradients in one pass.
          if (need_x && need_w && !autograd::grad_enabled() && gy.is_cpu() &&
              use_dnnl(gy.dtype(), g) && !pointwise_bfloat16(g)) {
            try {
              auto r = conv_backward_dnnl(contiguous(s[0]).detach(), contiguous(gy).detach(),
                                          contiguous(s[1]).detach(), g, need_b);
              return {std::get<0>(r), std::get<1>(r), std::get<2>(r)};
            } catch (const DnnlError&) {
              // fall through to the separate paths
            }
          }
          if (need_x) gx = conv_data_op(gy, s[1], g);
          // The fused oneDNN kernel returns the bias gradient alongside the weight gradient.
          if (need_w && !autograd::grad_enabled()) {
            auto r = raw_backward_weight(s[0].detach(), gy.detach(), g, need_b);
            gw = r.first;
            gb = r.second;
          } else {
            if (need_w) gw = conv_weight_op(s[0], gy, g);
            if (need_b) gb = sum(gy, bias_dims(g.nd));
          }
          return {gx, gw, gb};
        });
  }
  return y;
}

Tensor conv_data_op(const Tensor& gy_in, const Tensor& w_in, const ConvGeometry& g) {
  Tensor gx = raw_backward_data(gy_in.detach(), w_in.detach(), g);
  if (autograd::needs_grad({gy_in, w_in})) {
    bool need_gy = gy_in.requires_grad(), need_w = w_in.requires_grad();
    autograd::record("ConvolutionBackwardData", {gy_in, w_in}, {gx}, {gy_in, w_in},
                     [g, need_gy, need_w](const TensorList& s, const TensorList& gr) -> TensorList {
                       const Tensor& gg = gr[0];
                       Tensor a, b;
                       if (need_gy) a = conv_forward_op(gg, s[1], Tensor(), g);
                       if (need_w) b = conv_weight_op(gg, s[0], g);
                       return {a, b};
                     });
  }
  return gx;
}

Tensor conv_weight_op(const Tensor& x_in, const Tensor& gy_in, const ConvGeometry& g) {
  Tensor gw = raw_backward_weight(x_in.detach(), gy_in.detach(), g, false).first;
  if (autograd::needs_grad({x_in, gy_in})) {
    bool need_x = x_in.requires_grad(), need_gy = gy_in.requires_grad();
    autograd::record("ConvolutionBackwardWeight", {x_in, gy_in}, {gw}, {x_in, gy_in},
                     [g, need_x, need_gy](const TensorList& s, const TensorList& gr) -> TensorList {
                       const Tensor& gg = gr[0];
                       Tensor a, b;
                       if (need_x) a = conv_data_op(s[1], gg, g);
                       if (need_gy) b = conv_forward_op(s[0], gg, Tensor(), g);
                       return {a, b};
                     });
  }
  return gw;
}

// --- argument handling -------------------------------------------------------------------------

Shape expand_param(const functional::IntList& v, int nd, const char* op, const char* what) {
  if (int64_t(v.size()) == nd) return v;
  TC_CHECK(v.size() == 1, op, ": ", what, " must be one int or ", nd, " ints, got ", v.size(),
           " values");
  return Shape(size_t(nd), v[0]);
}

struct ConvArgs {
  Tensor input, weight, bias;
  bool unbatched = false;
};

ConvArgs check_conv_inputs(const char* op, int nd, const Tensor& input, const Tensor& weight,
                           const Tensor& bias) {
  TC_CHECK(input.defined() && weight.defined(), op, ": input and weight must be tensors");
  require_same_device(op, {&input, &weight, &bias});
  // bfloat16 runs everywhere (oneDNN on the CPU); float16 only through cuDNN (the CPU gets it
  // as float32 from the Python layer / autocast).
  const DType dt = input.dtype();
  const bool dtype_ok = dt == DType::Float32 || dt == DType::Float64 || dt == DType::BFloat16 ||
                        (input.is_cuda() && dt == DType::Float16);
  TC_CHECK_TYPE(dtype_ok, op, ": expected a float32 or float64 input (or bfloat16",
                input.is_cuda() ? ", float16" : "", "), got ", dtype_name(dt));
  TC_CHECK_TYPE(weight.dtype() == input.dtype(), op, ": input (", dtype_name(input.dtype()),
                ") and weight (", dtype_name(weight.dtype()), ") must have the same dtype");
  TC_CHECK(weight.dim() == nd + 2, op, ": expected a ", nd + 2, "-d weight, got shape ",
           shape_str(weight.sizes()));
  TC_CHECK(input.dim() == nd + 2 || input.dim() == nd + 1, op, ": expected a ", nd + 1,
           "-d (unbatched) or ", nd + 2, "-d (batched) input, got shape ",
           shape_str(input.sizes()));
  ConvArgs a{input, weight, bias, input.dim() == nd + 1};
  if (a.unbatched) a.input = unsqueeze(input, 0);
  if (bias.defined()) {
    TC_CHECK_TYPE(bias.dtype() == input.dtype(), op, ": bias dtype ", dtype_name(bias.dtype()),
                  " does not match input dtype ", dtype_name(input.dtype()));
  }
  return a;
}

enum class PadMode { Explicit, Same, Valid };

Tensor apply_epilogue(const Tensor& x, const Tensor& weight, const Tensor& bias,
                      const ConvGeometry& g, const ConvEpilogue& epi, int64_t residual_mode);
Tensor epilogue_ops(Tensor y, const ConvEpilogue& epi, int64_t residual_mode);

Tensor convolution(const char* op, int nd, const Tensor& input_in, const Tensor& weight,
                   const Tensor& bias, const functional::IntList& stride_in,
                   const functional::IntList& padding_in, PadMode mode,
                   const functional::IntList& dilation_in, int64_t groups,
                   const ConvEpilogue* epi = nullptr, int64_t residual_mode = 0) {
  TC_AUTOCAST(op, convolution, op, nd, input_in, weight, bias, stride_in, padding_in, mode,
              dilation_in, groups, epi, residual_mode);
  // bfloat16 has its own kernels (oneDNN); float16 computes through float32.
  if (input_in.dtype() == DType::Float16)
    TC_REDUCED_FLOAT_VIA_FLOAT32(input_in, convolution, op, nd, input_in, weight, bias, stride_in,
                                 padding_in, mode, dilation_in, groups, epi, residual_mode);
  ConvArgs a = check_conv_inputs(op, nd, input_in, weight, bias);
  const Tensor& x = a.input;
  TC_CHECK(groups > 0, op, ": groups must be positive, got ", groups);
  ConvGeometry g;
  g.nd = nd;
  g.dtype = x.dtype();
  g.batch = x.size(0);
  g.in_channels = x.size(1);
  g.out_channels = weight.size(0);
  g.groups = groups;
  g.stride = expand_param(stride_in, nd, op, "stride");
  g.dilation = expand_param(dilation_in, nd, op, "dilation");
  for (int i = 0; i < nd; ++i) {
    TC_CHECK(g.stride[i] > 0, op, ": stride must be positive, got ", shape_str(g.stride));
    TC_CHECK(g.dilation[i] > 0, op, ": dilation must be positive, got ", shape_str(g.dilation));
  }
  TC_CHECK(g.out_channels % groups == 0, op, ": out_channels (", g.out_channels,
           ") must be divisible by groups (", groups, ")");
  TC_CHECK(weight.size(1) * groups == g.in_channels, op, ": expected input ", shape_str(x.sizes()),
           " to have ", weight.size(1) * groups, " channels (weight ", shape_str(weight.sizes()),
           ", groups ", groups, "), but got ", g.in_channels, " channels");
  if (bias.defined())
    TC_CHECK(bias.dim() == 1 && bias.size(0) == g.out_channels, op, ": expected bias of shape [",
             g.out_channels, "], got ", shape_str(bias.sizes()));
  for (int i = 0; i < nd; ++i) {
    g.input.push_back(x.size(2 + i));
    g.kernel.push_back(weight.size(2 + i));
  }
  if (mode == PadMode::Explicit) {
    g.pad_l = expand_param(padding_in, nd, op, "padding");
    for (auto p : g.pad_l)
      TC_CHECK(p >= 0, op, ": padding must be non-negative, got ", shape_str(g.pad_l));
    g.pad_r = g.pad_l;
  } else if (mode == PadMode::Valid) {
    g.pad_l = g.pad_r = Shape(size_t(nd), 0);
  } else {
    for (int i = 0; i < nd; ++i)
      TC_CHECK(g.stride[i] == 1, op, ": padding='same' is not supported for strided convolutions");
    for (int i = 0; i < nd; ++i) {
      int64_t total = g.dilation[i] * (g.kernel[i] - 1);
      g.pad_l.push_back(total / 2);
      g.pad_r.push_back(total - total / 2);
    }
  }
  for (int i = 0; i < nd; ++i) {
    int64_t span = g.dilation[i] * (g.kernel[i] - 1) + 1;
    int64_t padded = g.input[i] + g.pad_l[i] + g.pad_r[i];
    TC_CHECK(padded >= span, op, ": input spatial size ", shape_str(g.input), " (padded by ",
             shape_str(g.pad_l), ") is smaller than the dilated kernel ", shape_str(g.kernel));
    g.output.push_back((padded - span) / g.stride[i] + 1);
  }
  if (epi && !a.unbatched) return apply_epilogue(x, weight, bias, g, *epi, residual_mode);
  Tensor y = conv_forward_op(x, weight, bias, g);
  if (a.unbatched) y = squeeze(y, 0);
  return epi ? epilogue_ops(y, *epi, residual_mode) : y;
}

// relu?(conv(x) + residual), in one pass where the CPU kernels can, else op by op (the same ops
// eager ran, so the same results on every device, dtype and with autograd).
Tensor apply_epilogue(const Tensor& x, const Tensor& weight, const Tensor& bias,
                      const ConvGeometry& g, const ConvEpilogue& epi, int64_t residual_mode) {
  const Tensor& r = epi.residual;
  // Writing into the residual while reading the input needs them apart (`x += conv(x)`).
  const bool fast =
      x.is_cpu() && !autograd::needs_grad({x, weight, bias, r}) &&
      (g.dtype == DType::Float32 || g.dtype == DType::BFloat16) &&
      (!r.defined() ||
       (r.is_cpu() && r.dtype() == g.dtype && r.sizes() == g.output_shape() &&
        (r.is_contiguous() || is_nhwc(r)) && !(epi.into_residual && r.storage() == x.storage())));
  if (fast) {
    // Named like the kernel-table calls (aten::conv_forward), which this path bypasses.
    profiler::RecordFunction span("aten::conv_forward_fused", profiler::EventType::Op);
    Tensor y = conv_forward_fused_cpu(x, weight, bias, g, epi);
    if (y.defined()) return y;
  }
  return epilogue_ops(conv_forward_op(x, weight, bias, g), epi, residual_mode);
}

// The add and ReLU a fused conv stands for, as separate ops on its output y.
Tensor epilogue_ops(Tensor y, const ConvEpilogue& epi, int64_t residual_mode) {
  const Tensor& r = epi.residual;
  if (r.defined()) {
    if (residual_mode == 0)
      y = add(y, r);
    else if (residual_mode == 1)
      y = add_(y, r);
    else {
      Tensor target = r;  // a handle on the residual's storage, updated in place
      y = add_(target, y);
    }
  }
  return epi.relu ? functional::relu(y, /*inplace=*/true) : y;
}

Tensor conv_transpose(const char* op, int nd, const Tensor& input_in, const Tensor& weight,
                      const Tensor& bias, const functional::IntList& stride_in,
                      const functional::IntList& padding_in,
                      const functional::IntList& output_padding_in, int64_t groups,
                      const functional::IntList& dilation_in) {
  TC_AUTOCAST(op, conv_transpose, op, nd, input_in, weight, bias, stride_in, padding_in,
              output_padding_in, groups, dilation_in);
  if (input_in.dtype() == DType::Float16)
    TC_REDUCED_FLOAT_VIA_FLOAT32(input_in, conv_transpose, op, nd, input_in, weight, bias,
                                 stride_in, padding_in, output_padding_in, groups, dilation_in);
  ConvArgs a = check_conv_inputs(op, nd, input_in, weight, bias);
  const Tensor& x = a.input;
  TC_CHECK(groups > 0, op, ": groups must be positive, got ", groups);
  TC_CHECK(weight.size(0) == x.size(1), op, ": expected input ", shape_str(x.sizes()), " to have ",
           weight.size(0), " channels (weight ", shape_str(weight.sizes()), "), but got ",
           x.size(1), " channels");
  TC_CHECK(weight.size(0) % groups == 0, op, ": in_channels (", weight.size(0),
           ") must be divisible by groups (", groups, ")");
  // The equivalent direct convolution maps the transposed output back to `input`.
  ConvGeometry g;
  g.nd = nd;
  g.dtype = x.dtype();
  g.batch = x.size(0);
  g.out_channels = x.size(1);
  g.in_channels = weight.size(1) * groups;
  g.groups = groups;
  g.stride = expand_param(stride_in, nd, op, "stride");
  g.dilation = expand_param(dilation_in, nd, op, "dilation");
  g.pad_l = expand_param(padding_in, nd, op, "padding");
  Shape out_pad = expand_param(output_padding_in, nd, op, "output_padding");
  if (bias.defined())
    TC_CHECK(bias.dim() == 1 && bias.size(0) == g.in_channels, op, ": expected bias of shape [",
             g.in_channels, "], got ", shape_str(bias.sizes()));
  for (int i = 0; i < nd; ++i) {
    TC_CHECK(g.stride[i] > 0 && g.dilation[i] > 0, op, ": stride and dilation must be positive");
    TC_CHECK(g.pad_l[i] >= 0, op, ": padding must be non-negative, got ", shape_str(g.pad_l));
    TC_CHECK(out_pad[i] >= 0 && (out_pad[i] < g.stride[i] || out_pad[i] < g.dilation[i]), op,
             ": output_padding must be smaller than stride or dilation, got output_padding ",
             shape_str(out_pad), " stride ", shape_str(g.stride), " dilation ",
             shape_str(g.dilation));
    g.kernel.push_back(weight.size(2 + i));
    g.output.push_back(x.size(2 + i));
    int64_t out = (x.size(2 + i) - 1) * g.stride[i] - 2 * g.pad_l[i] +
                  g.dilation[i] * (g.kernel[i] - 1) + out_pad[i] + 1;
    TC_CHECK(out > 0, op, ": computed output size ", out, " is not positive for input ",
             shape_str(x.sizes()));
    g.input.push_back(out);
    // Right padding that makes the direct convolution's output exactly the transposed input.
    int64_t span = g.dilation[i] * (g.kernel[i] - 1) + 1;
    g.pad_r.push_back((x.size(2 + i) - 1) * g.stride[i] + span - out - g.pad_l[i]);
  }
  Tensor y = conv_data_op(x, weight, g);
  if (bias.defined()) {
    Shape bshape(size_t(nd + 2), 1);
    bshape[1] = g.in_channels;
    y = add(y, reshape(bias, bshape));
  }
  return a.unbatched ? squeeze(y, 0) : y;
}

}  // namespace
}  // namespace detail

namespace functional {
using detail::PadMode;

#define TC_CONV_ND(name, nd)                                                                       \
  Tensor name(const Tensor& input, const Tensor& weight, const Tensor& bias,                       \
              const IntList& stride, const IntList& padding, const IntList& dilation,              \
              int64_t groups) {                                                                    \
    return detail::convolution(#name, nd, input, weight, bias, stride, padding, PadMode::Explicit, \
                               dilation, groups);                                                  \
  }                                                                                                \
  Tensor name(const Tensor& input, const Tensor& weight, const Tensor& bias,                       \
              const IntList& stride, const char* padding_c, const IntList& dilation,               \
              int64_t groups) {                                                                    \
    std::string padding(padding_c ? padding_c : "");                                               \
    TC_CHECK(padding == "same" || padding == "valid", #name,                                       \
             ": padding must be 'same', 'valid' or ints, got '", padding, "'");                    \
    return detail::convolution(#name, nd, input, weight, bias, stride, {0},                        \
                               padding == "same" ? PadMode::Same : PadMode::Valid, dilation,       \
                               groups);                                                            \
  }                                                                                                \
  Tensor conv_transpose##nd##d(const Tensor& input, const Tensor& weight, const Tensor& bias,      \
                               const IntList& stride, const IntList& padding,                      \
                               const IntList& output_padding, int64_t groups,                      \
                               const IntList& dilation) {                                          \
    return detail::conv_transpose("conv_transpose" #nd "d", nd, input, weight, bias, stride,       \
                                  padding, output_padding, groups, dilation);                      \
  }

TC_CONV_ND(conv1d, 1)
TC_CONV_ND(conv2d, 2)
TC_CONV_ND(conv3d, 3)
#undef TC_CONV_ND

Tensor conv_fused(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const IntList& stride, const IntList& padding, const IntList& dilation,
                  int64_t groups, const Tensor& residual, int64_t residual_mode, bool relu,
                  bool channels_last) {
  TC_CHECK(weight.defined() && weight.dim() >= 3 && weight.dim() <= 5,
           "conv_fused: expected a 3-d, 4-d or 5-d weight");
  TC_CHECK(residual_mode >= 0 && residual_mode <= 2,
           "conv_fused: residual_mode must be 0, 1 or 2, got ", residual_mode);
  TC_CHECK(residual.defined() || residual_mode == 0, "conv_fused: residual_mode ", residual_mode,
           " needs a residual");
  const int nd = int(weight.dim()) - 2;
  detail::ConvEpilogue epi{residual, residual_mode == 2, relu, channels_last};
  static const char* names[] = {"conv1d", "conv2d", "conv3d"};
  return detail::convolution(names[nd - 1], nd, input, weight, bias, stride, padding,
                             PadMode::Explicit, dilation, groups, &epi, residual_mode);
}

}  // namespace functional
}  // namespace tc::nn
