"""torch 1.13's hfft2/hfftn/ihfft2/ihfftn against torch.fft (values, shapes, norms, s/dim, errors,
gradients), and half-precision inputs, which torch 1.13 rejects on the CPU as tensorcore does."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.autograd import gradcheck

RNG = np.random.default_rng(5)


def crandn(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def close(actual, expected, tol=1e-11):
    actual = actual.numpy()
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    np.testing.assert_allclose(actual, expected, rtol=0, atol=tol * scale)


CASES = [  # (input shape, kwargs)
    ((4, 6), {}),
    ((3, 5, 7), {}),
    ((3, 5, 7), {"dim": (0, 2)}),
    ((3, 5, 7), {"s": (4, 9)}),
    ((3, 5, 7), {"s": (2, -1, 10), "dim": (2, 0, 1)}),
    ((6, 8), {"dim": (-1,)}),
    ((2, 3, 4, 5), {"dim": (1, -1), "s": (5, 7)}),
]


@pytest.mark.parametrize("norm", [None, "forward", "ortho"])
@pytest.mark.parametrize("shape,kw", CASES)
def test_hfftn_ihfftn_match_torch(shape, kw, norm, torch_ref):
    torch = torch_ref
    xc = crandn(*shape)
    xr = RNG.standard_normal(shape)
    for name in ("hfftn", "ihfftn"):
        x = xc if name == "hfftn" else xr
        got = getattr(tc.fft, name)(tc.from_numpy(x), norm=norm, **kw)
        want = getattr(torch.fft, name)(torch.from_numpy(x), norm=norm, **kw).resolve_conj().numpy()
        close(got, want)
    # the 2-d variants (default dims -2, -1) where the case transforms exactly two dims
    two_dims = len(kw.get("dim", kw.get("s", (0, 0)))) == 2 and len(kw.get("s", (0, 0))) == 2
    if two_dims and ("dim" in kw or "s" in kw or len(shape) == 2):
        for name in ("hfft2", "ihfft2"):
            x = xc if name == "hfft2" else xr
            got = getattr(tc.fft, name)(tc.from_numpy(x), norm=norm, **kw)
            want = (
                getattr(torch.fft, name)(torch.from_numpy(x), norm=norm, **kw)
                .resolve_conj()
                .numpy()
            )
            close(got, want)
    if not kw and len(shape) == 3:  # hfft2 of a 3-d input transforms its last two dims
        got = tc.fft.hfft2(tc.from_numpy(xc), norm=norm)
        close(got, torch.fft.hfft2(torch.from_numpy(xc), norm=norm).numpy())


def test_hfftn_dtypes_and_real_input(torch_ref):
    torch = torch_ref
    x32 = RNG.standard_normal((5, 8)).astype(np.float32)
    for name in ("hfftn", "hfft2"):
        got = getattr(tc.fft, name)(tc.from_numpy(x32))  # real input is promoted to complex
        want = getattr(torch.fft, name)(torch.from_numpy(x32)).numpy()
        assert got.dtype == tc.float32
        close(got, want, 3e-5)
    for name in ("ihfftn", "ihfft2"):
        got = getattr(tc.fft, name)(tc.from_numpy(x32))
        assert got.dtype == tc.complex64
        close(got, getattr(torch.fft, name)(torch.from_numpy(x32)).resolve_conj().numpy(), 3e-5)
    xi = np.arange(24, dtype=np.int64).reshape(4, 6)
    got = tc.fft.ihfftn(tc.from_numpy(xi))
    assert got.dtype == tc.complex64
    close(got, torch.fft.ihfftn(torch.from_numpy(xi)).resolve_conj().numpy(), 3e-5)


def test_round_trip_and_1d_agree():
    x = RNG.standard_normal((4, 6, 10))
    t = tc.from_numpy(x)
    back = tc.fft.hfftn(tc.fft.ihfftn(t), s=x.shape)
    close(back, x)
    # one transformed dim: same as hfft/ihfft
    c = tc.from_numpy(crandn(3, 9))
    close(tc.fft.hfftn(c, dim=(1,)), tc.fft.hfft(c).numpy())
    close(tc.fft.ihfftn(t, dim=(-1,)), tc.fft.ihfft(t).numpy())


def test_errors():
    c = tc.from_numpy(crandn(3, 4))
    with pytest.raises(TypeError, match="ihfftn expects a real input tensor"):
        tc.fft.ihfftn(c)
    with pytest.raises(ValueError, match="hfft2: Invalid number of data points"):
        tc.fft.hfft2(c, s=(3, 0))
    with pytest.raises(ValueError, match="ihfftn: Invalid normalization mode"):
        tc.fft.ihfftn(tc.real(c), norm="bad")
    with pytest.raises(IndexError):
        tc.fft.hfftn(c, dim=(0, 5))
    with pytest.raises(ValueError, match="hfftn: dims must be unique"):
        tc.fft.hfftn(c, dim=(1, 1))


@pytest.mark.parametrize("fn", ["hfft2", "hfftn", "ihfft2", "ihfftn"])
def test_gradcheck(fn):
    f = getattr(tc.fft, fn)
    real_in = fn.startswith("i")
    x = tc.from_numpy(
        RNG.standard_normal((3, 4, 5)) if real_in else crandn(3, 4, 5)
    ).requires_grad_()
    assert gradcheck(lambda t: f(t), (x,))
    assert gradcheck(lambda t: f(t, s=(3, 6), norm="ortho"), (x,))
    if fn.endswith("n"):
        assert gradcheck(lambda t: f(t, dim=(0, 2), norm="forward"), (x,))


@pytest.mark.parametrize("fn", ["hfftn", "ihfftn"])
def test_grad_matches_torch(fn, torch_ref):
    torch = torch_ref
    x = RNG.standard_normal((3, 4, 6)) if fn == "ihfftn" else crandn(3, 4, 6)
    out = getattr(torch.fft, fn)(torch.from_numpy(x))
    go = RNG.standard_normal(tuple(out.shape))
    if out.is_complex():
        go = go + 1j * RNG.standard_normal(tuple(out.shape))
    t = tc.from_numpy(x).requires_grad_()
    getattr(tc.fft, fn)(t).backward(tc.from_numpy(go))
    tt = torch.from_numpy(x).requires_grad_()
    getattr(torch.fft, fn)(tt).backward(torch.from_numpy(go))
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.resolve_conj().numpy(), atol=1e-10)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", ["fft", "rfft", "ihfft", "hfft", "fftn", "rfft2", "hfftn", "ihfft2"])
def test_half_precision_raises_like_torch(fn, dtype, torch_ref):
    # torch 1.13 raises "Unsupported dtype Half/BFloat16" for every CPU FFT; so does tensorcore,
    # with the function's name and a TypeError.
    torch = torch_ref
    with pytest.raises(RuntimeError):
        getattr(torch.fft, fn)(torch.randn(4, 8).to(getattr(torch, dtype)))
    x = tc.randn(4, 8).to(getattr(tc, dtype))
    with pytest.raises(TypeError, match=f"{fn}: unsupported dtype"):
        getattr(tc.fft, fn)(x)
