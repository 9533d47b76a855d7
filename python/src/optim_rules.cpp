// tensorcore._C._optim_rules: the optimizer argument rules (tensorcore/optim/optimizer_args.h)
// and the LR-schedule formulas (tensorcore/optim/lr_schedule_rules.h) that the Python optimizers
// and schedulers call, so that both frontends share one implementation and one set of messages.
#include "bind.h"
#include "tensorcore/optim/lr_schedule_rules.h"
#include "tensorcore/optim/optimizer_args.h"

namespace tc::python {
namespace {

void bind_optim_rules(py::module_& m, TensorClass&) {
  auto o = m.def_submodule("_optim_rules", "optimizer argument rules and LR-schedule formulas");
  using namespace tc::optim;
  namespace s = tc::optim::sched;

  // ---- optimizer arguments ----
  o.def("repr_float", &repr_float, py::arg("v"));
  o.def("check_sgd_args", &check_sgd_args, py::arg("lr"), py::arg("momentum"), py::arg("dampening"),
        py::arg("weight_decay"), py::arg("nesterov"));
  o.def("check_adam_args", &check_adam_args, py::arg("lr"), py::arg("beta1"), py::arg("beta2"),
        py::arg("eps"), py::arg("weight_decay"));
  o.def("check_nadam_args", &check_nadam_args, py::arg("lr"), py::arg("beta1"), py::arg("beta2"),
        py::arg("eps"), py::arg("weight_decay"), py::arg("momentum_decay"));
  o.def("check_adagrad_args", &check_adagrad_args, py::arg("lr"), py::arg("lr_decay"),
        py::arg("weight_decay"), py::arg("initial_accumulator_value"), py::arg("eps"));
  o.def("check_rmsprop_args", &check_rmsprop_args, py::arg("lr"), py::arg("alpha"), py::arg("eps"),
        py::arg("weight_decay"), py::arg("momentum"));
  o.def("check_adadelta_args", &check_adadelta_args, py::arg("lr"), py::arg("rho"), py::arg("eps"),
        py::arg("weight_decay"));

  // ---- schedules ----
  o.def("per_group", &s::per_group, py::arg("values"), py::arg("groups"), py::arg("name"));
  o.def("adjust_message", &s::adjust_message, py::arg("group"), py::arg("lr"), py::arg("epoch"),
        py::arg("epoch_is_float") = false);
  o.def("check_lambda_count", &s::check_lambda_count);
  o.def("lambda_lr", &s::lambda_lr);
  o.def("multiplicative_lr", &s::multiplicative_lr);
  o.def("check_step_lr", &s::check_step_lr);
  o.def("step_lr", &s::step_lr);
  o.def("step_closed", &s::step_closed);
  o.def("multistep_lr", &s::multistep_lr);
  o.def("multistep_closed", &s::multistep_closed);
  o.def("check_constant_lr", &s::check_constant_lr);
  o.def("constant_lr", &s::constant_lr);
  o.def("constant_closed", &s::constant_closed);
  o.def("check_linear_lr", &s::check_linear_lr);
  o.def("linear_lr", &s::linear_lr);
  o.def("linear_closed", &s::linear_closed);
  o.def("exponential_lr", &s::exponential_lr);
  o.def("exponential_closed", &s::exponential_closed);
  o.def("check_polynomial_lr", &s::check_polynomial_lr);
  o.def("polynomial_lr", &s::polynomial_lr);
  o.def("polynomial_closed", &s::polynomial_closed);
  o.def("check_cosine_annealing_lr", &s::check_cosine_annealing_lr);
  o.def("cosine_annealing_lr", &s::cosine_annealing_lr);
  o.def("cosine_annealing_closed", &s::cosine_annealing_closed);
  o.def("check_warm_restarts", &s::check_warm_restarts);
  // (T_i, T_cur, last_epoch) tuples rather than a bound struct: the Python scheduler keeps them
  // as its own torch-named attributes.
  o.def("warm_restarts_advance",
        [](double T_i, double T_cur, int64_t last_epoch, int64_t T_0, int64_t T_mult) {
          auto at = s::warm_restarts_advance({T_i, T_cur, last_epoch}, T_0, T_mult);
          return py::make_tuple(at.T_i, at.T_cur, at.last_epoch);
        });
  o.def("warm_restarts_jump", [](double epoch, int64_t T_0, int64_t T_mult, double T_i) {
    auto at = s::warm_restarts_jump(epoch, T_0, T_mult, T_i);
    return py::make_tuple(at.T_i, at.T_cur, at.last_epoch);
  });
  o.def("warm_restarts_lr", &s::warm_restarts_lr);
  o.def("check_cyclic_lr", &s::check_cyclic_lr);
  o.def("cyclic_sizes", [](double up, std::optional<double> down) {
    auto sz = s::cyclic_sizes(up, down);
    return py::make_tuple(sz.total_size, sz.step_ratio);
  });
  o.def("cyclic_position", [](int64_t epoch, double total_size, double step_ratio) {
    auto at = s::cyclic_position(epoch, total_size, step_ratio);
    return py::make_tuple(at.cycle, at.scale_factor);
  });
  o.def("cyclic_scale", &s::cyclic_scale);
  o.def("cyclic_scale_mode", &s::cyclic_scale_mode);
  o.def("cyclic_lr", &s::cyclic_lr);
  o.def("cyclic_momentum", &s::cyclic_momentum);
  o.def("cycled_momentum_uses_beta1", &s::cycled_momentum_uses_beta1);
  o.def("check_one_cycle", &s::check_one_cycle);
  o.def("one_cycle_at", [](int64_t step, int64_t total_steps, double pct_start, bool three_phase,
                           const std::string& anneal, double initial_lr, double max_lr,
                           double min_lr, double base_momentum, double max_momentum) {
    auto at = s::one_cycle_at(step, total_steps, pct_start, three_phase, anneal, initial_lr, max_lr,
                              min_lr, base_momentum, max_momentum);
    return py::make_tuple(at.lr, at.momentum);
  });
  o.def("check_sequential_lr", &s::check_sequential_lr);
  o.def("check_chained", &s::check_chained);
  o.def("sequential_pick", [](const std::vector<int64_t>& milestones, int64_t epoch) {
    auto p = s::sequential_pick(milestones, epoch);
    return py::make_tuple(p.index, p.restart);
  });
  o.def("check_plateau", &s::check_plateau);
  o.def("plateau_min_lrs", &s::plateau_min_lrs);
  o.def("reduce_message", &s::reduce_message, py::arg("group"), py::arg("lr"), py::arg("epoch"),
        py::arg("epoch_is_float") = false);
  o.def("plateau_worst", &s::plateau_worst);
  o.def("plateau_is_better", &s::plateau_is_better);
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
