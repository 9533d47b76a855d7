"""tc.stft / tc.istft and the window functions against torch (skipped without torch)."""

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(2)
WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
def test_windows_match_torch(name, torch_ref):
    torch = torch_ref
    for length in (0, 1, 2, 5, 16, 400, 1023):
        for periodic in (True, False):
            for tdt, tcd, atol in (
                (torch.float64, tc.float64, 1e-12),
                (torch.float32, tc.float32, 1e-6),
            ):
                got = getattr(tc, name)(length, periodic, dtype=tcd)
                want = getattr(torch, name)(length, periodic, dtype=tdt)
                assert got.dtype == tcd
                np.testing.assert_allclose(got.numpy(), want.numpy(), atol=atol)
    assert getattr(tc, name)(8).dtype == tc.get_default_dtype()


def test_window_extra_args_and_errors(torch_ref):
    torch = torch_ref
    np.testing.assert_allclose(
        tc.hamming_window(10, False, 0.6, 0.4, dtype=tc.float64).numpy(),
        torch.hamming_window(10, False, 0.6, 0.4, dtype=torch.float64).numpy(),
    )
    np.testing.assert_allclose(
        tc.kaiser_window(10, True, 5.0, dtype=tc.float64).numpy(),
        torch.kaiser_window(10, True, 5.0, dtype=torch.float64).numpy(),
        atol=1e-12,
    )
    with pytest.raises(TypeError, match="floating point"):
        tc.hann_window(4, dtype=tc.int64)
    with pytest.raises(ValueError, match="non-negative"):
        tc.hann_window(-1)


CASES = [
    # n_fft, hop, win_length, center, pad_mode, normalized, window
    (400, 160, None, True, "reflect", False, "hann"),
    (256, 64, 200, True, "constant", True, "hamming"),
    (64, None, None, True, "reflect", False, None),
    (128, 32, None, False, "reflect", False, "hamming"),
    (63, 17, 50, True, "replicate", False, "hann"),
    (32, 8, None, True, "circular", True, "hann"),
]


def make_window(kind, length, mod):
    if kind is None:
        return None
    return getattr(mod, kind + "_window")(length, dtype=mod.float64)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("batched", [False, True])
def test_stft_istft_match_torch(case, batched, torch_ref):
    torch = torch_ref
    n_fft, hop, win, center, mode, normalized, wkind = case
    x = RNG.standard_normal((3, 1000) if batched else (1000,))
    wl = win or n_fft

    # Both libraries take the case's arguments in the same positions.
    def stft(mod, signal, **kw):
        window = make_window(wkind, wl, mod)
        return mod.stft(signal, n_fft, hop, win, window, center, mode, normalized, **kw)

    def istft(mod, spec, length):
        window = make_window(wkind, wl, mod)
        return mod.istft(spec, n_fft, hop, win, window, center, normalized, length=length)

    tx, rx = tc.from_numpy(x), torch.from_numpy(x)
    got, want = stft(tc, tx, return_complex=True), stft(torch, rx, return_complex=True)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-9)
    # Real view (return_complex=False) and the two-sided form.
    got_r = stft(tc, tx, return_complex=False)
    np.testing.assert_allclose(got_r.numpy(), torch.view_as_real(want).numpy(), atol=1e-9)
    got2 = stft(tc, tx, onesided=False, return_complex=True)
    want2 = stft(torch, rx, onesided=False, return_complex=True)
    np.testing.assert_allclose(got2.numpy(), want2.numpy(), atol=1e-9)
    if not center or wkind is None:
        return  # the window's zeros at the edges break NOLA without centring
    for length in (None, 900, 1000, 1100):
        try:
            w = istft(torch, want, length)
        except RuntimeError:  # torch rejects it (NOLA fails in the padded tail): so must we
            with pytest.raises(ValueError, match="NOLA"):
                istft(tc, got, length)
            continue
        y = istft(tc, got, length)
        assert tuple(y.shape) == tuple(w.shape)
        np.testing.assert_allclose(y.numpy(), w.numpy(), atol=1e-9)
    np.testing.assert_allclose(istft(tc, got, 1000).numpy(), x, atol=1e-9)


def test_stft_float32_and_complex_input(torch_ref):
    torch = torch_ref
    x = RNG.standard_normal(500).astype(np.float32)
    got = tc.stft(tc.from_numpy(x), 128, 32, window=tc.hann_window(128), return_complex=True)
    want = torch.stft(
        torch.from_numpy(x), 128, 32, window=torch.hann_window(128), return_complex=True
    )
    assert got.dtype == tc.complex64
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=2e-4)
    xc = RNG.standard_normal(300) + 1j * RNG.standard_normal(300)
    got = tc.stft(tc.from_numpy(xc), 64, 16, return_complex=True)
    want = torch.stft(torch.from_numpy(xc), 64, 16, return_complex=True)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-9)
    y = tc.istft(got, 64, 16, onesided=False, return_complex=True)
    np.testing.assert_allclose(
        y.numpy(), torch.istft(want, 64, 16, onesided=False, return_complex=True).numpy(), atol=1e-9
    )


def test_stft_errors():
    x = tc.from_numpy(RNG.standard_normal(100))
    with pytest.raises(ValueError, match="n_fft"):
        tc.stft(x, 200, center=False, return_complex=True)
    with pytest.raises(ValueError, match="win_length"):
        tc.stft(x, 16, win_length=20, return_complex=True)
    with pytest.raises(ValueError, match="window"):
        tc.stft(x, 16, window=tc.hann_window(8, dtype=tc.float64), return_complex=True)
    with pytest.raises(ValueError, match="pad_mode"):
        tc.stft(x, 16, pad_mode="bogus", return_complex=True)
    with pytest.raises(ValueError, match="1D or 2D"):
        tc.stft(tc.from_numpy(RNG.standard_normal((2, 2, 50))), 16, return_complex=True)
    spec = tc.stft(x, 16, 4, return_complex=True)
    with pytest.raises(ValueError, match="n_fft / 2 \\+ 1"):
        tc.istft(spec, 20, 4)
    with pytest.raises(ValueError, match="NOLA"):
        tc.istft(spec, 16, 4, window=tc.zeros(16, dtype=tc.float64))


def test_tensor_methods_and_keywords():
    x = tc.from_numpy(RNG.standard_normal(500))
    w = tc.hann_window(64, dtype=tc.float64)
    a = x.stft(64, 16, window=w, return_complex=True)
    b = tc.stft(input=x, n_fft=64, hop_length=16, window=w, return_complex=True)
    np.testing.assert_allclose(a.numpy(), b.numpy())
    y = a.istft(64, 16, window=w, length=500)
    np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-10)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_fast_and_differentiable_paths_agree(dtype):
    # Without autograd stft windows and transforms frames straight from the signal; with it, it
    # goes through frame_signal * window -> rfft. Both must give the same spectrum.
    x = tc.from_numpy(RNG.standard_normal((2, 700))).to(dtype)
    w = tc.hann_window(100, dtype=dtype)
    for kw in (
        {},
        {"win_length": 100, "center": False},
        {"normalized": True, "pad_mode": "constant"},
    ):
        n_fft = 128 if "win_length" in kw else 100
        win = w if n_fft == 100 or "win_length" in kw else None
        fast = tc.stft(x, n_fft, 25, window=win, return_complex=True, **kw)
        slow = tc.stft(x.clone().requires_grad_(), n_fft, 25, window=win, return_complex=True, **kw)
        atol = 1e-4 if dtype == tc.float32 else 1e-10
        np.testing.assert_allclose(fast.numpy(), slow.detach().numpy(), atol=atol)
