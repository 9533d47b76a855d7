#pragma once
// More activations for the C++ frontend (torch.nn names, arguments and formulas) as functions in
// tc::nn::functional and modules: ReLU6, LeakyReLU, PReLU (parameter `weight`), ELU, SELU,
// CELU, Hardtanh, Hardswish, Hardsigmoid, Mish, Softplus, Softsign, Tanhshrink, Threshold,
// Identity, Hardshrink, Softshrink, LogSigmoid. Tensor-op composites, so autograd follows from the
// core ops.
#include "tensorcore/nn/module.h"

namespace tc::nn {
namespace functional {
Tensor relu6(const Tensor& x);
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
Tensor prelu(const Tensor& x, const Tensor& weight);
Tensor elu(const Tensor& x, double alpha = 1.0);
Tensor selu(const Tensor& x);
Tensor celu(const Tensor& x, double alpha = 1.0);
Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0);
Tensor hardswish(const Tensor& x);
Tensor hardsigmoid(const Tensor& x);
Tensor mish(const Tensor& x);
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor softsign(const Tensor& x);
Tensor tanhshrink(const Tensor& x);
Tensor threshold(const Tensor& x, double threshold, double value);
Tensor hardshrink(const Tensor& x, double lambd = 0.5);
Tensor softshrink(const Tensor& x, double lambd = 0.5);
Tensor logsigmoid(const Tensor& x);
}  // namespace functional

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
