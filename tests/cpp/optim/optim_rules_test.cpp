// The shared optimizer/scheduler rules (optimizer_args.h, lr_schedule_rules.h): torch 1.13's
// messages and formulas, which the C++ classes and tensorcore.optim (Python) both use.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tensorcore/optim/adaptive.h"
#include "tensorcore/optim/lr_schedule_rules.h"
#include "tensorcore/optim/lr_scheduler.h"
#include "tensorcore/optim/optimizer_args.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace sched = tc::optim::sched;

namespace {

template <class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const ValueError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(OptimRules, ReprFloatMatchesPython) {
  EXPECT_EQ(optim::repr_float(0.1), "0.1");
  EXPECT_EQ(optim::repr_float(-1.0), "-1.0");
  EXPECT_EQ(optim::repr_float(1e-05), "1e-05");
  EXPECT_EQ(optim::repr_float(0.0001), "0.0001");
  EXPECT_EQ(optim::repr_float(-1e20), "-1e+20");
  EXPECT_EQ(optim::repr_float(1e16), "1e+16");
  EXPECT_EQ(optim::repr_float(123456789012345.0), "123456789012345.0");
  EXPECT_EQ(optim::repr_float(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(optim::repr_float(1.5e-7), "1.5e-07");
  EXPECT_EQ(optim::repr_float(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(optim::repr_float(std::nan("")), "nan");
}

TEST(OptimRules, OptimizerMessagesAreTorchs) {
  TensorList p{zeros({2}).requires_grad_()};
  EXPECT_EQ(message_of([&] { optim::SGD(p, optim::SGDOptions(-0.1)); }),
            "Invalid learning rate: -0.1");
  EXPECT_EQ(message_of([&] { optim::SGD(p, optim::SGDOptions(0.1).weight_decay(-1)); }),
            "Invalid weight_decay value: -1.0");
  EXPECT_EQ(message_of([&] { optim::Adam(p, optim::AdamOpts(0.1).beta2(1.0)); }),
            "Invalid beta parameter at index 1: 1.0");
  EXPECT_EQ(message_of([&] { optim::RMSprop(p, optim::RMSpropOpts(0.1).alpha(-0.5)); }),
            "Invalid alpha value: -0.5");
  EXPECT_EQ(message_of([&] { optim::Adadelta(p, optim::AdadeltaOpts(1.0).rho(1.5)); }),
            "Invalid rho value: 1.5");
  // NaN fails torch's `not 0.0 <= x` too.
  EXPECT_EQ(message_of([&] { optim::Adam(p, optim::AdamOpts(std::nan(""))); }),
            "Invalid learning rate: nan");
}

TEST(OptimRules, SchedulerMessagesAreTorchs) {
  EXPECT_EQ(message_of([] { sched::check_constant_lr(1.5); }),
            "Constant multiplicative factor expected to be between 0 and 1.");
  EXPECT_EQ(message_of([] { sched::check_warm_restarts(2.5, 1); }),
            "Expected positive integer T_0, but got 2.5");
  EXPECT_EQ(message_of([] { sched::check_one_cycle(std::nullopt, -2.0, 4.0, 0.3, "cos"); }),
            "Expected positive integer epochs, but got -2");
  EXPECT_EQ(message_of([] {
              sched::per_group({1, 2, 3}, 2, "max_lr");
            }),
            "expected 2 values for max_lr, got 3");
  // torch reports the attempted step count (step + 1).
  EXPECT_EQ(message_of(
                [] { sched::one_cycle_at(4, 3, 0.3, false, "cos", 0.004, 0.1, 4e-7, 0.85, 0.95); }),
            "Tried to step 5 times. The specified number of total steps is 3");
  EXPECT_EQ(sched::adjust_message(1, 0.05, std::nullopt),
            "Adjusting learning rate of group 1 to 5.0000e-02.");
  EXPECT_EQ(sched::adjust_message(0, 0.1, 3.0),
            "Epoch 00003: adjusting learning rate of group 0 "
            "to 1.0000e-01.");
  EXPECT_EQ(sched::reduce_message(0, 0.01, 2.5, true),
            "Epoch 2.50: reducing learning rate of group 0 to 1.0000e-02.");
}

TEST(OptimRules, ChainableFormsFollowPythonIntegerArithmetic) {
  // StepLR's closed form floors like Python's // for a negative epoch (step(-1) in SequentialLR).
  EXPECT_DOUBLE_EQ(sched::step_closed({1.0}, -1, 3, 0.5)[0], 2.0);
  // CosineAnnealingLR between restarts: the ratio of consecutive cosine factors (T = 4, e = 1).
  auto lrs = sched::cosine_annealing_lr({0.5}, {1.0}, 1, 2, 4, 0.0);
  EXPECT_NEAR(lrs[0], (1 + std::cos(M_PI / 4)) / 2 * 0.5, 1e-15);
  // A zero step size is an error, not a division by zero.
  EXPECT_THROW(sched::step_lr({1.0}, 3, 0, 0.1), ValueError);
}
