// Bindings for creation, conversion, arithmetic operators, views, sum/mean and autograd.
#include "bind.h"

namespace tc::python {
namespace {

TensorOptions options(py::object dtype, py::object device, bool requires_grad,
                      DType default_dtype = get_default_dtype()) {
  TensorOptions o(dtype.is_none() ? default_dtype : dtype.cast<DType>());
  if (!device.is_none()) o = o.device(device.cast<Device>());
  return o.requires_grad(requires_grad);
}

#define TC_FACTORY_KWARGS                                                       \
  py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), \
                 py::arg("requires_grad") = false, py::arg("out") = py::none()

void bind_creation(py::module_& m) {
  m.def(
      "empty",
      [](py::args size, py::object dtype, py::object device, bool rg, py::object) {
        return empty(to_shape(size), options(dtype, device, rg));
      },
      TC_FACTORY_KWARGS);
  m.def(
      "zeros",
      [](py::args size, py::object dtype, py::object device, bool rg, py::object) {
        return zeros(to_shape(size), options(dtype, device, rg));
      },
      TC_FACTORY_KWARGS);
  m.def(
      "ones",
      [](py::args size, py::object dtype, py::object device, bool rg, py::object) {
        return ones(to_shape(size), options(dtype, device, rg));
      },
      TC_FACTORY_KWARGS);
  m.def(
      "full",
      [](py::object size, py::object value, py::object dtype, py::object device, bool rg) {
        Scalar v = to_scalar(value, "full");
        DType def = v.is_floating() ? get_default_dtype() : v.default_dtype();
        return full(to_dims(size), v, options(dtype, device, rg, def));
      },
      py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "empty_strided",
      [](const Shape& size, const Shape& stride, py::object dtype, py::object device, bool rg) {
        return empty_strided(size, stride, options(dtype, device, rg));
      },
      py::arg("size"), py::arg("stride"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  auto like = [](const Tensor& t, py::object dtype, py::object device, bool rg) {
    TensorOptions o(dtype.is_none() ? t.dtype() : dtype.cast<DType>());
    o = o.device(device.is_none() ? t.device() : device.cast<Device>());
    return o.requires_grad(rg);
  };
#define TC_LIKE(name, expr)                                                               \
  m.def(                                                                                  \
      name,                                                                               \
      [like](const Tensor& t, py::object dtype, py::object device, bool rg, py::object) { \
        TensorOptions o = like(t, dtype, device, rg);                                     \
        return expr;                                                                      \
      },                                                                                  \
      py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(),                     \
      py::arg("device") = py::none(), py::arg("requires_grad") = false,                   \
      py::arg("memory_format") = py::none());
  TC_LIKE("empty_like", empty_like(t, o))
  TC_LIKE("zeros_like", zeros_like(t, o))
  TC_LIKE("ones_like", ones_like(t, o))
#undef TC_LIKE
  m.def(
      "full_like",
      [like](const Tensor& t, py::object value, py::object dtype, py::object device, bool rg) {
        return full_like(t, to_scalar(value, "full_like"), like(t, dtype, device, rg));
      },
      py::arg("input"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "arange",
      [](py::object a, py::object b, py::object step, py::object dtype, py::object device,
         bool rg) {
        Scalar start = b.is_none() ? Scalar(int64_t(0)) : to_scalar(a, "arange");
        Scalar end = b.is_none() ? to_scalar(a, "arange") : to_scalar(b, "arange");
        Scalar st = to_scalar(step, "arange");
        std::optional<TensorOptions> o;
        if (!dtype.is_none() || !device.is_none() || rg) {
          bool all_int = start.is_integral() && end.is_integral() && st.is_integral();
          o = options(dtype, device, rg, all_int ? DType::Int64 : get_default_dtype());
        }
        return arange(start, end, st, o);
      },
      py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(),
      py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false);
  m.def(
      "linspace",
      [](py::object s, py::object e, int64_t steps, py::object dtype, py::object device, bool rg) {
        return linspace(to_scalar(s), to_scalar(e), steps, options(dtype, device, rg));
      },
      py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(),
      py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false);
  m.def(
      "logspace",
      [](py::object s, py::object e, int64_t steps, double base, py::object dtype,
         py::object device, bool rg) {
        return logspace(to_scalar(s), to_scalar(e), steps, base, options(dtype, device, rg));
      },
      py::arg("start"), py::arg("end"), py::arg("steps"), py::arg("base") = 10.0, py::kw_only(),
      py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false);
  m.def(
      "eye",
      [](int64_t n, std::optional<int64_t> mm, py::object dtype, py::object device, bool rg) {
        return eye(n, mm, options(dtype, device, rg));
      },
      py::arg("n"), py::arg("m") = py::none(), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "scalar_tensor",
      [](py::object v, py::object dtype, py::object device) {
        Scalar s = to_scalar(v);
        DType d = dtype.is_none() ? (s.is_floating() ? get_default_dtype() : s.default_dtype())
                                  : dtype.cast<DType>();
        return scalar_tensor(s, d, device.is_none() ? Device() : device.cast<Device>());
      },
      py::arg("s"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
}

// Binary operator: Tensor op (Tensor | number). Kept lean: it is the hottest Python path.
template <Tensor (*Fn)(const Tensor&, const Tensor&)>
Tensor binop(const Tensor& a, py::handle b) {
  return Fn(a, to_tensor(b));
}
template <Tensor (*Fn)(const Tensor&, const Tensor&)>
Tensor rbinop(const Tensor& a, py::handle b) {
  return Fn(to_tensor(b), a);
}
Tensor add2(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor sub2(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor div2(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor floordiv2(const Tensor& a, const Tensor& b) { return div(a, b, "floor"); }

void bind_arith(py::module_& m, TensorClass& cls) {
  cls.def("__add__", &binop<add2>, py::is_operator())
      .def("__radd__", &rbinop<add2>, py::is_operator())
      .def("__sub__", &binop<sub2>, py::is_operator())
      .def("__rsub__", &rbinop<sub2>, py::is_operator())
      .def("__mul__", &binop<mul>, py::is_operator())
      .def("__rmul__", &rbinop<mul>, py::is_operator())
      .def("__truediv__", &binop<div2>, py::is_operator())
      .def("__rtruediv__", &rbinop<div2>, py::is_operator())
      .def("__floordiv__", &binop<floordiv2>, py::is_operator())
      .def("__rfloordiv__", &rbinop<floordiv2>, py::is_operator())
      .def("__neg__", [](const Tensor& a) { return neg(a); })
      .def("__pos__", [](const Tensor& a) { return a; })
      .def(
          "__iadd__", [](Tensor& a, py::handle b) { return add_(a, to_tensor(b)); },
          py::is_operator())
      .def(
          "__isub__", [](Tensor& a, py::handle b) { return sub_(a, to_tensor(b)); },
          py::is_operator())
      .def(
          "__imul__", [](Tensor& a, py::handle b) { return mul_(a, to_tensor(b)); },
          py::is_operator())
      .def(
          "__itruediv__", [](Tensor& a, py::handle b) { return div_(a, to_tensor(b)); },
          py::is_operator());

  auto add_fn = [](const Tensor& a, py::handle b, py::object alpha) {
    return add(a, to_tensor(b, "add"), to_scalar(alpha, "add"));
  };
  auto sub_fn = [](const Tensor& a, py::handle b, py::object alpha) {
    return sub(a, to_tensor(b, "sub"), to_scalar(alpha, "sub"));
  };
  def_fn_and_method(m, cls, "add", add_fn, py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  def_fn_and_method(m, cls, "sub", sub_fn, py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  def_fn_and_method(m, cls, "subtract", sub_fn, py::arg("other"), py::kw_only(),
                    py::arg("alpha") = 1);
  auto mul_fn = [](const Tensor& a, py::handle b) { return mul(a, to_tensor(b, "mul")); };
  def_fn_and_method(m, cls, "mul", mul_fn, py::arg("other"));
  def_fn_and_method(m, cls, "multiply", mul_fn, py::arg("other"));
  auto div_fn = [](const Tensor& a, py::handle b, std::optional<std::string> mode) {
    return div(a, to_tensor(b, "div"), mode.value_or(""));
  };
  def_fn_and_method(m, cls, "div", div_fn, py::arg("other"), py::kw_only(),
                    py::arg("rounding_mode") = py::none());
  def_fn_and_method(m, cls, "divide", div_fn, py::arg("other"), py::kw_only(),
                    py::arg("rounding_mode") = py::none());
  def_fn_and_method(
      m, cls, "true_divide", [](const Tensor& a, py::handle b) { return div(a, to_tensor(b)); },
      py::arg("other"));
  def_fn_and_method(
      m, cls, "floor_divide",
      [](const Tensor& a, py::handle b) { return div(a, to_tensor(b), "floor"); },
      py::arg("other"));
  def_fn_and_method(
      m, cls, "rsub",
      [](const Tensor& a, py::handle b, py::object alpha) {
        return sub(to_tensor(b), a, to_scalar(alpha));
      },
      py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  cls.def(
      "add_",
      [](Tensor& a, py::handle b, py::object alpha) {
        return add_(a, to_tensor(b), to_scalar(alpha));
      },
      py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  cls.def(
      "sub_",
      [](Tensor& a, py::handle b, py::object alpha) {
        return sub_(a, to_tensor(b), to_scalar(alpha));
      },
      py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  cls.def(
      "mul_", [](Tensor& a, py::handle b) { return mul_(a, to_tensor(b)); }, py::arg("other"));
  cls.def(
      "div_",
      [](Tensor& a, py::handle b, std::optional<std::string> mode) {
        return div_(a, to_tensor(b), mode.value_or(""));
      },
      py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  def_fn_and_method(m, cls, "neg", [](const Tensor& a) { return neg(a); });
  def_fn_and_method(m, cls, "negative", [](const Tensor& a) { return neg(a); });
  def_fn_and_method(m, cls, "exp", [](const Tensor& a) { return exp(a); });
  def_fn_and_method(m, cls, "log", [](const Tensor& a) { return log(a); });
  def_fn_and_method(m, cls, "sqrt", [](const Tensor& a) { return sqrt(a); });
  def_fn_and_method(m, cls, "conj", [](const Tensor& a) { return conj(a); });
  def_fn_and_method(m, cls, "real", [](const Tensor& a) { return real(a); });
  def_fn_and_method(m, cls, "imag", [](const Tensor& a) { return imag(a); });
  cls.def_property_readonly("real", [](const Tensor& a) { return real(a); });
  cls.def_property_readonly("imag", [](const Tensor& a) { return imag(a); });
}

void bind_views(py::module_& m, TensorClass& cls) {
  cls.def("view", [](const Tensor& a, py::args shape) {
    if (shape.size() == 1 && !PyLong_Check(shape[0].ptr()) &&
        !py::isinstance<py::sequence>(shape[0]))
      return view(a, shape[0].cast<DType>());  // view(dtype): the bytes read as another dtype
    return view(a, to_shape(shape));
  });
  // Each *sizes method also takes its sizes by torch's keyword (x.view(size=...), ...).
  cls.def(
      "view", [](const Tensor& a, const Shape& s) { return view(a, s); }, py::arg("size"));
  cls.def("reshape", [](const Tensor& a, py::args shape) { return reshape(a, to_shape(shape)); });
  cls.def(
      "reshape", [](const Tensor& a, const Shape& s) { return reshape(a, s); }, py::arg("shape"));
  m.def(
      "reshape", [](const Tensor& a, const Shape& s) { return reshape(a, s); }, py::arg("input"),
      py::arg("shape"));
  cls.def(
      "view_as", [](const Tensor& a, const Tensor& o) { return view(a, o.sizes()); },
      py::arg("other"));
  cls.def(
      "reshape_as", [](const Tensor& a, const Tensor& o) { return reshape(a, o.sizes()); },
      py::arg("other"));
  cls.def("expand", [](const Tensor& a, py::args shape) { return expand(a, to_shape(shape)); });
  // implicit is torch's tracing flag; it changes nothing in eager mode.
  cls.def(
      "expand", [](const Tensor& a, const Shape& s, bool) { return expand(a, s); }, py::arg("size"),
      py::kw_only(), py::arg("implicit") = false);
  cls.def(
      "expand_as", [](const Tensor& a, const Tensor& o) { return expand_as(a, o); },
      py::arg("other"));
  def_fn_and_method(
      m, cls, "broadcast_to", [](const Tensor& a, const Shape& s) { return broadcast_to(a, s); },
      py::arg("size"));
  cls.def("permute", [](const Tensor& a, py::args dims) { return permute(a, to_shape(dims)); });
  cls.def(
      "permute", [](const Tensor& a, const Shape& d) { return permute(a, d); }, py::arg("dims"));
  m.def(
      "permute", [](const Tensor& a, const Shape& dims) { return permute(a, dims); },
      py::arg("input"), py::arg("dims"));
  auto transpose_fn = [](const Tensor& a, int64_t d0, int64_t d1) { return transpose(a, d0, d1); };
  def_fn_and_method(m, cls, "transpose", transpose_fn, py::arg("dim0"), py::arg("dim1"));
  def_fn_and_method(m, cls, "swapaxes", transpose_fn, py::arg("axis0"), py::arg("axis1"));
  def_fn_and_method(m, cls, "swapdims", transpose_fn, py::arg("dim0"), py::arg("dim1"));
  def_fn_and_method(m, cls, "t", [](const Tensor& a) { return t(a); });
  cls.def_property_readonly("T", [](const Tensor& a) {
    std::vector<int64_t> dims;
    for (int64_t i = a.dim() - 1; i >= 0; --i) dims.push_back(i);
    return permute(a, dims);
  });
  cls.def_property_readonly("mT", [](const Tensor& a) {
    TC_CHECK(a.dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ",
             a.dim(), "-D tensor.");
    return transpose(a, -2, -1);
  });
  def_fn_and_method(
      m, cls, "unsqueeze", [](const Tensor& a, int64_t d) { return unsqueeze(a, d); },
      py::arg("dim"));
  def_fn_and_method(
      m, cls, "squeeze",
      [](const Tensor& a, py::object d) {
        return d.is_none() ? squeeze(a) : squeeze(a, d.cast<int64_t>());
      },
      py::arg("dim") = py::none());
  def_fn_and_method(
      m, cls, "flatten", [](const Tensor& a, int64_t s, int64_t e) { return flatten(a, s, e); },
      py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  def_fn_and_method(
      m, cls, "select", [](const Tensor& a, int64_t d, int64_t i) { return select(a, d, i); },
      py::arg("dim"), py::arg("index"));
  def_fn_and_method(
      m, cls, "narrow",
      [](const Tensor& a, int64_t d, int64_t s, int64_t l) { return narrow(a, d, s, l); },
      py::arg("dim"), py::arg("start"), py::arg("length"));
  def_fn_and_method(
      m, cls, "as_strided",
      [](const Tensor& a, const Shape& size, const Shape& stride, std::optional<int64_t> off) {
        return as_strided(a, size, stride, off.value_or(a.storage_offset()));
      },
      py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
  def_fn_and_method(
      m, cls, "as_strided_",
      [](Tensor& a, const Shape& size, const Shape& stride, std::optional<int64_t> off) {
        return as_strided_(a, size, stride, off.value_or(a.storage_offset()));
      },
      py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
}

void bind_conversion(py::module_& m, TensorClass& cls) {
  cls.def("to", [](const Tensor& a, py::args args, py::kwargs kwargs) {
    Device dev = a.device();
    DType dt = a.dtype();
    bool copy = false;
    for (auto x : args) {
      if (is_tensor(x)) {
        Tensor o = x.cast<Tensor>();
        dev = o.device();
        dt = o.dtype();
        continue;
      }
      if (py::isinstance<py::str>(x)) {  // "cpu", "cuda:1" name devices; anything else a dtype
        const std::string s = x.cast<std::string>();
        if (s == "cpu" || s.rfind("cpu:", 0) == 0 || s.rfind("cuda", 0) == 0) {
          dev = Device(s);
          continue;
        }
      }
      try {
        dt = x.cast<DType>();
        continue;
      } catch (const py::cast_error&) {
      }
      dev = x.cast<Device>();
    }
    if (kwargs.contains("dtype") && !kwargs["dtype"].is_none()) dt = kwargs["dtype"].cast<DType>();
    if (kwargs.contains("device") && !kwargs["device"].is_none())
      dev = kwargs["device"].cast<Device>();
    if (kwargs.contains("copy")) copy = kwargs["copy"].cast<bool>();
    return to(a, dev, dt, copy);
  });
  cls.def("cpu", [](const Tensor& a) { return to_device(a, Device()); });
  cls.def(
      "cuda",
      [](const Tensor& a, py::object device, bool) {
        return to_device(a, device.is_none() ? Device(DeviceType::CUDA) : device.cast<Device>());
      },
      py::arg("device") = py::none(), py::arg("non_blocking") = false);
  cls.def(
      "type",
      [](const Tensor& a, py::object dtype) -> py::object {
        if (dtype.is_none()) return py::str(std::string("tensorcore.") + dtype_name(a.dtype()));
        return py::cast(to_dtype(a, dtype.cast<DType>()));
      },
      py::arg("dtype") = py::none());
#define TC_CAST(name, dt) cls.def(name, [](const Tensor& a) { return to_dtype(a, DType::dt); });
  TC_CAST("float", Float32);
  TC_CAST("double", Float64);
  TC_CAST("half", Float16);
  TC_CAST("bfloat16", BFloat16);
  TC_CAST("long", Int64);
  TC_CAST("int", Int32);
  TC_CAST("short", Int16);
  TC_CAST("char", Int8);
  TC_CAST("byte", UInt8);
  TC_CAST("bool", Bool);
  TC_CAST("cfloat", Complex64);
  TC_CAST("cdouble", Complex128);
#undef TC_CAST
  def_fn_and_method(
      m, cls, "clone", [](const Tensor& a, py::object) { return clone(a); }, py::kw_only(),
      py::arg("memory_format") = py::none());
  cls.def(
      "contiguous", [](const Tensor& a, py::object) { return contiguous(a); },
      py::arg("memory_format") = py::none());
  cls.def(
      "copy_", [](Tensor& a, const Tensor& src, bool nb) { return copy_(a, src, nb); },
      py::arg("src"), py::arg("non_blocking") = false);
  cls.def(
      "fill_",
      [](Tensor& a, py::object v) {
        autograd::check_inplace(a, "fill_");
        fill_(a, to_scalar(v, "fill_"));
        return a;
      },
      py::arg("value"));
  cls.def("zero_", [](Tensor& a) {
    zero_(a);
    return a;
  });
}

void bind_reduce(py::module_& m, TensorClass& cls) {
  def_fn_and_method(
      m, cls, "sum",
      [](const Tensor& a, py::object dim, bool keepdim, py::object dtype) {
        std::optional<DType> dt;
        if (!dtype.is_none()) dt = dtype.cast<DType>();
        return sum(a, to_dims(dim), keepdim, dt);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
  def_fn_and_method(
      m, cls, "mean",
      [](const Tensor& a, py::object dim, bool keepdim, py::object dtype) {
        std::optional<DType> dt;
        if (!dtype.is_none()) dt = dtype.cast<DType>();
        return mean(a, to_dims(dim), keepdim, dt);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
  cls.def("sum_to_size", [](const Tensor& a, py::args s) { return sum_to_size(a, to_shape(s)); });
  cls.def(
      "sum_to_size", [](const Tensor& a, const Shape& s) { return sum_to_size(a, s); },
      py::arg("size"));
}

void bind_autograd(py::module_& m) {
  py::module_ ag = m.def_submodule("_autograd");
  ag.def("is_grad_enabled", &autograd::grad_enabled);
  ag.def("set_grad_enabled", &autograd::set_grad_enabled);
  ag.def("is_inference_mode_enabled", &autograd::inference_mode_enabled);
  ag.def("set_inference_mode", &autograd::set_inference_mode);
  ag.def("grad", [](const TensorList& outputs, const TensorList& inputs,
                    const TensorList& grad_outputs, std::optional<bool> retain_graph,
                    bool create_graph, bool allow_unused) {
    py::gil_scoped_release release;
    return autograd::grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused);
  });
  ag.def("backward", [](const TensorList& roots, const TensorList& grads, bool retain_graph,
                        bool create_graph, const TensorList& inputs) {
    py::gil_scoped_release release;
    autograd::run_backward(roots, grads, retain_graph, create_graph, inputs, false, true);
  });
}

void bind_core_ops(py::module_& m, TensorClass& cls) {
  bind_creation(m);
  bind_arith(m, cls);
  bind_views(m, cls);
  bind_conversion(m, cls);
  bind_reduce(m, cls);
  bind_autograd(m);
}

Registrar registrar(bind_core_ops);

}  // namespace
}  // namespace tc::python
