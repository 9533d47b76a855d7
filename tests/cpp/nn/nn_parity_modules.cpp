// nn_parity_modules IN.safetensors OUT.safetensors
//
// The C++ side of tests/python/nn/test_nn_parity_modules.py: runs tc::nn's modules and
// tc::nn::init on the inputs and parameters of IN (written by the Python test), and writes every
// output and gradient to OUT under "<case>.<name>". A case that throws records its message as
// the metadata entry "error.<case>" (and the error class as "class.<case>"), so the test can
// compare the messages of both frontends. Not a gtest: the Python test drives it.
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#include "tensorcore/nn/attention.h"
#include "tensorcore/nn/init.h"
#include "tensorcore/nn/nn.h"
#include "tensorcore/nn/rnn.h"
#include "tensorcore/nn/transformer.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
using IntList = std::vector<int64_t>;

namespace {

using Inputs = std::map<std::string, Tensor>;

struct Results {
  serialize::NamedTensors tensors;
  std::map<std::string, std::string> metadata;
  std::string prefix;
  void put(const std::string& name, const Tensor& t) {
    if (t.defined()) tensors.push_back({prefix + "." + name, contiguous(t.detach())});
  }
};

const Tensor& in(const Inputs& inputs, const std::string& name) {
  auto it = inputs.find(name);
  if (it == inputs.end()) throw ValueError("nn_parity_modules: input '" + name + "' is missing");
  return it->second;
}

// A leaf copy that records gradients.
Tensor leaf(const Inputs& inputs, const std::string& name) {
  return clone(in(inputs, name)).requires_grad_(true);
}

// The module's parameters and buffers from "<case>.state.<key>" inputs (the Python module's
// state_dict), so both frontends start from the same state.
void load(nn::Module& m, const Inputs& inputs, const std::string& prefix) {
  serialize::NamedTensors state;
  const std::string keys = prefix + ".state.";
  for (auto& [name, t] : inputs)
    if (name.rfind(keys, 0) == 0) state.push_back({name.substr(keys.size()), t});
  m.load_state_dict(state);
}

void put_param_grads(Results& r, nn::Module& m) {
  for (auto& [name, p] : m.named_parameters())
    if (p.grad().defined()) r.put("grad." + name, p.grad());
}

Tensor weighted_sum(const Tensor& y, const Inputs& inputs, const std::string& name) {
  return sum(mul(y, in(inputs, name)));
}

using Case = std::function<void(const Inputs&, Results&)>;

// Cases that only raise: the thrown message and class are the result.
using ErrorTable = std::vector<std::pair<const char*, std::function<void()>>>;
void error_cases(std::map<std::string, Case>& cases, const ErrorTable& table) {
  for (auto& [name, raise] : table) cases[name] = [raise](const Inputs&, Results&) { raise(); };
}

// ---- init: same seed, same values ----
void init_cases(std::map<std::string, Case>& cases) {
  namespace I = nn::init;
  auto seeded = [](auto fill) {
    return [fill](const Inputs&, Results& r) {
      manual_seed(1234);
      r.put("value", fill());
    };
  };
  cases["init_uniform"] = seeded([] { return I::uniform_(empty({5, 7}), -0.5, 2.0); });
  cases["init_normal"] = seeded([] { return I::normal_(empty({6, 4}), 1.0, 3.0); });
  cases["init_trunc_normal"] = seeded([] {
    return I::trunc_normal_(empty({9, 5}), 0.5, 2.0, -1.0, 1.5);
  });
  cases["init_xavier_uniform"] = seeded([] {
    return I::xavier_uniform_(empty({4, 3, 3, 2}), 1.5);
  });
  cases["init_xavier_normal"] = seeded([] { return I::xavier_normal_(empty({8, 5}), 0.7); });
  cases["init_kaiming_uniform"] = seeded([] {
    return I::kaiming_uniform_(empty({6, 4, 3}), 0.2, "fan_out", "leaky_relu");
  });
  cases["init_kaiming_normal"] = seeded([] {
    return I::kaiming_normal_(empty({6, 4, 3}), 0, "fan_in", "relu");
  });
  cases["init_orthogonal"] = seeded([] { return I::orthogonal_(empty({3, 8}), 2.0); });
  cases["init_orthogonal_tall"] = seeded([] { return I::orthogonal_(empty({6, 2, 2}), 1.0); });
  cases["init_sparse"] = seeded([] { return I::sparse_(empty({10, 4}), 0.3, 0.5); });
  cases["init_eye"] = seeded([] { return I::eye_(empty({3, 5})); });
  cases["init_dirac"] = seeded([] { return I::dirac_(empty({4, 3, 3, 3}), 2); });
  cases["init_constant"] = seeded([] { return I::constant_(empty({2, 3}), 0.25); });
  cases["init_gains"] = [](const Inputs&, Results& r) {
    std::vector<double> g;
    for (const char* nl : {"linear", "conv_transpose2d", "sigmoid", "tanh", "relu", "selu"})
      g.push_back(I::calculate_gain(nl));
    g.push_back(I::calculate_gain("leaky_relu"));
    g.push_back(I::calculate_gain("leaky_relu", 0.3));
    auto [fi, fo] = I::calculate_fan_in_and_fan_out(empty({5, 3, 2, 2}));
    g.push_back(double(fi));
    g.push_back(double(fo));
    r.put("value", from_vector(g, {int64_t(g.size())}));
  };
  // Errors.
  const ErrorTable errors = {
      {"init_err_gain", [] { I::calculate_gain("convfoo"); }},
      {"init_err_fan", [] { I::xavier_uniform_(empty({5})); }},
      {"init_err_mode",
       [] {
         I::kaiming_uniform_(empty({3, 3}), 0, "fan_avg");
       }},
      {"init_err_eye",
       [] {
         I::eye_(empty({2, 2, 2}));
       }},
      {"init_err_dirac_dims",
       [] {
         I::dirac_(empty({2, 2}));
       }},
      {"init_err_dirac_groups",
       [] {
         I::dirac_(empty({3, 2, 3}), 2);
       }},
      {"init_err_orthogonal", [] { I::orthogonal_(empty({4})); }},
      {"init_err_sparse",
       [] {
         I::sparse_(empty({2, 2, 2}), 0.5);
       }},
  };
  error_cases(cases, errors);
}

// ---- recurrent ----
nn::RNNOptions rnn_opts(int64_t in, int64_t hidden, int64_t layers, bool bidir, bool batch_first,
                        int64_t proj = 0, bool bias = true) {
  nn::RNNOptions o{in, hidden, layers};
  o.bidirectional = bidir;
  o.batch_first = batch_first;
  o.proj_size = proj;
  o.bias = bias;
  return o;
}

void rnn_cases(std::map<std::string, Case>& cases) {
  cases["lstm_proj"] = [](const Inputs& x, Results& r) {
    nn::LSTM m(rnn_opts(3, 5, 2, true, false, 2));
    load(*m, x, "lstm_proj");
    Tensor input = leaf(x, "lstm_proj.input"), h0 = leaf(x, "lstm_proj.h0"),
           c0 = leaf(x, "lstm_proj.c0");
    auto [out, st] = m->forward(input, h0, c0);
    auto [hn, cn] = st;
    (weighted_sum(out, x, "lstm_proj.w_out") + sum(hn) * 0.5 + sum(cn) * 0.25).backward();
    r.put("out", out), r.put("hn", hn), r.put("cn", cn);
    r.put("grad.input", input.grad()), r.put("grad.h0", h0.grad()), r.put("grad.c0", c0.grad());
    put_param_grads(r, *m);
  };
  cases["gru_batch_first"] = [](const Inputs& x, Results& r) {
    nn::GRU m(rnn_opts(4, 3, 2, false, true, 0, false));
    load(*m, x, "gru_batch_first");
    Tensor input = leaf(x, "gru_batch_first.input");
    auto [out, hn] = m->forward(input);
    (weighted_sum(out, x, "gru_batch_first.w_out") + sum(hn)).backward();
    r.put("out", out), r.put("hn", hn), r.put("grad.input", input.grad());
    put_param_grads(r, *m);
  };
  cases["rnn_relu_unbatched"] = [](const Inputs& x, Results& r) {
    auto o = rnn_opts(3, 4, 1, true, false);
    o.nonlinearity = "relu";
    nn::RNN m(o);
    load(*m, x, "rnn_relu_unbatched");
    Tensor input = leaf(x, "rnn_relu_unbatched.input"), h0 = leaf(x, "rnn_relu_unbatched.h0");
    auto [out, hn] = m->forward(input, h0);
    (weighted_sum(out, x, "rnn_relu_unbatched.w_out") + sum(hn)).backward();
    r.put("out", out), r.put("hn", hn), r.put("grad.input", input.grad()),
        r.put("grad.h0", h0.grad());
    put_param_grads(r, *m);
  };
  cases["lstm_packed"] = [](const Inputs& x, Results& r) {
    nn::LSTM m(rnn_opts(3, 4, 2, true, false));
    load(*m, x, "lstm_packed");
    Tensor input = leaf(x, "lstm_packed.input");  // [T, N, I] padded
    nn::PackedSequence p =
        nn::pack_padded_sequence(input, in(x, "lstm_packed.lengths"), false, false);
    Tensor h0 = leaf(x, "lstm_packed.h0"), c0 = leaf(x, "lstm_packed.c0");
    auto [out, st] = m->forward(p, h0, c0);
    auto [hn, cn] = st;
    (weighted_sum(out.data, x, "lstm_packed.w_out") + sum(hn) + sum(cn) * 0.5).backward();
    r.put("out", out.data), r.put("hn", hn), r.put("cn", cn);
    r.put("grad.input", input.grad()), r.put("grad.h0", h0.grad()), r.put("grad.c0", c0.grad());
    put_param_grads(r, *m);
  };
  cases["gru_packed"] = [](const Inputs& x, Results& r) {
    nn::GRU m(rnn_opts(2, 3, 1, false, false));
    load(*m, x, "gru_packed");
    Tensor input = leaf(x, "gru_packed.input");
    nn::PackedSequence p =
        nn::pack_padded_sequence(input, in(x, "gru_packed.lengths"), false, false);
    auto [out, hn] = m->forward(p);
    (weighted_sum(out.data, x, "gru_packed.w_out") + sum(hn)).backward();
    r.put("out", out.data), r.put("hn", hn), r.put("grad.input", input.grad());
    put_param_grads(r, *m);
  };
  cases["rnn_seeded_init"] = [](const Inputs&, Results& r) {
    manual_seed(77);
    nn::LSTM m(rnn_opts(3, 4, 1, true, false, 2));
    for (auto& [name, p] : m->named_parameters()) r.put(name, p);
  };
  // Errors (constructor and forward).
  const ErrorTable errors = {
      {"rnn_err_proj", [] { nn::LSTM(rnn_opts(3, 4, 1, false, false, 4)); }},
      {"rnn_err_proj_gru", [] { nn::GRU(rnn_opts(3, 4, 1, false, false, 2)); }},
      {"rnn_err_proj_neg", [] { nn::LSTM(rnn_opts(3, 4, 1, false, false, -1)); }},
      {"rnn_err_dropout",
       [] {
         auto o = rnn_opts(3, 4, 2, false, false);
         o.dropout = 1.5;
         nn::GRU{o};
       }},
      {"rnn_err_nonlinearity",
       [] {
         auto o = rnn_opts(3, 4, 1, false, false);
         o.nonlinearity = "gelu";
         nn::RNN{o};
       }},
      {"rnn_err_layers", [] { nn::LSTM(rnn_opts(3, 4, 0, false, false)); }},
      {"rnn_err_input_size",
       [] {
         nn::LSTM m(rnn_opts(3, 4, 1, false, false));
         m->forward(zeros({5, 2, 4}));
       }},
      {"rnn_err_input_dims",
       [] {
         nn::GRU m(rnn_opts(3, 4, 1, false, false));
         m->forward(zeros({5, 2, 1, 3}));
       }},
      {"rnn_err_hidden",
       [] {
         nn::LSTM m(rnn_opts(3, 4, 1, true, false));
         m->forward(zeros({5, 2, 3}), zeros({2, 3, 4}), zeros({2, 2, 4}));
       }},
      {"rnn_err_cell",
       [] {
         nn::LSTM m(rnn_opts(3, 4, 1, false, false));
         m->forward(zeros({5, 2, 3}), zeros({1, 2, 4}), zeros({1, 2, 3}));
       }},
  };
  error_cases(cases, errors);
}

// ---- attention and transformer ----
void attention_cases(std::map<std::string, Case>& cases) {
  cases["mha_masks"] = [](const Inputs& x, Results& r) {
    nn::MultiheadAttention m(8, 2, 0.0, true, true);
    load(*m, x, "mha_masks");
    Tensor q = leaf(x, "mha_masks.query"), k = leaf(x, "mha_masks.key"),
           v = leaf(x, "mha_masks.value");
    auto [out, w] = m->forward(q, k, v, in(x, "mha_masks.key_padding_mask"), true,
                               in(x, "mha_masks.attn_mask"));
    (weighted_sum(out, x, "mha_masks.w_out") + sum(w)).backward();
    r.put("out", out), r.put("weights", w);
    r.put("grad.query", q.grad()), r.put("grad.key", k.grad()), r.put("grad.value", v.grad());
    put_param_grads(r, *m);
  };
  cases["mha_self_unbatched"] = [](const Inputs& x, Results& r) {
    nn::MultiheadAttention m(6, 3);
    load(*m, x, "mha_self_unbatched");
    Tensor q = leaf(x, "mha_self_unbatched.query");
    auto [out, w] =
        m->forward(q, q, q, Tensor(), true, in(x, "mha_self_unbatched.attn_mask"), false);
    (weighted_sum(out, x, "mha_self_unbatched.w_out")).backward();
    r.put("out", out), r.put("weights", w), r.put("grad.query", q.grad());
    put_param_grads(r, *m);
  };
  cases["mha_functional_full"] = [](const Inputs& x, Results& r) {
    // bias_k / bias_v, add_zero_attn, separate projection weights, causal: the functional form.
    Tensor q = leaf(x, "mha_functional_full.query"), k = leaf(x, "mha_functional_full.key");
    Tensor wq = leaf(x, "mha_functional_full.q_proj_weight"),
           wk = leaf(x, "mha_functional_full.k_proj_weight"),
           wv = leaf(x, "mha_functional_full.v_proj_weight");
    Tensor b = leaf(x, "mha_functional_full.in_proj_bias");
    Tensor bk = leaf(x, "mha_functional_full.bias_k"), bv = leaf(x, "mha_functional_full.bias_v");
    Tensor wo = leaf(x, "mha_functional_full.out_proj_weight");
    auto [out, w] = nn::functional::multi_head_attention_forward(
        q, k, k, 8, 4, Tensor(), b, bk, bv, true, 0.0, wo, Tensor(), true,
        in(x, "mha_functional_full.key_padding_mask"), true, Tensor(), true, wq, wk, wv, Tensor(),
        Tensor(), true, false);
    (weighted_sum(out, x, "mha_functional_full.w_out") + sum(w)).backward();
    r.put("out", out), r.put("weights", w);
    for (auto& [n, t] : std::vector<std::pair<std::string, Tensor>>{{"query", q},
                                                                    {"key", k},
                                                                    {"q_proj_weight", wq},
                                                                    {"k_proj_weight", wk},
                                                                    {"v_proj_weight", wv},
                                                                    {"in_proj_bias", b},
                                                                    {"bias_k", bk},
                                                                    {"bias_v", bv},
                                                                    {"out_proj_weight", wo}})
      r.put("grad." + n, t.grad());
  };
  cases["sdpa"] = [](const Inputs& x, Results& r) {
    Tensor q = leaf(x, "sdpa.query"), k = leaf(x, "sdpa.key"), v = leaf(x, "sdpa.value");
    Tensor out = nn::functional::scaled_dot_product_attention(q, k, v, in(x, "sdpa.attn_mask"), 0.0,
                                                              true, 0.3);
    weighted_sum(out, x, "sdpa.w_out").backward();
    r.put("out", out), r.put("grad.query", q.grad()), r.put("grad.key", k.grad()),
        r.put("grad.value", v.grad());
  };
  cases["encoder_layer"] = [](const Inputs& x, Results& r) {
    nn::TransformerEncoderLayerOptions o{8, 2, 16, 0.0, "gelu", 1e-5, true, true};
    nn::TransformerEncoderLayer m(o);
    load(*m, x, "encoder_layer");
    Tensor src = leaf(x, "encoder_layer.src");
    Tensor out = m->forward(src, Tensor(), in(x, "encoder_layer.src_key_padding_mask"));
    weighted_sum(out, x, "encoder_layer.w_out").backward();
    r.put("out", out), r.put("grad.src", src.grad());
    put_param_grads(r, *m);
  };
  cases["mha_seeded_init"] = [](const Inputs&, Results& r) {
    manual_seed(5);
    nn::MultiheadAttention m(6, 2);
    for (auto& [name, p] : m->named_parameters()) r.put(name, p);
  };
  const ErrorTable errors = {
      {"mha_err_ctor", [] { nn::MultiheadAttention(10, 4); }},
      {"mha_err_heads",
       [] {
         nn::functional::multi_head_attention_forward(
             zeros({2, 1, 6}), zeros({2, 1, 6}), zeros({2, 1, 6}), 6, 4, zeros({18, 6}), Tensor(),
             Tensor(), Tensor(), false, 0.0, zeros({6, 6}), Tensor());
       }},
      {"mha_err_embed",
       [] {
         nn::functional::multi_head_attention_forward(
             zeros({2, 1, 6}), zeros({2, 1, 6}), zeros({2, 1, 6}), 8, 2, zeros({24, 8}), Tensor(),
             Tensor(), Tensor(), false, 0.0, zeros({8, 8}), Tensor());
       }},
      {"mha_err_mask",
       [] {
         nn::MultiheadAttention m(4, 2);
         Tensor q = zeros({3, 2, 4});
         m->forward(q, q, q, Tensor(), true, zeros({3, 4}));
       }},
      {"mha_err_kpm",
       [] {
         nn::MultiheadAttention m(4, 2);
         Tensor q = zeros({3, 2, 4});
         m->forward(q, q, q, zeros({2, 4}, TensorOptions(DType::Bool)));
       }},
  };
  error_cases(cases, errors);
}

// ---- other module families: same state, same input -> same output and gradients ----
template <typename M>
void simple_case(std::map<std::string, Case>& cases, const std::string& name,
                 std::function<M()> make, bool train = true) {
  cases[name] = [name, make, train](const Inputs& x, Results& r) {
    M m = make();
    load(*m, x, name);
    m->train(train);
    Tensor input = leaf(x, name + ".input");
    Tensor out = m->forward(input);
    weighted_sum(out, x, name + ".w_out").backward();
    r.put("out", out), r.put("grad.input", input.grad());
    put_param_grads(r, *m);
    for (auto& [n, b] : m->named_buffers()) r.put("buffer." + n, b);
  };
}

void layer_cases(std::map<std::string, Case>& cases) {
  simple_case<nn::Conv2d>(cases, "conv2d_reflect", [] {
    return nn::Conv2d(2, 4, IntList{3, 2}, IntList{2, 1}, IntList{1, 1}, IntList{1}, 2, true,
                      "reflect");
  });
  simple_case<nn::Conv2d>(cases, "conv2d_circular", [] {
    return nn::Conv2d(2, 2, IntList{3}, IntList{1}, IntList{2, 1}, IntList{1}, 1, false,
                      "circular");
  });
  simple_case<nn::ConvTranspose2d>(cases, "conv_transpose2d", [] {
    return nn::ConvTranspose2d(2, 3, IntList{3}, IntList{2}, IntList{1}, IntList{1});
  });
  simple_case<nn::BatchNorm2d>(cases, "batchnorm2d", [] { return nn::BatchNorm2d(3); });
  simple_case<nn::LayerNorm>(cases, "layernorm", [] { return nn::LayerNorm(IntList{3, 4}); });
  simple_case<nn::GroupNorm>(cases, "groupnorm", [] { return nn::GroupNorm(2, 4); });
  simple_case<nn::InstanceNorm2d>(cases, "instancenorm2d",
                                  [] { return nn::InstanceNorm2d(3, 1e-5, 0.1, true, true); });
  simple_case<nn::PReLU>(cases, "prelu", [] { return nn::PReLU(3, 0.1); });
  simple_case<nn::PixelShuffle>(cases, "pixelshuffle", [] { return nn::PixelShuffle(2); });
  simple_case<nn::MaxPool2d>(cases, "maxpool2d",
                             [] { return nn::MaxPool2d(IntList{3}, IntList{2}, IntList{1}); });
  simple_case<nn::AvgPool2d>(cases, "avgpool2d",
                             [] { return nn::AvgPool2d(IntList{2}, IntList{2}, IntList{1}); });
  simple_case<nn::ReflectionPad2d>(cases, "reflectionpad2d", [] {
    return nn::ReflectionPad2d(IntList{1, 2, 2, 0});
  });
  cases["conv_transpose_output_size"] = [](const Inputs& x, Results& r) {
    nn::ConvTranspose2d m(2, 3, IntList{3}, IntList{2}, IntList{1});
    load(*m, x, "conv_transpose_output_size");
    r.put("out", m->forward(in(x, "conv_transpose_output_size.input"), IntList{8, 9}));
  };
  const ErrorTable errors = {
      {"conv_err_output_size",
       [] {
         nn::ConvTranspose2d m(2, 3, IntList{3}, IntList{2}, IntList{1});
         m->forward(zeros({1, 2, 4, 5}), IntList{9, 12});
       }},
  };
  error_cases(cases, errors);
  cases["embedding"] = [](const Inputs& x, Results& r) {
    nn::Embedding m(10, 3);
    load(*m, x, "embedding");
    Tensor out = m->forward(in(x, "embedding.indices"));
    weighted_sum(out, x, "embedding.w_out").backward();
    r.put("out", out);
    put_param_grads(r, *m);
  };
}

// ---- constructor rules (tensorcore/nn/modules/rules.h): the same error from both frontends ----
void constructor_error_cases(std::map<std::string, Case>& cases) {
  const ErrorTable table = {
      {"conv_err_groups", [] { nn::Conv2d(4, 4, 3, 1, 0, 1, 0); }},
      {"conv_err_in_groups", [] { nn::Conv2d(3, 4, 3, 1, 0, 1, 2); }},
      {"conv_err_padding_mode", [] { nn::Conv1d(3, 4, 3, 1, 0, 1, 1, true, "mirror"); }},
      {"conv_err_same_strided", [] { nn::Conv2d(3, 4, IntList{3}, IntList{2}, nn::kSame); }},
      {"conv_err_kernel_entries",
       [] {
         nn::Conv3d(3, 3, IntList{3, 3});
       }},
      {"conv_err_stride", [] { nn::Conv2d(3, 4, 3, 0); }},
      {"conv_err_transpose_groups", [] { nn::ConvTranspose1d(3, 4, 3, 1, 0, 0, 2); }},
      {"norm_err_group_norm", [] { nn::GroupNorm(4, 6); }},
      {"norm_err_features", [] { nn::BatchNorm1d(-1); }},
      {"norm_err_lrn_size", [] { nn::LocalResponseNorm(0); }},
      {"pool_err_padding", [] { nn::MaxPool2d(IntList{2}, IntList{}, IntList{2}); }},
      {"pool_err_kernel", [] { nn::MaxPool1d(0); }},
      {"pool_err_divisor",
       [] { nn::AvgPool2d(IntList{2}, IntList{}, IntList{0}, false, true, 0); }},
      {"pool_err_lp_norm", [] { nn::LPPool1d(0.0, IntList{2}); }},
      {"embedding_err_padding_idx", [] { nn::Embedding(5, 3, 5); }},
      {"embedding_bag_err_mode",
       [] {
         nn::EmbeddingBagOptions o;
         o.mode = "min";
         nn::EmbeddingBag(5, 3, o);
       }},
      {"embedding_bag_err_padding_idx",
       [] {
         nn::EmbeddingBagOptions o;
         o.padding_idx = 7;
         nn::EmbeddingBag(5, 3, o);
       }},
      {"pad_err_amounts",
       [] {
         nn::ReflectionPad2d(IntList{1, 2, 3});
       }},
      {"pad_err_amounts_3d",
       [] {
         nn::ConstantPad3d(IntList{1, 2}, 0.0);
       }},
      {"pixelshuffle_err_factor", [] { nn::PixelShuffle(0); }},
      {"pixelunshuffle_err_factor", [] { nn::PixelUnshuffle(0); }},
      {"channelshuffle_err_groups", [] { nn::ChannelShuffle(0); }},
      {"prelu_err_parameters", [] { nn::PReLU(0); }},
  };
  error_cases(cases, table);
}

// ---- initialisation: same seed, same parameters ----
void seeded_init_cases(std::map<std::string, Case>& cases) {
  auto seeded = [](uint64_t seed, std::function<nn::ModulePtr()> make) {
    return [seed, make](const Inputs&, Results& r) {
      manual_seed(seed);
      for (auto& [name, p] : make()->named_parameters()) r.put(name, p);
    };
  };
  cases["conv_seeded_init"] = seeded(11, [] { return nn::Conv2d(3, 4, 3).ptr(); });
  cases["conv_transpose_seeded_init"] =
      seeded(12, [] { return nn::ConvTranspose1d(4, 6, 3, 1, 0, 0, 2).ptr(); });
  cases["linear_seeded_init"] = seeded(13, [] { return nn::Linear(5, 3).ptr(); });
  cases["embedding_seeded_init"] = seeded(14, [] { return nn::Embedding(6, 3, -2).ptr(); });
  cases["transformer_seeded_init"] = seeded(15, [] {
    nn::TransformerOptions o;
    o.d_model = 4, o.nhead = 2, o.num_encoder_layers = 1, o.num_decoder_layers = 1;
    o.dim_feedforward = 8;
    return nn::Transformer(o).ptr();
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.safetensors OUT.safetensors\n", argv[0]);
    return 2;
  }
  Inputs inputs;
  for (auto& [name, t] : serialize::load_safetensors(argv[1])) inputs[name] = t;
  std::map<std::string, Case> cases;
  init_cases(cases);
  rnn_cases(cases);
  attention_cases(cases);
  layer_cases(cases);
  constructor_error_cases(cases);
  seeded_init_cases(cases);
  Results r;
  for (auto& [name, run] : cases) {
    r.prefix = name;
    r.metadata["case." + name] = "1";
    try {
      run(inputs, r);
    } catch (const ValueError& e) {
      r.metadata["error." + name] = e.what();
      r.metadata["class." + name] = "ValueError";
    } catch (const TypeError& e) {
      r.metadata["error." + name] = e.what();
      r.metadata["class." + name] = "TypeError";
    } catch (const IndexError& e) {
      r.metadata["error." + name] = e.what();
      r.metadata["class." + name] = "IndexError";
    } catch (const Error& e) {
      r.metadata["error." + name] = e.what();
      r.metadata["class." + name] = "RuntimeError";
    }
  }
  serialize::save_safetensors(r.tensors, argv[2], r.metadata);
  return 0;
}
