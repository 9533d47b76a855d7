"""Optimizer trajectories and scheduler lr sequences against torch.optim (1.13)."""

import math

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.optim as optim
from shared_inputs import OPTIMIZER_CONFIGS as CONFIGS


def _quadratic_grads(values, step):
    # Deterministic, parameter-dependent gradients so trajectories diverge if any update is wrong.
    return [np.sin(v * 3.0 + step) + 0.5 * v for v in values]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_trajectory_matches_torch(torch_ref, name, kw, dtype):
    torch = torch_ref
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s).astype(dtype) for s in [(4, 3), (3,), (40000,)]]
    ps = [nn.Parameter(tc.from_numpy(a.copy())) for a in init]
    tps = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in init]
    opt = getattr(optim, name)([{"params": ps[:2]}, {"params": ps[2:], "lr": kw["lr"] * 0.5}], **kw)
    # torch 1.13's single-tensor NAdam applies mu twice in mu_product_next (fixed in torch 2.0);
    # its foreach path has the published formula, which we follow.
    tkw = dict(kw, foreach=True) if name == "NAdam" else kw
    topt = getattr(torch.optim, name)(
        [{"params": tps[:2]}, {"params": tps[2:], "lr": kw["lr"] * 0.5}], **tkw
    )
    for step in range(6):
        grads = _quadratic_grads([p.detach().numpy() for p in ps], step)
        for p, tp, g in zip(ps, tps, grads):
            p.grad = tc.from_numpy(g.astype(dtype))
            tp.grad = torch.from_numpy(g.astype(dtype))
        v0 = ps[0]._version
        opt.step()
        topt.step()
        assert ps[0]._version > v0
    tol = (
        1e-5 if dtype == np.float32 else (1e-8 if name == "NAdam" else 1e-10)
    )  # NAdam's mu_product is float32
    for p, tp in zip(ps, tps):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=tol, atol=tol)


def test_adam_matches_update_formula():
    p = nn.Parameter(tc.tensor([1.0, -2.0], dtype=tc.float64))
    opt = optim.Adam([p], lr=0.1, betas=(0.9, 0.99), eps=1e-8)
    x, m, v = np.array([1.0, -2.0]), np.zeros(2), np.zeros(2)
    for t in range(1, 5):
        g = 2 * x
        p.grad = tc.from_numpy(g.copy())
        opt.step()
        m = 0.9 * m + 0.1 * g
        v = 0.99 * v + 0.01 * g * g
        x = x - 0.1 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.99**t)) + 1e-8)
    np.testing.assert_allclose(p.detach().numpy(), x, rtol=1e-12)


def test_param_without_grad_is_skipped_and_state_dict_round_trip(torch_ref):
    a = nn.Parameter(tc.ones(3))
    b = nn.Parameter(tc.ones(2))
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = tc.ones(3)
    opt.step()
    np.testing.assert_array_equal(b.detach().numpy(), np.ones(2))
    assert b not in opt.state
    b.grad = tc.ones(2)
    opt.step()
    assert float(opt.state[b]["step"]) == 1.0 and float(opt.state[a]["step"]) == 2.0
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0, 1] and set(sd["state"]) == {0, 1}
    a2, b2 = nn.Parameter(a.detach().clone()), nn.Parameter(b.detach().clone())
    opt2 = optim.Adam([a2, b2], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.1
    for x, y in ((a, a2), (b, b2)):
        x.grad = tc.ones(x.shape[0])
        y.grad = tc.ones(y.shape[0])
    opt.step()
    opt2.step()
    np.testing.assert_array_equal(a.detach().numpy(), a2.detach().numpy())
    # A torch state dict (tensors converted) loads too.
    torch = torch_ref
    tp = torch.nn.Parameter(torch.ones(3))
    topt = torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    tp.grad = torch.ones(3)
    topt.step()
    tsd = topt.state_dict()
    p = nn.Parameter(tc.ones(3))
    o = optim.SGD([p], lr=0.3, momentum=0.9)
    o.load_state_dict(
        {
            "param_groups": tsd["param_groups"],
            "state": {
                k: {"momentum_buffer": tc.from_numpy(v["momentum_buffer"].numpy())}
                for k, v in tsd["state"].items()
            },
        }
    )
    p.grad = tc.ones(3)
    tp.grad = torch.ones(3)
    o.step()
    topt.step()
    # Same momentum buffer and lr as torch: both parameters move by lr * (0.9 * buf + grad).
    np.testing.assert_allclose(1.0 - p.detach().numpy(), 0.9 - tp.detach().numpy(), rtol=1e-6)


def test_zero_grad_and_errors():
    p = nn.Parameter(tc.ones(2))
    opt = optim.SGD([p], lr=0.1)
    p.grad = tc.ones(2)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.numpy(), np.zeros(2))
    opt.zero_grad()
    assert p.grad is None
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.Adam([p], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD([p], lr=0.1, nesterov=True)
    q = nn.Parameter(tc.ones(2))
    q.grad = tc.ones(2)
    bad = optim.Adam([q])
    bad.step()
    bad.state[q]["exp_avg"] = tc.zeros(5)
    bad._caches.clear()
    with pytest.raises(ValueError, match="exp_avg state of parameter 0 has a different shape"):
        bad.step()


SCHEDULERS = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.001}),
    ("LinearLR", {"start_factor": 0.25, "total_iters": 4}),
    ("ConstantLR", {"factor": 0.5, "total_iters": 3}),
    ("LambdaLR", {"lr_lambda": lambda e: 0.95**e}),
    ("MultiplicativeLR", {"lr_lambda": lambda e: 0.9}),
    ("PolynomialLR", {"total_iters": 6, "power": 2.0}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": 14}),
    (
        "OneCycleLR",
        {"max_lr": 1.0, "total_steps": 14, "three_phase": True, "anneal_strategy": "linear"},
    ),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "mode": "triangular2"}),
    (
        "CyclicLR",
        {
            "base_lr": 0.01,
            "max_lr": 0.1,
            "step_size_up": 2,
            "step_size_down": 4,
            "mode": "exp_range",
            "gamma": 0.9,
        },
    ),
]


@pytest.mark.parametrize(
    "name,kw", SCHEDULERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULERS)]
)
def test_scheduler_sequence_matches_torch(torch_ref, name, kw):
    torch = torch_ref
    p = nn.Parameter(tc.ones(1))
    tp = torch.nn.Parameter(torch.ones(1))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    topt = torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    s = getattr(optim.lr_scheduler, name)(opt, **kw)
    ts = getattr(torch.optim.lr_scheduler, name)(topt, **kw)
    ours, theirs = [], []
    for _ in range(13):
        ours.append((opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]))
        theirs.append((topt.param_groups[0]["lr"], topt.param_groups[0]["momentum"]))
        opt.step()
        topt.step()
        s.step()
        ts.step()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
    assert s.get_last_lr() == pytest.approx(ts.get_last_lr())


def test_sequential_chained_plateau(torch_ref):
    torch = torch_ref

    def run(lib, sched_lib, params, kind):
        opt = lib.SGD(params, lr=1.0)
        if kind == "seq":
            s = sched_lib.SequentialLR(
                opt,
                [
                    sched_lib.ConstantLR(opt, factor=0.1, total_iters=2),
                    sched_lib.ExponentialLR(opt, gamma=0.9),
                ],
                milestones=[2],
            )
        elif kind == "chain":
            s = sched_lib.ChainedScheduler(
                [
                    sched_lib.ConstantLR(opt, factor=0.1, total_iters=2),
                    sched_lib.ExponentialLR(opt, gamma=0.9),
                ]
            )
        else:
            s = sched_lib.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1)
        out = []
        for i in range(10):
            out.append(opt.param_groups[0]["lr"])
            opt.step()
            if kind == "plateau":
                s.step([3, 2, 2, 2, 2, 1, 1, 1, 1, 1][i])
            else:
                s.step()
        return out

    for kind in ("seq", "chain", "plateau"):
        ours = run(optim, optim.lr_scheduler, [nn.Parameter(tc.ones(1))], kind)
        theirs = run(
            torch.optim, torch.optim.lr_scheduler, [torch.nn.Parameter(torch.ones(1))], kind
        )
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_mlp_trains_to_accuracy():
    """A small MLP on two interleaved spirals reaches >= 95% training accuracy."""
    tc.manual_seed(0)
    rng = np.random.default_rng(0)
    n = 200
    t = np.sqrt(rng.uniform(0, 1, n)) * 3 * math.pi
    a = np.stack([t * np.cos(t), t * np.sin(t)], 1) / 10
    x = np.concatenate([a, -a]).astype(np.float32) + rng.normal(0, 0.02, (2 * n, 2)).astype(
        np.float32
    )
    y = np.concatenate([np.zeros(n), np.ones(n)]).astype(np.int64)
    model = nn.Sequential(
        nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2)
    )
    opt = optim.Adam(model.parameters(), lr=0.01)
    sched = optim.lr_scheduler.StepLR(opt, 300, 0.5)
    loss_fn = nn.CrossEntropyLoss()
    X, Y = tc.from_numpy(x), tc.from_numpy(y)
    for _ in range(600):
        opt.zero_grad()
        loss = loss_fn(model(X), Y)
        loss.backward()
        opt.step()
        sched.step()
    acc = float((model(X).argmax(1) == Y).float().mean())
    assert acc >= 0.95, acc


def test_scheduler_state_dict_round_trip():
    p = nn.Parameter(tc.ones(1))
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    for _ in range(4):
        opt.step()
        s.step()
    sd = s.state_dict()
    opt2 = optim.SGD([nn.Parameter(tc.ones(1))], lr=1.0)
    s2 = optim.lr_scheduler.CosineAnnealingLR(opt2, T_max=10)
    s2.load_state_dict(sd)
    opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    for _ in range(3):
        opt.step()
        s.step()
        opt2.step()
        s2.step()
    assert s2.get_last_lr() == s.get_last_lr()
    assert (
        s.last_epoch == 7
        and abs(s.get_last_lr()[0] - 0.5 * (1 + math.cos(math.pi * 7 / 10))) < 1e-12
    )
