"""gradcheck (float64/complex128) through every tensorcore.fft function, stft and istft, and
gradients of real->complex ops against torch's (conjugate-Wirtinger convention)."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(1)


def real_input(*shape):
    return tc.from_numpy(RNG.standard_normal(shape)).requires_grad_()


def complex_input(*shape):
    return tc.from_numpy(
        RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
    ).requires_grad_()


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]


@pytest.mark.parametrize("norm", [None, "forward", "ortho"])
@pytest.mark.parametrize("fn", ONE_D)
def test_gradcheck_1d(fn, norm):
    f = getattr(tc.fft, fn)
    if fn in ("rfft", "ihfft"):
        inputs = [real_input(2, 7), real_input(6)]
    else:
        inputs = [complex_input(2, 6), complex_input(5)]
        if fn in ("fft", "ifft"):
            inputs.append(real_input(2, 5))
    for x in inputs:
        for n in (None, 4, 9):
            assert gradcheck(lambda t: f(t, n=n, norm=norm), (x,))


@pytest.mark.parametrize(
    "fn", ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn", "irfft2", "irfftn"]
)
def test_gradcheck_nd(fn):
    f = getattr(tc.fft, fn)
    x = real_input(3, 4, 5) if fn.startswith("rfft") else complex_input(3, 4, 5)
    assert gradcheck(lambda t: f(t), (x,))
    assert gradcheck(lambda t: f(t, s=(3, 6), norm="ortho"), (x,))
    assert gradcheck(lambda t: f(t, dim=(0, 2)), (x,))
    if not fn.startswith("rfft") and not fn.startswith("irfft"):
        assert gradcheck(lambda t: f(t), (real_input(3, 4),))


def test_gradcheck_shift_and_noncontiguous():
    x = complex_input(4, 6)
    assert gradcheck(lambda t: tc.fft.fftshift(t), (x,))
    assert gradcheck(lambda t: tc.fft.ifftshift(t, dim=1), (x,))
    assert gradcheck(lambda t: tc.fft.fft(t.transpose(0, 1), dim=0), (x,))


def test_gradgradcheck():
    assert gradgradcheck(lambda t: tc.fft.rfft(t), (real_input(6),))
    assert gradgradcheck(lambda t: tc.fft.irfft(t, 7), (complex_input(4),))
    assert gradgradcheck(lambda t: tc.fft.fft(t), (complex_input(5),))


def test_stft_istft_gradcheck():
    w = tc.hann_window(16, dtype=tc.float64)
    assert gradcheck(lambda t: tc.stft(t, 16, 4, window=w, return_complex=True), (real_input(40),))
    assert gradcheck(
        lambda t: tc.stft(
            t,
            16,
            5,
            win_length=12,
            window=tc.hann_window(12, dtype=tc.float64),
            center=False,
            normalized=True,
            return_complex=True,
        ),
        (real_input(2, 37),),
    )
    assert gradcheck(lambda t: tc.istft(t, 16, 4, window=w), (complex_input(9, 7),))
    assert gradcheck(lambda t: tc.istft(t, 16, 4, window=w, length=30), (complex_input(2, 9, 7),))
    wr = real_input(16)
    assert gradcheck(
        lambda win: tc.stft(tc.from_numpy(np.arange(40.0)), 16, 4, window=win, return_complex=True),
        (wr,),
    )


@pytest.mark.parametrize("fn", ["rfft", "ihfft", "fft", "irfft", "hfft"])
def test_grad_matches_torch(fn, torch_ref):
    torch = torch_ref
    x = RNG.standard_normal((3, 10))
    if fn in ("irfft", "hfft"):
        x = x + 1j * RNG.standard_normal((3, 10))
    g_shape_fn = getattr(np.fft, fn)
    out_np = g_shape_fn(x)
    go = RNG.standard_normal(out_np.shape) + (
        1j * RNG.standard_normal(out_np.shape) if np.iscomplexobj(out_np) else 0
    )
    t = tc.from_numpy(x).requires_grad_()
    getattr(tc.fft, fn)(t).backward(tc.from_numpy(go))
    tt = torch.from_numpy(x).requires_grad_()
    getattr(torch.fft, fn)(tt).backward(torch.from_numpy(go))
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.resolve_conj().numpy(), atol=1e-10)
