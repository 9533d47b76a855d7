#pragma once
// The hyper-parameter rules of torch.optim's constructors, with torch 1.13's messages
// ("Invalid learning rate: -0.1"). The C++ optimizers and tensorcore.optim (Python) both call
// these, so a bad argument fails the same way in either language. Conditions are written as
// torch's `not 0.0 <= x`, so NaN is rejected too (except SGD's lr, checked as `lr < 0`).
#include <optional>
#include <string>
#include <vector>

namespace tc::optim {

// A double as Python's repr() writes a float ("0.1", "1e-05", "-1.0", "inf"), so messages
// read the same as torch's.
std::string repr_float(double v);

// lr is absent when SGD's lr is the `required` placeholder.
void check_sgd_args(std::optional<double> lr, double momentum, double dampening,
                    double weight_decay, bool nesterov);
// Adam, AdamW, Adamax, NAdam and RAdam (torch's order: lr, eps, betas, weight_decay).
void check_adam_args(double lr, double beta1, double beta2, double eps, double weight_decay);
void check_nadam_args(double lr, double beta1, double beta2, double eps, double weight_decay,
                      double momentum_decay);
void check_adagrad_args(double lr, double lr_decay, double weight_decay,
                        double initial_accumulator_value, double eps);
void check_rmsprop_args(double lr, double alpha, double eps, double weight_decay, double momentum);
void check_adadelta_args(double lr, double rho, double eps, double weight_decay);

// A new param group's parameters (torch's add_param_group rules): is_leaf per parameter, and
// whether any of them is already in another group of the optimizer.
void check_param_group(const std::vector<bool>& is_leaf, bool overlaps_other_group);

}  // namespace tc::optim
