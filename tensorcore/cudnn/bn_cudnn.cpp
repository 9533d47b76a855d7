// Batch norm on CUDA through cuDNN's batch-normalization API (spatial mode: statistics per
// channel over N and the spatial dims). Forward training and inference and the training
// backward are cuDNN calls; the running stats are updated here from cuDNN's saved batch mean and
// inverse std (unbiased variance, momentum, as torch), so their convention does not depend on
// cuDNN's. Under create_graph, and for the eval-mode backward, the gradients come from
// batch_norm_backward_formula (core ops, differentiable again).
#include "tensorcore/cudnn/cudnn.h"
#include "tensorcore/cudnn/cudnn_nn.h"
#include "tensorcore/nn/cuda_composites.h"

#ifdef TC_WITH_CUDNN
#include <climits>

#include "tensorcore/autograd/function.h"
#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/cudnn/cudnn_utils.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {
namespace {

using cudnn::detail::check;

constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL;

// Descriptors of x (as N, C, H, W[, D]: 2-d and 3-d inputs get trailing 1s) and of the
// per-channel parameters (derived by cuDNN: float, or double for double data).
struct BnDescs {
  cudnn::detail::TensorDesc x, param;
};

BnDescs make_bn_descs(const Tensor& x, const std::string& ctx) {
  Shape sizes = x.sizes();
  while (sizes.size() < 4) sizes.push_back(1);
  BnDescs d;
  d.x = cudnn::detail::make_tensor_desc(cudnn::detail::data_type(x.dtype(), "batch_norm"), sizes,
                                        contiguous_strides(sizes), ctx);
  cudnnTensorDescriptor_t raw = nullptr;
  check(cudnnCreateTensorDescriptor(&raw), "cudnnCreateTensorDescriptor", ctx);
  d.param.reset(raw);
  check(cudnnDeriveBNTensorDescriptor(raw, d.x.get(), kMode), "cudnnDeriveBNTensorDescriptor", ctx);
  return d;
}

DType param_dtype(DType x) { return x == DType::Float64 ? DType::Float64 : DType::Float32; }

// A [C] parameter in the parameter dtype, contiguous (or `fill` when undefined).
Tensor param_or(const Tensor& t, int64_t C, DType dt, const Device& dev, double fill) {
  if (!t.defined()) return full({C}, Scalar(fill), TensorOptions(dt).device(dev));
  return contiguous(to_dtype(t.detach(), dt));
}

struct Scalars {
  float one_f = 1, zero_f = 0;
  double one_d = 1, zero_d = 0;
  bool dbl;
  explicit Scalars(DType dt) : dbl(dt == DType::Float64) {}
  const void* one() const { return dbl ? static_cast<const void*>(&one_d) : &one_f; }
  const void* zero() const { return dbl ? static_cast<const void*>(&zero_d) : &zero_f; }
};

}  // namespace

Tensor batch_norm_cudnn(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                        const Tensor& weight, const Tensor& bias, bool training, double momentum,
                        double eps) {
  if (!cudnn::enabled() || !input.is_cuda() || input.dim() < 2 || input.dim() > 5 ||
      input.numel() == 0 || input.numel() > INT_MAX || eps < CUDNN_BN_MIN_EPSILON ||
      running_mean.defined() != running_var.defined())
    return Tensor();
  const int64_t C = input.size(1);
  const int dev = input.device().index < 0 ? cuda::current_device() : input.device().index;
  cuda::DeviceGuard guard(dev);
  const std::string ctx = "batch_norm on CUDA (cuDNN; input " + shape_str(input.sizes()) + ", " +
                          dtype_name(input.dtype()) + ")";
  DType pdt = param_dtype(input.dtype());
  Device device = input.device();
  Tensor x = contiguous(input.detach());
  Tensor w = param_or(weight, C, pdt, device, 1.0), b = param_or(bias, C, pdt, device, 0.0);
  Tensor y = empty(x.sizes(), TensorOptions(x.dtype()).device(device));
  BnDescs d = make_bn_descs(x, ctx);
  cudnnHandle_t h = cudnn::detail::handle(dev, cuda::stream_of(dev));
  Scalars sc(x.dtype());
  Tensor save_mean, save_invstd, rm_saved, rv_saved;
  if (training) {
    save_mean = empty({C}, TensorOptions(pdt).device(device));
    save_invstd = empty({C}, TensorOptions(pdt).device(device));
    // Running stats are left to us (nullptr): updated below from the saved batch statistics.
    check(cudnnBatchNormalizationForwardTraining(
              h, kMode, sc.one(), sc.zero(), d.x.get(), x.data_ptr(), d.x.get(), y.data_ptr(),
              d.param.get(), w.data_ptr(), b.data_ptr(), 0.0, nullptr, nullptr, eps,
              save_mean.data_ptr(), save_invstd.data_ptr()),
          "cudnnBatchNormalizationForwardTraining", ctx);
    if (running_mean.defined()) {
      const int64_t M = input.numel() / C;
      autograd::NoGradGuard no_grad;
      // biased var = 1 / invstd^2 - eps; the running variance is the unbiased one.
      Tensor var_b = sub(reciprocal(mul(save_invstd, save_invstd)), Scalar(eps));
      update_running_stat(running_mean, save_mean, momentum);
      update_running_stat(running_var, mul(var_b, Scalar(double(M) / double(M - 1))), momentum);
    }
  } else {
    rm_saved = contiguous(to_dtype(running_mean.detach(), pdt, /*copy=*/true));
    rv_saved = contiguous(to_dtype(running_var.detach(), pdt, /*copy=*/true));
    check(cudnnBatchNormalizationForwardInference(h, kMode, sc.one(), sc.zero(), d.x.get(),
                                                  x.data_ptr(), d.x.get(), y.data_ptr(),
                                                  d.param.get(), w.data_ptr(), b.data_ptr(),
                                                  rm_saved.data_ptr(), rv_saved.data_ptr(), eps),
          "cudnnBatchNormalizationForwardInference", ctx);
  }
  if (autograd::needs_grad({input, weight, bias})) {
    bool need_x = input.requires_grad(), need_w = weight.defined() && weight.requires_grad();
    bool need_b = bias.defined() && bias.requires_grad();
    DType w_dtype = weight.defined() ? weight.dtype() : pdt,
          b_dtype = bias.defined() ? bias.dtype() : pdt;
    TensorList saved = training ? TensorList{input, weight, save_mean, save_invstd}
                                : TensorList{input, weight, rm_saved, rv_saved};
    autograd::record("CudnnBatchNormBackward0", {input, weight, bias}, {y}, saved,
                     [training, eps, need_x, need_w, need_b, w_dtype, b_dtype, dev, ctx](
                         const TensorList& s, const TensorList& gr) -> TensorList {
                       if (autograd::grad_enabled() || !training) {
                         TensorList r = batch_norm_backward_formula(
                             gr[0], s[0], s[1], s[2], s[3], training, eps, need_x, need_w, need_b);
                         if (need_b) r[2] = to_dtype(r[2], b_dtype);
                         return r;
                       }
                       cuda::DeviceGuard guard(dev);
                       Tensor xs = contiguous(s[0].detach()), gy = contiguous(gr[0].detach());
                       const int64_t C = xs.size(1);
                       DType pdt = param_dtype(xs.dtype());
                       Tensor w = param_or(s[1], C, pdt, xs.device(), 1.0);
                       Tensor gx = empty(xs.sizes(), TensorOptions(xs.dtype()).device(xs.device()));
                       Tensor gw = empty({C}, TensorOptions(pdt).device(xs.device()));
                       Tensor gb = empty({C}, TensorOptions(pdt).device(xs.device()));
                       BnDescs d = make_bn_descs(xs, ctx);
                       Scalars sc(xs.dtype());
                       check(
                           cudnnBatchNormalizationBackward(
                               cudnn::detail::handle(dev, cuda::stream_of(dev)), kMode, sc.one(),
                               sc.zero(), sc.one(), sc.zero(), d.x.get(), xs.data_ptr(), d.x.get(),
                               gy.data_ptr(), d.x.get(), gx.data_ptr(), d.param.get(), w.data_ptr(),
                               gw.data_ptr(), gb.data_ptr(), eps, s[2].data_ptr(), s[3].data_ptr()),
                           "cudnnBatchNormalizationBackward", ctx);
                       return {need_x ? gx : Tensor(), need_w ? to_dtype(gw, w_dtype) : Tensor(),
                               need_b ? to_dtype(gb, b_dtype) : Tensor()};
                     });
  }
  return y;
}

}  // namespace tc::nn::detail

#else  // no cuDNN: batch norm on CUDA always uses the composition

namespace tc::nn::detail {
Tensor batch_norm_cudnn(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                        bool, double, double) {
  return Tensor();
}
}  // namespace tc::nn::detail

#endif
