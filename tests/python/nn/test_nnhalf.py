"""Native float16/bfloat16 CPU kernels for the norms and pooling (tensorcore/nn/half_span.h):
values read and written in the 16-bit type, statistics and sums in float32, one rounding per
output. Checked against torch 1.13's CPU bfloat16 kernels (float16 has none on the CPU in 1.13,
so float16 is checked against the float32 computation rounded once) and against float32."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F

RNG = np.random.default_rng(7)
# ulp of 1.0 in each dtype: tolerances are in these units.
EPS = {"bfloat16": 2.0**-7, "float16": 2.0**-10}


def arr(*shape, scale=1.0, shift=0.0):
    return (RNG.standard_normal(shape) * scale + shift).astype(np.float32)


def tc_leaf(a, dt):
    return tc.tensor(a).to(dt).requires_grad_()


def torch_leaf(torch, a, dt):
    return torch.tensor(a).to(dt).requires_grad_()


def as_np(t):
    return t.detach().float().numpy()


def assert_close_half(got, ref, dtype, min_equal=0.97, ulps=2.0):
    """Most elements bit-equal after rounding to the half type; the rest within `ulps` units of
    the half type's precision (relative to the tensor's largest magnitude)."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    assert got.shape == ref.shape
    equal = np.mean(got == ref)
    scale = max(np.abs(ref).max(), 1e-6)
    err = np.abs(got - ref).max() / scale
    assert equal >= min_equal and err <= ulps * EPS[dtype], (equal, err)


def assert_matches_torch(got, theirs, exact, max_ulps):
    """torch 1.13's bfloat16 kernels round some intermediates (statistics, the normalized value,
    partial sums) to bfloat16; ours compute in float32 and round once. So: every element within
    `max_ulps` bfloat16 ulps (at the tensor's largest magnitude) of torch's, and ours on average
    at least as close to the exactly rounded float32 result (`exact`) as torch's."""
    got, theirs, exact = (np.asarray(t, np.float64) for t in (got, theirs, exact))
    scale = np.abs(exact).max() * EPS["bfloat16"]
    d = np.abs(got - theirs).max() / scale
    assert d <= max_ulps, d
    ours_err, torch_err = np.abs(got - exact).mean(), np.abs(theirs - exact).mean()
    assert ours_err <= torch_err * 1.05 + 1e-12, (ours_err, torch_err)


# (tensorcore op, torch op, input shape): each gets a float32 weight for the output so the
# gradient is not uniform.
NORM_CASES = {
    "batch_norm_train_f32_params": (2, 16, 24, 30),
    "batch_norm_eval_f32_params": (2, 16, 24, 30),
    "batch_norm_train_half_params": (4, 8, 9, 9),
    "batch_norm_no_affine_1d": (32, 6),
    "layer_norm_affine": (6, 5, 700),
    "layer_norm_plain": (40, 64),
    "group_norm": (2, 12, 20, 40),
    "instance_norm": (3, 4, 15, 15),
}


def _norm_call(lib, name, x, dt, params):
    f = lib.nn.functional if hasattr(lib, "nn") else lib
    if name.startswith("batch_norm"):
        rm, rv, w, b = params
        return f.batch_norm(
            x, rm, rv, w, b, training="train" in name or "no_affine" in name, momentum=0.3, eps=1e-5
        )
    if name.startswith("layer_norm"):
        w, b = params
        return f.layer_norm(x, x.shape[-1:], w, b, eps=1e-5)
    if name == "group_norm":
        w, b = params
        return f.group_norm(x, 4, w, b, eps=1e-5)
    return f.instance_norm(x, eps=1e-5)


def _norm_params(name, shape):
    C = shape[-1] if name.startswith("layer_norm") else shape[1]
    if name.startswith("batch_norm"):
        ps = [arr(C, scale=0.1), np.abs(arr(C)) + 0.5, arr(C, scale=0.5, shift=1.0), arr(C)]
        return ps if "no_affine" not in name else ps[:2] + [None, None]
    if name == "layer_norm_plain" or name == "instance_norm":
        return [None, None]
    return [arr(C, scale=0.5, shift=1.0), arr(C)]


def _run_norm(lib, name, xa, grad_a, dt, param_dt, to_tensor, params_np):
    params = []
    for i, p in enumerate(params_np):
        if p is None:
            params.append(None)
            continue
        stat = name.startswith("batch_norm") and i < 2
        t = to_tensor(p).to(param_dt)
        params.append(t if stat else t.requires_grad_())
    x = to_tensor(xa).to(dt).requires_grad_()
    y = _norm_call(lib, name, x, dt, params)
    (y.float() * to_tensor(grad_a)).sum().backward()
    out = [y, x.grad] + [
        p.grad
        for i, p in enumerate(params)
        if p is not None and not (name.startswith("batch_norm") and i < 2)
    ]
    stats = [
        p for i, p in enumerate(params) if p is not None and name.startswith("batch_norm") and i < 2
    ]
    return out, stats


def bf16_round(a):
    return None if a is None else tc.tensor(a).to(tc.bfloat16).float().numpy()


@pytest.mark.parametrize("name", sorted(NORM_CASES))
def test_bf16_norms_match_torch(name, torch_ref):
    shape = NORM_CASES[name]
    # Inputs representable in bfloat16, so the float32 run sees the same values.
    xa = bf16_round(arr(*shape, scale=2.0, shift=0.5))
    ga = bf16_round(arr(*shape))
    ps = [bf16_round(p) for p in _norm_params(name, shape)]
    param_f32 = "half_params" not in name and "norm_affine" not in name and name != "group_norm"
    got, got_stats = _run_norm(
        tc, name, xa, ga, tc.bfloat16, tc.float32 if param_f32 else tc.bfloat16, tc.tensor, ps
    )
    ref, ref_stats = _run_norm(
        torch_ref,
        name,
        xa,
        ga,
        torch_ref.bfloat16,
        torch_ref.float32 if param_f32 else torch_ref.bfloat16,
        torch_ref.tensor,
        ps,
    )
    exact, _ = _run_norm(
        torch_ref, name, xa, ga, torch_ref.float32, torch_ref.float32, torch_ref.tensor, ps
    )
    assert got[0].dtype == tc.bfloat16 and got[1].dtype == tc.bfloat16
    for g, r in zip(got[2:], ref[2:]):  # parameter gradients keep the parameter's dtype
        assert str(g.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
    # Output: exactly the float32 result rounded once; within an ulp of torch's bf16 kernel.
    # (Float32 sums in another order: an element may round the other way.)
    assert_close_half(
        as_np(got[0]), as_np(exact[0].bfloat16()), "bfloat16", min_equal=0.999, ulps=1
    )
    assert_matches_torch(as_np(got[0]), as_np(ref[0]), as_np(exact[0].bfloat16()), max_ulps=2)
    # Input gradient: a longer formula; torch's bf16 backward rounds more intermediates.
    assert_close_half(as_np(got[1]), as_np(exact[1].bfloat16()), "bfloat16", min_equal=0.99, ulps=1)
    assert_matches_torch(as_np(got[1]), as_np(ref[1]), as_np(exact[1].bfloat16()), max_ulps=4)
    for g, r, e in zip(got[2:], ref[2:], exact[2:]):
        np.testing.assert_allclose(
            as_np(g), as_np(r), rtol=2e-2, atol=2e-2 * np.abs(as_np(r)).max()
        )
        np.testing.assert_allclose(
            as_np(g), as_np(e), rtol=1e-2, atol=1e-2 * np.abs(as_np(e)).max()
        )
    for s, r in zip(got_stats, ref_stats):  # running stats (float32 stay float32)
        assert str(s.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
        np.testing.assert_allclose(as_np(s), as_np(r), rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(NORM_CASES))
def test_half_norms_match_float32(name, dtype):
    # The same computation on float32 copies of the rounded inputs, rounded once.
    dt = getattr(tc, dtype)
    shape = NORM_CASES[name]
    xa = tc.tensor(arr(*shape, scale=2.0, shift=0.5)).to(dt).float().numpy()
    ga = tc.tensor(arr(*shape)).to(dt).float().numpy()  # the output gradient arrives rounded
    ps = _norm_params(name, shape)
    got, got_stats = _run_norm(tc, name, xa, ga, dt, tc.float32, tc.tensor, ps)
    ref, ref_stats = _run_norm(tc, name, xa, ga, tc.float32, tc.float32, tc.tensor, ps)
    assert_close_half(as_np(got[0]), as_np(ref[0].to(dt)), dtype, min_equal=0.99, ulps=1)
    assert_close_half(as_np(got[1]), as_np(ref[1].to(dt)), dtype, min_equal=0.99, ulps=1)
    for g, r in zip(got[2:] + got_stats, ref[2:] + ref_stats):
        assert g.dtype == tc.float32
        np.testing.assert_allclose(
            as_np(g), as_np(r), rtol=1e-4, atol=1e-4 * np.abs(as_np(r)).max()
        )


POOL_CASES = {
    "max_pool2d_3x3s2p1": (lambda f, x: f.max_pool2d(x, 3, 2, 1), (2, 8, 33, 29)),
    "max_pool2d_ceil_dil": (
        lambda f, x: f.max_pool2d(x, 3, 2, 1, dilation=2, ceil_mode=True),
        (1, 4, 20, 21),
    ),
    "max_pool1d": (lambda f, x: f.max_pool1d(x, 4, 3), (3, 5, 50)),
    "avg_pool2d_pad": (lambda f, x: f.avg_pool2d(x, 3, 2, 1), (2, 8, 33, 29)),
    "avg_pool2d_nopadcount_ceil": (
        lambda f, x: f.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        (2, 3, 16, 17),
    ),
    "avg_pool2d_divisor": (lambda f, x: f.avg_pool2d(x, 2, divisor_override=3), (1, 3, 10, 12)),
    "avg_pool1d": (lambda f, x: f.avg_pool1d(x, 5, 2, 2), (2, 3, 40)),
    "adaptive_avg_pool2d": (lambda f, x: f.adaptive_avg_pool2d(x, (5, 7)), (2, 6, 23, 30)),
    "adaptive_avg_pool2d_global": (lambda f, x: f.adaptive_avg_pool2d(x, 1), (4, 16, 14, 14)),
    "adaptive_max_pool2d": (lambda f, x: f.adaptive_max_pool2d(x, (4, 6)), (2, 6, 17, 19)),
}


def _run_pool(f, fn, xa, ga, dt, to_tensor):
    x = to_tensor(xa).to(dt).requires_grad_()
    y = fn(f, x)
    (y.float() * to_tensor(ga)).sum().backward()
    return y, x.grad


def _grad_shape(fn, shape):
    import tensorcore.nn.functional as tf

    return tuple(fn(tf, tc.zeros(*shape)).shape)


@pytest.mark.parametrize("name", sorted(POOL_CASES))
def test_bf16_pooling_matches_torch(name, torch_ref):
    fn, shape = POOL_CASES[name]
    xa = bf16_round(arr(*shape, scale=3.0))
    ga = bf16_round(arr(*_grad_shape(fn, shape)))
    y, gx = _run_pool(F, fn, xa, ga, tc.bfloat16, tc.tensor)
    ry, rgx = _run_pool(torch_ref.nn.functional, fn, xa, ga, torch_ref.bfloat16, torch_ref.tensor)
    ey, egx = _run_pool(torch_ref.nn.functional, fn, xa, ga, torch_ref.float32, torch_ref.tensor)
    assert y.dtype == tc.bfloat16 and gx.dtype == tc.bfloat16
    ey, egx = as_np(ey.bfloat16()), as_np(egx.bfloat16())
    if "max" in name:
        np.testing.assert_array_equal(as_np(y), as_np(ry))
        # Ties (equal bfloat16 values in a window): we pick the first, as torch's float32
        # kernel; torch 1.13's bfloat16 adaptive_max_pool2d sometimes picks another, so the
        # gradient is compared with the float32 run.
        # Overlapping windows: contributions summed in float32 (in another order than torch's
        # float32 kernel), rounded once.
        assert_close_half(as_np(gx), egx, "bfloat16", min_equal=0.99, ulps=1)
        if name != "adaptive_max_pool2d":
            assert_matches_torch(as_np(gx), as_np(rgx), egx, max_ulps=1)
        return
    # Averages: float32 sums times the reciprocal of the divisor (torch divides), rounded once;
    # torch's bf16 kernels round some partial sums.
    assert_close_half(as_np(y), ey, "bfloat16", min_equal=0.98, ulps=1)
    assert_matches_torch(as_np(y), as_np(ry), ey, max_ulps=1)
    assert_close_half(as_np(gx), egx, "bfloat16", min_equal=0.98, ulps=1)
    assert_matches_torch(as_np(gx), as_np(rgx), egx, max_ulps=1)


# torch 1.13 has no bfloat16 CPU kernels for these: checked against float32 only.
POOL3D_CASES = {
    "max_pool3d": (lambda f, x: f.max_pool3d(x, 3, 2, 1), (2, 3, 9, 10, 11)),
    "avg_pool3d": (
        lambda f, x: f.avg_pool3d(x, 2, 2, 1, count_include_pad=False),
        (2, 3, 9, 10, 11),
    ),
    "adaptive_avg_pool3d": (lambda f, x: f.adaptive_avg_pool3d(x, (2, 3, 4)), (2, 3, 9, 10, 11)),
    "adaptive_max_pool3d": (lambda f, x: f.adaptive_max_pool3d(x, (2, 3, 4)), (2, 3, 9, 10, 11)),
    "adaptive_max_pool1d": (lambda f, x: f.adaptive_max_pool1d(x, 7), (2, 3, 40)),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(POOL_CASES) + sorted(POOL3D_CASES))
def test_half_pooling_matches_float32(name, dtype):
    dt = getattr(tc, dtype)
    fn, shape = {**POOL_CASES, **POOL3D_CASES}[name]
    xa = tc.tensor(arr(*shape, scale=3.0)).to(dt).float().numpy()
    ga = tc.tensor(arr(*_grad_shape(fn, shape))).to(dt).float().numpy()
    y, gx = _run_pool(F, fn, xa, ga, dt, tc.tensor)
    ry, rgx = _run_pool(F, fn, xa, ga, tc.float32, tc.tensor)
    # Sums in float32 in the same order, one rounding: bit-equal.
    np.testing.assert_array_equal(as_np(y), as_np(ry.to(dt)))
    np.testing.assert_array_equal(as_np(gx), as_np(rgx.to(dt)))


def test_max_pool_indices_and_nan_propagate():
    x = tc.tensor(np.array([[[1.0, np.nan, 3.0, 2.0, -1.0, 5.0]]], np.float32)).to(tc.bfloat16)
    y, idx = F.max_pool1d(x, 2, return_indices=True)
    got = as_np(y)[0, 0]
    assert np.isnan(got[0]) and got[1] == 3.0 and got[2] == 5.0
    assert idx.numpy().tolist() == [[[1, 2, 5]]]


def test_batch_norm_module_keeps_float32_stats_and_grads():
    bn = nn.BatchNorm2d(5)
    x = tc.tensor(arr(3, 5, 7, 7, shift=2.0)).to(tc.bfloat16).requires_grad_()
    y = bn(x)
    assert y.dtype == tc.bfloat16
    assert bn.running_mean.dtype == tc.float32 and bn.running_var.dtype == tc.float32
    xm = x.detach().float().mean((0, 2, 3)).numpy()
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * xm, rtol=1e-5, atol=1e-6)
    y.float().sum().backward()
    assert bn.weight.grad.dtype == tc.float32 and x.grad.dtype == tc.bfloat16
    bn.eval()
    assert bn(x).dtype == tc.bfloat16


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_double_backward_through_half_norm(dtype):
    dt = getattr(tc, dtype)
    x = tc.tensor(arr(2, 3, 6)).to(dt).requires_grad_()
    w = tc.tensor(arr(3, shift=1.0)).requires_grad_()
    y = F.batch_norm(x, None, None, w, None, training=True)
    (gx,) = tc.autograd.grad((y.float() ** 2).sum(), [x], create_graph=True)
    assert gx.dtype == dt
    gx.float().sum().backward()
    x32 = tc.tensor(x.detach().float().numpy()).requires_grad_()
    w32 = tc.tensor(w.detach().numpy()).requires_grad_()
    y32 = F.batch_norm(x32, None, None, w32, None, training=True)
    (g32,) = tc.autograd.grad((y32**2).sum(), [x32], create_graph=True)
    g32.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), w32.grad.numpy(), rtol=5e-2, atol=5e-2)


def test_mismatched_parameter_dtype_is_rejected():
    x = tc.zeros(2, 3, 4, dtype=tc.bfloat16)
    with pytest.raises(
        TypeError, match="batch_norm: parameter dtype float16 does not match input dtype bfloat16"
    ):
        F.batch_norm(x, None, None, tc.ones(3, dtype=tc.float16), None, training=True)
    with pytest.raises(TypeError, match="layer_norm: weight dtype float64"):
        F.layer_norm(x, (4,), tc.ones(4, dtype=tc.float64))
    with pytest.raises(
        TypeError,
        match="max_pool2d: expected a float32, float64, float16 or bfloat16 input, got int64",
    ):
        F.max_pool2d(tc.zeros(1, 2, 4, 4, dtype=tc.int64), 2)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize(
    "args", [(3, 2, 1, 1, False), (3, 2, 1, 2, True), (2, 1, 0, 1, False), (5, 3, 2, 1, True)]
)
def test_max_pool_ties_and_nans_pick_torch_indices(dtype, args, torch_ref):
    # Integer data: many equal values per window; the first maximum wins (and the last NaN), as
    # torch's float32 kernel. Exercises the row-at-a-time interior path and the border path.
    k, s, p, d, ceil = args
    xa = RNG.integers(-3, 4, size=(2, 3, 23, 26)).astype(np.float32)
    xa[0, 0, 5, 7] = xa[1, 2, 10, 3] = xa[1, 2, 10, 4] = np.nan
    y, idx = F.max_pool2d(
        tc.tensor(xa).to(getattr(tc, dtype)), k, s, p, d, ceil, return_indices=True
    )
    ry, ridx = torch_ref.nn.functional.max_pool2d(
        torch_ref.tensor(xa), k, s, p, d, ceil, return_indices=True
    )
    np.testing.assert_array_equal(idx.numpy(), ridx.numpy())
    np.testing.assert_array_equal(as_np(y), ry.numpy())


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_norms_on_strided_and_empty_inputs(dtype):
    dt = getattr(tc, dtype)
    xa = arr(3, 10, 4, 5)
    x = tc.tensor(xa).to(dt).transpose(2, 3)  # not contiguous
    ref = F.group_norm(tc.tensor(xa).to(dt).float().transpose(2, 3), 5)
    np.testing.assert_array_equal(as_np(F.group_norm(x, 5)), as_np(ref.to(dt)))
    y = F.layer_norm(tc.zeros(0, 7, dtype=dt), (7,))
    assert y.dtype == dt and tuple(y.shape) == (0, 7)
    y = F.max_pool2d(tc.zeros(0, 2, 4, 4, dtype=dt), 2)
    assert y.dtype == dt and tuple(y.shape) == (0, 2, 2, 2)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_batch_norm_eval_input_gradient_without_parameter_grads(dtype):
    # The backward skips the channel sums here: gx = w * rstd * gy.
    dt = getattr(tc, dtype)
    xa, ga = arr(4, 3, 5, 6), arr(4, 3, 5, 6)
    rm, rv, w = arr(3), np.abs(arr(3)) + 0.5, arr(3)
    x = tc.tensor(xa).to(dt).requires_grad_()
    pdt = tc.float64 if dtype == "float64" else tc.float32
    y = F.batch_norm(
        x, tc.tensor(rm).to(pdt), tc.tensor(rv).to(pdt), tc.tensor(w).to(pdt), None, training=False
    )
    (gx,) = tc.autograd.grad(y, [x], tc.tensor(ga).to(dt))
    gq = tc.tensor(ga).to(dt).float().numpy()
    expect = gq * (w / np.sqrt(rv + 1e-5))[None, :, None, None]
    tol = 1e-6 if dtype != "bfloat16" else EPS["bfloat16"]
    np.testing.assert_allclose(as_np(gx), expect, rtol=tol, atol=tol)


def _avg_pool2d_reference(x, g, k, s, p, ceil, count_include_pad):
    """Per-output float32 loops in output order: the forward sums each window in row-major
    order, the backward adds each output's scaled gradient over its window."""
    f32 = np.float32
    H, W = x.shape[-2:]
    out = tuple(F.avg_pool2d(tc.zeros(1, 1, H, W), k, s, p, ceil, count_include_pad).shape[-2:])
    y = np.zeros(x.shape[:-2] + out, np.float32)
    gx = np.zeros(x.shape, np.float32)
    for pl in np.ndindex(*x.shape[:-2]):
        for oh in range(out[0]):
            h0, h1 = oh * s - p, min(oh * s - p + k, H + p)
            for ow in range(out[1]):
                w0, w1 = ow * s - p, min(ow * s - p + k, W + p)
                hs, he, ws, we = max(h0, 0), min(h1, H), max(w0, 0), min(w1, W)
                div = (h1 - h0) * (w1 - w0) if count_include_pad else (he - hs) * (we - ws)
                scale = f32(1.0 / div)
                acc = f32(0)
                for ih in range(hs, he):
                    for iw in range(ws, we):
                        acc = f32(acc + x[pl + (ih, iw)])
                y[pl + (oh, ow)] = f32(acc * scale)
                v = f32(g[pl + (oh, ow)] * scale)
                for ih in range(hs, he):
                    for iw in range(ws, we):
                        gx[pl + (ih, iw)] = f32(gx[pl + (ih, iw)] + v)
    return y, gx


@pytest.mark.parametrize(
    "args",
    [(3, 2, 1, False, True), (3, 1, 1, True, False), (4, 3, 2, True, True), (2, 2, 0, False, True)],
)
def test_avg_pool2d_bit_equal_to_per_output_loops(args):
    # The row-at-a-time interior path must add in the per-output order (forward and backward).
    k, s, p, ceil, cip = args
    xa = arr(2, 9, 13, scale=3.0)
    x = tc.tensor(xa).requires_grad_()
    y = F.avg_pool2d(x, k, s, p, ceil, cip)
    ga = arr(*tuple(y.shape))
    y.backward(tc.tensor(ga))
    ry, rgx = _avg_pool2d_reference(xa, ga, k, s, p, ceil, cip)
    np.testing.assert_array_equal(y.detach().numpy(), ry)
    np.testing.assert_array_equal(x.grad.numpy(), rgx)
