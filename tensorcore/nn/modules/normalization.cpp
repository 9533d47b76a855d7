#include "tensorcore/nn/modules/normalization.h"

#include <algorithm>
#include <ostream>

#include "tensorcore/autograd/function.h"
#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/distributed/process_group.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/module_args.h"
#include "tensorcore/nn/modules/rules.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/options.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::nn {

using namespace detail;

// ---- BatchNorm ----
BatchNormImpl::BatchNormImpl(std::string type, int64_t nf, double eps, double momentum, bool affine,
                             bool track)
    : Module(std::move(type)),
      num_features(nf),
      eps(eps),
      momentum(momentum),
      affine(affine),
      track_running_stats(track) {
  check_norm_options(name(), nf);
  weight = register_parameter("weight", affine ? ones({nf}) : Tensor());
  bias = register_parameter("bias", affine ? zeros({nf}) : Tensor());
  if (track) {
    running_mean = register_buffer("running_mean", zeros({nf}));
    running_var = register_buffer("running_var", ones({nf}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, DType::Int64));
  }
}

void BatchNormImpl::reset_running_stats() {
  if (!track_running_stats) return;
  autograd::NoGradGuard g;
  zero_(running_mean);
  fill_(running_var, 1);
  zero_(num_batches_tracked);
}

Tensor BatchNormImpl::forward(const Tensor& x) {
  bool dim_ok = false;
  for (auto d : allowed_dims_) dim_ok |= x.dim() == d;
  if (!dim_ok || x.size(1) != num_features) {
    static const char* layouts[] = {
        "", "", "[N, C]", "[N, C, L]", "[N, C, H, W]", "[N, C, D, H, W]"};
    std::string expect;
    for (auto d : allowed_dims_) expect += std::string(expect.empty() ? "" : " or ") + layouts[d];
    TC_CHECK(false, name(), ": expected input of shape ", expect, " with C = ", num_features,
             ", but got input of size ", shape_str(x.sizes()));
  }
  double factor = momentum < 0 ? 0.0 : momentum;
  if (training_ && track_running_stats) {
    autograd::NoGradGuard g;
    Tensor nbt = num_batches_tracked;
    add_(nbt, 1);
    if (momentum < 0) factor = 1.0 / double(num_batches_tracked.item<int64_t>());
  }
  bool use_batch_stats = training_ || !track_running_stats;
  return functional::batch_norm(x, use_batch_stats && !training_ ? Tensor() : running_mean,
                                use_batch_stats && !training_ ? Tensor() : running_var, weight,
                                bias, use_batch_stats, factor, eps);
}

void BatchNormImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << num_features << ", eps=" << eps << ", momentum=" << momentum
     << ", affine=" << (affine ? "true" : "false")
     << ", track_running_stats=" << (track_running_stats ? "true" : "false") << ")";
}

BatchNorm1dImpl::BatchNorm1dImpl(int64_t nf, double eps, double m, bool a, bool t)
    : BatchNormImpl("BatchNorm1d", nf, eps, m, a, t) {
  allowed_dims_ = {2, 3};
}

BatchNorm2dImpl::BatchNorm2dImpl(int64_t nf, double eps, double m, bool a, bool t)
    : BatchNormImpl("BatchNorm2d", nf, eps, m, a, t) {
  allowed_dims_ = {4};
}

// ---- LayerNorm / GroupNorm ----
LayerNormImpl::LayerNormImpl(IntList shape, double eps, bool affine)
    : Module("LayerNorm"), normalized_shape(std::move(shape)), eps(eps) {
  weight = register_parameter("weight", affine ? ones(normalized_shape) : Tensor());
  bias = register_parameter("bias", affine ? zeros(normalized_shape) : Tensor());
}

Tensor LayerNormImpl::forward(const Tensor& x) {
  return functional::layer_norm(x, normalized_shape, weight, bias, eps);
}

void LayerNormImpl::pretty_print(std::ostream& os) const {
  os << "LayerNorm(" << shape_str(normalized_shape) << ", eps=" << eps
     << ", elementwise_affine=" << (weight.defined() ? "true" : "false") << ")";
}

GroupNormImpl::GroupNormImpl(int64_t g, int64_t c, double eps, bool affine)
    : Module("GroupNorm"), num_groups(g), num_channels(c), eps(eps) {
  check_group_norm_options(g, c);
  weight = register_parameter("weight", affine ? ones({c}) : Tensor());
  bias = register_parameter("bias", affine ? zeros({c}) : Tensor());
}

Tensor GroupNormImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() >= 2 && x.size(1) == num_channels, "GroupNorm: expected input of shape [N, ",
           num_channels, ", *], but got input of size ", shape_str(x.sizes()));
  return functional::group_norm(x, num_groups, weight, bias, eps);
}

void GroupNormImpl::pretty_print(std::ostream& os) const {
  os << "GroupNorm(" << num_groups << ", " << num_channels << ", eps=" << eps
     << ", affine=" << (weight.defined() ? "true" : "false") << ")";
}

BatchNorm3dImpl::BatchNorm3dImpl(int64_t nf, double eps, double m, bool a, bool t)
    : BatchNormImpl("BatchNorm3d", nf, eps, m, a, t) {
  allowed_dims_ = {5};
}

ModulePtr BatchNorm3dImpl::clone() const {
  return with_state_of(
      std::make_shared<BatchNorm3dImpl>(num_features, eps, momentum, affine, track_running_stats),
      *this);
}

SyncBatchNormImpl::SyncBatchNormImpl(int64_t nf, double eps, double m, bool a, bool t)
    : BatchNormImpl("SyncBatchNorm", nf, eps, m, a, t) {
  allowed_dims_ = {2, 3, 4, 5};
}

ModulePtr SyncBatchNormImpl::clone() const {
  auto copy =
      std::make_shared<SyncBatchNormImpl>(num_features, eps, momentum, affine, track_running_stats);
  copy->process_group = process_group;
  return with_state_of(copy, *this);
}

Tensor SyncBatchNormImpl::forward(const Tensor& x) {
  if (!training_ || !process_group || process_group->size() <= 1) return BatchNormImpl::forward(x);
  TC_CHECK(x.dim() >= 2 && x.dim() <= 5 && x.size(1) == num_features,
           "SyncBatchNorm: expected input of shape [N, C, *] with C = ", num_features,
           ", but got input of size ", shape_str(x.sizes()));
  auto pg = process_group;
  int64_t channels = num_features;
  DimList dims{0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  Shape shape(size_t(x.dim()), 1);
  shape[1] = channels;
  Tensor out, xhat, invstd_x;
  double total = 0;
  {
    autograd::NoGradGuard no_grad;
    Tensor x64 = to_dtype(x, DType::Float64);
    double count = double(x.numel() / channels);
    Tensor stats = cat({sum(x64, dims), sum(mul(x64, x64), dims),
                        full({1}, Scalar(count), TensorOptions(DType::Float64))});
    pg->allreduce({stats}, distributed::ReduceOp::SUM)->wait();
    total = stats.data<double>()[2 * channels];
    Tensor mean = div(narrow(stats, 0, 0, channels), Scalar(total));
    Tensor var =
        clamp(sub(div(narrow(stats, 0, channels, channels), Scalar(total)), mul(mean, mean)),
              Scalar(0.0), std::nullopt);
    double factor = momentum < 0 ? 0.0 : momentum;
    if (track_running_stats) {
      Tensor nbt = num_batches_tracked;
      add_(nbt, 1);
      if (momentum < 0) factor = 1.0 / double(num_batches_tracked.item<int64_t>());
      Tensor rm = running_mean, rv = running_var;
      mul_(rm, Scalar(1 - factor));
      add_(rm, to_dtype(mul(mean, Scalar(factor)), rm.dtype()));
      mul_(rv, Scalar(1 - factor));
      add_(rv, to_dtype(mul(var, Scalar(factor * total / std::max(total - 1, 1.0))), rv.dtype()));
    }
    Tensor invstd = rsqrt(add(var, Scalar(eps)));
    xhat = to_dtype(mul(sub(x64, reshape(mean, shape)), reshape(invstd, shape)), x.dtype());
    invstd_x = to_dtype(invstd, x.dtype());
    out = affine ? add(mul(xhat, reshape(weight, shape)), reshape(bias, shape)) : tc::clone(xhat);
  }
  TensorList inputs{x};
  if (affine) inputs.insert(inputs.end(), {weight, bias});
  if (autograd::needs_grad(inputs)) {
    bool has_affine = affine;
    autograd::record(
        "SyncBatchNormBackward", inputs, {out}, {xhat, invstd_x, has_affine ? weight : Tensor()},
        [pg, dims, shape, channels, total, has_affine](const TensorList& saved,
                                                       const TensorList& grads) -> TensorList {
          const Tensor &xh = saved[0], &inv = saved[1], &w = saved[2];
          const Tensor& dy = grads[0];
          Tensor sum_dy = sum(dy, dims), sum_dy_xhat = sum(mul(dy, xh), dims);
          // Weight/bias gradients stay local (DDP averages them); the input gradient needs the
          // sums over the global batch.
          Tensor both = cat({sum_dy, sum_dy_xhat});
          pg->allreduce({both}, distributed::ReduceOp::SUM)->wait();
          Tensor mean_dy = reshape(div(narrow(both, 0, 0, channels), Scalar(total)), shape);
          Tensor mean_dy_xhat =
              reshape(div(narrow(both, 0, channels, channels), Scalar(total)), shape);
          Tensor scale = reshape(inv, shape);
          if (has_affine) scale = mul(scale, reshape(w, shape));
          Tensor gx = mul(scale, sub(sub(dy, mean_dy), mul(xh, mean_dy_xhat)));
          if (!has_affine) return {gx};
          return {gx, sum_dy_xhat, sum_dy};
        });
  }
  return out;
}

InstanceNormImpl::InstanceNormImpl(std::string type, int n, int64_t nf, double e, double m, bool a,
                                   bool t)
    : Module(std::move(type)),
      spatial(n),
      num_features(nf),
      eps(e),
      momentum(m),
      affine(a),
      track_running_stats(t) {
  check_norm_options(name(), nf);
  weight = register_parameter("weight", a ? ones({nf}) : Tensor());
  bias = register_parameter("bias", a ? zeros({nf}) : Tensor());
  if (t) {
    running_mean = register_buffer("running_mean", zeros({nf}));
    running_var = register_buffer("running_var", ones({nf}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, DType::Int64));
  }
}

Tensor InstanceNormImpl::forward(const Tensor& x) {
  const bool ok_rank = x.dim() == spatial + 1 || x.dim() == spatial + 2;
  TC_CHECK(ok_rank && x.size(x.dim() - spatial - 1) == num_features, name(),
           ": expected input of shape [N, ", num_features, ", *] or [", num_features, ", *] with ",
           spatial, " spatial dims, but got input of size ", shape_str(x.sizes()));
  const bool unbatched = x.dim() == spatial + 1;
  Tensor in = unbatched ? unsqueeze(x, 0) : x;
  // torch's instance norms never advance num_batches_tracked (the buffer only exists for
  // state_dict compatibility with batch norm).
  const bool use_input_stats = training_ || !track_running_stats;
  Tensor y = functional::instance_norm(in, running_mean, running_var, weight, bias, use_input_stats,
                                       momentum, eps);
  return unbatched ? squeeze(y, 0) : y;
}

void InstanceNormImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << num_features << ", eps=" << eps << ", momentum=" << momentum
     << ", affine=" << (affine ? "true" : "false")
     << ", track_running_stats=" << (track_running_stats ? "true" : "false") << ")";
}

ModulePtr InstanceNormImpl::clone() const {
  ModulePtr c;
  if (spatial == 1)
    c = std::make_shared<InstanceNorm1dImpl>(num_features, eps, momentum, affine,
                                             track_running_stats);
  else if (spatial == 2)
    c = std::make_shared<InstanceNorm2dImpl>(num_features, eps, momentum, affine,
                                             track_running_stats);
  else
    c = std::make_shared<InstanceNorm3dImpl>(num_features, eps, momentum, affine,
                                             track_running_stats);
  c->copy_state_from(*this);
  return c;
}

LocalResponseNormImpl::LocalResponseNormImpl(int64_t s, double a, double b, double kk)
    : Module("LocalResponseNorm"), size(s), alpha(a), beta(b), k(kk) {
  check_local_response_norm_options(name(), s);
}

Tensor LocalResponseNormImpl::forward(const Tensor& x) {
  TC_CHECK(x.dim() >= 3,
           "LocalResponseNorm: expected an input of shape [N, C, *] with at least 3 dims, but got ",
           "input of size ", shape_str(x.sizes()));
  return functional::local_response_norm(x, size, alpha, beta, k);
}

void LocalResponseNormImpl::pretty_print(std::ostream& os) const {
  os << "LocalResponseNorm(" << size << ", alpha=" << alpha << ", beta=" << beta << ", k=" << k
     << ")";
}

ModulePtr LocalResponseNormImpl::clone() const {
  return with_state_of(std::make_shared<LocalResponseNormImpl>(size, alpha, beta, k), *this);
}

ModulePtr BatchNorm1dImpl::clone() const {
  return with_state_of(
      std::make_shared<BatchNorm1dImpl>(num_features, eps, momentum, affine, track_running_stats),
      *this);
}

ModulePtr BatchNorm2dImpl::clone() const {
  return with_state_of(
      std::make_shared<BatchNorm2dImpl>(num_features, eps, momentum, affine, track_running_stats),
      *this);
}

ModulePtr LayerNormImpl::clone() const {
  return with_state_of(std::make_shared<LayerNormImpl>(normalized_shape, eps, weight.defined()),
                       *this);
}

ModulePtr GroupNormImpl::clone() const {
  return with_state_of(
      std::make_shared<GroupNormImpl>(num_groups, num_channels, eps, weight.defined()), *this);
}

}  // namespace tc::nn
