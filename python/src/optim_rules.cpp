// tensorcore._C._optim_rules: the optimizer argument rules (tensorcore/optim/optimizer_args.h)
// and the LR-schedule formulas (tensorcore/optim/lr_schedule_rules.h) that the Python optimizers
// and schedulers call, so that both frontends share one implementation and one set of messages.
#include "bind.h"
#include "tensorcore/optim/lr_schedule_rules.h"
#include "tensorcore/optim/optimizer_args.h"

namespace tc::python {
namespace {

// These messages are torch's own (the Python classes raise them as their own), so they leave as
// plain ValueErrors: the binding guard (arg_guard.cpp) would prefix tc::ValueError messages with
// the binding's name ("check_plateau(): Factor should be < 1.0.").
template <class Fn>
decltype(auto) torch_message(Fn&& fn) {
  try {
    return fn();
  } catch (const ValueError& e) {
    throw py::value_error(e.what());
  }
}

template <class R, class... A>
auto plain(R (*fn)(A...)) {
  return [fn](A... a) -> R { return torch_message([&]() -> R { return fn(a...); }); };
}

void bind_optim_rules(py::module_& m, TensorClass&) {
  auto o = m.def_submodule("_optim_rules", "optimizer argument rules and LR-schedule formulas");
  using namespace tc::optim;
  namespace s = tc::optim::sched;

  // ---- optimizer arguments ----
  o.def("repr_float", plain(&repr_float), py::arg("v"));
  o.def("check_sgd_args", plain(&check_sgd_args), py::arg("lr"), py::arg("momentum"),
        py::arg("dampening"), py::arg("weight_decay"), py::arg("nesterov"));
  o.def("check_adam_args", plain(&check_adam_args), py::arg("lr"), py::arg("beta1"),
        py::arg("beta2"), py::arg("eps"), py::arg("weight_decay"));
  o.def("check_nadam_args", plain(&check_nadam_args), py::arg("lr"), py::arg("beta1"),
        py::arg("beta2"), py::arg("eps"), py::arg("weight_decay"), py::arg("momentum_decay"));
  o.def("check_adagrad_args", plain(&check_adagrad_args), py::arg("lr"), py::arg("lr_decay"),
        py::arg("weight_decay"), py::arg("initial_accumulator_value"), py::arg("eps"));
  o.def("check_rmsprop_args", plain(&check_rmsprop_args), py::arg("lr"), py::arg("alpha"),
        py::arg("eps"), py::arg("weight_decay"), py::arg("momentum"));
  o.def("check_adadelta_args", plain(&check_adadelta_args), py::arg("lr"), py::arg("rho"),
        py::arg("eps"), py::arg("weight_decay"));

  o.def("check_param_group", plain(&check_param_group), py::arg("is_leaf"),
        py::arg("overlaps_other_group"));

  // ---- schedules ----
  o.def("per_group", plain(&s::per_group), py::arg("values"), py::arg("groups"), py::arg("name"));
  o.def("adjust_message", plain(&s::adjust_message), py::arg("group"), py::arg("lr"),
        py::arg("epoch"), py::arg("epoch_is_float") = false);
  o.def("check_lambda_count", plain(&s::check_lambda_count));
  o.def("lambda_lr", plain(&s::lambda_lr));
  o.def("multiplicative_lr", plain(&s::multiplicative_lr));
  o.def("check_step_lr", plain(&s::check_step_lr));
  o.def("step_lr", plain(&s::step_lr));
  o.def("step_closed", plain(&s::step_closed));
  o.def("multistep_lr", plain(&s::multistep_lr));
  o.def("multistep_closed", plain(&s::multistep_closed));
  o.def("check_constant_lr", plain(&s::check_constant_lr));
  o.def("constant_lr", plain(&s::constant_lr));
  o.def("constant_closed", plain(&s::constant_closed));
  o.def("check_linear_lr", plain(&s::check_linear_lr));
  o.def("linear_lr", plain(&s::linear_lr));
  o.def("linear_closed", plain(&s::linear_closed));
  o.def("exponential_lr", plain(&s::exponential_lr));
  o.def("exponential_closed", plain(&s::exponential_closed));
  o.def("check_polynomial_lr", plain(&s::check_polynomial_lr));
  o.def("polynomial_lr", plain(&s::polynomial_lr));
  o.def("polynomial_closed", plain(&s::polynomial_closed));
  o.def("check_cosine_annealing_lr", plain(&s::check_cosine_annealing_lr));
  o.def("cosine_annealing_lr", plain(&s::cosine_annealing_lr));
  o.def("cosine_annealing_closed", plain(&s::cosine_annealing_closed));
  o.def("check_warm_restarts", plain(&s::check_warm_restarts));
  // (T_i, T_cur, last_epoch) tuples rather than a bound struct: the Python scheduler keeps them
  // as its own torch-named attributes.
  o.def("warm_restarts_advance",
        [](double T_i, double T_cur, int64_t last_epoch, int64_t T_0, int64_t T_mult) {
          auto at = torch_message([&] {
            return s::warm_restarts_advance({T_i, T_cur, last_epoch}, T_0, T_mult);
          });
          return py::make_tuple(at.T_i, at.T_cur, at.last_epoch);
        });
  o.def("warm_restarts_jump", [](double epoch, int64_t T_0, int64_t T_mult, double T_i) {
    auto at = torch_message([&] { return s::warm_restarts_jump(epoch, T_0, T_mult, T_i); });
    return py::make_tuple(at.T_i, at.T_cur, at.last_epoch);
  });
  o.def("warm_restarts_lr", plain(&s::warm_restarts_lr));
  o.def("check_cyclic_lr", plain(&s::check_cyclic_lr));
  o.def("cyclic_sizes", [](double up, std::optional<double> down) {
    auto sz = torch_message([&] { return s::cyclic_sizes(up, down); });
    return py::make_tuple(sz.total_size, sz.step_ratio);
  });
  o.def("cyclic_position", [](int64_t epoch, double total_size, double step_ratio) {
    auto at = s::cyclic_position(epoch, total_size, step_ratio);
    return py::make_tuple(at.cycle, at.scale_factor);
  });
  o.def("cyclic_scale", plain(&s::cyclic_scale));
  o.def("cyclic_scale_mode", plain(&s::cyclic_scale_mode));
  o.def("cyclic_lr", plain(&s::cyclic_lr));
  o.def("cyclic_momentum", plain(&s::cyclic_momentum));
  o.def("cycled_momentum_uses_beta1", plain(&s::cycled_momentum_uses_beta1));
  o.def("check_one_cycle", plain(&s::check_one_cycle));
  o.def("one_cycle_at", [](int64_t step, int64_t total_steps, double pct_start, bool three_phase,
                           const std::string& anneal, double initial_lr, double max_lr,
                           double min_lr, double base_momentum, double max_momentum) {
    auto at = torch_message([&] {
      return s::one_cycle_at(step, total_steps, pct_start, three_phase, anneal, initial_lr, max_lr,
                             min_lr, base_momentum, max_momentum);
    });
    return py::make_tuple(at.lr, at.momentum);
  });
  o.def("check_sequential_lr", plain(&s::check_sequential_lr));
  o.def("check_chained", plain(&s::check_chained));
  o.def("sequential_pick", [](const std::vector<int64_t>& milestones, int64_t epoch) {
    auto p = s::sequential_pick(milestones, epoch);
    return py::make_tuple(p.index, p.restart);
  });
  o.def("check_plateau", plain(&s::check_plateau));
  o.def("plateau_min_lrs", plain(&s::plateau_min_lrs));
  o.def("reduce_message", plain(&s::reduce_message), py::arg("group"), py::arg("lr"),
        py::arg("epoch"), py::arg("epoch_is_float") = false);
  o.def("plateau_worst", plain(&s::plateau_worst));
  o.def("plateau_is_better", plain(&s::plateau_is_better));
  // Returns (reduce, best, num_bad_epochs, cooldown_counter, last_epoch).
  o.def("plateau_step", [](double metric, std::optional<int64_t> epoch, double best,
                           int64_t num_bad_epochs, int64_t cooldown_counter, int64_t last_epoch,
                           const std::string& mode, const std::string& threshold_mode,
                           double threshold, int64_t patience, int64_t cooldown) {
    s::PlateauState st{best, num_bad_epochs, cooldown_counter, last_epoch};
    bool reduce =
        s::plateau_step(st, metric, epoch, mode, threshold_mode, threshold, patience, cooldown);
    return py::make_tuple(reduce, st.best, st.num_bad_epochs, st.cooldown_counter, st.last_epoch);
  });
  // Returns (new lrs, changed flags).
  o.def("plateau_reduce",
        [](const s::Values& lrs, double factor, const s::Values& min_lrs, double eps) {
          std::vector<bool> changed;
          auto out = s::plateau_reduce(lrs, factor, min_lrs, eps, &changed);
          return py::make_tuple(out, changed);
        });
}

Registrar registrar(bind_optim_rules);

}  // namespace
}  // namespace tc::python
