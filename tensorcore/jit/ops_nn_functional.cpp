// Runtime adapters for the non-loss functional ops bound in python/src/nn_functional.cpp
// (tensorcore._C._nn.relu, .softmax, .linear, ...), unpacking the arguments as those bindings do,
// so a traced model that calls tensorcore.nn.functional replays on the C++ runtime.
#include "tensorcore/jit/op_registry.h"
#include "tensorcore/nn/functional.h"

namespace tc::jit {
namespace {

namespace F = tc::nn::functional;

void reg(const char* name, OpFn fn) { register_op(std::string("_C._nn.") + name, std::move(fn)); }

bool flag(const OpArgs& a, size_t i) { return a.has(i) && a.bool_(i); }
double number(const OpArgs& a, size_t i, double fallback) {
  return a.has(i) ? a.double_(i) : fallback;
}
int64_t softmax_dim(const OpArgs& a) {
  return a.has(1) ? a.int_(1) : F::legacy_softmax_dim(a.tensor(0).dim());
}
std::vector<double> doubles_or_empty(const OpArgs& a, size_t i) {
  if (!a.has(i)) return {};
  if (a[i].is_int() || a[i].is_double()) return {a.double_(i)};
  return a.doubles(i);
}

const bool registered = [] {
  // Activations: (input[, parameters...], inplace).
  reg("relu", [](const OpArgs& a) { return IValue(F::relu(a.tensor(0), flag(a, 1))); });
  reg("relu6", [](const OpArgs& a) { return IValue(F::relu6(a.tensor(0), flag(a, 1))); });
  reg("threshold", [](const OpArgs& a) {
    return IValue(F::threshold(a.tensor(0), a.double_(1), a.double_(2), flag(a, 3)));
  });
  reg("hardtanh", [](const OpArgs& a) {
    return IValue(F::hardtanh(a.tensor(0), number(a, 1, -1.0), number(a, 2, 1.0), flag(a, 3)));
  });
  reg("leaky_relu", [](const OpArgs& a) {
    return IValue(F::leaky_relu(a.tensor(0), number(a, 1, 0.01), flag(a, 2)));
  });
  reg("elu",
      [](const OpArgs& a) { return IValue(F::elu(a.tensor(0), number(a, 1, 1.0), flag(a, 2))); });
  reg("selu", [](const OpArgs& a) { return IValue(F::selu(a.tensor(0), flag(a, 1))); });
  reg("celu",
      [](const OpArgs& a) { return IValue(F::celu(a.tensor(0), number(a, 1, 1.0), flag(a, 2))); });
  reg("rrelu", [](const OpArgs& a) {
    return IValue(F::rrelu(a.tensor(0), number(a, 1, 1.0 / 8), number(a, 2, 1.0 / 3), flag(a, 3),
                           flag(a, 4)));
  });
  reg("silu", [](const OpArgs& a) { return IValue(F::silu(a.tensor(0), flag(a, 1))); });
  reg("mish", [](const OpArgs& a) { return IValue(F::mish(a.tensor(0), flag(a, 1))); });
  reg("hardswish", [](const OpArgs& a) { return IValue(F::hardswish(a.tensor(0), flag(a, 1))); });
  reg("hardsigmoid",
      [](const OpArgs& a) { return IValue(F::hardsigmoid(a.tensor(0), flag(a, 1))); });
  reg("gelu",
      [](const OpArgs& a) { return IValue(F::gelu(a.tensor(0), a.has(1) ? a.str(1) : "none")); });
  reg("prelu", [](const OpArgs& a) { return IValue(F::prelu(a.tensor(0), a.tensor(1))); });
  reg("softplus", [](const OpArgs& a) {
    return IValue(F::softplus(a.tensor(0), number(a, 1, 1.0), number(a, 2, 20.0)));
  });
  reg("softsign", [](const OpArgs& a) { return IValue(F::softsign(a.tensor(0))); });
  reg("tanhshrink", [](const OpArgs& a) { return IValue(F::tanhshrink(a.tensor(0))); });
  reg("hardshrink",
      [](const OpArgs& a) { return IValue(F::hardshrink(a.tensor(0), number(a, 1, 0.5))); });
  reg("softshrink",
      [](const OpArgs& a) { return IValue(F::softshrink(a.tensor(0), number(a, 1, 0.5))); });
  reg("logsigmoid", [](const OpArgs& a) { return IValue(F::logsigmoid(a.tensor(0))); });
  reg("glu",
      [](const OpArgs& a) { return IValue(F::glu(a.tensor(0), a.has(1) ? a.int_(1) : -1)); });
  // softmax family: (input, dim, _stacklevel, dtype).
  reg("softmax", [](const OpArgs& a) {
    return IValue(F::softmax(a.tensor(0), softmax_dim(a), a.opt_dtype(3)));
  });
  reg("log_softmax", [](const OpArgs& a) {
    return IValue(F::log_softmax(a.tensor(0), softmax_dim(a), a.opt_dtype(3)));
  });
  reg("softmin", [](const OpArgs& a) {
    return IValue(F::softmin(a.tensor(0), softmax_dim(a), a.opt_dtype(3)));
  });
  reg("gumbel_softmax", [](const OpArgs& a) {
    return IValue(F::gumbel_softmax(a.tensor(0), number(a, 1, 1.0), flag(a, 2), number(a, 3, 1e-10),
                                    a.has(4) ? a.int_(4) : -1));
  });
  // Dropout variants: (input, p, training, inplace).
  reg("dropout1d", [](const OpArgs& a) {
    return IValue(F::dropout1d(a.tensor(0), number(a, 1, 0.5), flag(a, 2), flag(a, 3)));
  });
  reg("dropout2d", [](const OpArgs& a) {
    return IValue(F::dropout2d(a.tensor(0), number(a, 1, 0.5), flag(a, 2), flag(a, 3)));
  });
  reg("dropout3d", [](const OpArgs& a) {
    return IValue(F::dropout3d(a.tensor(0), number(a, 1, 0.5), flag(a, 2), flag(a, 3)));
  });
  reg("alpha_dropout", [](const OpArgs& a) {
    return IValue(F::alpha_dropout(a.tensor(0), number(a, 1, 0.5), flag(a, 2), flag(a, 3)));
  });
  reg("feature_alpha_dropout", [](const OpArgs& a) {
    return IValue(F::feature_alpha_dropout(a.tensor(0), number(a, 1, 0.5), flag(a, 2), flag(a, 3)));
  });
  // Linear maps, distances, encodings.
  reg("linear",
      [](const OpArgs& a) { return IValue(F::linear(a.tensor(0), a.tensor(1), a.opt_tensor(2))); });
  reg("bilinear", [](const OpArgs& a) {
    return IValue(F::bilinear(a.tensor(0), a.tensor(1), a.tensor(2), a.opt_tensor(3)));
  });
  reg("one_hot",
      [](const OpArgs& a) { return IValue(F::one_hot(a.tensor(0), a.has(1) ? a.int_(1) : -1)); });
  reg("normalize", [](const OpArgs& a) {
    TC_CHECK(!a.has(4), "jit: normalize with out= cannot be replayed");
    return IValue(F::normalize(a.tensor(0), number(a, 1, 2.0), a.has(2) ? a.int_(2) : 1,
                               number(a, 3, 1e-12)));
  });
  reg("cosine_similarity", [](const OpArgs& a) {
    return IValue(F::cosine_similarity(a.tensor(0), a.tensor(1), a.has(2) ? a.int_(2) : 1,
                                       number(a, 3, 1e-8)));
  });
  reg("pairwise_distance", [](const OpArgs& a) {
    return IValue(F::pairwise_distance(a.tensor(0), a.tensor(1), number(a, 2, 2.0),
                                       number(a, 3, 1e-6), flag(a, 4)));
  });
  reg("pdist", [](const OpArgs& a) { return IValue(F::pdist(a.tensor(0), number(a, 1, 2.0))); });
  reg("channel_shuffle",
      [](const OpArgs& a) { return IValue(F::channel_shuffle(a.tensor(0), a.int_(1))); });
  // interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
  reg("interpolate", [](const OpArgs& a) {
    return IValue(F::interpolate(
        a.tensor(0), a.opt_ints(1), doubles_or_empty(a, 2), a.has(3) ? a.str(3) : "nearest",
        a.has(4) ? std::optional<bool>(a.bool_(4)) : std::nullopt, flag(a, 5), flag(a, 6)));
  });
  reg("lp_pool1d", [](const OpArgs& a) {
    return IValue(F::lp_pool1d(a.tensor(0), a.double_(1), a.ints(2), a.opt_ints(3), flag(a, 4)));
  });
  reg("lp_pool2d", [](const OpArgs& a) {
    return IValue(F::lp_pool2d(a.tensor(0), a.double_(1), a.ints(2), a.opt_ints(3), flag(a, 4)));
  });
  return true;
}();

}  // namespace
}  // namespace tc::jit
