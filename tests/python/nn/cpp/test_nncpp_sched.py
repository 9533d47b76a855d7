"""The C++ schedulers (tc::optim) produce torch.optim.lr_scheduler's lr and momentum sequences:
NnCppSchedInterop.Sequences writes them, torch computes the same schedules here."""

import numpy as np
import pytest
from nncpp_testing import needs_tc_tests, run_gtest

torch = pytest.importorskip("torch")
S = torch.optim.lr_scheduler

STEPS = 20


def groups():
    return [
        {"params": [torch.zeros(2, requires_grad=True)]},
        {"params": [torch.zeros(3, requires_grad=True)], "lr": 0.05},
    ]


def sgd():
    return torch.optim.SGD(groups(), lr=0.1, momentum=0.9)


def adam():
    return torch.optim.Adam(groups(), lr=0.1)


def record(opt, n, step, momentum=None):
    lr, mom = [], []

    def snap():
        lr.append([g["lr"] for g in opt.param_groups])
        if momentum == "momentum":
            mom.append([g["momentum"] for g in opt.param_groups])
        elif momentum == "beta1":
            mom.append([g["betas"][0] for g in opt.param_groups])

    snap()
    for i in range(n):
        step(i)
        snap()
    return np.array(lr), (np.array(mom) if mom else None)


def torch_sequences():
    out = {}

    def simple(name, make):
        opt = sgd()
        s = make(opt)
        out[name] = record(opt, STEPS, lambda i: s.step())

    simple("lambda", lambda o: S.LambdaLR(o, lambda e: 0.95**e))
    simple("multiplicative", lambda o: S.MultiplicativeLR(o, lambda e: 0.9))
    simple("step", lambda o: S.StepLR(o, 3, 0.5))
    simple("multistep", lambda o: S.MultiStepLR(o, [2, 5, 5, 8], 0.3))
    simple("constant", lambda o: S.ConstantLR(o, 0.25, 4))
    simple("linear", lambda o: S.LinearLR(o, 0.2, 1.0, 5))
    simple("exponential", lambda o: S.ExponentialLR(o, 0.9))
    simple("polynomial", lambda o: S.PolynomialLR(o, 6, 2.0))
    simple("cosine", lambda o: S.CosineAnnealingLR(o, 7, 0.001))
    simple("warm_restarts", lambda o: S.CosineAnnealingWarmRestarts(o, 3, 2, 0.001))
    opt = sgd()
    s = S.CyclicLR(opt, 0.01, [0.1, 0.2], 3, 2, mode="triangular2")
    out["cyclic_tri2"] = record(opt, STEPS, lambda i: s.step(), "momentum")
    opt = sgd()  # torch 1.13's CyclicLR cycles momentum only (tc::optim also cycles Adam's beta1)
    s = S.CyclicLR(opt, 0.01, 0.1, 4, mode="exp_range", gamma=0.9, base_momentum=[0.7, 0.75])
    out["cyclic_exp"] = record(opt, STEPS, lambda i: s.step(), "momentum")
    opt = sgd()
    s = S.OneCycleLR(opt, 0.1, STEPS)
    out["onecycle"] = record(opt, STEPS - 1, lambda i: s.step(), "momentum")
    opt = adam()
    s = S.OneCycleLR(
        opt, [0.1, 0.3], STEPS, pct_start=0.25, anneal_strategy="linear", three_phase=True
    )
    out["onecycle3_adam"] = record(opt, STEPS - 1, lambda i: s.step(), "beta1")
    opt = sgd()
    s = S.ReduceLROnPlateau(opt, patience=2, cooldown=1, factor=0.5, min_lr=[0.01, 0.0])
    metrics = [5, 4, 4, 4, 4, 3.9999, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2]
    out["plateau"] = record(opt, STEPS, lambda i: s.step(metrics[i]))
    opt = sgd()
    s = S.SequentialLR(opt, [S.LinearLR(opt, 0.1, 1.0, 3), S.ExponentialLR(opt, 0.9)], [3])
    out["sequential"] = record(opt, STEPS, lambda i: s.step())
    opt = sgd()
    s = S.ChainedScheduler([S.ConstantLR(opt, 0.5, 3), S.ExponentialLR(opt, 0.9)])
    out["chained"] = record(opt, STEPS, lambda i: s.step())
    return out


@needs_tc_tests
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_scheduler_sequences_match_torch(tmp_path):
    run_gtest("NnCppSchedInterop.*", "NNCPP_SCHED_DIR", tmp_path)
    got = torch.load(tmp_path / "cpp_sched.pt")
    ref = torch_sequences()
    for name, (lr, mom) in ref.items():
        np.testing.assert_allclose(
            got[name + ".lr"].numpy(), lr, rtol=1e-12, atol=1e-15, err_msg=name
        )
        if mom is not None:
            np.testing.assert_allclose(
                got[name + ".momentum"].numpy(), mom, rtol=1e-12, atol=1e-15, err_msg=name
            )
        else:
            assert name + ".momentum" not in got
