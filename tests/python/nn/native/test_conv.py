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
