// Normalization layers on CUDA tensors as compositions of core ops: each step is a CUDA kernel
// of the core (reductions, elementwise), and autograd, including double backward, comes from
// the core ops' vjps. float16/bfloat16 inputs compute in float32 and round the result once.
// Also the device checks the nn front ends use.
#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/cudnn/cudnn_nn.h"
#include "tensorcore/nn/cuda_composites.h"
#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn::detail {
namespace {

bool is_reduced(DType d) { return d == DType::Float16 || d == DType::BFloat16; }

// The compute dtype for an input: float32 for 16-bit floats, else the input's own.
DType compute_dtype(DType d) { return is_reduced(d) ? DType::Float32 : d; }

Tensor as_compute(const Tensor& t, DType compute) { return t.defined() ? to_dtype(t, compute) : t; }

// Per-channel [C] tensor viewed as [1, C, 1, ...] for an input of `dims` dims.
Tensor channel_view(const Tensor& t, int64_t dims) {
  Shape s(size_t(dims), 1);
  s[1] = t.numel();
  return reshape(t, s);
}

// y = x * scale + shift, with scale/shift broadcasting (fewer full-size passes than
// ((x - mean) * rstd) * w + b).
Tensor affine(const Tensor& x, const Tensor& scale, const Tensor& shift) {
  return add(mul(x, scale), shift);
}

}  // namespace

void update_running_stat(const Tensor& stat, const Tensor& value, double momentum) {
  autograd::NoGradGuard no_grad;
  Tensor blended =
      add(mul(to_dtype(stat, value.dtype()), Scalar(1 - momentum)), mul(value, Scalar(momentum)));
  copy_(stat, blended);  // copy_ converts the dtype and bumps the version counter
}

TensorList batch_norm_backward_formula(const Tensor& grad_out, const Tensor& x_in,
                                       const Tensor& weight, const Tensor& running_mean,
                                       const Tensor& running_var, bool training, double eps,
                                       bool need_input, bool need_weight, bool need_bias) {
  const int64_t dims = x_in.dim();
  DType compute = compute_dtype(x_in.dtype());
  Tensor x = as_compute(x_in, compute), gy = as_compute(grad_out, compute);
  DimList stat_dims = {0};
  for (int64_t d = 2; d < dims; ++d) stat_dims.push_back(d);
  Tensor mu, rstd;
  if (training) {
    mu = mean(x, stat_dims, true);
    rstd = rsqrt(add(var(x, stat_dims, /*correction=*/0, true), Scalar(eps)));
  } else {
    mu = channel_view(as_compute(running_mean, compute), dims);
    rstd = rsqrt(add(channel_view(as_compute(running_var, compute), dims), Scalar(eps)));
  }
  Tensor xhat = mul(sub(x, mu), rstd);
  Tensor gx, gw, gb;
  if (need_input) {
    Tensor gyw = weight.defined() ? mul(gy, channel_view(as_compute(weight, compute), dims)) : gy;
    if (training)
      gx = mul(rstd, sub(sub(gyw, mean(gyw, stat_dims, true)),
                         mul(xhat, mean(mul(gyw, xhat), stat_dims, true))));
    else
      gx = mul(gyw, rstd);
    gx = to_dtype(gx, x_in.dtype());
  }
  if (need_weight) gw = to_dtype(sum(mul(gy, xhat), stat_dims), weight.dtype());
  if (need_bias) gb = sum(gy, stat_dims);
  return {gx, gw, gb};
}

Tensor batch_norm_cuda(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight, const Tensor& bias, bool training, double momentum,
                       double eps) {
  Tensor fused =
      batch_norm_cudnn(input, running_mean, running_var, weight, bias, training, momentum, eps);
  if (fused.defined()) return fused;
  const int64_t dims = input.dim(), C = input.size(1);
  DType compute = compute_dtype(input.dtype());
  Tensor x = as_compute(input, compute);
  DimList stat_dims = {0};
  for (int64_t d = 2; d < dims; ++d) stat_dims.push_back(d);
  Tensor mu, var_b;  // [1, C, 1, ...]
  if (training) {
    mu = mean(x, stat_dims, true);
    var_b = var(x, stat_dims, /*correction=*/0, true);
    int64_t M = C ? input.numel() / C : 0;
    if (running_mean.defined())
      update_running_stat(running_mean, reshape(mu.detach(), {C}), momentum);
    if (running_var.defined()) {
      Tensor unbiased = mul(reshape(var_b.detach(), {C}), Scalar(double(M) / double(M - 1)));
      update_running_stat(running_var, unbiased, momentum);
    }
  } else {
    mu = channel_view(as_compute(running_mean, compute), dims);
    var_b = channel_view(as_compute(running_var, compute), dims);
  }
  Tensor scale = rsqrt(add(var_b, Scalar(eps)));
  if (weight.defined()) scale = mul(scale, channel_view(as_compute(weight, compute), dims));
  Tensor shift = mul(mu, scale);
  shift = bias.defined() ? sub(channel_view(as_compute(bias, compute), dims), shift) : neg(shift);
  Tensor y = affine(x, scale, shift);
  return to_dtype(y, input.dtype());
}

Tensor layer_norm_cuda(const Tensor& input, int64_t normalized_dims, const Tensor& weight,
                       const Tensor& bias, double eps) {
  DType compute = compute_dtype(input.dtype());
  Tensor x = as_compute(input, compute);
  DimList dims;
  for (int64_t d = input.dim() - normalized_dims; d < input.dim(); ++d) dims.push_back(d);
  Tensor mu = mean(x, dims, true);
  Tensor rstd = rsqrt(add(var(x, dims, /*correction=*/0, true), Scalar(eps)));
  Tensor y = affine(x, rstd, neg(mul(mu, rstd)));
  if (weight.defined()) y = mul(y, as_compute(weight, compute));
  if (bias.defined()) y = add(y, as_compute(bias, compute));
  return to_dtype(y, input.dtype());
}

Tensor group_norm_cuda(const Tensor& input, int64_t num_groups, const Tensor& weight,
                       const Tensor& bias, double eps) {
  DType compute = compute_dtype(input.dtype());
  Tensor x = as_compute(input, compute);
  const int64_t N = input.size(0), dims = input.dim();
  Tensor xg = reshape(x, {N, num_groups, -1});
  Tensor mu = mean(xg, {2}, true);
  Tensor rstd = rsqrt(add(var(xg, {2}, /*correction=*/0, true), Scalar(eps)));
  Tensor y = reshape(affine(xg, rstd, neg(mul(mu, rstd))), input.sizes());
  if (weight.defined()) y = mul(y, channel_view(as_compute(weight, compute), dims));
  if (bias.defined()) y = add(y, channel_view(as_compute(bias, compute), dims));
  return to_dtype(y, input.dtype());
}

void require_same_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!t->defined()) continue;
    if (!first) {
      first = t;
      continue;
    }
    TC_CHECK(t->device() == first->device(), op,
             ": expected all tensors to be on the same device, but found ", first->device().str(),
             " and ", t->device().str());
  }
}

// The CUDA kernels of these ops (device_kernels.h): a build without CUDA registers none.
#ifdef TC_WITH_CUDA
TC_REGISTER_KERNEL(batch_norm_kernel, CUDA, batch_norm_cuda);
TC_REGISTER_KERNEL(layer_norm_kernel, CUDA, layer_norm_cuda);
TC_REGISTER_KERNEL(group_norm_kernel, CUDA, group_norm_cuda);
#endif

}  // namespace tc::nn::detail
