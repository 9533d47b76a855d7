"""CUDA autocast policies and the GradScaler kernels on a GPU (skipped without one)."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F

pytestmark = pytest.mark.skipif(not tc.cuda.is_available(), reason="no CUDA device available")

rng = np.random.default_rng(0)


def cuda(a):
    return tc.tensor(np.asarray(a, dtype=np.float32)).cuda()


def test_cuda_policy_classes():
    x, m = cuda(rng.standard_normal((4, 8))), cuda(rng.standard_normal((8, 8)))
    with tc.autocast("cuda"):
        assert tc.mm(x, m).dtype == tc.float16
        assert F.linear(x, m).dtype == tc.float16
        h = tc.mm(x, m)
        assert tc.exp(h).dtype == tc.float32
        assert F.softmax(h, 1).dtype == tc.float32
        assert F.softmax(h, 1, dtype=tc.float16).dtype == tc.float16
        assert h.sum().dtype == tc.float32
        assert tc.cumsum(h, 0).dtype == tc.float32
        assert F.mse_loss(h, h).dtype == tc.float32
        assert tc.atan2(h, x).dtype == tc.float32
        assert tc.dot(h[0], h[1]).dtype == tc.float16
        assert tc.cat([h, x]).dtype == tc.float32  # cat is not a CUDA promote op: plain promotion
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(h.float().sigmoid(), h.float().sigmoid())
    with tc.autocast("cuda", dtype=tc.bfloat16):
        assert tc.mm(x, m).dtype == tc.bfloat16


def test_cuda_matches_cpu_values():
    x, m = rng.standard_normal((64, 32)), rng.standard_normal((32, 16))
    with tc.autocast("cuda"):
        got = tc.mm(cuda(x), cuda(m)).float().cpu().numpy()
    ref = (tc.tensor(x, dtype=tc.float16).float() @ tc.tensor(m, dtype=tc.float16).float()).numpy()
    np.testing.assert_allclose(got, ref, rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_cuda_unscale_kernel(dtype):
    dt = getattr(tc, dtype)
    a = rng.standard_normal(100003).astype(np.float32)
    g = cuda(a).to(dt)
    found = tc.zeros(1, device="cuda")
    tc._amp_foreach_non_finite_check_and_unscale_([g], found, cuda([0.5]))
    ref = tc.tensor(a).to(dt).float() * 0.5
    np.testing.assert_allclose(g.float().cpu().numpy(), ref.numpy(), rtol=1e-2)
    assert found.item() == 0.0
    g[777] = float("inf")
    tc._amp_foreach_non_finite_check_and_unscale_([g], found, cuda([1.0]))
    assert found.item() == 1.0


def test_cuda_update_scale_kernel_matches_cpu():
    flags = [0, 0, 1, 0, 0, 0, 1, 1, 0, 0]
    s_gpu, t_gpu = cuda([64.0]), tc.zeros(1, dtype=tc.int32).cuda()
    s_cpu, t_cpu = tc.tensor([64.0]), tc.zeros(1, dtype=tc.int32)
    for f in flags:
        tc._amp_update_scale_(s_gpu, t_gpu, cuda([float(f)]), 2.0, 0.5, 2)
        tc._amp_update_scale_(s_cpu, t_cpu, tc.tensor([float(f)]), 2.0, 0.5, 2)
        assert s_gpu.item() == s_cpu.item() and t_gpu.item() == t_cpu.item()


class PlainSGD:
    """Duck-typed optimizer with tensor-op updates (the fused tc.optim steps are CPU-only)."""

    def __init__(self, params, lr):
        self.param_groups = [{"params": list(params), "lr": lr}]

    def step(self):
        with tc.no_grad():
            for p in self.param_groups[0]["params"]:
                p.sub_(p.grad * self.param_groups[0]["lr"])


def test_cuda_gradscaler_step():
    w = tc.nn.Parameter(cuda([1.0, 1.0]))
    opt = PlainSGD([w], lr=0.5)
    scaler = tc.cuda.amp.GradScaler(init_scale=1024.0, growth_interval=1)
    with tc.cuda.amp.autocast():
        loss = (w * w).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(w.detach().cpu().numpy(), [0.0, 0.0], atol=1e-6)
    assert scaler.get_scale() == 2048.0
    assert scaler._scale.device.type == "cuda"
