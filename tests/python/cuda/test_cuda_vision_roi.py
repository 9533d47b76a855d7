"""The RoI ops added on CUDA (roi_pool, ps_roi_align, ps_roi_pool) and deform_conv2d, forward and
backward, against the CPU kernels on the same inputs. Skipped without a GPU (see conftest.py)."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision import ops

from shared_inputs import deform_conv_inputs


@pytest.fixture(autouse=True)
def _restore_deterministic():
    yield
    tc.use_deterministic_algorithms(False)


def roi_inputs(dtype, seed=0, n=2, c=8, h=20, w=24, k=25):
    rng = np.random.default_rng(seed)
    x = tc.from_numpy(rng.standard_normal((n, c, h, w)).astype(dtype))
    xy = rng.uniform(-4, 30, (k, 2))
    wh = rng.uniform(-1, 20, (k, 2))  # some inverted / tiny / partly outside boxes too
    b = rng.integers(0, n, (k, 1)).astype(np.float64)
    rois = tc.from_numpy(np.concatenate([b, xy, xy + wh], axis=1).astype(dtype))
    return x, rois


def forward_backward(fn, x, rois, device):
    xd = (x.cuda() if device == "cuda" else x.clone()).requires_grad_()
    y = fn(xd, rois.cuda() if device == "cuda" else rois)
    np_dtype = np.float32 if y.dtype == tc.float32 else np.float64
    grad = tc.from_numpy(np.random.default_rng(1).standard_normal(tuple(y.shape)).astype(np_dtype))
    (y * (grad.cuda() if device == "cuda" else grad)).sum().backward()
    return y.detach().cpu().numpy(), xd.grad.cpu().numpy(), y.is_cuda, xd.grad.is_cuda


OPS = [
    ("roi_pool", lambda x, r: ops.roi_pool(x, r, (2, 2), spatial_scale=0.7)),
    ("roi_pool_3x4", lambda x, r: ops.roi_pool(x, r, (3, 4), spatial_scale=1.3)),
    ("ps_roi_pool", lambda x, r: ops.ps_roi_pool(x, r, (2, 2), spatial_scale=0.7)),
    ("ps_roi_align", lambda x, r: ops.ps_roi_align(x, r, (2, 2), spatial_scale=0.7)),
    (
        "ps_roi_align_sr2",
        lambda x, r: ops.ps_roi_align(x, r, (2, 4), spatial_scale=1.1, sampling_ratio=2),
    ),
]


@pytest.mark.parametrize("dtype,atol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("name,fn", OPS, ids=[o[0] for o in OPS])
def test_roi_ops_match_cpu(dtype, atol, name, fn):
    x, rois = roi_inputs(dtype)
    yc, gc, _, _ = forward_backward(fn, x, rois, "cpu")
    yg, gg, y_cuda, g_cuda = forward_backward(fn, x, rois, "cuda")
    assert y_cuda and g_cuda
    np.testing.assert_allclose(yg, yc, atol=atol, rtol=atol)
    np.testing.assert_allclose(gg, gc, atol=10 * atol, rtol=10 * atol)
    assert np.abs(gc).sum() > 0


def test_roi_pool_argmax_ties_and_empty_bins_match_cpu():
    # Constant planes: every bin ties, the first maximum wins on both devices.
    x = tc.ones(1, 2, 6, 6)
    rois = tc.tensor([[0.0, 0.0, 0.0, 5.0, 5.0], [0.0, 40.0, 40.0, 50.0, 50.0]])
    _, gc, _, _ = forward_backward(lambda a, r: ops.roi_pool(a, r, 3), x, rois, "cpu")
    _, gg, _, _ = forward_backward(lambda a, r: ops.roi_pool(a, r, 3), x, rois, "cuda")
    np.testing.assert_array_equal(gg, gc)


def test_roi_ops_errors_on_cuda():
    x, rois = roi_inputs(np.float32, k=3)
    bad = rois.clone()
    bad[1, 0] = 5.0
    for fn in (ops.roi_pool, ops.ps_roi_pool, ops.ps_roi_align):
        with pytest.raises(IndexError, match="batch index"):
            fn(x.cuda(), bad.cuda(), 2)
        with pytest.raises(RuntimeError, match="same device"):
            fn(x.cuda(), rois, 2)
    with pytest.raises(TypeError, match="float32 or float64"):
        ops.roi_pool(x.cuda().half(), rois.cuda().half(), 2)


def test_roi_backward_is_flagged_nondeterministic():
    x, rois = roi_inputs(np.float32, k=3)
    for fn in (ops.roi_pool, ops.ps_roi_pool, ops.ps_roi_align):
        xg = x.cuda().requires_grad_()
        y = fn(xg, rois.cuda(), 2)
        tc.use_deterministic_algorithms(True)
        with pytest.raises(RuntimeError, match="backward"):
            y.sum().backward()
        tc.use_deterministic_algorithms(False)


# ---- deform_conv2d ----


def deform_inputs(rng, dtype=np.float64, **cfg):
    arrays, kw = deform_conv_inputs(rng, **cfg)
    return [tc.from_numpy(a.astype(dtype)) for a in arrays], kw


@pytest.mark.parametrize("use_mask", [False, True])
@pytest.mark.parametrize("dtype,atol", [(np.float32, 2e-4), (np.float64, 1e-10)])
@pytest.mark.parametrize(
    "cfg", [{}, {"groups": 1, "og": 1, "stride": (1, 1), "padding": (0, 0), "dilation": (2, 1)}]
)
def test_deform_conv2d_matches_cpu(use_mask, dtype, atol, cfg):
    tensors, kw = deform_inputs(np.random.default_rng(0), dtype=dtype, **cfg)
    results = []
    for device in ("cpu", "cuda"):
        args = [(t.cuda() if device == "cuda" else t.clone()).requires_grad_() for t in tensors]
        out = ops.deform_conv2d(*args[:4], mask=args[4] if use_mask else None, **kw)
        g = tc.from_numpy(np.random.default_rng(3).standard_normal(tuple(out.shape)).astype(dtype))
        out.backward(g.cuda() if device == "cuda" else g)
        assert out.is_cuda == (device == "cuda")
        grads = [a.grad.cpu().numpy() for a in (args if use_mask else args[:4])]
        results.append((out.detach().cpu().numpy(), grads))
    (oc, gc), (og, gg) = results
    np.testing.assert_allclose(og, oc, atol=atol, rtol=atol)
    for a, b in zip(gg, gc):
        np.testing.assert_allclose(a, b, atol=10 * atol, rtol=10 * atol)


def test_deform_conv2d_device_mismatch_and_determinism():
    tensors, kw = deform_inputs(np.random.default_rng(1), n=1)
    x, off, w, b, _ = [t.cuda() for t in tensors]
    with pytest.raises(RuntimeError, match="device"):
        ops.deform_conv2d(x, off.cpu(), w, b, **kw)
    xg = x.requires_grad_()
    y = ops.deform_conv2d(xg, off, w, b, **kw)
    tc.use_deterministic_algorithms(True)
    with pytest.raises(RuntimeError, match="deform_conv2d_backward"):
        y.sum().backward()
