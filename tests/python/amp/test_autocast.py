"""tc.autocast on the CPU (bfloat16): per-op policies against torch.autocast("cpu") in torch 1.13,
gradients through the casts, the weight-cast cache, nesting and the state functions."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except Exception:  # pragma: no cover
    torch = None

rng = np.random.default_rng(0)


def arr(*shape):
    return rng.standard_normal(shape).astype(np.float32)


X, M, W, B = arr(4, 8), arr(8, 8), arr(6, 8), arr(6)
IMG, K = arr(1, 2, 5, 5), arr(3, 2, 3, 3)
X1, K1 = arr(1, 2, 6), arr(3, 2, 3)
BIL = arr(3, 8, 8)
V5 = arr(1, 1, 2, 4, 8)
TGT = np.array([0, 1, 2, 3])


def cases(lib, fn):
    """(name, thunk) per op, written once for tensorcore and torch. `fn` is the functional module."""
    t = lambda a: lib.tensor(a)  # noqa: E731
    bf = lambda a: lib.tensor(a).to(lib.bfloat16)  # noqa: E731
    idx = lambda a: lib.tensor(a, dtype=lib.int64)  # noqa: E731
    return {
        # lower precision
        "mm": lambda: lib.mm(t(X), t(M)),
        "matmul": lambda: lib.matmul(t(X), t(M)),
        "bmm": lambda: lib.bmm(t(X)[None], t(M)[None]),
        "addmm": lambda: lib.addmm(t(X), t(X), t(M)),
        "baddbmm": lambda: lib.baddbmm(t(X)[None], t(X)[None], t(M)[None]),
        "linear": lambda: fn.linear(t(X), t(W), t(B)),
        "linear_nobias": lambda: fn.linear(t(X), t(W)),
        "conv1d": lambda: fn.conv1d(t(X1), t(K1)),
        "conv2d": lambda: fn.conv2d(t(IMG), t(K)),
        "einsum": lambda: lib.einsum("ij,jk->ik", t(X), t(M)),
        "bilinear": lambda: fn.bilinear(t(X), t(X), t(BIL)),
        "addmv": lambda: lib.addmv(t(X)[0], t(M), t(X)[1]),
        "conv2d_bf16": lambda: fn.conv2d(bf(IMG), bf(K)),
        "tensordot": lambda: lib.tensordot(t(X), t(M), 1),
        # not listed on the CPU in 1.13: run in their input dtypes
        "mv": lambda: lib.mv(t(M), t(X)[0]),
        "dot": lambda: lib.dot(t(X)[0], t(X)[1]),
        "conv_transpose2d": lambda: fn.conv_transpose2d(t(IMG), t(K).transpose(0, 1)),
        "softmax_bf16": lambda: fn.softmax(bf(X), 1),
        "log_softmax_bf16": lambda: fn.log_softmax(bf(X), 1),
        "exp_bf16": lambda: lib.exp(bf(X)),
        "sum_bf16": lambda: bf(X).sum(),
        "cumsum_bf16": lambda: bf(X).cumsum(0),
        "relu_bf16": lambda: fn.relu(bf(X)),
        "add_mixed": lambda: bf(X) + t(X),
        "double_mm": lambda: lib.mm(t(X).double(), t(M).double()),
        "int_sum": lambda: lib.arange(4).sum(),
        # fp32
        "prod_bf16": lambda: bf(X).prod(),
        "mse_loss": lambda: fn.mse_loss(bf(X), bf(X)),
        "l1_loss": lambda: fn.l1_loss(bf(X), t(X)),
        "smooth_l1_loss": lambda: fn.smooth_l1_loss(bf(X), bf(X)),
        "huber_loss": lambda: fn.huber_loss(bf(X), bf(X)),
        "cross_entropy": lambda: fn.cross_entropy(bf(X), idx(TGT)),
        "nll_loss": lambda: fn.nll_loss(bf(X), idx(TGT)),
        "bce_with_logits": lambda: fn.binary_cross_entropy_with_logits(bf(X), bf(X).sigmoid()),
        "bce": lambda: fn.binary_cross_entropy(bf(X).sigmoid(), bf(X).sigmoid()),
        "soft_margin_loss": lambda: fn.soft_margin_loss(bf(X), bf(X).sign()),
        "max_pool3d": lambda: fn.max_pool3d(bf(V5), 2),
        "avg_pool3d": lambda: fn.avg_pool3d(bf(V5), 2),
        "adaptive_avg_pool3d": lambda: fn.adaptive_avg_pool3d(bf(V5), 2),
        "pad_reflect": lambda: fn.pad(bf(X)[None], (1, 1), mode="reflect"),
        "pad_replicate": lambda: fn.pad(bf(X)[None], (1, 1), mode="replicate"),
        "fft_rfft": lambda: lib.fft.rfft(bf(X)),
        "fft_fft2": lambda: lib.fft.fft2(bf(X)),
        # promote
        "cat_mixed": lambda: lib.cat([bf(X), t(X)]),
        "cat_bf16": lambda: lib.cat([bf(X), bf(X)]),
        "stack_mixed": lambda: lib.stack([bf(X), t(X)]),
        "cat_double": lambda: lib.cat([t(X).double(), bf(X)]),
        "index_copy": lambda: bf(X).index_copy(0, idx([0]), t(X)[:1]),
    }


def dtype_name(d):
    return str(d).split(".")[-1]


@pytest.mark.parametrize("name", sorted(cases(tc, F)))
def test_cpu_policy_matches_torch(name, torch_ref):
    ours = cases(tc, F)[name]
    theirs = cases(torch_ref, TF)[name]
    with torch_ref.autocast("cpu"):
        expected = theirs()
    with tc.autocast("cpu"):
        got = ours()
    assert dtype_name(got.dtype) == dtype_name(expected.dtype), name
    # Values agree to bfloat16 precision (both compute the same casts).
    e = expected.detach().float() if not expected.is_complex() else expected.detach()
    g = got.detach().float() if not got.is_complex() else got.detach()
    np.testing.assert_allclose(np.asarray(g.numpy()), e.numpy(), rtol=3e-2, atol=3e-2)


def test_lower_precision_ops_without_torch():
    x, m = tc.tensor(X), tc.tensor(M)
    with tc.autocast("cpu"):
        assert tc.mm(x, m).dtype == tc.bfloat16
        assert (x @ m).dtype == tc.bfloat16
        assert tc.cat([x, x.to(tc.bfloat16)]).dtype == tc.float32
        assert F.cross_entropy(x @ m, tc.tensor(TGT)).dtype == tc.float32
    assert tc.mm(x, m).dtype == tc.float32


def test_values_are_bf16_matmul():
    x, m = tc.tensor(X), tc.tensor(M)
    with tc.autocast("cpu"):
        y = tc.mm(x, m)
    ref = tc.mm(x.to(tc.bfloat16), m.to(tc.bfloat16))
    np.testing.assert_array_equal(y.float().numpy(), ref.float().numpy())


def test_policy_tables():
    table = dict(tc._C._amp.policy_table("cpu"))
    assert table["mm"] == "lower_precision_fp"
    assert table["mse_loss"] == "fp32"
    assert table["cat"] == "promote"
    assert "softmax" not in table
    cuda = dict(tc._C._amp.policy_table("cuda"))
    assert cuda["softmax"] == "fp32_set_opt_dtype"
    assert cuda["exp"] == "fp32"
    assert cuda["binary_cross_entropy"] == "banned"
    assert cuda["scatter_add"] == "promote"
    assert tc._C._amp.cast_policy("relu", "cuda") == "none"


def test_state_functions():
    assert not tc.is_autocast_cpu_enabled()
    assert tc.get_autocast_cpu_dtype() == tc.bfloat16
    assert tc.get_autocast_gpu_dtype() == tc.float16
    with tc.autocast("cpu"):
        assert tc.is_autocast_cpu_enabled()
        assert tc.is_autocast_enabled("cpu")
        assert not tc.is_autocast_enabled()  # no argument: CUDA, as torch
    assert not tc.is_autocast_cpu_enabled()
    with tc.cpu.amp.autocast():
        assert tc.is_autocast_cpu_enabled()
    with tc.amp.autocast("cpu", dtype=tc.float16):
        assert tc.get_autocast_cpu_dtype() == tc.float16
        assert tc.mm(tc.tensor(X), tc.tensor(M)).dtype == tc.float16
    assert tc.get_autocast_cpu_dtype() == tc.bfloat16


def test_bad_arguments():
    with pytest.raises(ValueError):
        tc.autocast(0)
    with pytest.raises(RuntimeError, match="cuda' or 'cpu"):
        tc.autocast("tpu")
    with pytest.warns(UserWarning, match="not supported"):
        ac = tc.autocast("cpu", dtype=tc.float64)
    with ac:
        assert not tc.is_autocast_cpu_enabled()
    with pytest.raises(TypeError, match="float16 or bfloat16"):
        tc.set_autocast_cpu_dtype(tc.int32)
    with pytest.raises(ValueError, match="device_type"):
        tc.is_autocast_enabled("tpu")


def test_gradients_flow_in_input_dtypes():
    w = tc.tensor(W, requires_grad=True)
    b = tc.tensor(B, requires_grad=True)
    x = tc.tensor(X, requires_grad=True)
    with tc.autocast("cpu"):
        y = F.linear(x, w, b)
        assert y.dtype == tc.bfloat16
        loss = F.mse_loss(y, tc.zeros(4, 6))
        assert loss.dtype == tc.float32
    loss.backward()
    for p in (w, b, x):
        assert p.grad is not None and p.grad.dtype == tc.float32
    # Reference: the same computation written with explicit casts, without autocast.
    w2, b2, x2 = (tc.tensor(a, requires_grad=True) for a in (W, B, X))
    y2 = F.linear(x2.to(tc.bfloat16), w2.to(tc.bfloat16), b2.to(tc.bfloat16))
    F.mse_loss(y2.float(), tc.zeros(4, 6)).backward()
    for p, q in ((w, w2), (b, b2), (x, x2)):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_gradients_match_torch(torch_ref):
    def run(lib, fn):
        w = lib.tensor(W, requires_grad=True)
        x = lib.tensor(X, requires_grad=True)
        with lib.autocast("cpu"):
            loss = fn.cross_entropy(fn.linear(x, w) @ lib.tensor(M[:6, :6]), lib.tensor(TGT))
        loss.backward()
        return loss.detach().float().numpy(), w.grad.numpy(), x.grad.numpy()

    for ours, theirs in zip(run(tc, F), run(torch_ref, TF)):
        np.testing.assert_allclose(ours, theirs, rtol=2e-2, atol=2e-2)


def test_weight_cast_cache():
    w = tc.tensor(W, requires_grad=True)
    x = tc.tensor(X)
    with tc.autocast("cpu"):
        a = F.linear(x, w)
        assert tc._C._amp.cache_size() == 1
        b = F.linear(x, w)
        assert tc._C._amp.cache_size() == 1
        # Both uses share one cast node; gradients from both still reach w.
        (a.float().sum() + b.float().sum()).backward()
    assert tc._C._amp.cache_size() == 0  # cleared on leaving the outermost region
    np.testing.assert_allclose(w.grad.numpy(), 2 * X.sum(0)[None].repeat(6, 0), rtol=2e-2)


def test_cache_rules():
    w = tc.tensor(W, requires_grad=True)
    plain = tc.tensor(W)  # no grad: never cached
    x = tc.tensor(X)
    with tc.autocast("cpu", cache_enabled=False):
        F.linear(x, w)
        assert tc._C._amp.cache_size() == 0
    with tc.autocast("cpu"):
        F.linear(x, plain)
        F.linear(x, w[:3])  # a view: not cached
        assert tc._C._amp.cache_size() == 0
        F.linear(x, w)
        assert tc._C._amp.cache_size() == 1


def test_cache_sees_in_place_updates():
    w = tc.tensor(W, requires_grad=True)
    x = tc.tensor(X)
    with tc.autocast("cpu"):
        before = F.linear(x, w).detach().float().numpy()
        with tc.no_grad():
            w.mul_(2.0)
        after = F.linear(x, w).detach().float().numpy()
    np.testing.assert_allclose(after, 2 * before, rtol=2e-2, atol=2e-2)


def test_cache_entry_made_without_grad_is_not_reused_with_grad():
    w = tc.tensor(W, requires_grad=True)
    x = tc.tensor(X)
    with tc.autocast("cpu"):
        with tc.no_grad():
            F.linear(x, w)
        y = F.linear(x, w)
        assert y.requires_grad
        y.float().sum().backward()
    assert w.grad is not None


def test_nesting_and_disabled_subregion():
    x, m = tc.tensor(X), tc.tensor(M)
    with tc.autocast("cpu"):
        with tc.autocast("cpu", enabled=False):
            assert tc.mm(x, m).dtype == tc.float32
            assert not tc.is_autocast_cpu_enabled()
            with tc.autocast("cpu"):
                assert tc.mm(x, m).dtype == tc.bfloat16
            assert tc.mm(x, m).dtype == tc.float32
        assert tc.mm(x, m).dtype == tc.bfloat16
        with tc.autocast("cpu", dtype=tc.float16):
            assert tc.mm(x, m).dtype == tc.float16
        assert tc.mm(x, m).dtype == tc.bfloat16
    assert tc.mm(x, m).dtype == tc.float32


def test_exception_restores_state():
    with pytest.raises(ZeroDivisionError):
        with tc.autocast("cpu"):
            1 / 0
    assert not tc.is_autocast_cpu_enabled()
    assert tc._C._amp.cache_size() == 0


def test_decorator_and_reentry():
    ac = tc.autocast("cpu")

    @ac
    def f(depth):
        assert tc.is_autocast_cpu_enabled()
        y = tc.mm(tc.tensor(X), tc.tensor(M))
        return [y.dtype] + (f(depth - 1) if depth else [])

    assert f(2) == [tc.bfloat16] * 3
    assert not tc.is_autocast_cpu_enabled()


def test_composite_inner_ops_not_recast():
    # F.linear runs matmul + add inside one autocast op: the bias add must stay bfloat16.
    x, w, b = tc.tensor(X), tc.tensor(W), tc.tensor(B)
    with tc.autocast("cpu"):
        assert F.linear(x[0], w, b).dtype == tc.bfloat16  # 1-d input: matmul + add path
        assert tc.nn.Linear(8, 6)(x).dtype == tc.bfloat16


def test_cuda_autocast_without_gpu_warns_and_disables():
    if tc.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.warns(UserWarning, match="CUDA is not available"):
        ac = tc.cuda.amp.autocast()
    with ac:
        assert not tc.is_autocast_enabled()


def test_cuda_policies_apply_to_cuda_tensors_only():
    # Enabling the CUDA state directly (no GPU needed): CPU tensors are not eligible for it.
    x, m = tc.tensor(X), tc.tensor(M)
    prev = tc.is_autocast_enabled()
    tc.set_autocast_enabled(True)
    try:
        assert tc.mm(x, m).dtype == tc.float32
        assert F.softmax(x.to(tc.bfloat16), 1).dtype == tc.bfloat16
    finally:
        tc.set_autocast_enabled(prev)


def test_custom_fwd_bwd_cpu():
    from tensorcore.amp import custom_fwd, custom_bwd

    class Square(tc.autograd.Function):
        @staticmethod
        @custom_fwd(cast_inputs=tc.float32, device_type="cpu")
        def forward(ctx, x):
            assert not tc.is_autocast_cpu_enabled()
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = tc.tensor(X[0]).to(tc.bfloat16).requires_grad_()
    with tc.autocast("cpu"):
        y = Square.apply(x)
    assert y.dtype == tc.float32
    y.sum().backward()
    assert x.grad.dtype == tc.bfloat16


def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 8, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, 5),
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cnn_under_cpu_autocast_matches_torch(torch_ref, seed):
    torch_ref.manual_seed(seed)
    torch_model = _cnn(torch_ref)
    model = _cnn(tc)
    model.load_state_dict(
        {k: tc.tensor(v.detach().numpy()) for k, v in torch_model.state_dict().items()}
    )
    x = np.random.default_rng(seed).standard_normal((4, 3, 12, 12)).astype(np.float32)
    y = np.array([0, 1, 2, 4])

    def run(lib, net, fn):
        with lib.autocast("cpu"):
            out = net(lib.tensor(x))
            loss = fn.cross_entropy(out, lib.tensor(y))
        loss.backward()
        grads = {n: p.grad.numpy() for n, p in net.named_parameters()}
        return out, loss, grads

    out_t, loss_t, grads_t = run(torch_ref, torch_model, TF)
    out_c, loss_c, grads_c = run(tc, model, F)
    assert dtype_name(out_c.dtype) == dtype_name(out_t.dtype) == "bfloat16"
    assert dtype_name(loss_c.dtype) == dtype_name(loss_t.dtype) == "float32"
    np.testing.assert_allclose(
        out_c.detach().float().numpy(), out_t.detach().float().numpy(), rtol=0.05, atol=0.05
    )
    np.testing.assert_allclose(loss_c.item(), loss_t.item(), rtol=0.02)
    for name, g in grads_t.items():
        assert grads_c[name].dtype == np.float32
        # bfloat16 forward/backward on both sides, rounded at different points: agree to ~10%
        # in norm (measured worst over 20 seeds: 8.8%).
        rel = np.linalg.norm(grads_c[name] - g) / (np.linalg.norm(g) + 1e-3)
        assert rel < 0.2, (name, rel)
    np.testing.assert_allclose(
        model[1].running_mean.numpy(), torch_model[1].running_mean.numpy(), rtol=0.02, atol=0.02
    )


def test_explicit_dtype_argument_passes_through_the_hook():
    # (The fp32_set_opt_dtype rule itself is CUDA-only: test_amp_cuda.py checks it on a GPU.)
    x = tc.tensor(X).to(tc.bfloat16)
    with tc.autocast("cpu"):
        assert F.softmax(x, 1, dtype=tc.float32).dtype == tc.float32
        assert F.softmax(x, 1, 3, tc.float32).dtype == tc.float32
        assert F.log_softmax(x, 1).dtype == tc.bfloat16


def test_state_is_per_thread():
    import threading

    seen = {}

    def worker():
        seen["enabled"] = tc.is_autocast_cpu_enabled()
        seen["dtype"] = tc.mm(tc.tensor(X), tc.tensor(M)).dtype

    with tc.autocast("cpu"):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert tc.mm(tc.tensor(X), tc.tensor(M)).dtype == tc.bfloat16
    assert seen == {"enabled": False, "dtype": tc.float32}
