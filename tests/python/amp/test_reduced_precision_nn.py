"""nn kernels written for float32/float64 take float16/bfloat16 inputs by computing in float32
(what CPU autocast feeds them): dtypes as torch's, values equal to the float32 computation on the
same (rounded) inputs, gradients in the inputs' dtypes, running stats written back. bfloat16
convolution has its own oneDNN kernels (equal to one rounding of the float32 result)."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F

rng = np.random.default_rng(3)
IMG = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
K = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)


def weight(x, dt):
    # K rounded to the reduced dtype `dt` first, then given x's dtype (the reference is float32).
    return tc.tensor(K).to(dt).to(x.dtype)


OPS = {
    "conv2d": lambda x, dt: F.conv2d(x, weight(x, dt), padding=1),
    "conv_transpose2d": lambda x, dt: F.conv_transpose2d(x, weight(x, dt).transpose(0, 1)),
    "max_pool2d": lambda x, dt: F.max_pool2d(x, 2),
    "avg_pool2d": lambda x, dt: F.avg_pool2d(x, 2),
    "adaptive_avg_pool2d": lambda x, dt: F.adaptive_avg_pool2d(x, 3),
    "layer_norm": lambda x, dt: F.layer_norm(x, (8,)),
    "group_norm": lambda x, dt: F.group_norm(x, 3),
    "instance_norm": lambda x, dt: F.instance_norm(x),
    "unfold": lambda x, dt: F.unfold(x, 3),
    "interpolate": lambda x, dt: F.interpolate(
        x, scale_factor=2, mode="bilinear", align_corners=False
    ),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_reduced_input_matches_float32_on_rounded_input(name, dtype):
    dt = getattr(tc, dtype)
    x = tc.tensor(IMG).to(dt)
    y = OPS[name](x, dt)
    assert y.dtype == dt
    ref = OPS[name](x.float(), dt).to(dt)
    if name.startswith("conv") and dtype == "bfloat16":
        # oneDNN's bf16 kernels: float32 accumulation in their own order, one rounding.
        np.testing.assert_allclose(y.float().numpy(), ref.float().numpy(), rtol=2**-7, atol=2**-7)
    else:
        np.testing.assert_array_equal(y.float().numpy(), ref.float().numpy())


def test_gradients_in_input_dtype():
    x = tc.tensor(IMG).to(tc.bfloat16).requires_grad_()
    w = tc.tensor(K).to(tc.bfloat16).requires_grad_()
    F.max_pool2d(F.conv2d(x, w, padding=1), 2).float().sum().backward()
    assert x.grad.dtype == tc.bfloat16 and w.grad.dtype == tc.bfloat16
    x32 = tc.tensor(IMG).to(tc.bfloat16).float().requires_grad_()
    w32 = tc.tensor(K).to(tc.bfloat16).float().requires_grad_()
    F.max_pool2d(F.conv2d(x32, w32, padding=1).to(tc.bfloat16).float(), 2).sum().backward()
    np.testing.assert_allclose(w.grad.float().numpy(), w32.grad.numpy(), rtol=2e-2, atol=0.3)


@pytest.mark.parametrize("stats_dtype", ["float32", "bfloat16"])
def test_batch_norm_running_stats_are_updated(stats_dtype):
    sd = getattr(tc, stats_dtype)
    mean, var = tc.zeros(3, dtype=sd), tc.ones(3, dtype=sd)
    x = tc.tensor(IMG).to(tc.bfloat16)
    y = F.batch_norm(x, mean, var, training=True, momentum=0.5)
    assert y.dtype == tc.bfloat16
    xm = x.float().mean((0, 2, 3)).numpy()
    np.testing.assert_allclose(mean.float().numpy(), 0.5 * xm, rtol=2e-2, atol=1e-2)
    assert mean.dtype == sd


def test_batchnorm_module_under_cpu_autocast():
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(4, 2),
    )
    x = tc.tensor(IMG)
    with tc.autocast("cpu"):
        out = model(x)
        assert out.dtype == tc.bfloat16
        loss = F.cross_entropy(out, tc.tensor([0, 1]))
    loss.backward()
    for p in model.parameters():
        assert p.grad is not None and p.grad.dtype == tc.float32
    assert model[1].running_mean.dtype == tc.float32
    assert float(model[1].running_mean.abs().sum()) > 0


def test_lstm_cell_bfloat16():
    x = tc.tensor(rng.standard_normal((2, 5)).astype(np.float32)).to(tc.bfloat16)
    h = tc.zeros(2, 4, dtype=tc.bfloat16)
    w_ih = tc.tensor(rng.standard_normal((16, 5)).astype(np.float32)).to(tc.bfloat16)
    w_hh = tc.tensor(rng.standard_normal((16, 4)).astype(np.float32)).to(tc.bfloat16)
    h1, c1 = F.lstm_cell(x, (h, h), w_ih, w_hh)
    assert h1.dtype == c1.dtype == tc.bfloat16
    r1, r2 = F.lstm_cell(x.float(), (h.float(), h.float()), w_ih.float(), w_hh.float())
    np.testing.assert_array_equal(h1.float().numpy(), r1.to(tc.bfloat16).float().numpy())


CONV_CASES = {
    "conv1d": (F.conv1d, (2, 4, 17), (6, 4, 3), dict(padding=1)),
    "conv2d_grouped_strided": (F.conv2d, (2, 4, 9, 9), (6, 2, 3, 3), dict(stride=2, groups=2)),
    "conv2d_dilated_bias": (F.conv2d, (1, 3, 10, 10), (5, 3, 3, 3), dict(dilation=2, bias=True)),
    "conv2d_1x1": (F.conv2d, (2, 16, 7, 7), (8, 16, 1, 1), dict()),
    "conv3d": (F.conv3d, (1, 2, 5, 6, 6), (3, 2, 3, 3, 3), dict(padding=1)),
    "conv_transpose2d": (F.conv_transpose2d, (1, 4, 5, 5), (4, 3, 3, 3), dict(stride=2)),
}


@pytest.mark.parametrize("name", sorted(CONV_CASES))
def test_bf16_conv_forward_backward_matches_float32(name):
    fn, xs, ws, kw = CONV_CASES[name]
    kw = dict(kw)
    with_bias = kw.pop("bias", False)
    out_ch = ws[1] if fn is F.conv_transpose2d else ws[0]
    r = np.random.default_rng(5)
    xa = r.standard_normal(xs).astype(np.float32)
    wa = r.standard_normal(ws).astype(np.float32) * 0.3
    ba = r.standard_normal(out_ch).astype(np.float32)

    def run(dt):
        x = tc.tensor(xa).to(tc.bfloat16).to(dt).requires_grad_()
        w = tc.tensor(wa).to(tc.bfloat16).to(dt).requires_grad_()
        b = tc.tensor(ba).to(tc.bfloat16).to(dt).requires_grad_() if with_bias else None
        y = fn(x, w, b, **kw)
        (
            y.float() * tc.tensor(np.linspace(-1, 1, y.numel()).reshape(y.shape).astype(np.float32))
        ).sum().backward()
        return y, x.grad, w.grad, (b.grad if with_bias else None)

    got, ref = run(tc.bfloat16), run(tc.float32)
    assert got[0].dtype == tc.bfloat16 and got[2].dtype == tc.bfloat16
    for g, e in zip(got, ref):
        if e is None:
            continue
        e = e.detach().numpy()
        scale = np.abs(e).max() + 1e-6
        np.testing.assert_allclose(g.detach().float().numpy() / scale, e / scale, atol=2e-2)


def test_embedding_max_norm_bf16_renorms_weight_in_place():
    w = tc.tensor(np.full((4, 3), 2.0, dtype=np.float32)).to(tc.bfloat16).requires_grad_()
    out = F.embedding(tc.tensor([1, 2]), w, max_norm=1.0)
    assert out.dtype == tc.bfloat16
    norms = np.linalg.norm(w.detach().float().numpy(), axis=1)
    np.testing.assert_allclose(norms[[1, 2]], 1.0, rtol=1e-2)
    np.testing.assert_allclose(norms[[0, 3]], np.sqrt(12.0), rtol=1e-2)
    out.float().sum().backward()
    assert w.grad.dtype == tc.bfloat16
