// tensorcore._C._nncpp, continued: constructors (torch's argument names and defaults) and forward
// dispatch for the C++ frontend layers beyond those in nncpp.cpp: Conv3d / ConvTranspose1d/2d/3d
// (padding 'same'/'valid', padding_mode), the 1-d/3-d pools, unpooling, BatchNorm3d,
// SyncBatchNorm, InstanceNorm1d/2d/3d, LocalResponseNorm, padding, dropout variants, Bilinear,
// EmbeddingBag, RNN, Fold/Unfold, distances, pixel shuffle, upsampling and the activations.
#include "nncpp.h"

namespace tc::python {
namespace {

using ModulePtr = nn::ModulePtr;
using IntList = std::vector<int64_t>;

// An int or a sequence of ints (torch's _single/_pair/_triple arguments).
IntList ints(py::handle h) {
  if (py::isinstance<py::int_>(h)) return {h.cast<int64_t>()};
  return h.cast<IntList>();
}
IntList ints_or_empty(py::handle h) { return h.is_none() ? IntList{} : ints(h); }

template <typename Impl, typename... Args>
ModulePtr make(Args&&... args) {
  return std::make_shared<Impl>(std::forward<Args>(args)...);
}

// Direct convolutions: padding is numbers or 'same' / 'valid'.
template <typename Impl>
ModulePtr make_conv(int64_t in, int64_t out, py::handle k, py::handle s, py::handle p, py::handle d,
                    int64_t g, bool bias, const std::string& mode) {
  if (py::isinstance<py::str>(p)) {
    std::string ps = p.cast<std::string>();
    TC_CHECK(ps == "same" || ps == "valid",
             "Conv: padding must be numbers, 'same' or 'valid', got '", ps, "'");
    return make<Impl>(in, out, ints(k), ints(s), ps == "same" ? nn::kSame : nn::kValid, ints(d), g,
                      bias, mode);
  }
  return make<Impl>(in, out, ints(k), ints(s), ints(p), ints(d), g, bias, mode);
}

template <typename Impl>
void def_conv(py::module_& sub, const char* name) {
  add_unary<Impl>();
  sub.def(name, &make_conv<Impl>, py::arg("in_channels"), py::arg("out_channels"),
          py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
          py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = true,
          py::arg("padding_mode") = "zeros");
}

template <typename Impl>
void def_conv_transpose(py::module_& sub, const char* name) {
  add_unary<Impl>();
  // forward(input, output_size): output_size picks output_padding, as torch.
  forwards()[std::type_index(typeid(Impl))] = [](nn::Module& m, const py::args& a) -> py::object {
    TC_CHECK_TYPE(a.size() == 2, m.name(), ".forward: expected (input[, output_size])");
    Tensor x = a[0].cast<Tensor>();
    IntList size = ints_or_empty(a[1]);
    py::gil_scoped_release release;
    Tensor y = size.empty() ? nn::call(static_cast<Impl&>(m), x)
                            : nn::call(static_cast<Impl&>(m), x, size);
    py::gil_scoped_acquire gil;
    return py::cast(y);
  };
  sub.def(
      name,
      [](int64_t in, int64_t out, py::object k, py::object s, py::object p, py::object op,
         int64_t g, bool bias, py::object d, const std::string& mode) -> ModulePtr {
        TC_CHECK(mode == "zeros", "ConvTranspose: only 'zeros' padding_mode is supported, got '",
                 mode, "'");
        return make<Impl>(in, out, ints(k), ints(s), ints(p), ints(op), g, bias, ints(d));
      },
      py::arg("in_channels"), py::arg("out_channels"), py::arg("kernel_size"),
      py::arg("stride") = 1, py::arg("padding") = 0, py::arg("output_padding") = 0,
      py::arg("groups") = 1, py::arg("bias") = true, py::arg("dilation") = 1,
      py::arg("padding_mode") = "zeros");
}

template <typename Impl>
void def_max_pool(py::module_& sub, const char* name) {
  add_unary<Impl>();
  sub.def(
      name,
      [](py::object k, py::object s, py::object p, py::object d, bool ceil) -> ModulePtr {
        return make<Impl>(ints(k), ints_or_empty(s), ints(p), ints(d), ceil);
      },
      py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
      py::arg("dilation") = 1, py::arg("ceil_mode") = false);
}

template <typename Impl>
void def_adaptive(py::module_& sub, const char* name) {
  add_unary<Impl>();
  // None entries keep the input size (-1 on the C++ side).
  sub.def(
      name,
      [](py::object o) -> ModulePtr {
        IntList sizes;
        if (py::isinstance<py::int_>(o))
          sizes = {o.cast<int64_t>()};
        else
          for (auto v : o) sizes.push_back(v.is_none() ? -1 : v.cast<int64_t>());
        return make<Impl>(sizes);
      },
      py::arg("output_size"));
}

template <typename Impl>
void def_unpool(py::module_& sub, const char* name) {
  forwards()[std::type_index(typeid(Impl))] = [](nn::Module& m, const py::args& a) -> py::object {
    TC_CHECK_TYPE(a.size() == 2 || a.size() == 3, m.name(),
                  ".forward: expected (input, indices[, output_size])");
    IntList size = a.size() == 3 ? ints_or_empty(a[2]) : IntList{};
    Tensor x = a[0].cast<Tensor>(), idx = a[1].cast<Tensor>();
    py::gil_scoped_release release;
    Tensor y = nn::call(static_cast<Impl&>(m), x, idx, size);
    py::gil_scoped_acquire gil;
    return py::cast(y);
  };
  sub.def(
      name,
      [](py::object k, py::object s, py::object p) -> ModulePtr {
        return make<Impl>(ints(k), ints_or_empty(s), ints(p));
      },
      py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0);
}

template <typename Impl>
void def_norm(py::module_& sub, const char* name, bool affine_default, bool track_default) {
  add_unary<Impl>();
  // momentum=None (a cumulative average) is a negative momentum on the C++ side.
  sub.def(
      name,
      [](int64_t n, double eps, std::optional<double> mom, bool affine, bool track) -> ModulePtr {
        return make<Impl>(n, eps, mom ? *mom : -1.0, affine, track);
      },
      py::arg("num_features"), py::arg("eps") = 1e-5, py::arg("momentum") = 0.1,
      py::arg("affine") = affine_default, py::arg("track_running_stats") = track_default);
}

template <typename Impl>
void def_pad(py::module_& sub, const char* name) {
  add_unary<Impl>();
  sub.def(
      name, [](py::object p) -> ModulePtr { return make<Impl>(ints(p)); }, py::arg("padding"));
}
template <typename Impl>
void def_constant_pad(py::module_& sub, const char* name) {
  add_unary<Impl>();
  sub.def(
      name, [](py::object p, double v) -> ModulePtr { return make<Impl>(ints(p), v); },
      py::arg("padding"), py::arg("value"));
}

template <typename Impl>
void def_p(py::module_& sub, const char* name) {
  add_unary<Impl>();
  sub.def(
      name,
      [](double p, bool inplace) -> ModulePtr {
        TC_CHECK(!inplace, "dropout: inplace=True is not supported by the C++ modules");
        return make<Impl>(p);
      },
      py::arg("p") = 0.5, py::arg("inplace") = false);
}

template <typename Impl>
void def_plain(py::module_& sub, const char* name) {
  add_unary<Impl>();
  sub.def(name, []() -> ModulePtr { return make<Impl>(); });
}

// Two-tensor forwards (Bilinear, CosineSimilarity, PairwiseDistance).
template <typename Impl>
void add_binary() {
  forwards()[std::type_index(typeid(Impl))] = [](nn::Module& m, const py::args& a) -> py::object {
    TC_CHECK_TYPE(a.size() == 2, m.name(), ".forward: expected 2 tensors, got ", a.size(),
                  " arguments");
    Tensor x1 = a[0].cast<Tensor>(), x2 = a[1].cast<Tensor>();
    py::gil_scoped_release release;
    Tensor y = nn::call(static_cast<Impl&>(m), x1, x2);
    py::gil_scoped_acquire gil;
    return py::cast(y);
  };
}

// torch's return_indices=True for the max pools.
py::object forward_with_indices(nn::Module& m, const Tensor& x) {
  std::pair<Tensor, Tensor> r;
  {
    py::gil_scoped_release release;
    if (auto* p = dynamic_cast<nn::MaxPoolNdImpl*>(&m))
      r = p->forward_with_indices(x);
    else if (auto* p2 = dynamic_cast<nn::MaxPool2dImpl*>(&m))
      r = p2->forward_with_indices(x);
    else if (auto* a = dynamic_cast<nn::AdaptivePoolNdImpl*>(&m))
      r = a->forward_with_indices(x);
    else if (auto* a2 = dynamic_cast<nn::AdaptiveMaxPool2dImpl*>(&m))
      r = a2->forward_with_indices(x);
    else
      throw TypeError(m.name() + ": forward_with_indices needs a max pooling module");
  }
  return py::make_tuple(r.first, r.second);
}

void bind_convs_pools(py::module_& sub) {
  def_conv<nn::Conv1dImpl>(sub, "Conv1dFull");
  def_conv<nn::Conv2dImpl>(sub, "Conv2dFull");
  def_conv<nn::Conv3dImpl>(sub, "Conv3d");
  def_conv_transpose<nn::ConvTranspose1dImpl>(sub, "ConvTranspose1d");
  def_conv_transpose<nn::ConvTranspose2dImpl>(sub, "ConvTranspose2d");
  def_conv_transpose<nn::ConvTranspose3dImpl>(sub, "ConvTranspose3d");
  def_max_pool<nn::MaxPool1dImpl>(sub, "MaxPool1d");
  def_max_pool<nn::MaxPool2dImpl>(sub, "MaxPool2dFull");
  def_max_pool<nn::MaxPool3dImpl>(sub, "MaxPool3d");
  add_unary<nn::AvgPool1dImpl>();
  sub.def(
      "AvgPool1d",
      [](py::object k, py::object s, py::object p, bool ceil, bool cip) -> ModulePtr {
        return make<nn::AvgPool1dImpl>(ints(k), ints_or_empty(s), ints(p), ceil, cip);
      },
      py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
      py::arg("ceil_mode") = false, py::arg("count_include_pad") = true);
  add_unary<nn::AvgPool2dImpl>();
  sub.def(
      "AvgPool2d",
      [](py::object k, py::object s, py::object p, bool ceil, bool cip,
         std::optional<int64_t> div) -> ModulePtr {
        return make<nn::AvgPool2dImpl>(ints(k), ints_or_empty(s), ints(p), ceil, cip, div);
      },
      py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
      py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
      py::arg("divisor_override") = py::none());
  add_unary<nn::AvgPool3dImpl>();
  sub.def(
      "AvgPool3d",
      [](py::object k, py::object s, py::object p, bool ceil, bool cip,
         std::optional<int64_t> div) -> ModulePtr {
        return make<nn::AvgPool3dImpl>(ints(k), ints_or_empty(s), ints(p), ceil, cip, div);
      },
      py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
      py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
      py::arg("divisor_override") = py::none());
  def_adaptive<nn::AdaptiveAvgPool1dImpl>(sub, "AdaptiveAvgPool1d");
  def_adaptive<nn::AdaptiveAvgPool3dImpl>(sub, "AdaptiveAvgPool3d");
  def_adaptive<nn::AdaptiveMaxPool1dImpl>(sub, "AdaptiveMaxPool1d");
  def_adaptive<nn::AdaptiveMaxPool2dImpl>(sub, "AdaptiveMaxPool2d");
  def_adaptive<nn::AdaptiveMaxPool3dImpl>(sub, "AdaptiveMaxPool3d");
  def_unpool<nn::MaxUnpool1dImpl>(sub, "MaxUnpool1d");
  def_unpool<nn::MaxUnpool2dImpl>(sub, "MaxUnpool2d");
  def_unpool<nn::MaxUnpool3dImpl>(sub, "MaxUnpool3d");
  sub.def("forward_with_indices", &forward_with_indices, py::arg("module"), py::arg("input"));
}

void bind_norms_misc(py::module_& sub) {
  def_norm<nn::BatchNorm3dImpl>(sub, "BatchNorm3d", true, true);
  def_norm<nn::SyncBatchNormImpl>(sub, "SyncBatchNorm", true, true);
  def_norm<nn::InstanceNorm1dImpl>(sub, "InstanceNorm1d", false, false);
  def_norm<nn::InstanceNorm2dImpl>(sub, "InstanceNorm2d", false, false);
  def_norm<nn::InstanceNorm3dImpl>(sub, "InstanceNorm3d", false, false);
  add_unary<nn::LocalResponseNormImpl>();
  sub.def(
      "LocalResponseNorm",
      [](int64_t size, double alpha, double beta, double k) -> ModulePtr {
        return make<nn::LocalResponseNormImpl>(size, alpha, beta, k);
      },
      py::arg("size"), py::arg("alpha") = 1e-4, py::arg("beta") = 0.75, py::arg("k") = 1.0);
  def_pad<nn::ReflectionPad1dImpl>(sub, "ReflectionPad1d");
  def_pad<nn::ReflectionPad2dImpl>(sub, "ReflectionPad2d");
  def_pad<nn::ReflectionPad3dImpl>(sub, "ReflectionPad3d");
  def_pad<nn::ReplicationPad1dImpl>(sub, "ReplicationPad1d");
  def_pad<nn::ReplicationPad2dImpl>(sub, "ReplicationPad2d");
  def_pad<nn::ReplicationPad3dImpl>(sub, "ReplicationPad3d");
  def_pad<nn::ZeroPad2dImpl>(sub, "ZeroPad2d");
  def_constant_pad<nn::ConstantPad1dImpl>(sub, "ConstantPad1d");
  def_constant_pad<nn::ConstantPad2dImpl>(sub, "ConstantPad2d");
  def_constant_pad<nn::ConstantPad3dImpl>(sub, "ConstantPad3d");
  def_p<nn::Dropout1dImpl>(sub, "Dropout1d");
  def_p<nn::Dropout2dImpl>(sub, "Dropout2d");
  def_p<nn::Dropout3dImpl>(sub, "Dropout3d");
  def_p<nn::AlphaDropoutImpl>(sub, "AlphaDropout");
  def_p<nn::FeatureAlphaDropoutImpl>(sub, "FeatureAlphaDropout");

  add_binary<nn::BilinearImpl>();
  sub.def(
      "Bilinear",
      [](int64_t in1, int64_t in2, int64_t out, bool bias) -> ModulePtr {
        return make<nn::BilinearImpl>(in1, in2, out, bias);
      },
      py::arg("in1_features"), py::arg("in2_features"), py::arg("out_features"),
      py::arg("bias") = true);
  add_binary<nn::CosineSimilarityImpl>();
  sub.def(
      "CosineSimilarity",
      [](int64_t dim, double eps) -> ModulePtr { return make<nn::CosineSimilarityImpl>(dim, eps); },
      py::arg("dim") = 1, py::arg("eps") = 1e-8);
  add_binary<nn::PairwiseDistanceImpl>();
  sub.def(
      "PairwiseDistance",
      [](double p, double eps, bool keepdim) -> ModulePtr {
        return make<nn::PairwiseDistanceImpl>(p, eps, keepdim);
      },
      py::arg("p") = 2.0, py::arg("eps") = 1e-6, py::arg("keepdim") = false);

  forwards()[std::type_index(typeid(nn::EmbeddingBagImpl))] = [](nn::Module& m,
                                                                 const py::args& a) -> py::object {
    TC_CHECK_TYPE(a.size() >= 1 && a.size() <= 3,
                  "EmbeddingBag.forward: expected (input[, offsets, "
                  "per_sample_weights])");
    Tensor x = arg_tensor(a, 0), off = arg_tensor(a, 1), psw = arg_tensor(a, 2);
    py::gil_scoped_release release;
    Tensor y = nn::call(static_cast<nn::EmbeddingBagImpl&>(m), x, off, psw);
    py::gil_scoped_acquire gil;
    return py::cast(y);
  };
  sub.def(
      "EmbeddingBag",
      [](int64_t n, int64_t d, std::optional<double> max_norm, double norm_type, bool scale,
         std::string mode, bool sparse, bool last, std::optional<int64_t> pad) -> ModulePtr {
        if (sparse) throw NotImplementedError("EmbeddingBag: sparse gradients are not supported");
        return make<nn::EmbeddingBagImpl>(
            n, d, nn::EmbeddingBagOptions{max_norm, norm_type, scale, mode, last, pad});
      },
      py::arg("num_embeddings"), py::arg("embedding_dim"), py::arg("max_norm") = py::none(),
      py::arg("norm_type") = 2.0, py::arg("scale_grad_by_freq") = false, py::arg("mode") = "mean",
      py::arg("sparse") = false, py::arg("include_last_offset") = false,
      py::arg("padding_idx") = py::none());

  forwards()[std::type_index(typeid(nn::RNNImpl))] = [](nn::Module& m,
                                                        const py::args& a) -> py::object {
    TC_CHECK_TYPE(a.size() == 1 || a.size() == 2, "RNN.forward: expected (input) or (input, h0)");
    Tensor h0 = arg_tensor(a, 1);
    auto& rnn = static_cast<nn::RNNImpl&>(m);
    if (is_packed(a[0])) {
      nn::PackedSequence in = to_packed(a[0]);
      std::tuple<nn::PackedSequence, Tensor> r;
      {
        py::gil_scoped_release release;
        r = nn::call(rnn, in, h0);
      }
      return py::make_tuple(from_packed(std::get<0>(r)), std::get<1>(r));
    }
    Tensor x = a[0].cast<Tensor>();
    std::tuple<Tensor, Tensor> r;
    {
      py::gil_scoped_release release;
      r = nn::call(rnn, x, h0);
    }
    return py::make_tuple(std::get<0>(r), std::get<1>(r));
  };
  sub.def(
      "RNN",
      [](int64_t in, int64_t h, int64_t l, std::string nl, bool b, bool bf, double d,
         bool bi) -> ModulePtr {
        return make<nn::RNNImpl>(nn::RNNOptions{in, h, l, b, bf, d, bi, nl});
      },
      py::arg("input_size"), py::arg("hidden_size"), py::arg("num_layers") = 1,
      py::arg("nonlinearity") = "tanh", py::arg("bias") = true, py::arg("batch_first") = false,
      py::arg("dropout") = 0.0, py::arg("bidirectional") = false);

  add_unary<nn::UnfoldImpl>();
  sub.def(
      "Unfold",
      [](py::object k, py::object d, py::object p, py::object s) -> ModulePtr {
        return make<nn::UnfoldImpl>(ints(k), ints(d), ints(p), ints(s));
      },
      py::arg("kernel_size"), py::arg("dilation") = 1, py::arg("padding") = 0,
      py::arg("stride") = 1);
  add_unary<nn::FoldImpl>();
  sub.def(
      "Fold",
      [](py::object o, py::object k, py::object d, py::object p, py::object s) -> ModulePtr {
        return make<nn::FoldImpl>(ints(o), ints(k), ints(d), ints(p), ints(s));
      },
      py::arg("output_size"), py::arg("kernel_size"), py::arg("dilation") = 1,
      py::arg("padding") = 0, py::arg("stride") = 1);
  add_unary<nn::PixelShuffleImpl>();
  sub.def(
      "PixelShuffle", [](int64_t r) -> ModulePtr { return make<nn::PixelShuffleImpl>(r); },
      py::arg("upscale_factor"));
  add_unary<nn::PixelUnshuffleImpl>();
  sub.def(
      "PixelUnshuffle", [](int64_t r) -> ModulePtr { return make<nn::PixelUnshuffleImpl>(r); },
      py::arg("downscale_factor"));
  add_unary<nn::UnflattenImpl>();
  sub.def(
      "Unflatten",
      [](int64_t dim, IntList sizes) -> ModulePtr { return make<nn::UnflattenImpl>(dim, sizes); },
      py::arg("dim"), py::arg("unflattened_size"));
  add_unary<nn::UpsampleImpl>();
  sub.def(
      "Upsample",
      [](py::object size, py::object scale, std::string mode, std::optional<bool> ac) -> ModulePtr {
        nn::UpsampleOptions o;
        o.size = ints_or_empty(size);
        if (!scale.is_none()) {
          if (py::isinstance<py::float_>(scale) || py::isinstance<py::int_>(scale))
            o.scale_factor = {scale.cast<double>()};
          else
            o.scale_factor = scale.cast<std::vector<double>>();
        }
        o.mode = mode;
        o.align_corners = ac.value_or(false);
        return make<nn::UpsampleImpl>(o);
      },
      py::arg("size") = py::none(), py::arg("scale_factor") = py::none(),
      py::arg("mode") = "nearest", py::arg("align_corners") = py::none());
}

void bind_activations(py::module_& sub) {
  def_plain<nn::ReLU6Impl>(sub, "ReLU6");
  def_plain<nn::SELUImpl>(sub, "SELU");
  def_plain<nn::HardswishImpl>(sub, "Hardswish");
  def_plain<nn::HardsigmoidImpl>(sub, "Hardsigmoid");
  def_plain<nn::MishImpl>(sub, "Mish");
  def_plain<nn::SoftsignImpl>(sub, "Softsign");
  def_plain<nn::TanhshrinkImpl>(sub, "Tanhshrink");
  def_plain<nn::IdentityImpl>(sub, "Identity");
  def_plain<nn::LogSigmoidImpl>(sub, "LogSigmoid");
  def_plain<nn::Softmax2dImpl>(sub, "Softmax2d");
  add_unary<nn::HardshrinkImpl>();
  sub.def(
      "Hardshrink", [](double l) -> ModulePtr { return make<nn::HardshrinkImpl>(l); },
      py::arg("lambd") = 0.5);
  add_unary<nn::SoftshrinkImpl>();
  sub.def(
      "Softshrink", [](double l) -> ModulePtr { return make<nn::SoftshrinkImpl>(l); },
      py::arg("lambd") = 0.5);
  add_unary<nn::ChannelShuffleImpl>();
  sub.def(
      "ChannelShuffle", [](int64_t g) -> ModulePtr { return make<nn::ChannelShuffleImpl>(g); },
      py::arg("groups"));
  add_unary<nn::LPPool1dImpl>();
  sub.def(
      "LPPool1d",
      [](double p, py::object k, py::object s, bool ceil) -> ModulePtr {
        return make<nn::LPPool1dImpl>(p, ints(k), ints_or_empty(s), ceil);
      },
      py::arg("norm_type"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("ceil_mode") = false);
  add_unary<nn::LPPool2dImpl>();
  sub.def(
      "LPPool2d",
      [](double p, py::object k, py::object s, bool ceil) -> ModulePtr {
        return make<nn::LPPool2dImpl>(p, ints(k), ints_or_empty(s), ceil);
      },
      py::arg("norm_type"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("ceil_mode") = false);
  add_unary<nn::LeakyReLUImpl>();
  sub.def(
      "LeakyReLU", [](double s) -> ModulePtr { return make<nn::LeakyReLUImpl>(s); },
      py::arg("negative_slope") = 0.01);
  add_unary<nn::ELUImpl>();
  sub.def(
      "ELU", [](double a) -> ModulePtr { return make<nn::ELUImpl>(a); }, py::arg("alpha") = 1.0);
  add_unary<nn::CELUImpl>();
  sub.def(
      "CELU", [](double a) -> ModulePtr { return make<nn::CELUImpl>(a); }, py::arg("alpha") = 1.0);
  add_unary<nn::HardtanhImpl>();
  sub.def(
      "Hardtanh", [](double lo, double hi) -> ModulePtr { return make<nn::HardtanhImpl>(lo, hi); },
      py::arg("min_val") = -1.0, py::arg("max_val") = 1.0);
  add_unary<nn::SoftplusImpl>();
  sub.def(
      "Softplus", [](double b, double t) -> ModulePtr { return make<nn::SoftplusImpl>(b, t); },
      py::arg("beta") = 1.0, py::arg("threshold") = 20.0);
  add_unary<nn::ThresholdImpl>();
  sub.def(
      "Threshold", [](double t, double v) -> ModulePtr { return make<nn::ThresholdImpl>(t, v); },
      py::arg("threshold"), py::arg("value"));
  add_unary<nn::PReLUImpl>();
  sub.def(
      "PReLU", [](int64_t n, double init) -> ModulePtr { return make<nn::PReLUImpl>(n, init); },
      py::arg("num_parameters") = 1, py::arg("init") = 0.25);
  add_unary<nn::SoftmaxImpl>();
  sub.def(
      "Softmax", [](int64_t d) -> ModulePtr { return make<nn::SoftmaxImpl>(d); }, py::arg("dim"));
  add_unary<nn::LogSoftmaxImpl>();
  sub.def(
      "LogSoftmax", [](int64_t d) -> ModulePtr { return make<nn::LogSoftmaxImpl>(d); },
      py::arg("dim"));
  add_unary<nn::SoftminImpl>();
  sub.def(
      "Softmin", [](int64_t d) -> ModulePtr { return make<nn::SoftminImpl>(d); }, py::arg("dim"));
  add_unary<nn::GLUImpl>();
  sub.def(
      "GLU", [](int64_t d) -> ModulePtr { return make<nn::GLUImpl>(d); }, py::arg("dim") = -1);
}

// The C++-only tc::nn::functional composites, so tests can compare them with torch.
void bind_functional(py::module_& sub) {
  namespace F = nn::functional;
  auto fn = sub.def_submodule("functional", "tc::nn::functional composites of the C++ frontend");
  fn.def("bilinear", &F::bilinear, py::arg("input1"), py::arg("input2"), py::arg("weight"),
         py::arg("bias") = py::none(), py::call_guard<py::gil_scoped_release>());
  fn.def("one_hot", &F::one_hot, py::arg("tensor"), py::arg("num_classes") = -1);
  fn.def("normalize", &F::normalize, py::arg("input"), py::arg("p") = 2.0, py::arg("dim") = 1,
         py::arg("eps") = 1e-12);
  fn.def("cosine_similarity", &F::cosine_similarity, py::arg("x1"), py::arg("x2"),
         py::arg("dim") = 1, py::arg("eps") = 1e-8);
  fn.def("pairwise_distance", &F::pairwise_distance, py::arg("x1"), py::arg("x2"),
         py::arg("p") = 2.0, py::arg("eps") = 1e-6, py::arg("keepdim") = false);
  fn.def("scaled_dot_product_attention", &F::scaled_dot_product_attention, py::arg("query"),
         py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(),
         py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::arg("scale") = py::none(),
         py::call_guard<py::gil_scoped_release>());
  fn.def(
      "softmin", [](const Tensor& x, int64_t dim) { return F::softmin(x, dim); }, py::arg("input"),
      py::arg("dim"));
  fn.def("glu", &F::glu, py::arg("input"), py::arg("dim") = -1);
  fn.def(
      "interpolate",
      [](const Tensor& x, py::object size, py::object scale, const std::string& mode,
         std::optional<bool> ac, std::optional<bool> recompute, bool antialias) {
        std::vector<double> scales;
        if (!scale.is_none()) {
          if (py::isinstance<py::float_>(scale) || py::isinstance<py::int_>(scale))
            scales = {scale.cast<double>()};
          else
            scales = scale.cast<std::vector<double>>();
        }
        return F::interpolate(x, ints_or_empty(size), scales, mode, ac, recompute.value_or(false),
                              antialias);
      },
      py::arg("input"), py::arg("size") = py::none(), py::arg("scale_factor") = py::none(),
      py::arg("mode") = "nearest", py::arg("align_corners") = py::none(),
      py::arg("recompute_scale_factor") = py::none(), py::arg("antialias") = false);
  fn.def(
      "cross_entropy",
      [](const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ii,
         const std::string& r,
         double ls) { return F::cross_entropy(input, target, weight, ii, r, ls); },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
      py::arg("ignore_index") = -100, py::arg("reduction") = "mean",
      py::arg("label_smoothing") = 0.0);
}

void bind_nncpp_layers(py::module_& m, TensorClass&) {
  auto sub = m.def_submodule("_nncpp");
  bind_functional(sub);
  bind_convs_pools(sub);
  bind_norms_misc(sub);
  bind_activations(sub);
}

Registrar registrar(bind_nncpp_layers);

}  // namespace
}  // namespace tc::python
