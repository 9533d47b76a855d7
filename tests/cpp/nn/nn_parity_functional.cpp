// nn_parity_functional IN.safetensors OUT.safetensors
//
// Runs tc::nn::functional's non-loss ops (the C++ frontend) on a fixed list of cases over the
// tensors of IN and writes what they produced to OUT, for
// tests/python/nn/test_nn_parity_functional.py, which runs tensorcore.nn.functional on the same
// cases and requires the same results:
//   out.<case>.<i>     the i-th output
//   grad.<case>.<name> d(sum_i <out_i, cot(out_i)>)/d<name>, cot(t) = sin(arange(numel)) in t's
//   shape metadata error.<case> = "<ErrorClass>|<message>" for the cases that must fail.
// Random cases reseed the default generator with kSeed first, as the Python side does.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tensorcore/autograd/function.h"
#include "tensorcore/core/generator.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace F = tc::nn::functional;

namespace {

constexpr uint64_t kSeed = 1234;
using In = std::map<std::string, Tensor>;
using Fn = std::function<TensorList(const In&)>;

struct Case {
  std::string name;
  std::vector<std::string> wrt;  // inputs to differentiate against (leaf copies)
  Fn fn;
};

Tensor cot(const Tensor& t) {
  return to_dtype(reshape(sin(arange(Scalar(t.numel()), TensorOptions(DType::Float64))), t.sizes()),
                  t.dtype());
}

// A non-leaf copy of a leaf, so in-place ops may modify it under autograd.
Tensor nonleaf(const Tensor& t) { return mul(t, 1.0); }

std::vector<Case> cases() {
  std::vector<Case> c;
  auto add = [&](std::string name, std::vector<std::string> wrt, Fn fn) {
    c.push_back({std::move(name), std::move(wrt), std::move(fn)});
  };
  // Linear maps.
  add("linear", {"x", "w_lin", "b_lin"}, [](const In& i) -> TensorList {
    return {F::linear(i.at("x"), i.at("w_lin"), i.at("b_lin"))};
  });
  add("linear_nobias_3d", {"x3", "w_lin5"},
      [](const In& i) -> TensorList { return {F::linear(i.at("x3"), i.at("w_lin5"))}; });
  add("linear_vec", {"x", "w_vec"},
      [](const In& i) -> TensorList { return {F::linear(i.at("x"), i.at("w_vec"))}; });
  add("bilinear", {"x", "y", "w_bil", "b_bil"}, [](const In& i) -> TensorList {
    return {F::bilinear(i.at("x"), i.at("y"), i.at("w_bil"), i.at("b_bil"))};
  });
  // Activations.
  add("relu", {"x"}, [](const In& i) -> TensorList { return {F::relu(i.at("x"))}; });
  add("relu_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::relu(nonleaf(i.at("x")), true)}; });
  add("relu6", {"x"}, [](const In& i) -> TensorList { return {F::relu6(mul(i.at("x"), 3.0))}; });
  add("threshold", {"x"},
      [](const In& i) -> TensorList { return {F::threshold(i.at("x"), 0.5, -2.0)}; });
  add("threshold_inplace", {"x"}, [](const In& i) -> TensorList {
    return {F::threshold(nonleaf(i.at("x")), 0.5, -2.0, true)};
  });
  add("hardtanh", {"x"},
      [](const In& i) -> TensorList { return {F::hardtanh(i.at("x"), -0.5, 1.5)}; });
  add("hardtanh_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::hardtanh(nonleaf(i.at("x")), -0.5, 1.5, true)}; });
  add("leaky_relu", {"x"},
      [](const In& i) -> TensorList { return {F::leaky_relu(i.at("x"), 0.2)}; });
  add("leaky_relu_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::leaky_relu(nonleaf(i.at("x")), 0.2, true)}; });
  add("elu", {"x"}, [](const In& i) -> TensorList { return {F::elu(i.at("x"), 0.7)}; });
  add("elu_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::elu(nonleaf(i.at("x")), 0.7, true)}; });
  add("selu", {"x"}, [](const In& i) -> TensorList { return {F::selu(i.at("x"))}; });
  add("selu_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::selu(nonleaf(i.at("x")), true)}; });
  add("celu", {"x"}, [](const In& i) -> TensorList { return {F::celu(i.at("x"), 1.3)}; });
  add("celu_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::celu(nonleaf(i.at("x")), 1.3, true)}; });
  add("rrelu_eval", {"x"},
      [](const In& i) -> TensorList { return {F::rrelu(i.at("x"), 0.1, 0.3, false)}; });
  add("rrelu_train", {"x"},
      [](const In& i) -> TensorList { return {F::rrelu(i.at("x"), 0.1, 0.3, true)}; });
  add("rrelu_train_inplace", {"x"}, [](const In& i) -> TensorList {
    return {F::rrelu(nonleaf(i.at("x")), 0.1, 0.3, true, true)};
  });
  add("silu", {"x"}, [](const In& i) -> TensorList { return {F::silu(i.at("x"))}; });
  add("silu_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::silu(nonleaf(i.at("x")), true)}; });
  add("mish", {"x"}, [](const In& i) -> TensorList { return {F::mish(i.at("x"))}; });
  add("mish_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::mish(nonleaf(i.at("x")), true)}; });
  add("hardswish", {"x"}, [](const In& i) -> TensorList { return {F::hardswish(i.at("x"))}; });
  add("hardswish_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::hardswish(nonleaf(i.at("x")), true)}; });
  add("hardsigmoid", {"x"}, [](const In& i) -> TensorList { return {F::hardsigmoid(i.at("x"))}; });
  add("hardsigmoid_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::hardsigmoid(nonleaf(i.at("x")), true)}; });
  add("gelu", {"x"}, [](const In& i) -> TensorList { return {F::gelu(i.at("x"))}; });
  add("gelu_tanh", {"x"}, [](const In& i) -> TensorList { return {F::gelu(i.at("x"), "tanh")}; });
  add("prelu", {"x4", "w_prelu"},
      [](const In& i) -> TensorList { return {F::prelu(i.at("x4"), i.at("w_prelu"))}; });
  add("prelu_shared", {"x", "w_prelu1"},
      [](const In& i) -> TensorList { return {F::prelu(i.at("x"), i.at("w_prelu1"))}; });
  add("softplus", {"x"}, [](const In& i) -> TensorList { return {F::softplus(i.at("x"))}; });
  add("softplus_beta", {"x"},
      [](const In& i) -> TensorList { return {F::softplus(i.at("x"), 2.0, 1.0)}; });
  add("softsign", {"x"}, [](const In& i) -> TensorList { return {F::softsign(i.at("x"))}; });
  add("tanhshrink", {"x"}, [](const In& i) -> TensorList { return {F::tanhshrink(i.at("x"))}; });
  add("hardshrink", {"x"},
      [](const In& i) -> TensorList { return {F::hardshrink(i.at("x"), 0.7)}; });
  add("softshrink", {"x"},
      [](const In& i) -> TensorList { return {F::softshrink(i.at("x"), 0.7)}; });
  add("logsigmoid", {"x"}, [](const In& i) -> TensorList { return {F::logsigmoid(i.at("x"))}; });
  add("glu", {"x"}, [](const In& i) -> TensorList { return {F::glu(i.at("x"))}; });
  add("glu_dim0", {"x"}, [](const In& i) -> TensorList { return {F::glu(i.at("x"), 0)}; });
  // Softmax family.
  add("softmax", {"x"}, [](const In& i) -> TensorList { return {F::softmax(i.at("x"), 1)}; });
  add("softmax_legacy_dim", {"x3"},
      [](const In& i) -> TensorList { return {F::softmax(i.at("x3"), F::legacy_softmax_dim(3))}; });
  add("softmax_dtype", {"x"},
      [](const In& i) -> TensorList { return {F::softmax(i.at("x"), -1, DType::Float32)}; });
  add("log_softmax", {"x"},
      [](const In& i) -> TensorList { return {F::log_softmax(i.at("x"), 0)}; });
  add("softmin", {"x"}, [](const In& i) -> TensorList { return {F::softmin(i.at("x"), 1)}; });
  add("gumbel_softmax", {"x"},
      [](const In& i) -> TensorList { return {F::gumbel_softmax(i.at("x"), 0.5)}; });
  add("gumbel_softmax_hard", {"x"}, [](const In& i) -> TensorList {
    return {F::gumbel_softmax(i.at("x"), 1.0, true, 1e-10, 0)};
  });
  // Dropout family.
  add("dropout", {"x"},
      [](const In& i) -> TensorList { return {F::dropout(i.at("x"), 0.3, true)}; });
  add("dropout_inplace", {"x"},
      [](const In& i) -> TensorList { return {F::dropout(nonleaf(i.at("x")), 0.3, true, true)}; });
  add("dropout_eval", {"x"},
      [](const In& i) -> TensorList { return {F::dropout(i.at("x"), 0.3, false)}; });
  add("dropout1d", {"x3"},
      [](const In& i) -> TensorList { return {F::dropout1d(i.at("x3"), 0.5, true)}; });
  add("dropout1d_unbatched", {"x"},
      [](const In& i) -> TensorList { return {F::dropout1d(i.at("x"), 0.5, true)}; });
  add("dropout2d", {"x4"},
      [](const In& i) -> TensorList { return {F::dropout2d(i.at("x4"), 0.5, true)}; });
  add("dropout3d", {"x5"},
      [](const In& i) -> TensorList { return {F::dropout3d(i.at("x5"), 0.5, true)}; });
  add("dropout3d_unbatched", {"x4"},
      [](const In& i) -> TensorList { return {F::dropout3d(i.at("x4"), 0.5, true)}; });
  add("alpha_dropout", {"x"},
      [](const In& i) -> TensorList { return {F::alpha_dropout(i.at("x"), 0.4, true)}; });
  add("feature_alpha_dropout", {"x4"},
      [](const In& i) -> TensorList { return {F::feature_alpha_dropout(i.at("x4"), 0.4, true)}; });
  // Distances, encodings.
  add("one_hot", {}, [](const In& i) -> TensorList { return {F::one_hot(i.at("idx"))}; });
  add("one_hot_n", {}, [](const In& i) -> TensorList { return {F::one_hot(i.at("idx"), 6)}; });
  add("normalize", {"x"},
      [](const In& i) -> TensorList { return {F::normalize(i.at("x"), 3.0, 0)}; });
  add("cosine_similarity", {"x", "y"},
      [](const In& i) -> TensorList { return {F::cosine_similarity(i.at("x"), i.at("y"))}; });
  add("pairwise_distance", {"x", "y"}, [](const In& i) -> TensorList {
    return {F::pairwise_distance(i.at("x"), i.at("y"), 1.5, 1e-6, true)};
  });
  add("pdist", {"x"}, [](const In& i) -> TensorList { return {F::pdist(i.at("x"))}; });
  add("pdist_p1", {"x"}, [](const In& i) -> TensorList { return {F::pdist(i.at("x"), 1.0)}; });
  add("channel_shuffle", {"x4"},
      [](const In& i) -> TensorList { return {F::channel_shuffle(i.at("x4"), 2)}; });
  // Padding, resampling, pooling.
  add("pad_constant", {"x4"}, [](const In& i) -> TensorList {
    return {F::pad(i.at("x4"), {1, -1, 2, 0}, "constant", 0.5)};
  });
  add("pad_reflect", {"x4"}, [](const In& i) -> TensorList {
    return {F::pad(i.at("x4"), {2, 1, 1, 2}, "reflect")};
  });
  add("pad_replicate", {"x3"}, [](const In& i) -> TensorList {
    return {F::pad(i.at("x3"), {3, 1}, "replicate")};
  });
  add("pad_circular", {"x4"}, [](const In& i) -> TensorList {
    return {F::pad(i.at("x4"), {1, 2, 3, 0}, "circular")};
  });
  add("interpolate_bilinear", {"x4"}, [](const In& i) -> TensorList {
    return {F::interpolate(i.at("x4"), {}, {2.0}, "bilinear", false)};
  });
  add("interpolate_nearest", {"x4"}, [](const In& i) -> TensorList {
    return {F::interpolate(i.at("x4"), {5, 4})};
  });
  add("interpolate_area", {"x4"},
      [](const In& i) -> TensorList { return {F::interpolate(i.at("x4"), {}, {0.5}, "area")}; });
  add("upsample_bilinear", {"x4"}, [](const In& i) -> TensorList {
    return {F::interpolate(i.at("x4"), {}, {2.0}, "bilinear", true)};
  });
  add("lp_pool1d", {"x3"},
      [](const In& i) -> TensorList { return {F::lp_pool1d(abs(i.at("x3")), 2.0, {2})}; });
  add("lp_pool2d", {"x4"}, [](const In& i) -> TensorList {
    return {F::lp_pool2d(abs(i.at("x4")), 3.0, {2, 2}, {1}, true)};
  });
  // The natively implemented layers the former Python composites duplicated.
  add("layer_norm", {"x", "ln_w", "ln_b"}, [](const In& i) -> TensorList {
    return {F::layer_norm(i.at("x"), {6}, i.at("ln_w"), i.at("ln_b"))};
  });
  add("group_norm", {"x4", "gn_w", "gn_b"}, [](const In& i) -> TensorList {
    return {F::group_norm(i.at("x4"), 2, i.at("gn_w"), i.at("gn_b"))};
  });
  add("batch_norm_train", {"x4", "gn_w", "gn_b"}, [](const In& i) -> TensorList {
    Tensor rm = clone(i.at("rm")), rv = clone(i.at("rv"));
    Tensor y = F::batch_norm(i.at("x4"), rm, rv, i.at("gn_w"), i.at("gn_b"), true, 0.2);
    return {y, rm, rv};
  });
  add("batch_norm_eval", {"x4"}, [](const In& i) -> TensorList {
    return {F::batch_norm(i.at("x4"), i.at("rm"), i.at("rv"))};
  });
  add("instance_norm", {"x4", "gn_w"}, [](const In& i) -> TensorList {
    Tensor rm = clone(i.at("rm")), rv = clone(i.at("rv"));
    return {F::instance_norm(i.at("x4"), rm, rv, i.at("gn_w")), rm, rv};
  });
  add("embedding", {"emb_w"},
      [](const In& i) -> TensorList { return {F::embedding(i.at("emb_idx"), i.at("emb_w"), 2)}; });
  add("embedding_max_norm", {}, [](const In& i) -> TensorList {
    Tensor w = clone(i.at("emb_w"));
    return {F::embedding(i.at("emb_idx"), w, std::nullopt, 1.0), w};
  });
  add("lstm_cell", {"cx", "h", "c", "w_ih_l", "w_hh_l", "b_ih_l", "b_hh_l"},
      [](const In& i) -> TensorList {
        auto r = F::lstm_cell(i.at("cx"), i.at("h"), i.at("c"), i.at("w_ih_l"), i.at("w_hh_l"),
                              i.at("b_ih_l"), i.at("b_hh_l"));
        return {r.first, r.second};
      });
  add("gru_cell", {"cx", "h", "w_ih_g", "w_hh_g", "b_ih_g", "b_hh_g"},
      [](const In& i) -> TensorList {
        return {F::gru_cell(i.at("cx"), i.at("h"), i.at("w_ih_g"), i.at("w_hh_g"), i.at("b_ih_g"),
                            i.at("b_hh_g"))};
      });
  add("rnn_tanh_cell", {"cx", "h", "w_ih_r", "w_hh_r"}, [](const In& i) -> TensorList {
    return {F::rnn_tanh_cell(i.at("cx"), i.at("h"), i.at("w_ih_r"), i.at("w_hh_r"))};
  });
  add("rnn_relu_cell", {"cx", "h", "w_ih_r", "w_hh_r", "b_ih_r", "b_hh_r"},
      [](const In& i) -> TensorList {
        return {F::rnn_relu_cell(i.at("cx"), i.at("h"), i.at("w_ih_r"), i.at("w_hh_r"),
                                 i.at("b_ih_r"), i.at("b_hh_r"))};
      });
  add("pixel_shuffle", {"x4"},
      [](const In& i) -> TensorList { return {F::pixel_shuffle(i.at("x4"), 2)}; });
  add("pixel_unshuffle", {"xu"},
      [](const In& i) -> TensorList { return {F::pixel_unshuffle(i.at("xu"), 2)}; });
  return c;
}

// Calls that must fail, with the same error class and message in both languages.
std::vector<std::pair<std::string, std::function<void(const In&)>>> error_cases() {
  std::vector<std::pair<std::string, std::function<void(const In&)>>> e;
  auto add = [&](std::string n, std::function<void(const In&)> f) {
    e.emplace_back(std::move(n), std::move(f));
  };
  add("linear_shape", [](const In& i) { F::linear(i.at("x"), i.at("w_bil")); });
  add("linear_0d", [](const In& i) { F::linear(sum(i.at("x")), i.at("w_lin")); });
  add("bilinear_weight", [](const In& i) { F::bilinear(i.at("x"), i.at("y"), i.at("w_lin")); });
  add("hardtanh_bounds", [](const In& i) { F::hardtanh(i.at("x"), 2.0, 1.0); });
  add("softshrink_lambd", [](const In& i) { F::softshrink(i.at("x"), -1.0); });
  add("celu_alpha", [](const In& i) { F::celu(i.at("x"), 0.0); });
  add("gelu_approximate", [](const In& i) { F::gelu(i.at("x"), "fast"); });
  add("rrelu_bounds", [](const In& i) { F::rrelu(i.at("x"), 0.5, 0.1, true); });
  add("prelu_channels", [](const In& i) { F::prelu(i.at("x4"), i.at("ln_w")); });
  add("glu_odd", [](const In& i) { F::glu(i.at("x3"), -1); });
  add("glu_scalar", [](const In& i) { F::glu(sum(i.at("x"))); });
  add("dropout_p", [](const In& i) { F::dropout(i.at("x"), 1.5); });
  add("dropout1d_rank", [](const In& i) { F::dropout1d(i.at("x4"), 0.5); });
  add("dropout2d_rank", [](const In& i) { F::dropout2d(i.at("w_vec"), 0.5); });
  add("one_hot_negative", [](const In& i) { F::one_hot(neg(i.at("idx"))); });
  add("one_hot_small", [](const In& i) { F::one_hot(i.at("idx"), 2); });
  add("one_hot_dtype", [](const In& i) { F::one_hot(i.at("x")); });
  add("pdist_rank", [](const In& i) { F::pdist(i.at("x3")); });
  add("pdist_p", [](const In& i) { F::pdist(i.at("x"), -1.0); });
  add("channel_shuffle_groups", [](const In& i) { F::channel_shuffle(i.at("x4"), 3); });
  add("interpolate_both", [](const In& i) { F::interpolate(i.at("x4"), {4}, {2.0}); });
  add("interpolate_mode", [](const In& i) { F::interpolate(i.at("x4"), {4}, {}, "cubic"); });
  add("interpolate_align",
      [](const In& i) { F::interpolate(i.at("x4"), {4}, {}, "nearest", false); });
  add("pad_reflect_large", [](const In& i) { F::pad(i.at("x4"), {3, 3}, "reflect"); });
  add("pad_odd", [](const In& i) { F::pad(i.at("x4"), {1, 2, 3}); });
  add("pixel_shuffle_channels", [](const In& i) { F::pixel_shuffle(i.at("x4"), 3); });
  add("lp_pool_norm", [](const In& i) { F::lp_pool2d(i.at("x4"), -1.0, {2}); });
  add("layer_norm_shape", [](const In& i) { F::layer_norm(i.at("x"), {5}); });
  return e;
}

std::string error_class(const std::exception& e) {
  if (dynamic_cast<const TypeError*>(&e)) return "TypeError";
  if (dynamic_cast<const IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const NotImplementedError*>(&e)) return "NotImplementedError";
  return "RuntimeError";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.safetensors OUT.safetensors\n", argv[0]);
    return 2;
  }
  In inputs;
  for (auto& [name, t] : serialize::load_safetensors(argv[1])) inputs[name] = t;
  serialize::NamedTensors out;
  std::map<std::string, std::string> meta;
  for (const Case& c : cases()) {
    In in = inputs;
    TensorList leaves;
    for (const std::string& n : c.wrt) {
      Tensor leaf = clone(inputs.at(n).detach());
      leaf.requires_grad_(true);
      in[n] = leaf;
      leaves.push_back(leaf);
    }
    manual_seed(kSeed);
    TensorList outs;
    try {
      outs = c.fn(in);
    } catch (const std::exception& e) {
      meta["unexpected." + c.name] = e.what();
      continue;
    }
    TensorList diff;
    Tensor loss;
    for (size_t k = 0; k < outs.size(); ++k) {
      out.emplace_back("out." + c.name + "." + std::to_string(k), clone(outs[k].detach()));
      if (outs[k].requires_grad()) {
        Tensor term = sum(mul(outs[k], cot(outs[k])));
        loss = loss.defined() ? add(loss, term) : term;
      }
    }
    if (!leaves.empty() && loss.defined()) {
      TensorList grads = autograd::grad({loss}, leaves, {}, std::nullopt, false, true);
      for (size_t k = 0; k < leaves.size(); ++k)
        if (grads[k].defined()) out.emplace_back("grad." + c.name + "." + c.wrt[k], grads[k]);
    }
  }
  for (const auto& [name, fn] : error_cases()) {
    try {
      fn(inputs);
      meta["error." + name] = "none|";
    } catch (const std::exception& e) {
      meta["error." + name] = error_class(e) + "|" + e.what();
    }
  }
  serialize::save_safetensors(out, argv[2], meta);
  return 0;
}
