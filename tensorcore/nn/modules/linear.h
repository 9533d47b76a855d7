#pragma once
// Layers of the C++ frontend over tc::nn::functional and the core ops. Parameter/buffer names,
// shapes and default initialization follow torch.nn (weights kaiming_uniform_(a=sqrt(5)), biases
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)), norms ones/zeros), so state_dicts interchange with Python.
// Each FooImpl has a FooImpl::forward; `Foo` is its shared handle (TC_MODULE).
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

class LinearImpl : public Module {
 public:
  ModulePtr clone() const override;
  LinearImpl(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x);
  void reset_parameters();
  void pretty_print(std::ostream& os) const override;
  int64_t in_features, out_features;
  Tensor weight, bias;
};
TC_MODULE(Linear);

// String paddings of the direct convolutions (torch's padding='same' / 'valid').
enum class ConvPadding { Same, Valid };
inline constexpr ConvPadding kSame = ConvPadding::Same;
inline constexpr ConvPadding kValid = ConvPadding::Valid;
inline const char* conv_padding_name(ConvPadding p) {
  return p == ConvPadding::Same ? "same" : "valid";
}

// Base of Conv1d/2d/3d and ConvTranspose1d/2d/3d. padding is numbers, or (direct convolutions)
// kSame (stride 1 only; an odd total puts the extra element at the end) or kValid;
// padding_mode "zeros" | "reflect" | "replicate" | "circular" (direct convolutions only: the
// input is padded by functional::pad, then convolved without padding, as torch).
class ConvNdImpl : public Module {
 public:
  ConvNdImpl(std::string type, int spatial, int64_t in_channels, int64_t out_channels,
             IntList kernel_size, IntList stride, IntList padding, IntList dilation, int64_t groups,
             bool bias, bool transposed, IntList output_padding, std::string padding_mode = "zeros",
             std::string padding_string = "");
  void reset_parameters();
  void pretty_print(std::ostream& os) const override;
  int spatial;
  int64_t in_channels, out_channels, groups;
  IntList kernel_size, stride, padding, dilation, output_padding;
  bool transposed;
  std::string padding_mode;    // "zeros" | "reflect" | "replicate" | "circular"
  std::string padding_string;  // "" (numeric padding) | "same" | "valid"
  Tensor weight, bias;

 protected:
  void check_input(const Tensor& x) const;
  // check_input, then the functional convolution of this layer's rank with its padding rules.
  // Transposed convolutions: a non-empty output_size (spatial sizes, or the full shape) picks
  // output_padding as torch's forward(input, output_size) does.
  Tensor run(const Tensor& x, const IntList& output_size = {}) const;
  // Copies padding_mode / padding_string into a clone built from the numeric constructor.
  ModulePtr finish_clone(std::shared_ptr<ConvNdImpl> copy) const;
};

class Conv1dImpl : public ConvNdImpl {
 public:
  ModulePtr clone() const override;
  Conv1dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride = {1},
             IntList padding = {0}, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  // padding kSame or kValid.
  Conv1dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride,
             ConvPadding padding, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  Conv1dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
             int64_t padding = 0, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv1dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride},
                   IntList{padding}, IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Conv1dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
             ConvPadding padding, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv1dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride}, padding,
                   IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Tensor forward(const Tensor& x);
};
TC_MODULE(Conv1d);

class Conv2dImpl : public ConvNdImpl {
 public:
  ModulePtr clone() const override;
  Conv2dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride = {1},
             IntList padding = {0}, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  // padding kSame or kValid.
  Conv2dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size, IntList stride,
             ConvPadding padding, IntList dilation = {1}, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros");
  // Square kernels with scalar arguments: Conv2d(3, 16, 3, 1, 1) works through the holder.
  Conv2dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
             int64_t padding = 0, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv2dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride},
                   IntList{padding}, IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Conv2dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
             ConvPadding padding, int64_t dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros")
      : Conv2dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride}, padding,
                   IntList{dilation}, groups, bias, std::move(padding_mode)) {}
  Tensor forward(const Tensor& x);
};
TC_MODULE(Conv2d);

class ConvTranspose2dImpl : public ConvNdImpl {
 public:
  ModulePtr clone() const override;
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, IntList kernel_size,
                      IntList stride = {1}, IntList padding = {0}, IntList output_padding = {0},
                      int64_t groups = 1, bool bias = true, IntList dilation = {1});
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                      int64_t stride = 1, int64_t padding = 0, int64_t output_padding = 0,
                      int64_t groups = 1, bool bias = true, int64_t dilation = 1)
      : ConvTranspose2dImpl(in_channels, out_channels, IntList{kernel_size}, IntList{stride},
                            IntList{padding}, IntList{output_padding}, groups, bias,
                            IntList{dilation}) {}
  Tensor forward(const Tensor& x);
  // output_size (spatial, or the full shape) chooses output_padding, as torch.
  Tensor forward(const Tensor& x, const IntList& output_size);
};
TC_MODULE(ConvTranspose2d);

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

class DropoutImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit DropoutImpl(double p = 0.5);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  double p;
};
TC_MODULE(Dropout);

class EmbeddingImpl : public Module {
 public:
  ModulePtr clone() const override;
  // max_norm renormalizes the looked-up rows in place (torch's semantics).
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim,
                std::optional<int64_t> padding_idx = {}, std::optional<double> max_norm = {},
                double norm_type = 2.0, bool scale_grad_by_freq = false);
  Tensor forward(const Tensor& indices);
  void pretty_print(std::ostream& os) const override;
  int64_t num_embeddings, embedding_dim;
  std::optional<int64_t> padding_idx;
  std::optional<double> max_norm;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  Tensor weight;
};
TC_MODULE(Embedding);

class MaxPool2dImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit MaxPool2dImpl(IntList kernel_size, IntList stride = {}, IntList padding = {0},
                         IntList dilation = {1}, bool ceil_mode = false);
  // stride 0 means stride = kernel_size.
  explicit MaxPool2dImpl(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0)
      : MaxPool2dImpl(IntList{kernel_size}, stride ? IntList{stride} : IntList{},
                      IntList{padding}) {}
  Tensor forward(const Tensor& x);
  // torch's return_indices=True: (values, flat per-plane indices for MaxUnpool2d).
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  IntList kernel_size, stride, padding, dilation;
  bool ceil_mode;
};
TC_MODULE(MaxPool2d);

class AvgPool2dImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit AvgPool2dImpl(IntList kernel_size, IntList stride = {}, IntList padding = {0},
                         bool ceil_mode = false, bool count_include_pad = true,
                         std::optional<int64_t> divisor_override = {});
  explicit AvgPool2dImpl(int64_t kernel_size, int64_t stride = 0, int64_t padding = 0)
      : AvgPool2dImpl(IntList{kernel_size}, stride ? IntList{stride} : IntList{},
                      IntList{padding}) {}
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  IntList kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
  std::optional<int64_t> divisor_override;
};
TC_MODULE(AvgPool2d);

class AdaptiveAvgPool2dImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit AdaptiveAvgPool2dImpl(IntList output_size);
  explicit AdaptiveAvgPool2dImpl(int64_t output_size)
      : AdaptiveAvgPool2dImpl(IntList{output_size}) {}
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  IntList output_size;
};
TC_MODULE(AdaptiveAvgPool2d);

class FlattenImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit FlattenImpl(int64_t start_dim = 1, int64_t end_dim = -1);
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int64_t start_dim, end_dim;
};
TC_MODULE(Flatten);

// Activations.
class ReLUImpl : public Module {
 public:
  ModulePtr clone() const override;
  ReLUImpl() : Module("ReLU") {}
  Tensor forward(const Tensor& x);
};
TC_MODULE(ReLU);
class GELUImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit GELUImpl(std::string approximate = "none");
  Tensor forward(const Tensor& x);
  std::string approximate;
};
TC_MODULE(GELU);
class SiLUImpl : public Module {
 public:
  ModulePtr clone() const override;
  SiLUImpl() : Module("SiLU") {}
  Tensor forward(const Tensor& x);
};
TC_MODULE(SiLU);
class TanhImpl : public Module {
 public:
  ModulePtr clone() const override;
  TanhImpl() : Module("Tanh") {}
  Tensor forward(const Tensor& x);
};
TC_MODULE(Tanh);
class SigmoidImpl : public Module {
 public:
  ModulePtr clone() const override;
  SigmoidImpl() : Module("Sigmoid") {}
  Tensor forward(const Tensor& x);
};
TC_MODULE(Sigmoid);
class SoftmaxImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit SoftmaxImpl(int64_t dim) : Module("Softmax"), dim(dim) {}
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int64_t dim;
};
TC_MODULE(Softmax);
class LogSoftmaxImpl : public Module {
 public:
  ModulePtr clone() const override;
  explicit LogSoftmaxImpl(int64_t dim) : Module("LogSoftmax"), dim(dim) {}
  Tensor forward(const Tensor& x);
  void pretty_print(std::ostream& os) const override;
  int64_t dim;
};
TC_MODULE(LogSoftmax);

// Free-function forms not in tc::nn::functional's kernel list.
namespace functional {
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {});
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor silu(const Tensor& x);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
}  // namespace functional

}  // namespace tc::nn
