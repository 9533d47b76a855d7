"""Optimizers on CUDA (the device-generic step path): every optimizer's trajectory on the GPU
against the CPU's fused loops, state placement, clip_grad_norm_/clip_grad_value_/zero_grad on CUDA
gradients, loading a CPU optimizer checkpoint into a CUDA model, and a small training step on the
GPU matching the CPU. Without a GPU these skip (see conftest.py)."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.optim as optim
from shared_inputs import OPTIMIZER_CONFIGS as CONFIGS

STEPS = 8  # RAdam rectifies from about step 6
TOL = {np.float32: 1e-5, np.float64: 1e-10}


@pytest.fixture(autouse=True)
def full_precision_matmul():
    """The training-step comparison needs float32 matmuls without TF32."""
    matmul = tc.backends.cuda.matmul
    saved = matmul.allow_tf32
    matmul.allow_tf32 = False
    yield
    matmul.allow_tf32 = saved


def _grads(values, step):
    return [np.sin(v * 3.0 + step) + 0.5 * v for v in values]


def _trajectory(name, kw, init, device):
    ps = [nn.Parameter(tc.from_numpy(a.copy()).to(device)) for a in init]
    opt = getattr(optim, name)(ps, **kw)
    for step in range(STEPS):
        values = [p.detach().cpu().numpy() for p in ps]
        for p, g in zip(ps, _grads(values, step)):
            p.grad = tc.from_numpy(np.ascontiguousarray(g)).to(device)
        opt.step()
    return ps, opt


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_optimizer_on_cuda_matches_cpu(name, kw, dtype):
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s).astype(dtype) for s in [(16, 8), (8,), (100000,)]]
    cpu_ps, cpu_opt = _trajectory(name, kw, init, "cpu")
    gpu_ps, gpu_opt = _trajectory(name, kw, init, "cuda")
    for cp, gp in zip(cpu_ps, gpu_ps):
        assert gp.is_cuda
        np.testing.assert_allclose(
            gp.detach().cpu().numpy(), cp.detach().numpy(), rtol=TOL[dtype], atol=TOL[dtype]
        )
        cs, gs = cpu_opt.state[cp], gpu_opt.state[gp]
        assert sorted(cs) == sorted(gs)
        for key, value in gs.items():
            if key in ("step", "mu_product"):
                assert not value.is_cuda, f"{key} counters stay on the host"
                assert float(value) == pytest.approx(float(cs[key]))
            else:
                assert value.is_cuda, f"state {key} should live on the parameter's device"
                np.testing.assert_allclose(
                    value.cpu().numpy(),
                    cs[key].numpy(),
                    rtol=TOL[dtype],
                    atol=TOL[dtype],
                    err_msg=key,
                )


def test_cuda_state_on_wrong_device_is_a_clear_error():
    p = nn.Parameter(tc.zeros(3, device="cuda"))
    p.grad = tc.ones(3, device="cuda")
    with pytest.raises(ValueError, match="exp_avg state of parameter 0 is on cpu"):
        tc._C._optim.adam_step(
            [p],
            [tc.zeros(3)],
            [tc.zeros(3, device="cuda")],
            [],
            [tc.zeros(())],
            0.1,
            0.9,
            0.999,
            1e-8,
            0.0,
            False,
            False,
            False,
        )


def test_clip_grad_and_zero_grad_on_cuda():
    rng = np.random.default_rng(3)
    grads = [rng.standard_normal(s).astype(np.float32) * 5 for s in [(10, 10), (10,)]]
    results = {}
    for device in ("cpu", "cuda"):
        ps = [nn.Parameter(tc.zeros(g.shape, device=device)) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = tc.from_numpy(g.copy()).to(device)
        total = nn.utils.clip_grad_norm_(ps, 1.0)
        assert total.is_cuda == (device == "cuda")
        inf_total = nn.utils.clip_grad_norm_(ps, 0.5, norm_type=float("inf"))
        nn.utils.clip_grad_value_(ps, 0.05)
        results[device] = (float(total), float(inf_total), [p.grad.cpu().numpy() for p in ps])
        opt = optim.SGD(ps, lr=0.1)
        opt.zero_grad(set_to_none=False)
        assert all(
            p.grad.is_cuda == (device == "cuda") and float(p.grad.abs().sum()) == 0 for p in ps
        )
        opt.zero_grad()
        assert all(p.grad is None for p in ps)
    (ct, ci, cg), (gt, gi, gg) = results["cpu"], results["cuda"]
    assert gt == pytest.approx(ct, rel=1e-5)
    assert gi == pytest.approx(ci, rel=1e-5)
    for a, b in zip(cg, gg):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-7)


def test_cpu_checkpoint_loads_into_cuda_optimizer():
    init = [np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)]
    cpu_ps, cpu_opt = _trajectory("Adam", {"lr": 0.01, "amsgrad": True}, init, "cpu")
    gp = nn.Parameter(cpu_ps[0].detach().clone().to("cuda"))
    gpu_opt = optim.Adam([gp], lr=0.01, amsgrad=True)
    gpu_opt.load_state_dict(cpu_opt.state_dict())
    st = gpu_opt.state[gp]
    assert st["exp_avg"].is_cuda and not st["step"].is_cuda
    g = np.full((3, 4), 0.25, dtype=np.float32)
    cpu_ps[0].grad = tc.from_numpy(g.copy())
    gp.grad = tc.from_numpy(g.copy()).to("cuda")
    cpu_opt.step()
    gpu_opt.step()
    np.testing.assert_allclose(
        gp.detach().cpu().numpy(), cpu_ps[0].detach().numpy(), rtol=1e-5, atol=1e-6
    )


def _training_run(device, opt_name, opt_kw, steps=4):
    tc.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    model.to(device)
    rng = np.random.default_rng(5)
    x = tc.from_numpy(rng.standard_normal((32, 6)).astype(np.float32)).to(device)
    y = tc.from_numpy(rng.standard_normal((32, 3)).astype(np.float32)).to(device)
    opt = getattr(optim, opt_name)(model.parameters(), **opt_kw)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss))
    return losses, [p.detach().cpu().numpy() for p in model.parameters()]


@pytest.mark.parametrize(
    "opt_name,opt_kw", [("SGD", {"lr": 0.1, "momentum": 0.9}), ("AdamW", {"lr": 0.01})]
)
def test_training_step_on_gpu_matches_cpu(opt_name, opt_kw):
    cpu_losses, cpu_params = _training_run("cpu", opt_name, opt_kw)
    gpu_losses, gpu_params = _training_run("cuda", opt_name, opt_kw)
    assert cpu_losses[-1] < cpu_losses[0], "the CPU run should learn"
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-4)
    for a, b in zip(cpu_params, gpu_params):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
