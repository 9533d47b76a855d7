"""The device-generic optimizer path (core tensor ops, used for CUDA and strided parameters) against
the fused CPU loops: every optimizer and option combination, several steps, float32 and float64.
The generic path is forced on the CPU through the test-only switch _C._optim._force_generic, or
taken naturally by non-contiguous parameters."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.optim as optim

_F = tc._C._optim

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.05, "maximize": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True, "betas": (0.8, 0.9)}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "maximize": True, "eps": 1e-6}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.3, "amsgrad": True}),
    ("AdamW", {"lr": 0.02, "maximize": True, "betas": (0.5, 0.99)}),
    ("Adagrad", {"lr": 0.1}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.2},
    ),
    ("Adagrad", {"lr": 0.1, "maximize": True, "eps": 1e-6}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("Adadelta", {"lr": 1.0}),
    ("Adadelta", {"lr": 1.0, "weight_decay": 0.05, "rho": 0.8}),
    ("Adadelta", {"lr": 0.5, "maximize": True}),
    ("Adamax", {"lr": 0.02}),
    ("Adamax", {"lr": 0.02, "weight_decay": 0.05, "maximize": True}),
    ("NAdam", {"lr": 0.02}),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.05, "momentum_decay": 0.01}),
    ("RAdam", {"lr": 0.02}),
    ("RAdam", {"lr": 0.02, "weight_decay": 0.05, "betas": (0.8, 0.95)}),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]
# RAdam switches from its plain to its rectified update around step 6: run past it.
STEPS = 8
TOL = {np.float32: 2e-6, np.float64: 1e-12}


@pytest.fixture
def forced_generic():
    _F._force_generic(True)
    try:
        yield
    finally:
        _F._force_generic(False)


def _grads(values, step):
    # Parameter-dependent gradients, so a wrong update changes every later step.
    return [np.sin(v * 3.0 + step) + 0.5 * v for v in values]


def _init(dtype):
    rng = np.random.default_rng(1)
    return [rng.standard_normal(s).astype(dtype) for s in [(5, 4), (7,), (3000,)]]


def _run(name, kw, init, make_param, force=False):
    """STEPS steps of optimizer `name`; returns (params, state) as numpy arrays."""
    ps = [make_param(a) for a in init]
    opt = getattr(optim, name)([{"params": ps[:2]}, {"params": ps[2:], "lr": kw["lr"] * 0.5}], **kw)
    _F._force_generic(force)
    try:
        for step in range(STEPS):
            for p, g in zip(ps, _grads([p.detach().numpy() for p in ps], step)):
                p.grad = tc.from_numpy(np.ascontiguousarray(g))
            opt.step()
    finally:
        _F._force_generic(False)
    state = [
        {k: (v.numpy().copy() if isinstance(v, tc.Tensor) else v) for k, v in opt.state[p].items()}
        for p in ps
    ]
    return [p.detach().numpy().copy() for p in ps], state


def _contiguous_param(a):
    return nn.Parameter(tc.from_numpy(a.copy()))


def _close(b, a, tol, what=""):
    # Absolute tolerance scaled by the tensor's magnitude: the two paths round intermediate terms
    # differently (the fused loops may contract to FMA), and a state such as RMSprop's momentum
    # buffer sums terms far larger than some of its elements, so float32 differences of a few
    # ulps of the largest term are expected.
    a, b = np.asarray(a), np.asarray(b)
    scale = max(1.0, float(np.abs(a).max()))
    np.testing.assert_allclose(b, a, rtol=tol, atol=tol * scale, err_msg=what)


def _assert_same(fused, generic, dtype):
    tol = TOL[dtype]
    (fp, fs), (gp, gs) = fused, generic
    for a, b in zip(fp, gp):
        _close(b, a, tol)
    for sa, sb in zip(fs, gs):
        assert sorted(sa) == sorted(sb), "both paths must keep the same state entries"
        for k in sa:
            _close(sb[k], sa[k], tol, k)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_forced_generic_matches_fused(name, kw, dtype):
    init = _init(dtype)
    fused = _run(name, kw, init, _contiguous_param)
    generic = _run(name, kw, init, _contiguous_param, force=True)
    # The trajectory really moved: a no-op update would also "match" a no-op.
    assert np.abs(fused[0][2] - init[2]).max() > 1e-3
    _assert_same(fused, generic, dtype)


@pytest.mark.parametrize("name,kw", CONFIGS[::3], ids=IDS[::3])
def test_strided_params_take_generic_path(name, kw):
    """Non-contiguous CPU parameters (transposed views) work and follow the fused trajectory."""
    dtype = np.float64
    init = [np.ascontiguousarray(a) for a in _init(dtype)]

    def strided_param(a):
        if a.ndim == 2:  # a transposed view of a [cols, rows] buffer holding the same values
            p = nn.Parameter(tc.from_numpy(np.ascontiguousarray(a.T)).t())
            assert not p.is_contiguous()
            return p
        return nn.Parameter(tc.from_numpy(a.copy()))

    fused = _run(name, kw, init, _contiguous_param)
    strided = _run(name, kw, init, strided_param)
    _assert_same(fused, strided, dtype)


def test_switch_is_off_by_default_and_resets(forced_generic):
    assert _F._is_generic_forced()
    _F._force_generic(False)
    assert not _F._is_generic_forced()


def test_generic_path_bumps_version_and_step(forced_generic):
    p = nn.Parameter(tc.tensor([1.0, -2.0]))
    opt = optim.Adam([p], lr=0.1)
    p.grad = tc.tensor([0.5, -1.0])
    v0 = p._version
    opt.step()
    opt.step()
    assert p._version > v0
    assert float(opt.state[p]["step"]) == 2.0
    # Constant gradient: the bias-corrected m / sqrt(v) is sign(g), so each step moves by lr.
    np.testing.assert_allclose(p.detach().numpy(), [0.8, -1.8], rtol=1e-5)


def test_generic_path_checks_state(forced_generic):
    p = nn.Parameter(tc.zeros(3))
    p.grad = tc.ones(3)
    step = tc.zeros((), dtype=tc.float32)
    hyper = (0.1, 0.9, 0.999, 1e-8, 0.0, False, False, False)  # lr, betas, eps, wd, flags
    with pytest.raises(ValueError, match="exp_avg state of parameter 0 has a different shape"):
        _F.adam_step([p], [tc.zeros(4)], [tc.zeros(3)], [], [step], *hyper)
    with pytest.raises(TypeError, match="dtype"):
        _F.adam_step([p], [tc.zeros(3, dtype=tc.float64)], [tc.zeros(3)], [], [step], *hyper)
    assert float(step) == 0.0
