import warnings

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(1234)


def randn(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def leaf(a):
    return tc.tensor(a).requires_grad_(True)


def check_against_torch(F, torch, fn, x, w, b, kw):
    """fn(x, w, b, **kw) of ours and of torch.nn.functional: the output, and the input, weight
    and bias gradients of the same random output gradient."""
    tx, tw, tb = leaf(x), leaf(w), leaf(b)
    y = getattr(F, fn)(tx, tw, tb, **kw)
    g = randn(*y.shape, dtype=x.dtype)
    (y * tc.tensor(g)).sum().backward()
    rx, rw, rb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's padding="same" warnings
        ry = getattr(torch.nn.functional, fn)(rx, rw, rb, **kw)
    (ry * torch.tensor(g)).sum().backward()
    tol = 1e-4 if x.dtype == np.float32 else 1e-10
    assert tuple(y.shape) == tuple(ry.shape)
    for ours, ref in [(y, ry), (tx.grad, rx.grad), (tw.grad, rw.grad), (tb.grad, rb.grad)]:
        np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)


CONV_CASES = [
    (1, (2, 4, 11), (6, 2, 3), dict(stride=2, padding=1, groups=2)),
    (1, (2, 4, 9), (6, 4, 4), dict(padding="same", dilation=2)),
    (1, (2, 5, 13), (5, 1, 3), dict(stride=2, padding=3, dilation=2, groups=5)),  # depthwise
    (2, (2, 4, 9, 8), (6, 2, 3, 3), dict(stride=2, padding=1, groups=2)),
    (2, (2, 4, 9, 8), (6, 4, 3, 2), dict(stride=(1, 2), padding=(2, 0), dilation=(2, 1))),
    (2, (2, 4, 9, 8), (6, 4, 4, 3), dict(padding="same")),
    (2, (2, 4, 9, 8), (5, 4, 3, 3), dict(padding="valid")),
    (2, (3, 8, 7, 7), (8, 8, 1, 1), dict()),
    (2, (4, 7, 7), (5, 4, 3, 3), dict(padding=1)),  # unbatched
    (3, (1, 2, 5, 6, 4), (3, 2, 3, 3, 2), dict(padding=1, stride=(1, 2, 1))),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nd,xs,ws,kw", CONV_CASES)
def test_conv_matches_torch(F, torch_ref, dtype, nd, xs, ws, kw):
    x, w, b = randn(*xs, dtype=dtype), randn(*ws, dtype=dtype), randn(ws[0], dtype=dtype)
    check_against_torch(F, torch_ref, f"conv{nd}d", x, w, b, kw)


TRANSPOSE_CASES = [
    (1, (2, 4, 7), (4, 5, 4), dict(stride=3, padding=2, output_padding=2)),
    (1, (2, 4, 7), (4, 1, 3), dict(stride=2, padding=1, output_padding=1, groups=4, dilation=2)),
    (2, (2, 4, 5, 6), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    (2, (2, 4, 5, 6), (4, 3, 3, 2), dict(stride=(2, 3), padding=(0, 1), groups=2, dilation=(1, 2))),
    (2, (4, 5, 6), (4, 3, 3, 3), dict(stride=1, padding=1)),  # unbatched
    (3, (1, 2, 3, 4, 3), (2, 3, 2, 3, 2), dict(stride=2)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nd,xs,ws,kw", TRANSPOSE_CASES)
def test_conv_transpose_matches_torch(F, torch_ref, dtype, nd, xs, ws, kw):
    groups = kw.get("groups", 1)
    x, w, b = randn(*xs, dtype=dtype), randn(*ws, dtype=dtype), randn(ws[1] * groups, dtype=dtype)
    check_against_torch(F, torch_ref, f"conv_transpose{nd}d", x, w, b, kw)


def naive_conv2d(x, w, stride, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
            y[:, :, i, j] = np.einsum("nckl,ockl->no", patch, w)
    return y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_matches_naive_numpy(F, dtype):
    x, w = randn(2, 3, 10, 9, dtype=dtype), randn(4, 3, 3, 3, dtype=dtype)
    y = F.conv2d(tc.tensor(x), tc.tensor(w), stride=2, padding=1).numpy()
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(
        y, naive_conv2d(x.astype(np.float64), w.astype(np.float64), 2, 1), rtol=tol, atol=tol
    )


def naive_depthwise_conv1d(x, w, b, stride, pad, dilation, gy=None):
    """y, or with gy the gradients (gx, gw, gb), of a depthwise conv1d in float64 loops."""
    n, c, length = x.shape
    taps = w.shape[2]
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    out = (length + 2 * pad - dilation * (taps - 1) - 1) // stride + 1
    idx = np.arange(out)[:, None] * stride + np.arange(taps)[None, :] * dilation  # (out, taps)
    cols = xp[:, :, idx]  # (n, c, out, taps)
    if gy is None:
        return np.einsum("ncok,ck->nco", cols, w[:, 0]) + b[None, :, None]
    gxp = np.zeros_like(xp)
    for k in range(taps):
        np.add.at(gxp, (slice(None), slice(None), idx[:, k]), gy * w[None, :, 0, k, None])
    gw = np.einsum("nco,ncok->ck", gy, cols)[:, None, :]
    return gxp[:, :, pad : pad + length], gw, gy.sum(axis=(0, 2))


# Depthwise 1-d convolutions (one filter per channel) run on their own direct kernels for
# float32 and bfloat16 (conv_depthwise.cpp): geometries where a tap lies wholly in the padding,
# strides that skip inputs, kernels wider than the input.
DEPTHWISE_CASES = [
    ((2, 3, 17), 3, 1, 1, 1),
    ((1, 4, 9), 5, 2, 3, 2),
    ((3, 2, 5), 3, 1, 0, 2),
    ((2, 5, 40), 4, 3, 7, 5),
    ((1, 2, 3), 7, 1, 5, 1),
    ((2, 8, 300), 3, 1, 32, 32),
]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("xs,taps,stride,pad,dilation", DEPTHWISE_CASES)
def test_depthwise_conv1d_matches_naive(F, dtype, xs, taps, stride, pad, dilation):
    c = xs[1]
    # Inputs exactly representable in bfloat16, so both dtypes see the same values.
    q = lambda a: tc.tensor(a.astype(np.float32)).bfloat16().double().numpy()
    x, w, b = q(randn(*xs)), q(randn(c, 1, taps)), q(randn(c))
    y_ref = naive_depthwise_conv1d(x, w, b, stride, pad, dilation)
    gy = q(randn(*y_ref.shape))
    gx_ref, gw_ref, gb_ref = naive_depthwise_conv1d(x, w, b, stride, pad, dilation, gy)
    dt = getattr(tc, dtype)
    tx, tw, tb = (tc.tensor(a.astype(np.float32)).to(dt).requires_grad_(True) for a in (x, w, b))
    y = F.conv1d(tx, tw, tb, stride=stride, padding=pad, dilation=dilation, groups=c)
    assert y.dtype == dt and tuple(y.shape) == y_ref.shape
    y.backward(tc.tensor(gy.astype(np.float32)).to(dt))
    # float32 sums; bfloat16 then rounds the result to 8 significant bits
    tol = 1e-5 if dtype == "float32" else 1e-2
    for ours, ref in [(y, y_ref), (tx.grad, gx_ref), (tw.grad, gw_ref), (tb.grad, gb_ref)]:
        assert ours.dtype == dt
        scale = max(1.0, np.abs(ref).max())
        np.testing.assert_allclose(ours.detach().float().numpy(), ref, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize(
    "xs,out_channels,bias",
    [
        ((3, 16, 50), 24, True),
        ((2, 8, 5, 7), 4, True),
        ((1, 5, 9), 3, False),
        ((4, 3, 1, 1, 2), 6, True),
        # many channels over few positions: the weight gradient is one product over the batch
        ((3, 40, 10), 48, True),
        ((2, 32, 3, 3), 32, False),
    ],
)
def test_pointwise_conv_bfloat16_matches_float32(F, xs, out_channels, bias):
    # bfloat16 1x1 convolutions run as bfloat16 matrix products (conv_pointwise_bf16.cpp): the
    # output and all three gradients against float32 on the same bfloat16-representable values
    nd = len(xs) - 2
    conv = getattr(F, f"conv{nd}d")
    q = lambda a: tc.tensor(a.astype(np.float32)).bfloat16()
    x, w = q(randn(*xs)), q(randn(out_channels, xs[1], *([1] * nd)))
    b = q(randn(out_channels)) if bias else None
    y32 = conv(x.float(), w.float(), b.float() if bias else None)
    gy = q(randn(*y32.shape))
    leaves = {}
    for dtype in ("float32", "bfloat16"):
        ts = [t.to(getattr(tc, dtype)).requires_grad_(True) for t in (x, w, b) if t is not None]
        y = conv(*ts)
        y.backward(gy.to(getattr(tc, dtype)))
        leaves[dtype] = [y] + [t.grad for t in ts]
    for ours, ref in zip(leaves["bfloat16"], leaves["float32"]):
        assert ours.dtype == tc.bfloat16
        ref = ref.detach().numpy()
        scale = max(1.0, np.abs(ref).max())
        np.testing.assert_allclose(ours.detach().float().numpy(), ref, rtol=1e-2, atol=1e-2 * scale)


def test_conv_gradcheck_and_gradgradcheck(F):
    x, w, b = leaf(randn(1, 4, 5, 4)), leaf(randn(4, 2, 3, 2)), leaf(randn(4))
    fn = lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2, dilation=(1, 2))
    assert tc.autograd.gradcheck(fn, (x, w, b))
    assert tc.autograd.gradgradcheck(fn, (x, w, b))
    xt, wt = leaf(randn(1, 4, 3, 3)), leaf(randn(4, 2, 3, 3))
    fnt = lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    assert tc.autograd.gradcheck(fnt, (xt, wt))
    assert tc.autograd.gradgradcheck(fnt, (xt, wt))
    x1, w1 = leaf(randn(2, 3, 6)), leaf(randn(2, 3, 3))
    assert tc.autograd.gradcheck(lambda x, w: F.conv1d(x, w, padding="same"), (x1, w1))


def test_weight_cache_sees_in_place_updates(F):
    # Cached oneDNN weight layouts must be invalidated when the weight changes in place.
    x = tc.tensor(randn(2, 8, 9, 9, dtype=np.float32))
    w = tc.tensor(randn(16, 8, 3, 3, dtype=np.float32))
    y1 = F.conv2d(x, w, padding=1).numpy()
    w.mul_(2.0)
    y2 = F.conv2d(x, w, padding=1).numpy()
    np.testing.assert_allclose(y2, 2 * y1, rtol=1e-5, atol=1e-4)


def test_conv_errors_name_op_and_shapes(F):
    x = tc.zeros(2, 3, 8, 8)
    with pytest.raises(
        ValueError, match=r"conv2d: expected input \[2, 3, 8, 8\] to have 4 channels"
    ):
        F.conv2d(x, tc.zeros(5, 4, 3, 3))
    with pytest.raises(ValueError, match=r"conv2d: expected a 4-d weight, got shape \[5, 3, 3\]"):
        F.conv2d(x, tc.zeros(5, 3, 3))
    with pytest.raises(ValueError, match=r"conv1d: expected a 2-d \(unbatched\) or 3-d"):
        F.conv1d(x, tc.zeros(5, 3, 3))
    with pytest.raises(ValueError, match="smaller than the dilated kernel"):
        F.conv2d(x, tc.zeros(5, 3, 9, 9))
    with pytest.raises(ValueError, match="expected bias of shape \\[5\\]"):
        F.conv2d(x, tc.zeros(5, 3, 3, 3), tc.zeros(4))
    with pytest.raises(ValueError, match="'same' is not supported for strided"):
        F.conv2d(x, tc.zeros(5, 3, 3, 3), stride=2, padding="same")
    with pytest.raises(TypeError, match="conv2d: expected a float32 or float64 input"):
        F.conv2d(tc.zeros(2, 3, 8, 8, dtype=tc.int64), tc.zeros(5, 3, 3, 3, dtype=tc.int64))
    with pytest.raises(ValueError, match="stride must be one int or 2 ints"):
        F.conv2d(x, tc.zeros(5, 3, 3, 3), stride=(1, 1, 1))
