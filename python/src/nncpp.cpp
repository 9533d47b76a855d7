// tensorcore._C._nncpp: C++ frontend modules (tc::nn) usable from Python. A bound module exposes
// its own registry (parameters, buffers, children) and a forward that dispatches on the layer's
// type; python/tensorcore/nn/cpp.py wraps it in an nn.Module whose Parameters *are* the C++
// tensors (same TensorImpl, adopted by Tensor.__init__(..., adopt=True)), so the C++ module nests
// inside Python models with its parameters in parameters()/state_dict() and its gradients where
// optimizers look for them. The other direction: a Python callable (e.g. an nn.Module) becomes a
// C++ Sequential entry via PyModuleImpl, called under the GIL.
#include <typeindex>
#include <unordered_map>

#include "nncpp.h"

namespace tc::python {
namespace {

using ModulePtr = nn::ModulePtr;

// A Python nn.Module inside a C++ module: it mirrors the Python module's own parameters, buffers
// and children (the same tensors), so the C++ side lists them under the same keys; its
// Tensor -> Tensor call runs the Python module under the GIL.
class PyModuleImpl : public nn::Module {
 public:
  PyModuleImpl(py::object fn, const std::string& type_name)
      : nn::Module(type_name), fn_(std::move(fn)) {}
  void add_parameter(const std::string& n, const Tensor& t) {
    register_parameter(n, t, t.defined() && t.requires_grad());
  }
  void add_buffer(const std::string& n, const Tensor& t, bool persistent) {
    register_buffer(n, t, persistent);
  }
  void add_child(const std::string& n, ModulePtr c) { register_module(n, std::move(c)); }
  ~PyModuleImpl() override {
    py::gil_scoped_acquire gil;
    fn_ = py::object();
  }
  Tensor forward(const Tensor& x) {
    py::gil_scoped_acquire gil;
    TC_CHECK_TYPE(!fn_.is_none(), name(),
                  ": this mirrored Python submodule is not callable from C++");
    py::object out = fn_(x);
    TC_CHECK_TYPE(is_tensor(out), "PythonModule: the Python module returned ",
                  std::string(py::str(out.get_type())), ", expected a Tensor");
    return out.cast<Tensor>();
  }

 private:
  py::object fn_;
};

}  // namespace

// The Tensor -> Tensor modules (usable in a Sequential built from Python); nncpp_layers.cpp adds
// more.
UnaryTable& unary_table() {
  static auto* table = new UnaryTable{
      {typeid(nn::LinearImpl), call_unary<nn::LinearImpl>},
      {typeid(nn::Conv1dImpl), call_unary<nn::Conv1dImpl>},
      {typeid(nn::Conv2dImpl), call_unary<nn::Conv2dImpl>},
      {typeid(nn::ConvTranspose2dImpl), call_unary<nn::ConvTranspose2dImpl>},
      {typeid(nn::BatchNorm1dImpl), call_unary<nn::BatchNorm1dImpl>},
      {typeid(nn::BatchNorm2dImpl), call_unary<nn::BatchNorm2dImpl>},
      {typeid(nn::LayerNormImpl), call_unary<nn::LayerNormImpl>},
      {typeid(nn::GroupNormImpl), call_unary<nn::GroupNormImpl>},
      {typeid(nn::DropoutImpl), call_unary<nn::DropoutImpl>},
      {typeid(nn::EmbeddingImpl), call_unary<nn::EmbeddingImpl>},
      {typeid(nn::MaxPool2dImpl), call_unary<nn::MaxPool2dImpl>},
      {typeid(nn::AvgPool2dImpl), call_unary<nn::AvgPool2dImpl>},
      {typeid(nn::AdaptiveAvgPool2dImpl), call_unary<nn::AdaptiveAvgPool2dImpl>},
      {typeid(nn::FlattenImpl), call_unary<nn::FlattenImpl>},
      {typeid(nn::ReLUImpl), call_unary<nn::ReLUImpl>},
      {typeid(nn::GELUImpl), call_unary<nn::GELUImpl>},
      {typeid(nn::SiLUImpl), call_unary<nn::SiLUImpl>},
      {typeid(nn::TanhImpl), call_unary<nn::TanhImpl>},
      {typeid(nn::SigmoidImpl), call_unary<nn::SigmoidImpl>},
      {typeid(nn::SequentialImpl), call_unary<nn::SequentialImpl>},
      {typeid(PyModuleImpl), call_unary<PyModuleImpl>},
  };
  return *table;
}

// Forward dispatch per concrete type (the C++ modules' forward signatures differ).
ForwardTable& forwards() {
  static auto* table = new ForwardTable{
      {typeid(nn::LSTMImpl),
       [](nn::Module& m, const py::args& a) -> py::object {
         TC_CHECK_TYPE(a.size() == 1 || a.size() == 2,
                       "LSTM.forward: expected (input) or (input, (h0, c0))");
         Tensor h0, c0;
         if (a.size() == 2 && !a[1].is_none())
           std::tie(h0, c0) = a[1].cast<std::pair<Tensor, Tensor>>();
         auto& lstm = static_cast<nn::LSTMImpl&>(m);
         if (is_packed(a[0])) {
           nn::PackedSequence in = to_packed(a[0]);
           std::tuple<nn::PackedSequence, std::tuple<Tensor, Tensor>> r;
           {
             py::gil_scoped_release release;
             r = nn::call(lstm, in, h0, c0);
           }
           auto& st = std::get<1>(r);
           return py::make_tuple(from_packed(std::get<0>(r)),
                                 py::make_tuple(std::get<0>(st), std::get<1>(st)));
         }
         Tensor x = a[0].cast<Tensor>();
         py::gil_scoped_release release;
         auto [out, st] = nn::call(lstm, x, h0, c0);
         py::gil_scoped_acquire gil;
         return py::make_tuple(out, py::make_tuple(std::get<0>(st), std::get<1>(st)));
       }},
      {typeid(nn::GRUImpl),
       [](nn::Module& m, const py::args& a) -> py::object {
         TC_CHECK_TYPE(a.size() == 1 || a.size() == 2,
                       "GRU.forward: expected (input) or (input, h0)");
         Tensor h0 = arg_tensor(a, 1);
         auto& gru = static_cast<nn::GRUImpl&>(m);
         if (is_packed(a[0])) {
           nn::PackedSequence in = to_packed(a[0]);
           std::tuple<nn::PackedSequence, Tensor> r;
           {
             py::gil_scoped_release release;
             r = nn::call(gru, in, h0);
           }
           return py::make_tuple(from_packed(std::get<0>(r)), std::get<1>(r));
         }
         Tensor x = a[0].cast<Tensor>();
         py::gil_scoped_release release;
         auto [out, h] = nn::call(gru, x, h0);
         py::gil_scoped_acquire gil;
         return py::make_tuple(out, h);
       }},
      {typeid(nn::MultiheadAttentionImpl),
       [](nn::Module& m, const py::args& a) -> py::object {
         TC_CHECK_TYPE(a.size() >= 3 && a.size() <= 6,
                       "MultiheadAttention.forward: expected (query, key, value"
                       "[, key_padding_mask, need_weights, attn_mask])");
         bool need = a.size() > 4 ? a[4].cast<bool>() : true;
         auto [out, w] =
             nn::call(static_cast<nn::MultiheadAttentionImpl&>(m), arg_tensor(a, 0),
                      arg_tensor(a, 1), arg_tensor(a, 2), arg_tensor(a, 3), need, arg_tensor(a, 5));
         return py::make_tuple(out, w);
       }},
      {typeid(nn::TransformerEncoderLayerImpl),
       [](nn::Module& m, const py::args& a) -> py::object {
         return py::cast(nn::call(static_cast<nn::TransformerEncoderLayerImpl&>(m),
                                  arg_tensor(a, 0), arg_tensor(a, 1), arg_tensor(a, 2)));
       }},
      {typeid(nn::TransformerEncoderImpl),
       [](nn::Module& m, const py::args& a) -> py::object {
         return py::cast(nn::call(static_cast<nn::TransformerEncoderImpl&>(m), arg_tensor(a, 0),
                                  arg_tensor(a, 1), arg_tensor(a, 2)));
       }},
      {typeid(nn::TransformerDecoderLayerImpl),
       [](nn::Module& m, const py::args& a) -> py::object {
         return py::cast(nn::call(static_cast<nn::TransformerDecoderLayerImpl&>(m),
                                  arg_tensor(a, 0), arg_tensor(a, 1), arg_tensor(a, 2),
                                  arg_tensor(a, 3), arg_tensor(a, 4), arg_tensor(a, 5)));
       }},
      {typeid(nn::TransformerImpl),
       [](nn::Module& m, const py::args& a) -> py::object {
         return py::cast(nn::call(static_cast<nn::TransformerImpl&>(m), arg_tensor(a, 0),
                                  arg_tensor(a, 1), arg_tensor(a, 2), arg_tensor(a, 3),
                                  arg_tensor(a, 4), arg_tensor(a, 5), arg_tensor(a, 6),
                                  arg_tensor(a, 7)));
       }},
  };
  return *table;
}

namespace {

py::object forward_any(nn::Module& m, const py::args& args) {
  auto u = unary_table().find(std::type_index(typeid(m)));
  auto it = forwards().find(std::type_index(typeid(m)));
  // A module in both tables (ConvTranspose: (input) or (input, output_size)) takes the general
  // forward for more than one argument.
  if (u != unary_table().end() && (args.size() == 1 || it == forwards().end())) {
    TC_CHECK_TYPE(args.size() == 1, m.name(), ".forward: expected 1 tensor argument, got ",
                  args.size());
    Tensor x = args[0].cast<Tensor>(), y;
    {
      py::gil_scoped_release release;
      y = u->second(m, x);
    }
    return py::cast(y);
  }
  if (it == forwards().end())
    throw NotImplementedError(
        m.name() +
        ".forward: this C++ module type has no Python forward binding (it can "
        "still be used as a container of parameters)");
  return it->second(m, args);
}

void bind_nncpp(py::module_& m, TensorClass& cls) {
  // Tensor.__init__(self, same, requires_grad, adopt=True): `self` becomes another Python object
  // for `same`'s own TensorImpl (not an alias), used to present C++ parameters as Parameters.
  cls.def(py::init([](Tensor same, bool requires_grad, bool adopt) {
            TC_CHECK_TYPE(adopt, "Tensor.__init__: adopt must be true in this form");
            TC_CHECK_TYPE(same.defined(), "Tensor.__init__: expected a Tensor to adopt, got None");
            if (requires_grad != same.requires_grad()) same.requires_grad_(requires_grad);
            return same.impl_ptr();
          }),
          py::arg("data"), py::arg("requires_grad"), py::arg("adopt"));

  auto sub = m.def_submodule("_nncpp", "C++ frontend (tc::nn) modules for Python");
  sub.def("cross_entropy", &nn::functional::cross_entropy_fused, py::arg("input"),
          py::arg("target"), py::arg("weight") = Tensor(), py::arg("ignore_index") = -100,
          py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0);
  py::class_<nn::Module, std::shared_ptr<nn::Module>>(sub, "Module")
      .def_property_readonly("type_name", &nn::Module::name)
      .def("own_parameters",
           [](const nn::Module& mod) {
             py::list out;
             for (auto& [n, t] : mod.named_parameters(false)) out.append(py::make_tuple(n, t));
             return out;
           })
      .def("own_buffers",
           [](nn::Module& mod) {
             // (name, tensor, persistent)
             std::set<std::string> persistent;
             for (auto& [n, t] : mod.state_dict())
               if (n.find('.') == std::string::npos) persistent.insert(n);
             py::list out;
             for (auto& [n, t] : mod.named_buffers(false))
               out.append(py::make_tuple(n, t, persistent.count(n) > 0));
             return out;
           })
      .def("named_children",
           [](const nn::Module& mod) {
             py::list out;
             for (auto& [n, c] : mod.named_children()) out.append(py::make_tuple(n, c));
             return out;
           })
      .def("train", &nn::Module::train, py::arg("mode") = true)
      .def("is_training", &nn::Module::is_training)
      .def("forward", [](nn::Module& mod, py::args args) { return forward_any(mod, args); })
      .def("clone", &nn::Module::clone)
      .def("state_dict",
           [](const nn::Module& mod) {
             py::dict out;
             for (auto& [n, t] : mod.state_dict()) out[py::str(n)] = t;
             return out;
           })
      .def("__str__", &nn::Module::str)
      .def("pretty_print", [](const nn::Module& mod) {
        std::ostringstream os;
        mod.pretty_print(os);
        return os.str();
      });

  // Constructors with torch's argument names and defaults.
  sub.def(
      "Linear",
      [](int64_t in, int64_t out, bool bias) -> ModulePtr {
        return std::make_shared<nn::LinearImpl>(in, out, bias);
      },
      py::arg("in_features"), py::arg("out_features"), py::arg("bias") = true);
  sub.def(
      "Conv2d",
      [](int64_t in, int64_t out, std::vector<int64_t> k, std::vector<int64_t> s,
         std::vector<int64_t> p, std::vector<int64_t> d, int64_t g, bool bias) -> ModulePtr {
        return std::make_shared<nn::Conv2dImpl>(in, out, k, s, p, d, g, bias);
      },
      py::arg("in_channels"), py::arg("out_channels"), py::arg("kernel_size"),
      py::arg("stride") = std::vector<int64_t>{1}, py::arg("padding") = std::vector<int64_t>{0},
      py::arg("dilation") = std::vector<int64_t>{1}, py::arg("groups") = 1, py::arg("bias") = true);
  sub.def(
      "BatchNorm1d",
      [](int64_t n, double eps, double mom, bool affine, bool track) -> ModulePtr {
        return std::make_shared<nn::BatchNorm1dImpl>(n, eps, mom, affine, track);
      },
      py::arg("num_features"), py::arg("eps") = 1e-5, py::arg("momentum") = 0.1,
      py::arg("affine") = true, py::arg("track_running_stats") = true);
  sub.def(
      "BatchNorm2d",
      [](int64_t n, double eps, double mom, bool affine, bool track) -> ModulePtr {
        return std::make_shared<nn::BatchNorm2dImpl>(n, eps, mom, affine, track);
      },
      py::arg("num_features"), py::arg("eps") = 1e-5, py::arg("momentum") = 0.1,
      py::arg("affine") = true, py::arg("track_running_stats") = true);
  sub.def(
      "LayerNorm",
      [](std::vector<int64_t> shape, double eps, bool affine) -> ModulePtr {
        return std::make_shared<nn::LayerNormImpl>(shape, eps, affine);
      },
      py::arg("normalized_shape"), py::arg("eps") = 1e-5, py::arg("elementwise_affine") = true);
  sub.def("ReLU", []() -> ModulePtr { return std::make_shared<nn::ReLUImpl>(); });
  sub.def(
      "GELU", [](std::string a) -> ModulePtr { return std::make_shared<nn::GELUImpl>(a); },
      py::arg("approximate") = "none");
  sub.def(
      "Dropout", [](double p) -> ModulePtr { return std::make_shared<nn::DropoutImpl>(p); },
      py::arg("p") = 0.5);
  sub.def(
      "Embedding",
      [](int64_t n, int64_t d, std::optional<int64_t> pad, std::optional<double> max_norm,
         double norm_type, bool scale, bool sparse) -> ModulePtr {
        if (sparse) throw NotImplementedError("Embedding: sparse gradients are not supported");
        return std::make_shared<nn::EmbeddingImpl>(n, d, pad, max_norm, norm_type, scale);
      },
      py::arg("num_embeddings"), py::arg("embedding_dim"), py::arg("padding_idx") = py::none(),
      py::arg("max_norm") = py::none(), py::arg("norm_type") = 2.0,
      py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false);
  auto rnn_opts = [](int64_t in, int64_t hidden, int64_t layers, bool bias, bool batch_first,
                     double dropout, bool bidirectional) {
    return nn::RNNOptions{in, hidden, layers, bias, batch_first, dropout, bidirectional};
  };
  sub.def(
      "LSTM",
      [rnn_opts](int64_t in, int64_t h, int64_t l, bool b, bool bf, double d, bool bi,
                 int64_t proj) -> ModulePtr {
        nn::RNNOptions o = rnn_opts(in, h, l, b, bf, d, bi);
        o.proj_size = proj;
        return std::make_shared<nn::LSTMImpl>(o);
      },
      py::arg("input_size"), py::arg("hidden_size"), py::arg("num_layers") = 1,
      py::arg("bias") = true, py::arg("batch_first") = false, py::arg("dropout") = 0.0,
      py::arg("bidirectional") = false, py::arg("proj_size") = 0);
  sub.def(
      "GRU",
      [rnn_opts](int64_t in, int64_t h, int64_t l, bool b, bool bf, double d, bool bi)
          -> ModulePtr { return std::make_shared<nn::GRUImpl>(rnn_opts(in, h, l, b, bf, d, bi)); },
      py::arg("input_size"), py::arg("hidden_size"), py::arg("num_layers") = 1,
      py::arg("bias") = true, py::arg("batch_first") = false, py::arg("dropout") = 0.0,
      py::arg("bidirectional") = false);
  sub.def(
      "TransformerEncoderLayer",
      [](int64_t d_model, int64_t nhead, int64_t ff, double dropout, std::string act, double eps,
         bool bf, bool nf) -> ModulePtr {
        return std::make_shared<nn::TransformerEncoderLayerImpl>(
            nn::TransformerEncoderLayerOptions{d_model, nhead, ff, dropout, act, eps, bf, nf});
      },
      py::arg("d_model"), py::arg("nhead"), py::arg("dim_feedforward") = 2048,
      py::arg("dropout") = 0.1, py::arg("activation") = "relu", py::arg("layer_norm_eps") = 1e-5,
      py::arg("batch_first") = false, py::arg("norm_first") = false);
  sub.def(
      "Conv1d",
      [](int64_t in, int64_t out, std::vector<int64_t> k, std::vector<int64_t> s,
         std::vector<int64_t> p, std::vector<int64_t> d, int64_t g, bool bias) -> ModulePtr {
        return std::make_shared<nn::Conv1dImpl>(in, out, k, s, p, d, g, bias);
      },
      py::arg("in_channels"), py::arg("out_channels"), py::arg("kernel_size"),
      py::arg("stride") = std::vector<int64_t>{1}, py::arg("padding") = std::vector<int64_t>{0},
      py::arg("dilation") = std::vector<int64_t>{1}, py::arg("groups") = 1, py::arg("bias") = true);
  sub.def(
      "GroupNorm",
      [](int64_t g, int64_t c, double eps, bool affine) -> ModulePtr {
        return std::make_shared<nn::GroupNormImpl>(g, c, eps, affine);
      },
      py::arg("num_groups"), py::arg("num_channels"), py::arg("eps") = 1e-5,
      py::arg("affine") = true);
  sub.def(
      "MaxPool2d",
      [](std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p) -> ModulePtr {
        return std::make_shared<nn::MaxPool2dImpl>(k, s, p);
      },
      py::arg("kernel_size"), py::arg("stride") = std::vector<int64_t>{},
      py::arg("padding") = std::vector<int64_t>{0});
  sub.def(
      "AdaptiveAvgPool2d",
      [](std::vector<int64_t> o) -> ModulePtr {
        return std::make_shared<nn::AdaptiveAvgPool2dImpl>(o);
      },
      py::arg("output_size"));
  sub.def(
      "Flatten",
      [](int64_t s, int64_t e) -> ModulePtr { return std::make_shared<nn::FlattenImpl>(s, e); },
      py::arg("start_dim") = 1, py::arg("end_dim") = -1);
  sub.def("SiLU", []() -> ModulePtr { return std::make_shared<nn::SiLUImpl>(); });
  sub.def("Tanh", []() -> ModulePtr { return std::make_shared<nn::TanhImpl>(); });
  sub.def("Sigmoid", []() -> ModulePtr { return std::make_shared<nn::SigmoidImpl>(); });
  sub.def(
      "MultiheadAttention",
      [](int64_t e, int64_t h, double p, bool bias, bool bf) -> ModulePtr {
        return std::make_shared<nn::MultiheadAttentionImpl>(e, h, p, bias, bf);
      },
      py::arg("embed_dim"), py::arg("num_heads"), py::arg("dropout") = 0.0, py::arg("bias") = true,
      py::arg("batch_first") = false);
  sub.def(
      "TransformerDecoderLayer",
      [](int64_t d_model, int64_t nhead, int64_t ff, double dropout, std::string act, double eps,
         bool bf, bool nf) -> ModulePtr {
        return std::make_shared<nn::TransformerDecoderLayerImpl>(
            nn::TransformerDecoderLayerOptions{d_model, nhead, ff, dropout, act, eps, bf, nf});
      },
      py::arg("d_model"), py::arg("nhead"), py::arg("dim_feedforward") = 2048,
      py::arg("dropout") = 0.1, py::arg("activation") = "relu", py::arg("layer_norm_eps") = 1e-5,
      py::arg("batch_first") = false, py::arg("norm_first") = false);
  sub.def(
      "Transformer",
      [](int64_t d_model, int64_t nhead, int64_t enc, int64_t dec, int64_t ff, double dropout,
         std::string act, double eps, bool bf, bool nf) -> ModulePtr {
        nn::TransformerOptions o;
        o.d_model = d_model;
        o.nhead = nhead;
        o.num_encoder_layers = enc;
        o.num_decoder_layers = dec;
        o.dim_feedforward = ff;
        o.dropout = dropout;
        o.activation = act;
        o.layer_norm_eps = eps;
        o.batch_first = bf;
        o.norm_first = nf;
        return std::make_shared<nn::TransformerImpl>(o);
      },
      py::arg("d_model") = 512, py::arg("nhead") = 8, py::arg("num_encoder_layers") = 6,
      py::arg("num_decoder_layers") = 6, py::arg("dim_feedforward") = 2048,
      py::arg("dropout") = 0.1, py::arg("activation") = "relu", py::arg("layer_norm_eps") = 1e-5,
      py::arg("batch_first") = false, py::arg("norm_first") = false);
  // Sequential over C++ modules and Python modules (see python_module), registered "0", "1", ...
  sub.def(
      "Sequential",
      [](std::vector<ModulePtr> entries) -> ModulePtr {
        auto seq = std::make_shared<nn::SequentialImpl>();
        for (size_t i = 0; i < entries.size(); ++i) {
          TC_CHECK_TYPE(entries[i] != nullptr, "Sequential: entry ", i, " is None");
          auto it = unary_table().find(std::type_index(typeid(*entries[i])));
          TC_CHECK_TYPE(it != unary_table().end(), "Sequential: entry ", i, " (",
                        entries[i]->name(), ") has no Tensor -> Tensor forward");
          seq->push_back(nn::AnyModule::erased(entries[i], it->second));
        }
        return seq;
      },
      py::arg("entries"));
  // The C++ mirror of one Python module (fn is called as fn(x) by forward; None for submodules
  // that are only containers of parameters here).
  py::class_<PyModuleImpl, nn::Module, std::shared_ptr<PyModuleImpl>>(sub, "PythonModule")
      .def(py::init<py::object, std::string>(), py::arg("fn"), py::arg("type_name"))
      .def("add_parameter", &PyModuleImpl::add_parameter)
      .def("add_buffer", &PyModuleImpl::add_buffer)
      .def("add_child", &PyModuleImpl::add_child);
}

Registrar registrar(bind_nncpp);

}  // namespace
}  // namespace tc::python
