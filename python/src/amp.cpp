// Bindings for automatic mixed precision: torch's autocast state functions (tc.is_autocast_enabled,
// tc.set_autocast_cpu_dtype, ...), the hook used by Python-composite ops (tensorcore._C._amp) and
// the GradScaler primitives.
#include "bind.h"
#include "tensorcore/amp/autocast.h"
#include "tensorcore/amp/grad_scaler.h"

namespace tc::python {
namespace {

DeviceType device_type_arg(const std::string& name) {
  if (name == "cpu") return DeviceType::CPU;
  if (name == "cuda") return DeviceType::CUDA;
  throw ValueError(
      detail::concat("autocast: device_type must be 'cpu' or 'cuda', got '", name, "'"));
}

// Tensors in a Python argument: the object itself or the items of a list/tuple.
template <typename Fn>
void for_each_tensor(py::handle obj, Fn&& fn) {
  if (is_tensor(obj)) {
    fn(obj.cast<Tensor>());
  } else if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    for (py::handle item : obj)
      if (is_tensor(item)) fn(item.cast<Tensor>());
  }
}

py::object cast_arg(const amp::CastPlan& plan, py::handle obj) {
  if (is_tensor(obj)) return py::cast(plan(obj.cast<Tensor>()));
  bool is_list = py::isinstance<py::list>(obj);
  if (is_list || py::isinstance<py::tuple>(obj)) {
    py::list out;
    bool any = false;
    for (py::handle item : obj) {
      if (is_tensor(item)) {
        out.append(py::cast(plan(item.cast<Tensor>())));
        any = true;
      } else {
        out.append(item);
      }
    }
    if (!any) return py::reinterpret_borrow<py::object>(obj);
    return is_list ? py::object(out) : py::object(py::tuple(out));
  }
  return py::reinterpret_borrow<py::object>(obj);
}

// Runs a Python-composite op under autocast: the same plan as TC_AUTOCAST, built from the
// tensors among args/kwargs; an explicit `dtype=` keyword counts as the op's optional dtype.
// `native`: as TC_AUTOCAST_NATIVE (a single kernel in torch: never autocast inside);
// `explicit_dtype`: the caller passed the op's dtype positionally.
py::object autocast_call(const std::string& op, py::object fn, py::tuple args, py::dict kwargs,
                         bool native, bool explicit_dtype) {
  amp::PlanBuilder builder(op);
  if (explicit_dtype) builder.add(std::optional<DType>(DType::Float32));
  for (py::handle a : args) for_each_tensor(a, [&](const Tensor& t) { builder.add(t); });
  for (auto kv : kwargs) {
    if (kv.first.cast<std::string>() == "dtype" && !kv.second.is_none())
      builder.add(std::optional<DType>(DType::Float32));
    else
      for_each_tensor(kv.second, [&](const Tensor& t) { builder.add(t); });
  }
  const amp::CastPlan plan = builder.build();
  if (!plan && !native) return fn(*args, **kwargs);
  amp::detail::ExcludeGuard exclude;
  if (!plan) return fn(*args, **kwargs);
  py::list new_args;
  for (py::handle a : args) new_args.append(cast_arg(plan, a));
  py::dict new_kwargs;
  for (auto kv : kwargs) new_kwargs[kv.first] = cast_arg(plan, kv.second);
  return fn(*py::tuple(new_args), **new_kwargs);
}

void bind_amp(py::module_& m, TensorClass&) {
  // torch's names; tc.is_autocast_enabled() with no argument is the CUDA state, as in torch.
  m.def(
      "is_autocast_enabled",
      [](std::optional<std::string> device_type) {
        return amp::is_autocast_enabled(device_type ? device_type_arg(*device_type)
                                                    : DeviceType::CUDA);
      },
      py::arg("device_type") = py::none());
  m.def(
      "set_autocast_enabled",
      [](py::object a, std::optional<bool> b) {
        // set_autocast_enabled(enabled) (CUDA, torch 1.13) or set_autocast_enabled(device_type,
        // enabled).
        if (py::isinstance<py::str>(a)) {
          TC_CHECK(b.has_value(), "set_autocast_enabled: missing the enabled flag");
          amp::set_autocast_enabled(device_type_arg(a.cast<std::string>()), *b);
        } else {
          amp::set_autocast_enabled(DeviceType::CUDA, a.cast<bool>());
        }
      },
      py::arg("enabled"), py::arg("value") = py::none());
  m.def("is_autocast_cpu_enabled", [] { return amp::is_autocast_enabled(DeviceType::CPU); });
  m.def("set_autocast_cpu_enabled", [](bool e) { amp::set_autocast_enabled(DeviceType::CPU, e); });
  m.def("get_autocast_gpu_dtype", [] { return amp::get_autocast_dtype(DeviceType::CUDA); });
  m.def("get_autocast_cpu_dtype", [] { return amp::get_autocast_dtype(DeviceType::CPU); });
  m.def("set_autocast_gpu_dtype", [](DType d) { amp::set_autocast_dtype(DeviceType::CUDA, d); });
  m.def("set_autocast_cpu_dtype", [](DType d) { amp::set_autocast_dtype(DeviceType::CPU, d); });
  m.def(
      "get_autocast_dtype",
      [](const std::string& dev) { return amp::get_autocast_dtype(device_type_arg(dev)); },
      py::arg("device_type"));
  m.def(
      "set_autocast_dtype",
      [](const std::string& dev, DType d) { amp::set_autocast_dtype(device_type_arg(dev), d); },
      py::arg("device_type"), py::arg("dtype"));
  m.def("autocast_increment_nesting", &amp::increment_nesting);
  m.def("autocast_decrement_nesting", &amp::decrement_nesting);
  m.def("clear_autocast_cache", &amp::clear_cache);
  m.def("is_autocast_cache_enabled", &amp::is_autocast_cache_enabled);
  m.def("set_autocast_cache_enabled", &amp::set_autocast_cache_enabled, py::arg("enabled"));

  auto a = m.def_submodule("_amp", "autocast hook and GradScaler primitives");
  a.def("hook_armed", &amp::hook_armed);
  a.def("_autocast_call", &autocast_call, py::arg("op"), py::arg("fn"), py::arg("args"),
        py::arg("kwargs"), py::arg("native") = false, py::arg("explicit_dtype") = false);
  a.def(
      "cast_policy",
      [](const std::string& op, const std::string& dev) {
        return std::string(amp::policy_name(amp::cast_policy(op, device_type_arg(dev))));
      },
      py::arg("op"), py::arg("device_type"));
  a.def(
      "policy_table",
      [](const std::string& dev) {
        std::vector<std::pair<std::string, std::string>> out;
        for (auto& [op, policy] : amp::policy_table(device_type_arg(dev)))
          out.emplace_back(op, amp::policy_name(policy));
        return out;
      },
      py::arg("device_type"));
  a.def("cache_size", &amp::cache_size);
  a.def(
      "_amp_foreach_non_finite_check_and_unscale_",
      [](const TensorList& grads, const Tensor& found_inf, const Tensor& inv_scale) {
        amp::foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale);
      },
      py::arg("self"), py::arg("found_inf"), py::arg("inv_scale"));
  a.def(
      "_amp_update_scale_",
      [](const Tensor& scale, const Tensor& tracker, const Tensor& found_inf, double growth_factor,
         double backoff_factor, int64_t growth_interval) {
        return amp::update_scale_(scale, tracker, found_inf, growth_factor, backoff_factor,
                                  growth_interval);
      },
      py::arg("self"), py::arg("growth_tracker"), py::arg("found_inf"), py::arg("growth_factor"),
      py::arg("backoff_factor"), py::arg("growth_interval"));
}

Registrar registrar(bind_amp);

}  // namespace
}  // namespace tc::python
