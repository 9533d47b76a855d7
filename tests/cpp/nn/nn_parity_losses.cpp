// nn_parity_losses <inputs.safetensors> <outputs.safetensors> <messages.json>
// Runs every loss of tc::nn::functional on a fixed list of cases (each reduction), writing the
// outputs and the gradient with respect to "x", plus the messages of the warning and error
// cases. tests/python/nn/test_nn_parity_losses.py runs the same cases through
// tensorcore.nn.functional (and torch 1.13) and asserts that both languages agree.
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tensorcore/core/warning.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/loss.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace F = tc::nn::functional;

namespace {

std::map<std::string, Tensor> in;
const Tensor& I(const std::string& k) {
  auto it = in.find(k);
  if (it == in.end()) throw std::runtime_error("missing input " + k);
  return it->second;
}

using LossFn = std::function<Tensor(const Tensor& x, const std::string& reduction)>;

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (c == '\n') {
      o += "\\n";
    } else {
      o += c;
    }
  }
  return o;
}

const char* error_class(const std::exception& e) {
  if (dynamic_cast<const IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const TypeError*>(&e)) return "TypeError";
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const NotImplementedError*>(&e)) return "NotImplementedError";
  return "RuntimeError";
}

// Weights for the gradient of an unreduced output: cos(0.7 k + 0.1), k = 0, 1, ...
Tensor grad_weights(const Tensor& loss) {
  Tensor k = arange(loss.numel(), TensorOptions(DType::Float64));
  return reshape(cos(add(mul(k, 0.7), 0.1)), loss.sizes());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: nn_parity_losses <inputs.safetensors> <outputs.safetensors> "
                 "<messages.json>\n";
    return 2;
  }
  for (auto& [k, t] : serialize::load_safetensors(argv[1])) in[k] = t;
  std::vector<std::string> warnings;
  tc::set_warning_handler([&](const std::string& m) { warnings.push_back(m); });

  const Tensor& t = I("t");
  std::vector<std::pair<std::string, LossFn>> cases = {
      {"l1", [&](const Tensor& x, const std::string& r) { return F::l1_loss(x, t, r); }},
      {"mse", [&](const Tensor& x, const std::string& r) { return F::mse_loss(x, t, r); }},
      {"smooth_l1",
       [&](const Tensor& x, const std::string& r) { return F::smooth_l1_loss(x, t, r, 0.7); }},
      {"smooth_l1_b0",
       [&](const Tensor& x, const std::string& r) { return F::smooth_l1_loss(x, t, r, 0.0); }},
      {"huber", [&](const Tensor& x, const std::string& r) { return F::huber_loss(x, t, r, 0.6); }},
      {"bce",
       [&](const Tensor& x, const std::string& r) {
         return F::binary_cross_entropy(sigmoid(x), I("p"), I("w"), r);
       }},
      {"bce_logits",
       [&](const Tensor& x, const std::string& r) {
         return F::binary_cross_entropy_with_logits(x, I("p"), I("w"), r, I("pw"));
       }},
      {"kl", [&](const Tensor& x, const std::string& r) { return F::kl_div(x, I("p"), r); }},
      {"kl_log",
       [&](const Tensor& x, const std::string& r) { return F::kl_div(x, I("logp"), r, true); }},
      {"margin_ranking",
       [&](const Tensor& x, const std::string& r) {
         return F::margin_ranking_loss(x, t, I("y"), 0.3, r);
       }},
      {"cosine",
       [&](const Tensor& x, const std::string& r) {
         return F::cosine_embedding_loss(x, t, I("y1"), 0.2, r);
       }},
      {"triplet",
       [&](const Tensor& x, const std::string& r) {
         return F::triplet_margin_loss(x, t, I("n"), 1.0, 2.0, 1e-6, false, r);
       }},
      {"triplet_swap_p1",
       [&](const Tensor& x, const std::string& r) {
         return F::triplet_margin_loss(x, t, I("n"), 0.5, 1.0, 1e-6, true, r);
       }},
      {"triplet_dist",
       [&](const Tensor& x, const std::string& r) {
         return F::triplet_margin_with_distance_loss(x, t, I("n"), {}, 1.0, false, r);
       }},
      {"triplet_dist_l1_swap",
       [&](const Tensor& x, const std::string& r) {
         auto l1 = [](const Tensor& a, const Tensor& b) { return sum(abs(sub(a, b)), {-1}); };
         return F::triplet_margin_with_distance_loss(x, t, I("n"), l1, 2.0, true, r);
       }},
      {"poisson",
       [&](const Tensor& x, const std::string& r) {
         return F::poisson_nll_loss(x, I("c"), true, true, 1e-8, r);
       }},
      {"poisson_lin",
       [&](const Tensor& x, const std::string& r) {
         return F::poisson_nll_loss(exp(x), I("c"), false, false, 1e-8, r);
       }},
      {"gaussian",
       [&](const Tensor& x, const std::string& r) {
         return F::gaussian_nll_loss(x, t, I("var"), true, 1e-6, r);
       }},
      {"gaussian_homo",
       [&](const Tensor& x, const std::string& r) {
         return F::gaussian_nll_loss(x, t, I("var1"), false, 1e-6, r);
       }},
      {"hinge", [&](const Tensor& x,
                    const std::string& r) { return F::hinge_embedding_loss(x, I("y"), 0.8, r); }},
      {"soft_margin",
       [&](const Tensor& x, const std::string& r) { return F::soft_margin_loss(x, I("y"), r); }},
      {"multilabel_soft_margin",
       [&](const Tensor& x, const std::string& r) {
         return F::multilabel_soft_margin_loss(x, I("mlb"), I("w5"), r);
       }},
      {"multi_margin",
       [&](const Tensor& x, const std::string& r) {
         return F::multi_margin_loss(x, I("cls"), 1, 0.9, {}, r);
       }},
      {"multi_margin_p2_w",
       [&](const Tensor& x, const std::string& r) {
         return F::multi_margin_loss(x, I("cls"), 2, 1.0, I("w5"), r);
       }},
      {"multilabel_margin",
       [&](const Tensor& x, const std::string& r) {
         return F::multilabel_margin_loss(x, I("ml"), r);
       }},
      {"nll_w", [&](const Tensor& x,
                    const std::string& r) { return F::nll_loss(x, I("cls"), I("w5"), -100, r); }},
      {"nll_ignore", [&](const Tensor& x,
                         const std::string& r) { return F::nll_loss(x, I("cls_ign"), {}, 2, r); }},
      {"ce", [&](const Tensor& x,
                 const std::string& r) { return F::cross_entropy(x, I("cls"), {}, -100, r); }},
      {"ce_w_ign_ls",
       [&](const Tensor& x, const std::string& r) {
         return F::cross_entropy(x, I("cls_ign"), I("w5"), 2, r, 0.1);
       }},
      {"ce_probs_ls",
       [&](const Tensor& x, const std::string& r) {
         return F::cross_entropy(x, I("q"), {}, -100, r, 0.2);
       }},
      {"ce_probs_w",
       [&](const Tensor& x, const std::string& r) {
         return F::cross_entropy(x, I("q"), I("w5"), -100, r);
       }},
      {"ce_3d",
       [&](const Tensor& x, const std::string& r) {
         return F::cross_entropy(transpose(reshape(x, {2, 2, 5}), 1, 2), I("cls3d"), {}, -100, r);
       }},
      {"ce_unbatched",
       [&](const Tensor& x, const std::string& r) {
         return F::cross_entropy(select(x, 0, 0), I("cls0"), {}, -100, r);
       }},
      {"mse_broadcast",
       [&](const Tensor& x, const std::string& r) { return F::mse_loss(x, select(t, 0, 0), r); }},
  };

  serialize::NamedTensors out;
  std::map<std::string, std::string> messages;
  for (auto& [name, fn] : cases) {
    for (std::string red : {"none", "mean", "sum"}) {
      const std::string key = name + "." + red;
      warnings.clear();
      Tensor x = clone(I("x")).requires_grad_();
      Tensor loss = fn(x, red);
      Tensor s = red == "none" ? sum(mul(loss, grad_weights(loss))) : loss;
      Tensor gx = autograd::grad({s}, {x})[0];
      out.emplace_back(key, loss.detach());
      out.emplace_back(key + ".grad", gx);
      if (!warnings.empty()) messages["warn." + key] = warnings.front();
    }
  }
  for (auto [name, r] : std::vector<std::pair<std::string, std::string>>{{"kl", "batchmean"}}) {
    Tensor x = clone(I("x")).requires_grad_();
    Tensor loss = F::kl_div(x, I("p"), r);
    out.emplace_back(name + "." + r, loss.detach());
    out.emplace_back(name + "." + r + ".grad", autograd::grad({loss}, {x})[0]);
  }

  // The module classes of the losses that have no older C++ module test (tensorcore.nn's modules
  // must give the same bits): "module.<case>.<reduction>".
  auto l1 = [](const Tensor& a, const Tensor& b) { return sum(abs(sub(a, b)), {-1}); };
  std::vector<std::pair<std::string, std::function<Tensor(const Tensor&, const std::string&)>>>
      modules = {
          {"hinge",
           [&](const Tensor& x, const std::string& r) {
             return nn::HingeEmbeddingLoss(0.8, r)(x, I("y"));
           }},
          {"soft_margin",
           [&](const Tensor& x, const std::string& r) { return nn::SoftMarginLoss(r)(x, I("y")); }},
          {"multilabel_soft_margin",
           [&](const Tensor& x, const std::string& r) {
             return nn::MultiLabelSoftMarginLoss(I("w5"), r)(x, I("mlb"));
           }},
          {"multi_margin_p2_w",
           [&](const Tensor& x, const std::string& r) {
             return nn::MultiMarginLoss(2, 0.9, I("w5"), r)(x, I("cls"));
           }},
          {"multilabel_margin",
           [&](const Tensor& x, const std::string& r) {
             return nn::MultiLabelMarginLoss(r)(x, I("ml"));
           }},
          {"triplet_dist_l1_swap",
           [&](const Tensor& x, const std::string& r) {
             return nn::TripletMarginWithDistanceLoss(l1, 2.0, true, r)(x, t, I("n"));
           }},
      };
  for (auto& [name, fn] : modules) {
    for (std::string red : {"none", "mean", "sum"}) {
      const std::string key = "module." + name + "." + red;
      Tensor x = clone(I("x")).requires_grad_();
      Tensor loss = fn(x, red);
      Tensor s = red == "none" ? sum(mul(loss, grad_weights(loss))) : loss;
      out.emplace_back(key, loss.detach());
      out.emplace_back(key + ".grad", autograd::grad({s}, {x})[0]);
    }
  }

  const Tensor& x = I("x");
  std::vector<std::pair<std::string, std::function<void()>>> errors = {
      {"reduction", [&] { F::mse_loss(x, t, "avg"); }},
      {"kl_reduction", [&] { F::kl_div(x, t, "avg"); }},
      {"bce_range", [&] { F::binary_cross_entropy(x, I("p")); }},
      {"bce_shape", [&] { F::binary_cross_entropy(I("p"), select(I("p"), 0, 0)); }},
      {"bce_logits_shape", [&] { F::binary_cross_entropy_with_logits(x, select(t, 0, 0)); }},
      {"nll_target_oob", [&] { F::nll_loss(x, I("cls_bad")); }},
      {"nll_float_target", [&] { F::nll_loss(x, t); }},
      {"nll_target_shape", [&] { F::nll_loss(x, I("cls3d")); }},
      {"ce_target_oob", [&] { F::cross_entropy(x, I("cls_bad")); }},
      {"ce_weight_shape", [&] { F::cross_entropy(x, I("cls"), I("w3")); }},
      {"ce_label_smoothing", [&] { F::cross_entropy(x, I("cls"), {}, -100, "mean", 1.5); }},
      {"ce_target_shape", [&] { F::cross_entropy(x, I("cls3d")); }},
      {"ce_probs_shape", [&] { F::cross_entropy(x, select(t, 0, 0)); }},
      {"smooth_l1_beta", [&] { F::smooth_l1_loss(x, t, "mean", -1.0); }},
      {"huber_delta", [&] { F::huber_loss(x, t, "mean", 0.0); }},
      {"margin_ranking_dims", [&] { F::margin_ranking_loss(x, select(t, 0, 0), I("y")); }},
      {"cosine_target_shape", [&] { F::cosine_embedding_loss(x, t, I("y")); }},
      {"cosine_input_shape", [&] { F::cosine_embedding_loss(x, select(t, 0, 0), I("y1")); }},
      {"triplet_dims", [&] { F::triplet_margin_loss(x, select(t, 0, 0), I("n")); }},
      {"triplet_dist_margin", [&] { F::triplet_margin_with_distance_loss(x, t, I("n"), {}, 0.0); }},
      {"gaussian_var_shape", [&] { F::gaussian_nll_loss(x, t, I("w3")); }},
      {"gaussian_var_negative", [&] { F::gaussian_nll_loss(x, t, neg(I("var"))); }},
      {"gaussian_reduction", [&] { F::gaussian_nll_loss(x, t, I("var"), false, 1e-6, "avg"); }},
      {"multi_margin_p", [&] { F::multi_margin_loss(x, I("cls"), 3); }},
      {"multi_margin_target_oob", [&] { F::multi_margin_loss(x, I("cls_bad")); }},
      {"multi_margin_target_size", [&] { F::multi_margin_loss(x, I("cls3d")); }},
      {"multilabel_margin_shape", [&] { F::multilabel_margin_loss(x, I("cls")); }},
      {"multilabel_margin_oob", [&] { F::multilabel_margin_loss(x, I("ml_bad")); }},
  };
  for (auto& [name, fn] : errors) {
    try {
      fn();
      messages["error." + name] = "no error";
    } catch (const std::exception& e) {
      messages["error." + name] = std::string(error_class(e)) + ": " + e.what();
    }
  }

  serialize::save_safetensors(out, argv[2]);
  std::ofstream js(argv[3]);
  js << "{";
  bool first = true;
  for (auto& [k, v] : messages) {
    js << (first ? "" : ",\n") << "\"" << json_escape(k) << "\": \"" << json_escape(v) << "\"";
    first = false;
  }
  js << "}\n";
  return 0;
}
