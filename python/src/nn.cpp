// Bindings for the native nn kernels: tensorcore._C._nn, with torch.nn.functional's argument
// names and defaults. tensorcore/nn/_native.py re-exports them for tensorcore.nn.functional.
#include "bind.h"
#include "tensorcore/nn/functional.h"

namespace tc::python {
namespace {

namespace F = tc::nn::functional;

// int or sequence of ints -> list (one value stands for every spatial dim).
F::IntList ints(const py::object& o, const char* op, const char* what) {
  TC_CHECK_TYPE(!o.is_none() && !py::isinstance<py::str>(o), op, "(): ", what,
                " must be an int or a tuple of ints");
  DimList d = to_dims(o);
  return F::IntList(d.begin(), d.end());
}

// A tensor, or a sequence of ints (torch accepts tuples for CTC lengths).
Tensor int_tensor(const py::object& o) {
  if (is_tensor(o)) return o.cast<Tensor>();
  if (py::isinstance<py::int_>(o)) return from_vector(std::vector<int64_t>{o.cast<int64_t>()}, {1});
  std::vector<int64_t> v = o.cast<std::vector<int64_t>>();
  return from_vector(v, {int64_t(v.size())});
}

F::IntList opt_ints(const py::object& o, const char* op, const char* what) {
  if (o.is_none()) return {};
  return ints(o, op, what);
}

// adaptive output_size: int, or a tuple whose None entries keep the input size.
F::IntList output_size(const py::object& o) {
  if (py::isinstance<py::int_>(o)) return {o.cast<int64_t>()};
  F::IntList r;
  for (auto item : o) r.push_back(item.is_none() ? -1 : item.cast<int64_t>());
  return r;
}

py::object maybe_indices(const std::pair<Tensor, Tensor>& r, bool return_indices) {
  if (return_indices) return py::make_tuple(r.first, r.second);
  return py::cast(r.first);
}

template <typename Conv, typename ConvStr>
auto conv_binding(const char* name, Conv conv, ConvStr conv_str) {
  return
      [=](const Tensor& input, const Tensor& weight, const Tensor& bias, const py::object& stride,
          const py::object& padding, const py::object& dilation, int64_t groups) {
        if (py::isinstance<py::str>(padding))
          return conv_str(input, weight, bias, ints(stride, name, "stride"),
                          padding.cast<std::string>().c_str(), ints(dilation, name, "dilation"),
                          groups);
        return conv(input, weight, bias, ints(stride, name, "stride"),
                    ints(padding, name, "padding"), ints(dilation, name, "dilation"), groups);
      };
}

template <typename ConvT>
auto conv_transpose_binding(const char* name, ConvT conv) {
  return [=](const Tensor& input, const Tensor& weight, const Tensor& bias,
             const py::object& stride, const py::object& padding, const py::object& output_padding,
             int64_t groups, const py::object& dilation) {
    return conv(input, weight, bias, ints(stride, name, "stride"), ints(padding, name, "padding"),
                ints(output_padding, name, "output_padding"), groups,
                ints(dilation, name, "dilation"));
  };
}

void bind_nn(py::module_& root, TensorClass&) {
  py::module_ m = root.def_submodule("_nn", "native kernels behind tensorcore.nn.functional");
  using CI = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const F::IntList&,
                        const F::IntList&, const F::IntList&, int64_t);
  using CS = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const F::IntList&, const char*,
                        const F::IntList&, int64_t);
#define TC_BIND_CONV(name)                                                                        \
  m.def(#name, conv_binding(#name, static_cast<CI>(&F::name), static_cast<CS>(&F::name)),         \
        py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, \
        py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1)
  TC_BIND_CONV(conv1d);
  TC_BIND_CONV(conv2d);
  TC_BIND_CONV(conv3d);
#undef TC_BIND_CONV
  // What tc.jit.freeze writes for conv -> add -> relu (the graph runtime's op of the same name).
  m.def(
      "_conv_fused",
      [](const Tensor& input, const Tensor& weight, const Tensor& bias, const py::object& stride,
         const py::object& padding, const py::object& dilation, int64_t groups,
         const Tensor& residual, int64_t residual_mode, bool relu, bool channels_last) {
        const char* name = "_conv_fused";
        return F::conv_fused(input, weight, bias, ints(stride, name, "stride"),
                             ints(padding, name, "padding"), ints(dilation, name, "dilation"),
                             groups, residual, residual_mode, relu, channels_last);
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1,
      py::arg("residual") = py::none(), py::arg("residual_mode") = 0, py::arg("relu") = false,
      py::arg("channels_last") = false,
      "relu?(conv(input) + residual) in one pass (residual_mode: 0 out of place, 1 conv += "
      "residual, 2 residual += conv, in place); channels_last: NHWC memory for the output");
#define TC_BIND_CONV_T(name)                                                                 \
  m.def(#name, conv_transpose_binding(#name, &F::name), py::arg("input"), py::arg("weight"), \
        py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = 0,         \
        py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("dilation") = 1)
  TC_BIND_CONV_T(conv_transpose1d);
  TC_BIND_CONV_T(conv_transpose2d);
  TC_BIND_CONV_T(conv_transpose3d);
#undef TC_BIND_CONV_T

#define TC_BIND_MAXPOOL(name)                                                                      \
  m.def(                                                                                           \
      #name,                                                                                       \
      [](const Tensor& input, const py::object& kernel_size, const py::object& stride,             \
         const py::object& padding, const py::object& dilation, bool ceil_mode,                    \
         bool return_indices) {                                                                    \
        return maybe_indices(                                                                      \
            F::name##_with_indices(                                                                \
                input, ints(kernel_size, #name, "kernel_size"), opt_ints(stride, #name, "stride"), \
                ints(padding, #name, "padding"), ints(dilation, #name, "dilation"), ceil_mode),    \
            return_indices);                                                                       \
      },                                                                                           \
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),                    \
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("ceil_mode") = false,               \
      py::arg("return_indices") = false)
  TC_BIND_MAXPOOL(max_pool1d);
  TC_BIND_MAXPOOL(max_pool2d);
  TC_BIND_MAXPOOL(max_pool3d);
#undef TC_BIND_MAXPOOL
  m.def(
      "max_pool1d_with_indices",
      [](const Tensor& input, const py::object& kernel_size, const py::object& stride,
         const py::object& padding, const py::object& dilation, bool ceil_mode) {
        return F::max_pool1d_with_indices(input, ints(kernel_size, "max_pool1d", "kernel_size"),
                                          opt_ints(stride, "max_pool1d", "stride"),
                                          ints(padding, "max_pool1d", "padding"),
                                          ints(dilation, "max_pool1d", "dilation"), ceil_mode);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("ceil_mode") = false);
  m.def(
      "max_pool2d_with_indices",
      [](const Tensor& input, const py::object& kernel_size, const py::object& stride,
         const py::object& padding, const py::object& dilation, bool ceil_mode) {
        return F::max_pool2d_with_indices(input, ints(kernel_size, "max_pool2d", "kernel_size"),
                                          opt_ints(stride, "max_pool2d", "stride"),
                                          ints(padding, "max_pool2d", "padding"),
                                          ints(dilation, "max_pool2d", "dilation"), ceil_mode);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("ceil_mode") = false);
#define TC_BIND_UNPOOL(name)                                                                \
  m.def(                                                                                    \
      #name,                                                                                \
      [](const Tensor& input, const Tensor& indices, const py::object& kernel_size,         \
         const py::object& stride, const py::object& padding, const py::object& out_size) { \
        return F::name(input, indices, ints(kernel_size, #name, "kernel_size"),             \
                       opt_ints(stride, #name, "stride"), ints(padding, #name, "padding"),  \
                       opt_ints(out_size, #name, "output_size"));                           \
      },                                                                                    \
      py::arg("input"), py::arg("indices"), py::arg("kernel_size"),                         \
      py::arg("stride") = py::none(), py::arg("padding") = 0, py::arg("output_size") = py::none())
  TC_BIND_UNPOOL(max_unpool1d);
  TC_BIND_UNPOOL(max_unpool2d);
  TC_BIND_UNPOOL(max_unpool3d);
#undef TC_BIND_UNPOOL
  m.def(
      "avg_pool1d",
      [](const Tensor& input, const py::object& kernel_size, const py::object& stride,
         const py::object& padding, bool ceil_mode, bool count_include_pad) {
        return F::avg_pool1d(input, ints(kernel_size, "avg_pool1d", "kernel_size"),
                             opt_ints(stride, "avg_pool1d", "stride"),
                             ints(padding, "avg_pool1d", "padding"), ceil_mode, count_include_pad);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true);
  m.def(
      "avg_pool2d",
      [](const Tensor& input, const py::object& kernel_size, const py::object& stride,
         const py::object& padding, bool ceil_mode, bool count_include_pad,
         std::optional<int64_t> divisor_override) {
        return F::avg_pool2d(input, ints(kernel_size, "avg_pool2d", "kernel_size"),
                             opt_ints(stride, "avg_pool2d", "stride"),
                             ints(padding, "avg_pool2d", "padding"), ceil_mode, count_include_pad,
                             divisor_override);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
      py::arg("divisor_override") = py::none());
  m.def(
      "max_pool3d_with_indices",
      [](const Tensor& input, const py::object& kernel_size, const py::object& stride,
         const py::object& padding, const py::object& dilation, bool ceil_mode) {
        return F::max_pool3d_with_indices(input, ints(kernel_size, "max_pool3d", "kernel_size"),
                                          opt_ints(stride, "max_pool3d", "stride"),
                                          ints(padding, "max_pool3d", "padding"),
                                          ints(dilation, "max_pool3d", "dilation"), ceil_mode);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("ceil_mode") = false);
  m.def(
      "avg_pool3d",
      [](const Tensor& input, const py::object& kernel_size, const py::object& stride,
         const py::object& padding, bool ceil_mode, bool count_include_pad,
         std::optional<int64_t> divisor_override) {
        return F::avg_pool3d(input, ints(kernel_size, "avg_pool3d", "kernel_size"),
                             opt_ints(stride, "avg_pool3d", "stride"),
                             ints(padding, "avg_pool3d", "padding"), ceil_mode, count_include_pad,
                             divisor_override);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
      py::arg("divisor_override") = py::none());
  m.def(
      "adaptive_avg_pool3d",
      [](const Tensor& input, const py::object& o) {
        return F::adaptive_avg_pool3d(input, output_size(o));
      },
      py::arg("input"), py::arg("output_size"));
  m.def(
      "adaptive_max_pool3d",
      [](const Tensor& input, const py::object& o, bool return_indices) {
        return maybe_indices(F::adaptive_max_pool3d_with_indices(input, output_size(o)),
                             return_indices);
      },
      py::arg("input"), py::arg("output_size"), py::arg("return_indices") = false);
  m.def(
      "adaptive_avg_pool1d",
      [](const Tensor& input, const py::object& o) {
        return F::adaptive_avg_pool1d(input, output_size(o));
      },
      py::arg("input"), py::arg("output_size"));
  m.def(
      "adaptive_avg_pool2d",
      [](const Tensor& input, const py::object& o) {
        return F::adaptive_avg_pool2d(input, output_size(o));
      },
      py::arg("input"), py::arg("output_size"));
  m.def(
      "adaptive_max_pool1d",
      [](const Tensor& input, const py::object& o, bool return_indices) {
        return maybe_indices(F::adaptive_max_pool1d_with_indices(input, output_size(o)),
                             return_indices);
      },
      py::arg("input"), py::arg("output_size"), py::arg("return_indices") = false);
  m.def(
      "adaptive_max_pool2d",
      [](const Tensor& input, const py::object& o, bool return_indices) {
        return maybe_indices(F::adaptive_max_pool2d_with_indices(input, output_size(o)),
                             return_indices);
      },
      py::arg("input"), py::arg("output_size"), py::arg("return_indices") = false);

  m.def("batch_norm", &F::batch_norm, py::arg("input"), py::arg("running_mean"),
        py::arg("running_var"), py::arg("weight") = py::none(), py::arg("bias") = py::none(),
        py::arg("training") = false, py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  m.def("instance_norm", &F::instance_norm, py::arg("input"), py::arg("running_mean") = py::none(),
        py::arg("running_var") = py::none(), py::arg("weight") = py::none(),
        py::arg("bias") = py::none(), py::arg("use_input_stats") = true, py::arg("momentum") = 0.1,
        py::arg("eps") = 1e-5);
  m.def(
      "layer_norm",
      [](const Tensor& input, const py::object& normalized_shape, const Tensor& weight,
         const Tensor& bias, double eps) {
        return F::layer_norm(input, ints(normalized_shape, "layer_norm", "normalized_shape"),
                             weight, bias, eps);
      },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
      py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  m.def("group_norm", &F::group_norm, py::arg("input"), py::arg("num_groups"),
        py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  m.def(
      "ctc_loss",
      [](const Tensor& log_probs, const Tensor& targets, const py::object& input_lengths,
         const py::object& target_lengths, int64_t blank, const std::string& reduction,
         bool zero_infinity) {
        return F::ctc_loss(log_probs, targets, int_tensor(input_lengths),
                           int_tensor(target_lengths), blank, reduction, zero_infinity);
      },
      py::arg("log_probs"), py::arg("targets"), py::arg("input_lengths"), py::arg("target_lengths"),
      py::arg("blank") = 0, py::arg("reduction") = "mean", py::arg("zero_infinity") = false);
  m.def(
      "lstm_cell",
      [](const Tensor& input, const py::object& hx, const Tensor& w_ih, const Tensor& w_hh,
         const Tensor& b_ih, const Tensor& b_hh) {
        Tensor h, c;
        if (!hx.is_none()) {
          auto hc = hx.cast<py::sequence>();
          TC_CHECK(hc.size() == 2, "lstm_cell: hx must be a tuple (h, c)");
          h = hc[0].cast<Tensor>();
          c = hc[1].cast<Tensor>();
        }
        return F::lstm_cell(input, h, c, w_ih, w_hh, b_ih, b_hh);
      },
      py::arg("input"), py::arg("hx"), py::arg("w_ih"), py::arg("w_hh"),
      py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none());
  m.def("gru_cell", &F::gru_cell, py::arg("input"), py::arg("hx"), py::arg("w_ih"), py::arg("w_hh"),
        py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none());
  m.def("rnn_tanh_cell", &F::rnn_tanh_cell, py::arg("input"), py::arg("hx"), py::arg("w_ih"),
        py::arg("w_hh"), py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none());
  m.def("rnn_relu_cell", &F::rnn_relu_cell, py::arg("input"), py::arg("hx"), py::arg("w_ih"),
        py::arg("w_hh"), py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none());
  m.def(
      "_interpolate",
      [](const Tensor& input, const py::object& size, const std::string& mode, bool align_corners,
         const py::object& scales, bool antialias) {
        std::vector<double> sc;
        if (!scales.is_none())
          for (auto v : scales) sc.push_back(v.is_none() ? -1.0 : v.cast<double>());
        return F::interpolate_to_size(input, ints(size, "interpolate", "size"), mode, align_corners,
                                      sc, antialias);
      },
      py::arg("input"), py::arg("size"), py::arg("mode"), py::arg("align_corners") = false,
      py::arg("scales") = py::none(), py::arg("antialias") = false);
  // interpolate to the spatial size of `ref` (read at run time, so traced graphs follow it).
  m.def(
      "_interpolate_like",
      [](const Tensor& input, const Tensor& ref, const std::string& mode, bool align_corners) {
        return F::interpolate_like(input, ref, mode, align_corners);
      },
      py::arg("input"), py::arg("ref"), py::arg("mode"), py::arg("align_corners") = false);
  m.def(
      "pad",
      [](const Tensor& input, const py::object& pad, const std::string& mode,
         const py::object& value) {
        return F::pad(input, ints(pad, "pad", "pad"), mode,
                      value.is_none() ? 0.0 : value.cast<double>());
      },
      py::arg("input"), py::arg("pad"), py::arg("mode") = "constant",
      py::arg("value") = py::none());
  m.def("pixel_shuffle", &F::pixel_shuffle, py::arg("input"), py::arg("upscale_factor"));
  m.def("pixel_unshuffle", &F::pixel_unshuffle, py::arg("input"), py::arg("downscale_factor"));
  m.def(
      "unfold",
      [](const Tensor& input, const py::object& kernel_size, const py::object& dilation,
         const py::object& padding, const py::object& stride) {
        return F::unfold(input, ints(kernel_size, "unfold", "kernel_size"),
                         ints(dilation, "unfold", "dilation"), ints(padding, "unfold", "padding"),
                         ints(stride, "unfold", "stride"));
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("dilation") = 1, py::arg("padding") = 0,
      py::arg("stride") = 1);
  m.def(
      "fold",
      [](const Tensor& input, const py::object& output_size, const py::object& kernel_size,
         const py::object& dilation, const py::object& padding, const py::object& stride) {
        return F::fold(input, ints(output_size, "fold", "output_size"),
                       ints(kernel_size, "fold", "kernel_size"), ints(dilation, "fold", "dilation"),
                       ints(padding, "fold", "padding"), ints(stride, "fold", "stride"));
      },
      py::arg("input"), py::arg("output_size"), py::arg("kernel_size"), py::arg("dilation") = 1,
      py::arg("padding") = 0, py::arg("stride") = 1);
  m.def(
      "embedding",
      [](const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
         std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, bool sparse) {
        TC_CHECK_AS(NotImplementedError, !sparse, "embedding: sparse gradients are not supported");
        return F::embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq);
      },
      py::arg("input"), py::arg("weight"), py::arg("padding_idx") = py::none(),
      py::arg("max_norm") = py::none(), py::arg("norm_type") = 2.0,
      py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false);
  m.def(
      "embedding_bag",
      [](const Tensor& input, const Tensor& weight, const Tensor& offsets,
         std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq,
         const std::string& mode, bool sparse, const Tensor& per_sample_weights,
         bool include_last_offset, std::optional<int64_t> padding_idx) {
        TC_CHECK_AS(NotImplementedError, !sparse,
                    "embedding_bag: sparse gradients are not supported");
        return std::get<0>(F::embedding_bag(input, weight, offsets, max_norm, norm_type,
                                            scale_grad_by_freq, mode, per_sample_weights,
                                            include_last_offset, padding_idx));
      },
      py::arg("input"), py::arg("weight"), py::arg("offsets") = py::none(),
      py::arg("max_norm") = py::none(), py::arg("norm_type") = 2.0,
      py::arg("scale_grad_by_freq") = false, py::arg("mode") = "mean", py::arg("sparse") = false,
      py::arg("per_sample_weights") = py::none(), py::arg("include_last_offset") = false,
      py::arg("padding_idx") = py::none());
  m.def(
      "grid_sample",
      [](const Tensor& input, const Tensor& grid, const std::string& mode,
         const std::string& padding_mode, const py::object& align_corners) {
        return F::grid_sample(input, grid, mode, padding_mode,
                              align_corners.is_none() ? false : align_corners.cast<bool>());
      },
      py::arg("input"), py::arg("grid"), py::arg("mode") = "bilinear",
      py::arg("padding_mode") = "zeros", py::arg("align_corners") = py::none());
  m.def(
      "affine_grid",
      [](const Tensor& theta, const py::object& size, const py::object& align_corners) {
        return F::affine_grid(theta, ints(size, "affine_grid", "size"),
                              align_corners.is_none() ? false : align_corners.cast<bool>());
      },
      py::arg("theta"), py::arg("size"), py::arg("align_corners") = py::none());
  m.def("lstm_layer", &F::lstm_layer, py::arg("input"), py::arg("h0"), py::arg("c0"),
        py::arg("w_ih"), py::arg("w_hh"), py::arg("b_ih") = py::none(),
        py::arg("b_hh") = py::none(), py::arg("reverse") = false, py::arg("w_hr") = py::none());
  // batch_sizes: a PackedSequence's int64 tensor or a list of ints.
  auto sizes_of = [](const py::object& o) {
    Tensor t = contiguous(to_dtype(int_tensor(o), DType::Int64));
    return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.numel());
  };
  m.def(
      "lstm_layer_packed",
      [sizes_of](const Tensor& data, const py::object& batch_sizes, const Tensor& h0,
                 const Tensor& c0, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                 const Tensor& b_hh, bool reverse, const Tensor& w_hr) {
        return F::lstm_layer_packed(data, sizes_of(batch_sizes), h0, c0, w_ih, w_hh, b_ih, b_hh,
                                    reverse, w_hr);
      },
      py::arg("data"), py::arg("batch_sizes"), py::arg("h0"), py::arg("c0"), py::arg("w_ih"),
      py::arg("w_hh"), py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none(),
      py::arg("reverse") = false, py::arg("w_hr") = py::none());
  m.def(
      "gru_layer_packed",
      [sizes_of](const Tensor& data, const py::object& batch_sizes, const Tensor& h0,
                 const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh,
                 bool reverse) {
        return F::gru_layer_packed(data, sizes_of(batch_sizes), h0, w_ih, w_hh, b_ih, b_hh,
                                   reverse);
      },
      py::arg("data"), py::arg("batch_sizes"), py::arg("h0"), py::arg("w_ih"), py::arg("w_hh"),
      py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none(), py::arg("reverse") = false);
  m.def(
      "rnn_layer_packed",
      [sizes_of](const Tensor& data, const py::object& batch_sizes, const Tensor& h0,
                 const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh,
                 const std::string& nonlinearity, bool reverse) {
        return F::rnn_layer_packed(data, sizes_of(batch_sizes), h0, w_ih, w_hh, b_ih, b_hh,
                                   nonlinearity, reverse);
      },
      py::arg("data"), py::arg("batch_sizes"), py::arg("h0"), py::arg("w_ih"), py::arg("w_hh"),
      py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none(), py::arg("nonlinearity") = "tanh",
      py::arg("reverse") = false);
  m.def("gru_layer", &F::gru_layer, py::arg("input"), py::arg("h0"), py::arg("w_ih"),
        py::arg("w_hh"), py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none(),
        py::arg("reverse") = false);
  m.def("rnn_layer", &F::rnn_layer, py::arg("input"), py::arg("h0"), py::arg("w_ih"),
        py::arg("w_hh"), py::arg("b_ih") = py::none(), py::arg("b_hh") = py::none(),
        py::arg("nonlinearity") = "tanh", py::arg("reverse") = false);
  m.def("dropout", &F::dropout, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true,
        py::arg("inplace") = false);
  m.def("feature_dropout", &F::feature_dropout, py::arg("input"), py::arg("p") = 0.5,
        py::arg("training") = true, py::arg("inplace") = false);
  m.def("alpha_dropout", &F::alpha_dropout, py::arg("input"), py::arg("p") = 0.5,
        py::arg("training") = false, py::arg("inplace") = false);
  m.def("feature_alpha_dropout", &F::feature_alpha_dropout, py::arg("input"), py::arg("p") = 0.5,
        py::arg("training") = false, py::arg("inplace") = false);
  m.def("local_response_norm", &F::local_response_norm, py::arg("input"), py::arg("size"),
        py::arg("alpha") = 1e-4, py::arg("beta") = 0.75, py::arg("k") = 1.0);
}

static Registrar r(bind_nn);

}  // namespace
}  // namespace tc::python
