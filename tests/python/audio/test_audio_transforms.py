import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio.transforms as T


def _wave(shape=(2, 4000), seed=0):
    rng = np.random.default_rng(seed)
    return (0.3 * rng.standard_normal(shape)).astype(np.float32)


@pytest.fixture
def TT(ta_ref):
    import torchaudio.transforms as TT

    return TT


def _cmp(torch, ours, ref, x, atol=1e-5):
    a = ours(tc.from_numpy(x.copy()))
    b = ref(torch.from_numpy(x.copy()))
    np.testing.assert_allclose(a.numpy(), b.numpy(), atol=atol)


@pytest.mark.parametrize("orig,new", [(48000, 16000), (44100, 16000), (8000, 16000)])
def test_resample(torch_ref, TT, orig, new):
    _cmp(torch_ref, T.Resample(orig, new), TT.Resample(orig, new), _wave((2, 3, 3000)))


def test_simple_transforms(torch_ref, TT):
    x = _wave((2, 3000))
    _cmp(torch_ref, T.Vol(0.5), TT.Vol(0.5), x)
    _cmp(torch_ref, T.Vol(3.0, "db"), TT.Vol(3.0, "db"), x)
    _cmp(torch_ref, T.Vol(2.0, "power"), TT.Vol(2.0, "power"), x)
    for shape in T.Fade.SHAPES:
        _cmp(torch_ref, T.Fade(500, 800, shape), TT.Fade(500, 800, shape), x)
    spec = np.abs(_wave((2, 40, 60))) ** 2
    _cmp(torch_ref, T.AmplitudeToDB(), TT.AmplitudeToDB(), spec, atol=1e-4)
    _cmp(
        torch_ref,
        T.AmplitudeToDB("magnitude", 60.0),
        TT.AmplitudeToDB("magnitude", 60.0),
        spec,
        atol=1e-4,
    )
    _cmp(torch_ref, T.ComputeDeltas(7), TT.ComputeDeltas(7), spec)
    _cmp(
        torch_ref,
        T.SlidingWindowCmn(30, 10, norm_vars=True),
        TT.SlidingWindowCmn(30, 10, norm_vars=True),
        _wave((60, 13)),
        atol=1e-4,
    )
    enc = T.MuLawEncoding(256)(tc.from_numpy(np.clip(x, -1, 1)))
    ref = TT.MuLawEncoding(256)(torch_ref.from_numpy(np.clip(x, -1, 1)))
    np.testing.assert_array_equal(enc.numpy(), ref.numpy())
    np.testing.assert_allclose(
        T.MuLawDecoding(256)(enc).numpy(), TT.MuLawDecoding(256)(ref).numpy(), atol=1e-6
    )


def test_mel_scale(torch_ref, TT):
    spec = np.abs(_wave((2, 201, 30)))
    _cmp(
        torch_ref,
        T.MelScale(80, 16000, n_stft=201),
        TT.MelScale(80, 16000, n_stft=201),
        spec,
        atol=1e-5,
    )
    _cmp(
        torch_ref,
        T.MelScale(40, 16000, 50.0, 7000.0, 201, "slaney", "slaney"),
        TT.MelScale(40, 16000, 50.0, 7000.0, 201, "slaney", "slaney"),
        spec,
        atol=1e-5,
    )
    with pytest.raises(ValueError, match="frequency bins"):
        T.MelScale(80, n_stft=201)(tc.zeros(2, 100, 3))


def test_inverse_mel_scale():
    tc.manual_seed(0)
    rng = np.random.default_rng(3)
    spec = tc.from_numpy(np.abs(rng.standard_normal((1, 65, 20))).astype(np.float32))
    mel = T.MelScale(16, 8000, n_stft=65)(spec)
    inv = T.InverseMelScale(65, 16, 8000, max_iter=2000)(mel)
    assert tuple(inv.shape) == (1, 65, 20)
    assert float(inv.min()) >= 0
    again = T.MelScale(16, 8000, n_stft=65)(inv)
    err = float(((again - mel) ** 2).sum() / (mel**2).sum())
    assert err < 1e-3


def test_masking_transforms():
    tc.manual_seed(1)
    spec = tc.ones(4, 2, 30, 50)
    out = T.TimeMasking(10, iid_masks=True)(spec)
    masked_cols = (out.numpy() == 0).all(axis=2)  # (4, 2, 50)
    assert masked_cols.sum(axis=-1).max() < 10
    out = T.FrequencyMasking(8)(tc.ones(2, 30, 50), mask_value=-5.0)
    rows = (out.numpy() == -5.0).all(axis=2)
    assert rows.sum(axis=1).max() < 8 and (rows[0] == rows[1]).all()
    with pytest.raises(ValueError):
        T.TimeMasking(5, p=2.0)


def _speech_like(rng, sr, lead):
    t = np.arange(sr) / sr
    voice = 0.5 * np.sin(2 * np.pi * 200 * t) * (
        1 + 0.5 * np.sin(2 * np.pi * 3 * t)
    ) + 0.3 * np.sin(2 * np.pi * 400 * t)
    return np.concatenate([0.001 * rng.standard_normal(int(sr * lead)), voice]).astype(np.float32)


@pytest.mark.parametrize(
    "lead,kwargs",
    [
        (0.8, {}),
        (0.3, {"trigger_level": 5.0}),
        (1.5, {"pre_trigger_time": 0.1, "allowed_gap": 0.1}),
    ],
)
def test_vad(torch_ref, TT, lead, kwargs):
    rng = np.random.default_rng(5)
    x = np.stack([_speech_like(rng, 16000, lead), _speech_like(rng, 16000, lead) * 0.5])
    ours = T.Vad(16000, **kwargs)(tc.from_numpy(x))
    ref = TT.Vad(16000, **kwargs)(torch_ref.from_numpy(x))
    assert tuple(ours.shape) == tuple(ref.shape)
    assert ours.shape[-1] < x.shape[-1]
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())
    quiet = (0.001 * rng.standard_normal((1, 4000))).astype(np.float32)
    assert tuple(T.Vad(16000)(tc.from_numpy(quiet)).shape) == tuple(
        TT.Vad(16000)(torch_ref.from_numpy(quiet)).shape
    )


@pytest.mark.parametrize("orig,new", [(44100, 16000), (48000, 16000), (16000, 22050), (5, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_streaming_resample_matches_one_call(orig, new, dtype):
    rng = np.random.default_rng(orig + new)
    x = rng.standard_normal((2, 20011)).astype(dtype)
    import tensorcore.audio.functional as F

    full = F.resample(tc.from_numpy(x), orig, new).numpy()
    stream = T.StreamingResample(orig, new)
    outs, p = [], 0
    while p < x.shape[1]:
        k = int(rng.integers(1, 3000))
        outs.append(stream(tc.from_numpy(x[:, p : p + k].copy())).numpy())
        p += k
    outs.append(stream.flush().numpy())
    np.testing.assert_array_equal(np.concatenate(outs, -1), full)
    with pytest.raises(ValueError, match="leading dims"):
        stream(tc.zeros(2, 10))
        stream(tc.zeros(3, 10))
