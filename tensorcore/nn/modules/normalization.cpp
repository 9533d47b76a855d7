#include "tensorcore/nn/modules/normalization.h"

#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {
namespace {
template <typename M>
ModulePtr finish(std::shared_ptr<M> c, const Module& src) {
  c->copy_state_from(src);
  return c;
}
}  // namespace

BatchNorm3dImpl::BatchNorm3dImpl(int64_t nf, double eps, double m, bool a, bool t)
    : BatchNormImpl("BatchNorm3d", nf, eps, m, a, t) {
  allowed_dims_ = {5};
}
ModulePtr BatchNorm3dImpl::clone() const {
  return finish(
      std::make_shared<BatchNorm3dImpl>(num_features, eps, momentum, affine, track_running_stats),
      *this);
}

SyncBatchNormImpl::SyncBatchNormImpl(int64_t nf, double eps, double m, bool a, bool t)
    : BatchNormImpl("SyncBatchNorm", nf, eps, m, a, t) {
  allowed_dims_ = {2, 3, 4, 5};
}
ModulePtr SyncBatchNormImpl::clone() const {
  return finish(
      std::make_shared<SyncBatchNormImpl>(num_features, eps, momentum, affine, track_running_stats),
      *this);
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
  TC_CHECK(nf > 0, name(), ": num_features must be positive, got ", nf);
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
  TC_CHECK(s > 0, "LocalResponseNorm: size must be positive, got ", s);
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
  return finish(std::make_shared<LocalResponseNormImpl>(size, alpha, beta, k), *this);
}

}  // namespace tc::nn
