#pragma once
// Normalization layers (torch.nn.modules.normalization / batchnorm / instancenorm):
// BatchNorm1d/2d/3d, SyncBatchNorm (batch norm over the local batch until a process group is
// given), InstanceNorm1d/2d/3d, LayerNorm, GroupNorm, LocalResponseNorm, with torch's parameter
// and buffer names.
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::distributed {
class ProcessGroup;
}

namespace tc::nn {

using IntList = std::vector<int64_t>;

// BatchNorm over [N, C] / [N, C, L] (1d) or [N, C, H, W] (2d). Buffers running_mean,
// running_var, num_batches_tracked; momentum < 0 means a cumulative average (torch's None).
class BatchNormImpl : public Module {
 public:
  BatchNormImpl(std::string type, int64_t num_features, double eps, double momentum, bool affine,
                bool track_running_stats);
  Tensor forward(const Tensor& x);
  void reset_running_stats();
  void pretty_print(std::ostream& os) const override;
  int64_t num_features;
  double eps, momentum;
  bool affine, track_running_stats;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 protected:
  std::vector<int64_t> allowed_dims_;
};
class BatchNorm1dImpl : public BatchNormImpl {
 public:
  ModulePtr clone() const override;
  explicit BatchNorm1dImpl(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                           bool affine = true, bool track_running_stats = true);
};
TC_MODULE(BatchNorm1d);
class BatchNorm2dImpl : public BatchNormImpl {
 public:
  ModulePtr clone() const override;
  explicit BatchNorm2dImpl(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                           bool affine = true, bool track_running_stats = true);
};
TC_MODULE(BatchNorm2d);

class LayerNormImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit LayerNormImpl(IntList normalized_shape, double eps = 1e-5,
                         bool elementwise_affine = true);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  IntList normalized_shape;
  double eps;
  Tensor weight, bias;
};
TC_MODULE(LayerNorm);

class GroupNormImpl : public Module {
 public:
  ModulePtr clone() const override;
  GroupNormImpl(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int64_t num_groups, num_channels;
  double eps;
  Tensor weight, bias;
};
TC_MODULE(GroupNorm);

class BatchNorm3dImpl : public BatchNormImpl {
 public:
  ModulePtr clone() const override;
  explicit BatchNorm3dImpl(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                           bool affine = true, bool track_running_stats = true);
};
TC_MODULE(BatchNorm3d);

// Batch norm over the batches of every rank of `process_group` (set it before training): in
// training mode the per-channel sums are all-reduced in forward and the two gradient sums in
// backward, as tensorcore.nn.SyncBatchNorm does. Without a group (or of size 1), or in eval mode,
// it is BatchNorm. Inputs [N, C, *] of 2 to 5 dims.
class SyncBatchNormImpl : public BatchNormImpl {
 public:
  ModulePtr clone() const override;
  explicit SyncBatchNormImpl(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                             bool affine = true, bool track_running_stats = true);
  Tensor forward(const Tensor& x);
  std::shared_ptr<distributed::ProcessGroup> process_group;
};
TC_MODULE(SyncBatchNorm);

// Per-sample, per-channel normalization; torch's defaults affine=false, track_running_stats=false.
// Inputs [N, C, *spatial] or unbatched [C, *spatial].
class InstanceNormImpl : public Module {
 public:
  InstanceNormImpl(std::string type, int spatial, int64_t num_features, double eps, double momentum,
                   bool affine, bool track_running_stats);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int spatial;
  int64_t num_features;
  double eps, momentum;
  bool affine, track_running_stats;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};
#define TC_INSTANCE_NORM(Name, N)                                                                 \
  class Name##Impl : public InstanceNormImpl {                                                    \
   public:                                                                                        \
    explicit Name##Impl(int64_t num_features, double eps = 1e-5, double momentum = 0.1,           \
                        bool affine = false, bool track_running_stats = false)                    \
        : InstanceNormImpl(#Name, N, num_features, eps, momentum, affine, track_running_stats) {} \
  };                                                                                              \
  TC_MODULE(Name)
TC_INSTANCE_NORM(InstanceNorm1d, 1);
TC_INSTANCE_NORM(InstanceNorm2d, 2);
TC_INSTANCE_NORM(InstanceNorm3d, 3);
#undef TC_INSTANCE_NORM

// Normalizes each element by the sum of squares over `size` neighbouring channels.
class LocalResponseNormImpl : public Module {
 public:
  explicit LocalResponseNormImpl(int64_t size, double alpha = 1e-4, double beta = 0.75,
                                 double k = 1.0);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int64_t size;
  double alpha, beta, k;
};
TC_MODULE(LocalResponseNorm);

}  // namespace tc::nn
