"""Spectrogram-based functions and transforms (need tensorcore's FFT)."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio.functional as F
import tensorcore.audio.transforms as T

pytestmark = pytest.mark.skipif(not hasattr(tc, "stft"), reason="tensorcore built without the FFT")


def _wave(shape=(2, 8000), seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(shape[-1]) / 16000
    return (0.3 * np.sin(2 * np.pi * 440 * t) + 0.05 * rng.standard_normal(shape)).astype(
        np.float32
    )


@pytest.fixture
def TA(ta_ref):
    import torchaudio.functional as TF
    import torchaudio.transforms as TT

    return TF, TT


def _close(a, b, atol=1e-4, rtol=1e-4):
    np.testing.assert_allclose(np.asarray(a.numpy()), b.detach().numpy(), atol=atol, rtol=rtol)


@pytest.mark.parametrize(
    "power,normalized",
    [(2.0, False), (1.0, True), (None, False), (2.0, "frame_length"), (2.0, "window")],
)
def test_spectrogram(torch_ref, TA, power, normalized):
    TF, _ = TA
    x = _wave((2, 3, 4000))
    w, wr = tc.hann_window(400), torch_ref.hann_window(400)
    ours = F.spectrogram(tc.from_numpy(x), 10, w, 400, 160, 400, power, normalized)
    ref = TF.spectrogram(torch_ref.from_numpy(x), 10, wr, 400, 160, 400, power, normalized)
    assert tuple(ours.shape) == tuple(ref.shape)
    if power is None:
        _close(tc.view_as_real(ours), torch_ref.view_as_real(ref), atol=1e-4)
    else:
        _close(ours, ref, atol=1e-3, rtol=1e-4)


def test_inverse_spectrogram_round_trip(torch_ref, TA):
    x = _wave((2, 4000))
    spec = T.Spectrogram(400, hop_length=100, power=None)(tc.from_numpy(x))
    back = T.InverseSpectrogram(400, hop_length=100)(spec, length=4000)
    np.testing.assert_allclose(back.numpy(), x, atol=1e-5)


def test_mel_mfcc_lfcc_centroid(torch_ref, TA):
    _, TT = TA
    x = _wave((2, 8000))
    xt, xr = tc.from_numpy(x), torch_ref.from_numpy(x)
    _close(
        T.MelSpectrogram(16000, 400, hop_length=160, n_mels=80)(xt),
        TT.MelSpectrogram(16000, 400, hop_length=160, n_mels=80)(xr),
        atol=1e-3,
        rtol=1e-3,
    )
    _close(
        T.MFCC(16000, 13, melkwargs={"n_mels": 40})(xt),
        TT.MFCC(16000, 13, melkwargs={"n_mels": 40})(xr),
        atol=2e-3,
        rtol=1e-3,
    )
    _close(
        T.LFCC(16000, n_filter=64, n_lfcc=20)(xt),
        TT.LFCC(16000, n_filter=64, n_lfcc=20)(xr),
        atol=2e-3,
        rtol=1e-3,
    )
    _close(T.SpectralCentroid(16000)(xt), TT.SpectralCentroid(16000)(xr), atol=1e-2, rtol=1e-4)


def test_time_stretch_and_griffinlim(torch_ref, TA):
    _, TT = TA
    x = _wave((1, 4000))
    spec = T.Spectrogram(400, power=None)(tc.from_numpy(x))
    ref_spec = TT.Spectrogram(400, power=None)(torch_ref.from_numpy(x))
    for rate in (0.8, 1.3):
        ours = T.TimeStretch(n_freq=201, fixed_rate=rate)(spec)
        ref = TT.TimeStretch(n_freq=201, fixed_rate=rate)(ref_spec)
        _close(tc.view_as_real(ours), torch_ref.view_as_real(ref), atol=1e-3, rtol=1e-3)
    mag = T.Spectrogram(400)(tc.from_numpy(x))
    wave = T.GriffinLim(400, n_iter=16, rand_init=False, length=4000)(mag)
    ref = TT.GriffinLim(400, n_iter=16, rand_init=False, length=4000)(
        TT.Spectrogram(400)(torch_ref.from_numpy(x))
    )
    _close(wave, ref, atol=1e-3, rtol=1e-3)
