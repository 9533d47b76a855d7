"""MFCC / LFCC's one-pass C++ path (audio/features.h) against torchaudio and against the
op-by-op path it replaces, including the cases that must fall back to that path."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio.transforms as T

pytestmark = pytest.mark.skipif(not hasattr(tc, "stft"), reason="tensorcore built without the FFT")


def _wave(shape, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(shape[-1]) / 16000
    x = 0.3 * np.sin(2 * np.pi * 440 * t) + 0.05 * rng.standard_normal(shape)
    return x.astype(np.float32)


def _unfused(t, x):
    """The op-by-op forward (what MFCC / LFCC computed before the one-pass path)."""
    if isinstance(t, T.MFCC):
        mel = t.MelSpectrogram(x)
        mel = tc.log(mel + 1e-6) if t.log_mels else t.amplitude_to_DB(mel)
        return T._along_freq(mel, t.dct_mat)
    spec = T._along_freq(t.Spectrogram(x), t.filter_mat)
    spec = tc.log(spec + 1e-6) if t.log_lf else t.amplitude_to_DB(spec)
    return T._along_freq(spec, t.dct_mat)


def _fused(t, x):
    if isinstance(t, T.MFCC):
        spec, bank = t.MelSpectrogram.spectrogram, t.MelSpectrogram.mel_scale.fb
        to_db = None if t.log_mels else t.amplitude_to_DB
    else:
        spec, bank, to_db = t.Spectrogram, t.filter_mat, None if t.log_lf else t.amplitude_to_DB
    return T._cepstral(spec, bank, t.dct_mat, x, to_db)


CASES = [
    ("mfcc", {"n_mfcc": 40, "melkwargs": {"n_fft": 400, "hop_length": 160, "n_mels": 80}}),
    ("mfcc", {"n_mfcc": 13, "log_mels": True, "melkwargs": {"n_fft": 512, "n_mels": 40}}),
    (
        "mfcc",
        {
            "n_mfcc": 20,
            "melkwargs": {"n_fft": 256, "hop_length": 100, "f_min": 300.0, "n_mels": 48},
        },
    ),
    ("lfcc", {"n_filter": 64, "n_lfcc": 20}),
    ("lfcc", {"n_filter": 32, "n_lfcc": 12, "log_lf": True, "speckwargs": {"n_fft": 320}}),
]


def _make(lib, kind, kwargs):
    return (lib.MFCC if kind == "mfcc" else lib.LFCC)(16000, **kwargs)


@pytest.mark.parametrize("kind,kwargs", CASES)
@pytest.mark.parametrize("shape", [(5000,), (2, 4001), (2, 3, 3000)])
def test_matches_torchaudio_and_unfused(ta_ref, torch_ref, kind, kwargs, shape):
    import torchaudio.transforms as TT

    x = _wave(shape)
    ours = _make(T, kind, kwargs)
    fused = _fused(ours, tc.from_numpy(x))
    assert fused is not None  # these settings take the one-pass path
    out = ours(tc.from_numpy(x))
    np.testing.assert_array_equal(out.numpy(), fused.numpy())
    ref = _make(TT, kind, kwargs)(torch_ref.from_numpy(x)).numpy()
    assert tuple(out.shape) == ref.shape
    np.testing.assert_allclose(out.numpy(), ref, atol=2e-3, rtol=1e-3)
    # Against the op-by-op path: only the summation order differs.
    np.testing.assert_allclose(out.numpy(), _unfused(ours, tc.from_numpy(x)).numpy(), atol=1e-3)


def test_top_db_floor_is_per_spectrogram_group(ta_ref, torch_ref):
    import torchaudio.transforms as TT

    # Quiet and loud signals: the 80 dB floor is shared by the channels of one example (the
    # last three dims), not per channel and not across examples.
    x = _wave((2, 2, 4000))
    x[0, 1] *= 1e-5
    x[1] *= 1e-3
    kwargs = {"n_mfcc": 30, "melkwargs": {"n_fft": 400, "hop_length": 160, "n_mels": 60}}
    out = T.MFCC(16000, **kwargs)(tc.from_numpy(x)).numpy()
    ref = TT.MFCC(16000, **kwargs)(torch_ref.from_numpy(x)).numpy()
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-3)
    one = T.MFCC(16000, **kwargs)(tc.from_numpy(x[0])).numpy()
    np.testing.assert_allclose(out[0], one, atol=1e-4)


@pytest.mark.parametrize(
    "melkwargs",
    [
        {"n_fft": 401, "hop_length": 160},  # odd n_fft
        {"n_fft": 400, "win_length": 300},  # window shorter than n_fft
        {"n_fft": 400, "pad_mode": "constant"},
        {"n_fft": 400, "center": False},
        {"n_fft": 400, "power": 1.0},
        {"n_fft": 400, "pad": 7},
        {"n_fft": 400, "normalized": True},
    ],
)
def test_other_settings_fall_back(ta_ref, torch_ref, melkwargs):
    import torchaudio.transforms as TT

    x = _wave((2, 4000))
    ours = T.MFCC(16000, n_mfcc=13, melkwargs={"n_mels": 40, **melkwargs})
    assert _fused(ours, tc.from_numpy(x)) is None
    ref = TT.MFCC(16000, n_mfcc=13, melkwargs={"n_mels": 40, **melkwargs})
    np.testing.assert_allclose(
        ours(tc.from_numpy(x)).numpy(), ref(torch_ref.from_numpy(x)).numpy(), atol=2e-3, rtol=1e-3
    )


def test_fallback_inputs():
    m = T.MFCC(16000, n_mfcc=13, melkwargs={"n_fft": 400, "n_mels": 40})
    x = _wave((4000,))
    # float64, autograd and too-short inputs take the op-by-op path
    assert _fused(m, tc.from_numpy(x.astype(np.float64))) is None
    g = tc.from_numpy(x).requires_grad_()
    assert _fused(m, g) is None
    y = m(g)
    y.sum().backward()
    assert g.grad is not None and tuple(g.grad.shape) == (4000,)
    np.testing.assert_allclose(y.detach().numpy(), m(tc.from_numpy(x)).numpy(), atol=1e-3)
    assert _fused(m, tc.from_numpy(x[:200])) is None
    assert _fused(m, tc.zeros(0, 4000)) is None  # no signals: nothing to group the dB floor by
    with pytest.raises(Exception, match="padding"):
        m(tc.from_numpy(x[:150]))  # reflect padding longer than the input: stft's error
