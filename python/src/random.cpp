// Bindings for tc.Generator and random sampling (rand, randn, randint, ..., Tensor.normal_ ...).
#include "tensorcore/ops/random.h"
#include "bind.h"
#include "tensorcore/core/generator.h"

namespace tc::python {
namespace {

GeneratorPtr to_gen(py::handle g) {
  if (g.is_none()) return {};
  return g.cast<GeneratorPtr>();
}

TensorOptions opts(py::handle dtype, py::handle device, bool rg, DType def) {
  TensorOptions o(dtype.is_none() ? def : dtype.cast<DType>());
  if (!device.is_none()) o = o.device(device.cast<Device>());
  return o.requires_grad(rg);
}

std::optional<TensorOptions> like_opts(const Tensor& t, py::handle dtype, py::handle device,
                                       bool rg) {
  TensorOptions o(dtype.is_none() ? t.dtype() : dtype.cast<DType>());
  o = o.device(device.is_none() ? t.device() : device.cast<Device>());
  return o.requires_grad(rg);
}

#define TC_RAND_KW                                                               \
  py::kw_only(), py::arg("generator") = py::none(), py::arg("out") = py::none(), \
                 py::arg("dtype") = py::none(), py::arg("layout") = py::none(),  \
                 py::arg("device") = py::none(), py::arg("pin_memory") = false,  \
                 py::arg("requires_grad") = false

void bind_random(py::module_& m, TensorClass& cls) {
  m.def("_random_math_probe", &random_math_probe, py::arg("fn"), py::arg("x"));
  py::class_<Generator, GeneratorPtr>(m, "Generator")
      .def(py::init([](py::object device) {
             Device d = device.is_none() ? Device() : device.cast<Device>();
             TC_CHECK(d.is_cpu(), "Generator: only 'cpu' generators are supported, got ", d.str());
             return std::make_shared<Generator>(d);
           }),
           py::arg("device") = py::none())
      .def(
          "manual_seed",
          [](GeneratorPtr g, py::int_ seed) {
            // Python ints (negative too) wrap to 64 bits like torch.
            g->manual_seed(py::module_::import("builtins")
                               .attr("int")(seed)
                               .attr("__and__")(py::int_(~0ull))
                               .cast<uint64_t>());
            return g;
          },
          py::arg("seed"))
      .def("seed", [](Generator& g) { return g.seed(); })
      .def("initial_seed", [](const Generator& g) { return g.initial_seed(); })
      .def("get_state", [](const Generator& g) { return g.get_state(); })
      .def(
          "set_state",
          [](GeneratorPtr g, const Tensor& s) {
            g->set_state(s);
            return g;
          },
          py::arg("new_state"))
      .def_property_readonly("device", [](const Generator& g) { return g.device(); })
      .def("__repr__",
           [](const Generator&) { return std::string("<tensorcore.Generator object>"); });
  m.attr("default_generator") = py::cast(default_generator());
  m.def(
      "manual_seed",
      [](py::int_ seed) {
        default_generator()->manual_seed(py::reinterpret_borrow<py::object>(seed)
                                             .attr("__and__")(py::int_(~0ull))
                                             .cast<uint64_t>());
        return default_generator();
      },
      py::arg("seed"));
  m.def("seed", []() { return seed(); });
  m.def("initial_seed", []() { return initial_seed(); });
  m.def("get_rng_state", []() { return default_generator()->get_state(); });
  m.def(
      "set_rng_state", [](const Tensor& s) { default_generator()->set_state(s); },
      py::arg("new_state"));

  m.def(
      "rand",
      [](py::args size, py::object g, py::object, py::object dtype, py::object, py::object device,
         bool, bool rg) {
        return rand(to_shape(size), to_gen(g), opts(dtype, device, rg, get_default_dtype()));
      },
      TC_RAND_KW);
  m.def(
      "randn",
      [](py::args size, py::object g, py::object, py::object dtype, py::object, py::object device,
         bool, bool rg) {
        return randn(to_shape(size), to_gen(g), opts(dtype, device, rg, get_default_dtype()));
      },
      TC_RAND_KW);
  m.def(
      "randint",
      [](py::args args, py::object size_kw, py::object g, py::object, py::object dtype, py::object,
         py::object device, bool, bool rg) {
        // randint(high, size) or randint(low, high, size); size may also come as size=.
        const size_t want_min = size_kw.is_none() ? 2 : 1;
        TC_CHECK_TYPE(args.size() >= want_min && args.size() <= want_min + 1,
                      "randint() expects (high, size) or (low, high, size), got ", args.size(),
                      " positional arguments", size_kw.is_none() ? "" : " and size=");
        const size_t n_bounds = size_kw.is_none() ? args.size() - 1 : args.size();
        int64_t low = n_bounds == 2 ? args[0].cast<int64_t>() : 0;
        int64_t high = args[n_bounds - 1].cast<int64_t>();
        Shape size = to_dims(size_kw.is_none() ? py::object(args[args.size() - 1]) : size_kw);
        return randint(low, high, size, to_gen(g), opts(dtype, device, rg, DType::Int64));
      },
      py::kw_only(), py::arg("size") = py::none(), py::arg("generator") = py::none(),
      py::arg("out") = py::none(), py::arg("dtype") = py::none(), py::arg("layout") = py::none(),
      py::arg("device") = py::none(), py::arg("pin_memory") = false,
      py::arg("requires_grad") = false);
  m.def(
      "randperm",
      [](int64_t n, py::object g, py::object, py::object dtype, py::object, py::object device, bool,
         bool rg) { return randperm(n, to_gen(g), opts(dtype, device, rg, DType::Int64)); },
      py::arg("n"), TC_RAND_KW);
#define TC_LIKE_KW                                                      \
  py::arg("input"), py::kw_only(),                                      \
      py::arg("generator") = py::none(), py::arg("dtype") = py::none(), \
      py::arg("layout") = py::none(), py::arg("device") = py::none(),   \
      py::arg("requires_grad") = false, py::arg("memory_format") = py::none()
  m.def(
      "rand_like",
      [](const Tensor& t, py::object g, py::object dtype, py::object, py::object device, bool rg,
         py::object) { return rand_like(t, to_gen(g), like_opts(t, dtype, device, rg)); },
      TC_LIKE_KW);
  m.def(
      "randn_like",
      [](const Tensor& t, py::object g, py::object dtype, py::object, py::object device, bool rg,
         py::object) { return randn_like(t, to_gen(g), like_opts(t, dtype, device, rg)); },
      TC_LIKE_KW);
  m.def(
      "randint_like",
      [](const Tensor& t, py::args args, py::object g, py::object dtype, py::object,
         py::object device, bool rg, py::object) {
        TC_CHECK_TYPE(args.size() == 1 || args.size() == 2,
                      "randint_like() expects (input, high) or (input, low, high)");
        int64_t low = args.size() == 2 ? args[0].cast<int64_t>() : 0;
        int64_t high = args[args.size() - 1].cast<int64_t>();
        return randint_like(t, low, high, to_gen(g), like_opts(t, dtype, device, rg));
      },
      py::arg("input"), py::kw_only(), py::arg("generator") = py::none(),
      py::arg("dtype") = py::none(), py::arg("layout") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false, py::arg("memory_format") = py::none());
#undef TC_LIKE_KW
  m.def(
      "normal",
      [](py::object mean, py::object std, py::object size, py::object g, py::object,
         py::object dtype, py::object, py::object device, bool, bool rg) -> Tensor {
        GeneratorPtr gen = to_gen(g);
        bool mt = is_tensor(mean), st = is_tensor(std);
        if (mt && st) return normal(mean.cast<Tensor>(), std.cast<Tensor>(), gen);
        if (mt) return normal(mean.cast<Tensor>(), std.cast<double>(), gen);
        if (st) return normal(mean.cast<double>(), std.cast<Tensor>(), gen);
        TC_CHECK_TYPE(!size.is_none(), "normal() with float mean and std requires a size argument");
        return normal(mean.cast<double>(), std.cast<double>(), to_dims(size), gen,
                      opts(dtype, device, rg, get_default_dtype()));
      },
      py::arg("mean"), py::arg("std") = 1.0, py::arg("size") = py::none(), TC_RAND_KW);
  m.def(
      "bernoulli",
      [](const Tensor& input, py::object p, py::object g, py::object) {
        if (p.is_none()) return bernoulli(input, to_gen(g));
        return bernoulli(input, p.cast<double>(), to_gen(g));
      },
      py::arg("input"), py::arg("p") = py::none(), py::kw_only(), py::arg("generator") = py::none(),
      py::arg("out") = py::none());
  cls.def(
      "bernoulli",
      [](const Tensor& input, py::object p, py::object g) {
        if (p.is_none()) return bernoulli(input, to_gen(g));
        return bernoulli(input, p.cast<double>(), to_gen(g));
      },
      py::arg("p") = py::none(), py::kw_only(), py::arg("generator") = py::none());
  def_fn_and_method(
      m, cls, "multinomial",
      [](const Tensor& p, int64_t n, bool repl, py::object g) {
        return multinomial(p, n, repl, to_gen(g));
      },
      py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(),
      py::arg("generator") = py::none());

  cls.def(
      "uniform_",
      [](Tensor& t, double from, double to, py::object g) -> Tensor& {
        return uniform_(t, from, to, to_gen(g));
      },
      py::arg("from") = 0.0, py::arg("to") = 1.0, py::kw_only(), py::arg("generator") = py::none());
  cls.def(
      "normal_",
      [](Tensor& t, double mean, double std, py::object g) -> Tensor& {
        return normal_(t, mean, std, to_gen(g));
      },
      py::arg("mean") = 0.0, py::arg("std") = 1.0, py::kw_only(),
      py::arg("generator") = py::none());
  cls.def(
      "exponential_",
      [](Tensor& t, double l, py::object g) -> Tensor& { return exponential_(t, l, to_gen(g)); },
      py::arg("lambd") = 1.0, py::kw_only(), py::arg("generator") = py::none());
  cls.def(
      "bernoulli_",
      [](Tensor& t, py::object p, py::object g) -> Tensor& {
        if (is_tensor(p)) return bernoulli_(t, p.cast<Tensor>(), to_gen(g));
        return bernoulli_(t, p.cast<double>(), to_gen(g));
      },
      py::arg("p") = 0.5, py::kw_only(), py::arg("generator") = py::none());
  // random_(), random_(to), random_(from, to) with torch's keyword names `from` and `to`.
  cls.def("random_", [](Tensor& t, py::args args, py::kwargs kwargs) -> Tensor& {
    py::object from = py::none(), to = py::none(), g = py::none();
    bool has_to = false;
    TC_CHECK_TYPE(args.size() <= 2, "random_() takes at most 2 positional arguments");
    if (args.size() == 1) {
      to = args[0];
      has_to = true;
    } else if (args.size() == 2) {
      from = args[0];
      to = args[1];
      has_to = true;
    }
    for (auto item : kwargs) {
      const auto key = item.first.cast<std::string>();
      if (key == "generator") {
        g = py::reinterpret_borrow<py::object>(item.second);
      } else if ((key == "from" && args.size() == 0) || (key == "to" && args.size() < 2)) {
        TC_CHECK_TYPE(!(key == "to" && args.size() == 1), "random_(): got 'to' twice");
        (key == "from" ? from : to) = py::reinterpret_borrow<py::object>(item.second);
        if (key == "to") has_to = true;
      } else {
        throw TypeError("random_(): unexpected or repeated keyword argument '" + key + "'");
      }
    }
    if (!has_to) {
      TC_CHECK_TYPE(from.is_none(), "random_(): 'from' needs 'to' as well");
      return random_(t, to_gen(g));
    }
    if (from.is_none()) return random_(t, 0, to.cast<int64_t>(), to_gen(g));
    std::optional<int64_t> upper;
    if (!to.is_none()) upper = to.cast<int64_t>();
    return random_(t, from.cast<int64_t>(), upper, to_gen(g));
  });
}

Registrar registrar(bind_random);

}  // namespace
}  // namespace tc::python
