#pragma once
// Activation modules (torch.nn.modules.activation): torch's names, arguments and formulas;
// the functions are in tc::nn::functional (functional.h).
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/module.h"

namespace tc::nn {

using IntList = std::vector<int64_t>;

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

// Softmax over the channel dim of [N, C, H, W] or [C, H, W].
class Softmax2dImpl : public Module {
 public:
  Softmax2dImpl() : Module("Softmax2d") {}
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
};
TC_MODULE(Softmax2d);

class SoftminImpl : public Module {
 public:
  explicit SoftminImpl(int64_t dim);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  int64_t dim;
};
TC_MODULE(Softmin);

// a * sigmoid(b) with (a, b) the halves of `dim`.
class GLUImpl : public Module {
 public:
  explicit GLUImpl(int64_t dim = -1);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x);
  int64_t dim;
};
TC_MODULE(GLU);

// A parameterless activation module: Name(args) calls functional::fn(x, args).
#define TC_ACTIVATION(Name, Ctor, Fields, Call)      \
  class Name##Impl : public Module {                 \
   public:                                           \
    explicit Name##Impl Ctor;                        \
    ModulePtr clone() const override;                \
    Tensor forward(const Tensor& x) { return Call; } \
    Fields                                           \
  };                                                 \
  TC_MODULE(Name)

TC_ACTIVATION(ReLU6, (), , functional::relu6(x));
TC_ACTIVATION(LeakyReLU, (double negative_slope = 0.01), double negative_slope;
              , functional::leaky_relu(x, negative_slope));
TC_ACTIVATION(ELU, (double alpha = 1.0), double alpha;, functional::elu(x, alpha));
TC_ACTIVATION(SELU, (), , functional::selu(x));
TC_ACTIVATION(CELU, (double alpha = 1.0), double alpha;, functional::celu(x, alpha));
TC_ACTIVATION(Hardtanh, (double min_val = -1.0, double max_val = 1.0), double min_val;
              double max_val;, functional::hardtanh(x, min_val, max_val));
TC_ACTIVATION(Hardswish, (), , functional::hardswish(x));
TC_ACTIVATION(Hardsigmoid, (), , functional::hardsigmoid(x));
TC_ACTIVATION(Mish, (), , functional::mish(x));
TC_ACTIVATION(Softplus, (double beta = 1.0, double threshold = 20.0), double beta; double threshold;
              , functional::softplus(x, beta, threshold));
TC_ACTIVATION(Softsign, (), , functional::softsign(x));
TC_ACTIVATION(Tanhshrink, (), , functional::tanhshrink(x));
TC_ACTIVATION(Threshold, (double threshold, double value), double threshold; double value;
              , functional::threshold(x, threshold, value));
TC_ACTIVATION(Identity, (), , x);
TC_ACTIVATION(Hardshrink, (double lambd = 0.5), double lambd;, functional::hardshrink(x, lambd));
TC_ACTIVATION(Softshrink, (double lambd = 0.5), double lambd;, functional::softshrink(x, lambd));
TC_ACTIVATION(LogSigmoid, (), , functional::logsigmoid(x));
#undef TC_ACTIVATION

// PReLU: a learnable slope per channel (num_parameters = 1 or the channel count), init 0.25.
class PReLUImpl : public Module {
 public:
  explicit PReLUImpl(int64_t num_parameters = 1, double init = 0.25);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& x) { return functional::prelu(x, weight); }
  int64_t num_parameters;
  double init;
  Tensor weight;
};
TC_MODULE(PReLU);

}  // namespace tc::nn
