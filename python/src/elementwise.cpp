// Bindings for the elementwise math family: unary math, pow, clamp, binary math, bitwise,
// logical and comparison ops (functions, methods, in-place methods and Python operators).
#include "bind.h"

namespace tc::python {
namespace {

bool is_number_like(py::handle o) {
  return is_tensor(o) || PyBool_Check(o.ptr()) || PyLong_Check(o.ptr()) || PyFloat_Check(o.ptr()) ||
         PyComplex_Check(o.ptr()) || (py::hasattr(o, "dtype") && py::hasattr(o, "item"));
}
py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

// Tensor <op> other for Python operators: NotImplemented for foreign types (so `t == None` is
// False, like torch).
template <typename F>
py::object op_or_ni(const Tensor& a, py::handle b, F f) {
  if (!is_number_like(b)) return not_implemented();
  return py::cast(f(a, to_tensor(b)));
}

void bind_unary(py::module_& m, TensorClass& cls) {
#define TC_BIND_UNARY(name)                                                      \
  def_fn_and_method(m, cls, #name, [](const Tensor& a) { return tc::name(a); }); \
  cls.def(#name "_", [](Tensor& a) { return tc::name##_(a); });
  TC_UNARY_OPS(TC_BIND_UNARY)
#undef TC_BIND_UNARY
  cls.def("neg_", [](Tensor& a) { return neg_(a); });
  cls.def("negative_", [](Tensor& a) { return neg_(a); });
  cls.def("exp_", [](Tensor& a) { return exp_(a); });
  cls.def("log_", [](Tensor& a) { return log_(a); });
  cls.def("sqrt_", [](Tensor& a) { return sqrt_(a); });
  // NumPy-style aliases.
  struct Alias {
    const char* alias;
    Tensor (*fn)(const Tensor&);
    Tensor& (*ifn)(Tensor&);
  };
  static const Alias aliases[] = {
      {"absolute", &tc::abs, &tc::abs_},    {"arcsin", &tc::asin, &tc::asin_},
      {"arccos", &tc::acos, &tc::acos_},    {"arctan", &tc::atan, &tc::atan_},
      {"arcsinh", &tc::asinh, &tc::asinh_}, {"arccosh", &tc::acosh, &tc::acosh_},
      {"arctanh", &tc::atanh, &tc::atanh_}, {"fix", &tc::trunc, &tc::trunc_},
  };
  for (const Alias& al : aliases) {
    auto fn = al.fn;
    auto ifn = al.ifn;
    m.def(
        al.alias, [fn](const Tensor& a) { return fn(a); }, py::arg("input"));
    cls.def(al.alias, [fn](const Tensor& a) { return fn(a); });
    cls.def((std::string(al.alias) + "_").c_str(), [ifn](Tensor& a) { return ifn(a); });
  }
  def_fn_and_method(
      m, cls, "round", [](const Tensor& a, int64_t d) { return round(a, d); }, py::kw_only(),
      py::arg("decimals") = 0);
  cls.def(
      "round_", [](Tensor& a, int64_t d) { return round_(a, d); }, py::kw_only(),
      py::arg("decimals") = 0);
  def_fn_and_method(m, cls, "angle", [](const Tensor& a) { return angle(a); });
  m.def(
      "polygamma", [](int64_t n, const Tensor& a) { return polygamma(n, a); }, py::arg("n"),
      py::arg("input"));
  cls.def(
      "polygamma", [](const Tensor& a, int64_t n) { return polygamma(n, a); }, py::arg("n"));
  auto n2n = [](const Tensor& a, std::optional<double> nan, std::optional<double> pinf,
                std::optional<double> ninf) {
    return nan_to_num(a, nan.value_or(0.0), pinf, ninf);
  };
  def_fn_and_method(m, cls, "nan_to_num", n2n, py::arg("nan") = 0.0, py::arg("posinf") = py::none(),
                    py::arg("neginf") = py::none());
  cls.def(
      "nan_to_num_",
      [](Tensor& a, std::optional<double> nan, std::optional<double> pinf,
         std::optional<double> ninf) { return nan_to_num_(a, nan.value_or(0.0), pinf, ninf); },
      py::arg("nan") = 0.0, py::arg("posinf") = py::none(), py::arg("neginf") = py::none());
#define TC_BIND_PRED(name) \
  def_fn_and_method(m, cls, #name, [](const Tensor& a) { return tc::name(a); });
  TC_BIND_PRED(isnan);
  TC_BIND_PRED(isinf);
  TC_BIND_PRED(isposinf);
  TC_BIND_PRED(isneginf);
  TC_BIND_PRED(isfinite);
  TC_BIND_PRED(isreal);
#undef TC_BIND_PRED
}

// clamp(min=None, max=None): numbers use the scalar kernel, tensors the 3-input one.
Tensor clamp_py(const Tensor& a, py::handle lo, py::handle hi) {
  if (is_tensor(lo) || is_tensor(hi)) {
    Tensor l = lo.is_none() ? Tensor() : to_tensor(lo, "clamp");
    Tensor h = hi.is_none() ? Tensor() : to_tensor(hi, "clamp");
    return clamp(a, l, h);
  }
  std::optional<Scalar> l, h;
  if (!lo.is_none()) l = to_scalar(lo, "clamp");
  if (!hi.is_none()) h = to_scalar(hi, "clamp");
  return clamp(a, l, h);
}
Tensor& clamp_py_(Tensor& a, py::handle lo, py::handle hi) {
  if (is_tensor(lo) || is_tensor(hi)) {
    Tensor l = lo.is_none() ? Tensor() : to_tensor(lo, "clamp_");
    Tensor h = hi.is_none() ? Tensor() : to_tensor(hi, "clamp_");
    return clamp_(a, l, h);
  }
  std::optional<Scalar> l, h;
  if (!lo.is_none()) l = to_scalar(lo, "clamp_");
  if (!hi.is_none()) h = to_scalar(hi, "clamp_");
  return clamp_(a, l, h);
}

void bind_clamp(py::module_& m, TensorClass& cls) {
  for (const char* name : {"clamp", "clip"}) {
    def_fn_and_method(
        m, cls, name,
        [](const Tensor& a, py::object lo, py::object hi) { return clamp_py(a, lo, hi); },
        py::arg("min") = py::none(), py::arg("max") = py::none());
    cls.def((std::string(name) + "_").c_str(),
            [](Tensor& a, py::object lo, py::object hi) { return clamp_py_(a, lo, hi); },
            py::arg("min") = py::none(), py::arg("max") = py::none());
  }
  def_fn_and_method(
      m, cls, "clamp_min",
      [](const Tensor& a, py::object lo) { return clamp_py(a, lo, py::none()); }, py::arg("min"));
  def_fn_and_method(
      m, cls, "clamp_max",
      [](const Tensor& a, py::object hi) { return clamp_py(a, py::none(), hi); }, py::arg("max"));
  cls.def(
      "clamp_min_", [](Tensor& a, py::object lo) { return clamp_py_(a, lo, py::none()); },
      py::arg("min"));
  cls.def(
      "clamp_max_", [](Tensor& a, py::object hi) { return clamp_py_(a, py::none(), hi); },
      py::arg("max"));
}

Tensor pow_py(py::handle a, py::handle b) {
  if (is_tensor(a)) return pow(a.cast<Tensor>(), to_tensor(b, "pow"));
  return pow(to_scalar(a, "pow"), b.cast<Tensor>());
}

void bind_binary(py::module_& m, TensorClass& cls) {
#define TC_BIND_BINARY(name)                                                                      \
  def_fn_and_method(                                                                              \
      m, cls, #name,                                                                              \
      [](const Tensor& a, py::handle b) { return tc::name(a, to_tensor(b, #name)); },             \
      py::arg("other"));                                                                          \
  cls.def(                                                                                        \
      #name "_", [](Tensor& a, py::handle b) { return tc::name##_(a, to_tensor(b, #name "_")); }, \
      py::arg("other"));
  TC_BINARY_OPS(TC_BIND_BINARY)
#undef TC_BIND_BINARY
  struct Alias {
    const char* alias;
    const char* target;
  };
  static const Alias aliases[] = {
      {"arctan2", "atan2"}, {"greater", "gt"},    {"greater_equal", "ge"},
      {"less", "lt"},       {"less_equal", "le"}, {"not_equal", "ne"},
  };
  for (const Alias& al : aliases) {
    m.attr(al.alias) = m.attr(al.target);
    cls.attr(al.alias) = cls.attr(al.target);
    cls.attr((std::string(al.alias) + "_").c_str()) =
        cls.attr((std::string(al.target) + "_").c_str());
  }

  m.def(
      "pow", [](py::handle a, py::handle b) { return pow_py(a, b); }, py::arg("input"),
      py::arg("exponent"));
  cls.def(
      "pow", [](const Tensor& a, py::handle b) { return pow(a, to_tensor(b, "pow")); },
      py::arg("exponent"));
  cls.def(
      "pow_", [](Tensor& a, py::handle b) { return pow_(a, to_tensor(b, "pow_")); },
      py::arg("exponent"));

  def_fn_and_method(
      m, cls, "lerp",
      [](const Tensor& s, const Tensor& e, py::handle w) {
        return lerp(s, e, to_tensor(w, "lerp"));
      },
      py::arg("end"), py::arg("weight"));
  cls.def(
      "lerp_",
      [](Tensor& s, const Tensor& e, py::handle w) { return lerp_(s, e, to_tensor(w, "lerp_")); },
      py::arg("end"), py::arg("weight"));

  m.def(
      "where",
      [m](const Tensor& cond, py::object a, py::object b) -> py::object {
        if (a.is_none() && b.is_none()) {
          TC_CHECK_AS(NotImplementedError, py::hasattr(m, "nonzero"),
                      "where(condition) needs tensorcore.nonzero, which is not available");
          return m.attr("nonzero")(cond, py::arg("as_tuple") = true);
        }
        TC_CHECK_TYPE(!a.is_none() && !b.is_none(),
                      "where: expected both input and other, or neither");
        return py::cast(where(cond, to_tensor(a, "where"), to_tensor(b, "where")));
      },
      py::arg("condition"), py::arg("input") = py::none(), py::arg("other") = py::none());
  cls.def(
      "where",
      [](const Tensor& self, const Tensor& cond, py::handle other) {
        return where(cond, self, to_tensor(other, "where"));
      },
      py::arg("condition"), py::arg("other"));

  def_fn_and_method(
      m, cls, "equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); },
      py::arg("other"));
  def_fn_and_method(
      m, cls, "isclose",
      [](const Tensor& a, py::handle b, double rtol, double atol, bool en) {
        return isclose(a, to_tensor(b, "isclose"), rtol, atol, en);
      },
      py::arg("other"), py::arg("rtol") = 1e-05, py::arg("atol") = 1e-08,
      py::arg("equal_nan") = false);
  def_fn_and_method(
      m, cls, "allclose",
      [](const Tensor& a, py::handle b, double rtol, double atol, bool en) {
        return allclose(a, to_tensor(b, "allclose"), rtol, atol, en);
      },
      py::arg("other"), py::arg("rtol") = 1e-05, py::arg("atol") = 1e-08,
      py::arg("equal_nan") = false);
  m.def(
      "complex", [](const Tensor& re, const Tensor& im) { return complex(re, im); },
      py::arg("real"), py::arg("imag"));
  m.def(
      "polar", [](const Tensor& a, const Tensor& t) { return polar(a, t); }, py::arg("abs"),
      py::arg("angle"));
  def_fn_and_method(m, cls, "view_as_real", [](const Tensor& a) { return view_as_real(a); });
  def_fn_and_method(m, cls, "view_as_complex", [](const Tensor& a) { return view_as_complex(a); });
}

void bind_operators(TensorClass& cls) {
#define TC_OP(dunder, expr)                                                           \
  cls.def(                                                                            \
      dunder,                                                                         \
      [](const Tensor& a, py::handle b) -> py::object {                               \
        return op_or_ni(a, b, [](const Tensor& x, const Tensor& y) { return expr; }); \
      },                                                                              \
      py::is_operator());
#define TC_IOP(dunder, fn)                                \
  cls.def(                                                \
      dunder,                                             \
      [](Tensor& a, py::handle b) -> py::object {         \
        if (!is_number_like(b)) return not_implemented(); \
        Tensor y = to_tensor(b);                          \
        return py::cast(fn(a, y));                        \
      },                                                  \
      py::is_operator());
  TC_OP("__eq__", eq(x, y));
  TC_OP("__ne__", ne(x, y));
  TC_OP("__lt__", lt(x, y));
  TC_OP("__le__", le(x, y));
  TC_OP("__gt__", gt(x, y));
  TC_OP("__ge__", ge(x, y));
  TC_OP("__pow__", pow(x, y));
  TC_OP("__mod__", remainder(x, y));
  TC_OP("__rmod__", remainder(y, x));
  TC_OP("__and__", bitwise_and(x, y));
  TC_OP("__rand__", bitwise_and(y, x));
  TC_OP("__or__", bitwise_or(x, y));
  TC_OP("__ror__", bitwise_or(y, x));
  TC_OP("__xor__", bitwise_xor(x, y));
  TC_OP("__rxor__", bitwise_xor(y, x));
  TC_OP("__lshift__", bitwise_left_shift(x, y));
  TC_OP("__rlshift__", bitwise_left_shift(y, x));
  TC_OP("__rshift__", bitwise_right_shift(x, y));
  TC_OP("__rrshift__", bitwise_right_shift(y, x));
  TC_IOP("__ipow__", pow_);
  TC_IOP("__imod__", remainder_);
  TC_IOP("__iand__", bitwise_and_);
  TC_IOP("__ior__", bitwise_or_);
  TC_IOP("__ixor__", bitwise_xor_);
  TC_IOP("__ilshift__", bitwise_left_shift_);
  TC_IOP("__irshift__", bitwise_right_shift_);
#undef TC_OP
#undef TC_IOP
  cls.def(
      "__rpow__",
      [](const Tensor& a, py::handle b) -> py::object {
        if (!is_number_like(b)) return not_implemented();
        if (is_tensor(b)) return py::cast(pow(b.cast<Tensor>(), a));
        return py::cast(pow(to_scalar(b, "pow"), a));
      },
      py::is_operator());
  cls.def("__abs__", [](const Tensor& a) { return abs(a); });
  cls.def("__invert__", [](const Tensor& a) { return bitwise_not(a); });
}

void bind_elementwise(py::module_& m, TensorClass& cls) {
  bind_unary(m, cls);
  bind_clamp(m, cls);
  bind_binary(m, cls);
  bind_operators(cls);
}

Registrar registrar(bind_elementwise);

}  // namespace
}  // namespace tc::python
