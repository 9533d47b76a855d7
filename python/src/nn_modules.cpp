// tensorcore._C._nn_modules: the C++ behaviour of nn modules that tensorcore.nn's Python
// nn.Module classes call (the RNN stack of tensorcore/nn/rnn_stack.h, multi-head attention of
// tensorcore/nn/attention.h, the other families' constructor rules and initialisation of
// tensorcore/nn/modules/rules.h). The Python classes keep parameters, hooks and state_dict; every
// rule, shape and computation is C++'s, shared with tc::nn's modules.
#include <cmath>
#include <limits>

#include "bind.h"
#include "nn_messages.h"
#include "tensorcore/nn/attention.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/modules/rules.h"
#include "tensorcore/nn/rnn_stack.h"

namespace tc::python {
namespace {

// torch takes any number but a bool as dropout; anything else gets the C++ range message (NaN
// fails the [0, 1] check).
double dropout_of(py::handle p) {
  if (py::isinstance<py::bool_>(p) ||
      !(py::isinstance<py::int_>(p) || py::isinstance<py::float_>(p)))
    return std::numeric_limits<double>::quiet_NaN();
  return p.cast<double>();
}

nn::RNNOptions rnn_options(int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias,
                           bool batch_first, py::handle dropout, bool bidirectional,
                           int64_t proj_size) {
  nn::RNNOptions o{input_size, hidden_size, num_layers};
  o.bias = bias;
  o.batch_first = batch_first;
  o.dropout = dropout_of(dropout);
  o.bidirectional = bidirectional;
  o.proj_size = proj_size;
  return o;
}

py::tuple states(const std::tuple<Tensor, Tensor, Tensor>& r) {
  const Tensor& c = std::get<2>(r);
  return py::make_tuple(std::get<0>(r), std::get<1>(r), c.defined() ? py::cast(c) : py::none());
}

Tensor opt(const std::optional<Tensor>& t) { return t ? *t : Tensor(); }

#define TC_RNN_OPTION_ARGS                                                               \
  py::arg("input_size"), py::arg("hidden_size"), py::arg("num_layers"), py::arg("bias"), \
      py::arg("batch_first"), py::arg("dropout"), py::arg("bidirectional"), py::arg("proj_size")

void bind_rnn(py::module_& m) {
  m.def("rnn_flat_weight_shapes",
        with_torch_messages([](const std::string& mode, int64_t input_size, int64_t hidden_size,
                               int64_t num_layers, bool bias, bool batch_first, py::handle dropout,
                               bool bidirectional, int64_t proj_size) {
          py::list r;
          auto o = rnn_options(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                               bidirectional, proj_size);
          for (auto& [name, shape] : nn::rnn_flat_weight_shapes(nn::rnn_mode(mode), o))
            r.append(py::make_tuple(name, py::tuple(py::cast(shape))));
          return r;
        }),
        py::arg("mode"), TC_RNN_OPTION_ARGS);
  m.def("rnn_reset_parameters", with_torch_messages(&nn::rnn_reset_parameters),
        py::arg("flat_weights"), py::arg("hidden_size"));
  m.def("rnn_forward",
        with_torch_messages([](const std::string& name, const std::string& mode,
                               const TensorList& flat, const Tensor& input,
                               const std::optional<Tensor>& h0, const std::optional<Tensor>& c0,
                               bool training, int64_t input_size, int64_t hidden_size,
                               int64_t num_layers, bool bias, bool batch_first, py::handle dropout,
                               bool bidirectional, int64_t proj_size) {
          auto o = rnn_options(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                               bidirectional, proj_size);
          return states(nn::rnn_forward(name, nn::rnn_mode(mode), o, nn::rnn_group_weights(flat, o),
                                        input, opt(h0), opt(c0), training));
        }),
        py::arg("name"), py::arg("mode"), py::arg("flat_weights"), py::arg("input"), py::arg("h0"),
        py::arg("c0"), py::arg("training"), TC_RNN_OPTION_ARGS);
  m.def(
      "rnn_forward_packed",
      with_torch_messages([](const std::string& name, const std::string& mode,
                             const TensorList& flat, const Tensor& data, const Tensor& batch_sizes,
                             const std::optional<Tensor>& sorted_indices,
                             const std::optional<Tensor>& unsorted_indices,
                             const std::optional<Tensor>& h0, const std::optional<Tensor>& c0,
                             bool training, int64_t input_size, int64_t hidden_size,
                             int64_t num_layers, bool bias, bool batch_first, py::handle dropout,
                             bool bidirectional, int64_t proj_size) {
        auto o = rnn_options(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                             bidirectional, proj_size);
        nn::PackedSequence packed{data, batch_sizes, opt(sorted_indices), opt(unsorted_indices)};
        return states(nn::rnn_forward_packed(name, nn::rnn_mode(mode), o,
                                             nn::rnn_group_weights(flat, o), packed, opt(h0),
                                             opt(c0), training));
      }),
      py::arg("name"), py::arg("mode"), py::arg("flat_weights"), py::arg("data"),
      py::arg("batch_sizes"), py::arg("sorted_indices"), py::arg("unsorted_indices"), py::arg("h0"),
      py::arg("c0"), py::arg("training"), TC_RNN_OPTION_ARGS);
  m.def("check_rnn_nonlinearity",
        with_torch_messages([](const std::string& nl) { nn::rnn_mode_for_nonlinearity(nl); }),
        py::arg("nonlinearity"));
}

py::object none_if_undefined(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

void bind_attention(py::module_& m) {
  namespace F = nn::functional;
  m.def("check_multihead_attention_options",
        with_torch_messages(&F::check_multihead_attention_options), py::arg("embed_dim"),
        py::arg("num_heads"));
  m.def("multihead_attention_reset_parameters",
        [](const std::optional<Tensor>& in_proj_weight, const std::optional<Tensor>& q_proj_weight,
           const std::optional<Tensor>& k_proj_weight, const std::optional<Tensor>& v_proj_weight,
           const std::optional<Tensor>& in_proj_bias, const std::optional<Tensor>& out_proj_bias,
           const std::optional<Tensor>& bias_k, const std::optional<Tensor>& bias_v) {
          F::multihead_attention_reset_parameters(
              opt(in_proj_weight), opt(q_proj_weight), opt(k_proj_weight), opt(v_proj_weight),
              opt(in_proj_bias), opt(out_proj_bias), opt(bias_k), opt(bias_v));
        });
  m.def("transformer_reset_parameters", &F::transformer_reset_parameters, py::arg("parameters"));
  m.def("mask_to_additive", with_torch_messages([](const std::optional<Tensor>& mask, DType dtype) {
          return none_if_undefined(F::mask_to_additive(opt(mask), dtype));
        }),
        py::arg("mask"), py::arg("dtype"));
  m.def("scaled_dot_product_attention",
        with_torch_messages([](const Tensor& q, const Tensor& k, const Tensor& v,
                               const std::optional<Tensor>& mask, double dropout_p, bool is_causal,
                               std::optional<double> scale) {
          return F::scaled_dot_product_attention(q, k, v, opt(mask), dropout_p, is_causal, scale);
        }),
        py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(),
        py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::arg("scale") = py::none());
  m.def("in_projection",
        with_torch_messages([](const Tensor& q, const Tensor& k, const Tensor& v,
                               const std::optional<Tensor>& w, const std::optional<Tensor>& b,
                               int64_t E, const std::optional<Tensor>& wq,
                               const std::optional<Tensor>& wk, const std::optional<Tensor>& wv) {
          auto [pq, pk, pv] =
              F::in_projection(q, k, v, opt(w), opt(b), E, opt(wq), opt(wk), opt(wv));
          return py::make_tuple(pq, pk, pv);
        }),
        py::arg("q"), py::arg("k"), py::arg("v"), py::arg("w"), py::arg("b"), py::arg("E"),
        py::arg("q_proj_weight") = py::none(), py::arg("k_proj_weight") = py::none(),
        py::arg("v_proj_weight") = py::none());
  m.def(
      "multi_head_attention_forward",
      with_torch_messages(
          [](const Tensor& query, const Tensor& key, const Tensor& value,
             int64_t embed_dim_to_check, int64_t num_heads,
             const std::optional<Tensor>& in_proj_weight, const std::optional<Tensor>& in_proj_bias,
             const std::optional<Tensor>& bias_k, const std::optional<Tensor>& bias_v,
             bool add_zero_attn, double dropout_p, const Tensor& out_proj_weight,
             const std::optional<Tensor>& out_proj_bias, bool training,
             const std::optional<Tensor>& key_padding_mask, bool need_weights,
             const std::optional<Tensor>& attn_mask, bool use_separate_proj_weight,
             const std::optional<Tensor>& q_proj_weight, const std::optional<Tensor>& k_proj_weight,
             const std::optional<Tensor>& v_proj_weight, const std::optional<Tensor>& static_k,
             const std::optional<Tensor>& static_v, bool average_attn_weights, bool is_causal) {
            auto [out, weights] = F::multi_head_attention_forward(
                query, key, value, embed_dim_to_check, num_heads, opt(in_proj_weight),
                opt(in_proj_bias), opt(bias_k), opt(bias_v), add_zero_attn, dropout_p,
                out_proj_weight, opt(out_proj_bias), training, opt(key_padding_mask), need_weights,
                opt(attn_mask), use_separate_proj_weight, opt(q_proj_weight), opt(k_proj_weight),
                opt(v_proj_weight), opt(static_k), opt(static_v), average_attn_weights, is_causal);
            return py::make_tuple(out, none_if_undefined(weights));
          }),
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("embed_dim_to_check"),
      py::arg("num_heads"), py::arg("in_proj_weight"), py::arg("in_proj_bias"), py::arg("bias_k"),
      py::arg("bias_v"), py::arg("add_zero_attn"), py::arg("dropout_p"), py::arg("out_proj_weight"),
      py::arg("out_proj_bias"), py::arg("training") = true,
      py::arg("key_padding_mask") = py::none(), py::arg("need_weights") = true,
      py::arg("attn_mask") = py::none(), py::arg("use_separate_proj_weight") = false,
      py::arg("q_proj_weight") = py::none(), py::arg("k_proj_weight") = py::none(),
      py::arg("v_proj_weight") = py::none(), py::arg("static_k") = py::none(),
      py::arg("static_v") = py::none(), py::arg("average_attn_weights") = true,
      py::arg("is_causal") = false);
}

void bind_rules(py::module_& m) {
  using Ints = std::vector<int64_t>;
  m.def("check_conv_options", with_torch_messages(&nn::check_conv_options), py::arg("name"),
        py::arg("spatial"), py::arg("in_channels"), py::arg("out_channels"), py::arg("groups"),
        py::arg("kernel_size"), py::arg("stride"), py::arg("padding"), py::arg("dilation"),
        py::arg("output_padding"), py::arg("padding_string"), py::arg("padding_mode"),
        py::arg("transposed"));
  m.def("conv_reversed_padding", &nn::conv_reversed_padding, py::arg("kernel_size"),
        py::arg("dilation"), py::arg("padding"), py::arg("padding_string"));
  m.def("conv_transpose_output_padding",
        with_torch_messages([](const std::string& name, const Tensor& input,
                               const std::optional<Ints>& output_size, const Ints& stride,
                               const Ints& padding, const Ints& dilation, const Ints& kernel_size,
                               const Ints& output_padding) {
          return nn::conv_transpose_output_padding(name, input.sizes(),
                                                   output_size.value_or(Ints{}), stride, padding,
                                                   dilation, kernel_size, output_padding);
        }),
        py::arg("name"), py::arg("input"), py::arg("output_size"), py::arg("stride"),
        py::arg("padding"), py::arg("dilation"), py::arg("kernel_size"), py::arg("output_padding"));
  m.def("check_norm_options", with_torch_messages(&nn::check_norm_options), py::arg("name"),
        py::arg("num_features"));
  m.def("check_group_norm_options", with_torch_messages(&nn::check_group_norm_options),
        py::arg("num_groups"), py::arg("num_channels"));
  m.def("check_local_response_norm_options",
        with_torch_messages(&nn::check_local_response_norm_options), py::arg("name"),
        py::arg("size"));
  m.def("check_pool_options", with_torch_messages(&nn::check_pool_options), py::arg("name"),
        py::arg("spatial"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"),
        py::arg("dilation"));
  m.def("check_avg_pool_divisor", with_torch_messages(&nn::check_avg_pool_divisor), py::arg("name"),
        py::arg("divisor_override"));
  m.def("check_lp_pool_options", with_torch_messages(&nn::check_lp_pool_options), py::arg("name"),
        py::arg("norm_type"));
  m.def("embedding_padding_idx", with_torch_messages(&nn::embedding_padding_idx), py::arg("name"),
        py::arg("num_embeddings"), py::arg("padding_idx"));
  m.def("check_embedding_bag_mode", with_torch_messages(&nn::check_embedding_bag_mode),
        py::arg("mode"));
  m.def("expand_padding", with_torch_messages(&nn::expand_padding), py::arg("name"),
        py::arg("padding"), py::arg("spatial"));
  m.def("check_shuffle_factor",
        with_torch_messages([](const std::string& name, const std::string& what, int64_t f) {
          nn::check_shuffle_factor(name, what.c_str(), f);
        }),
        py::arg("name"), py::arg("what"), py::arg("factor"));
  m.def("check_prelu_options", with_torch_messages(&nn::check_prelu_options),
        py::arg("num_parameters"));
  m.def("reset_linear_parameters", [](Tensor weight, std::optional<Tensor> bias) {
    Tensor b = opt(bias);
    nn::reset_linear_parameters(weight, b);
  });
  m.def("reset_embedding_parameters", [](Tensor weight, std::optional<int64_t> padding_idx) {
    nn::reset_embedding_parameters(weight, padding_idx);
  });
}

void bind_nn_modules(py::module_& root, TensorClass&) {
  py::module_ m = root.def_submodule("_nn_modules", "C++ behaviour of tensorcore.nn modules");
  bind_rnn(m);
  bind_attention(m);
  bind_rules(m);
}

static Registrar r(bind_nn_modules);

}  // namespace
}  // namespace tc::python
