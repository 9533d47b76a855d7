import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio.functional as F


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _wave(shape=(2, 4000), seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    t = np.arange(shape[-1]) / 16000
    x = 0.4 * np.sin(2 * np.pi * 440 * t) + 0.1 * rng.standard_normal(shape)
    return x.astype(dtype)


def _pair(torch, x):
    return tc.from_numpy(x.copy()), torch.from_numpy(x.copy())


@pytest.fixture
def TF(ta_ref):
    import torchaudio.functional as TF

    return TF


@pytest.mark.parametrize(
    "orig,new",
    [(48000, 16000), (44100, 16000), (16000, 44100), (8000, 22050), (16000, 16000), (3, 7)],
)
@pytest.mark.parametrize("method", ["sinc_interpolation", "kaiser_window"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_resample(torch_ref, TF, orig, new, method, dtype):
    x = _wave((2, 3, 5001), dtype=dtype)
    a, b = _pair(torch_ref, x)
    ours = F.resample(a, orig, new, resampling_method=method)
    ref = TF.resample(b, orig, new, resampling_method=method)
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=1e-5, rtol=0)


@pytest.mark.parametrize("lpw,rolloff,beta", [(3, 0.9, None), (16, 0.99, 8.0), (64, 0.945, None)])
def test_resample_options(torch_ref, TF, lpw, rolloff, beta):
    x = _wave((1, 3000))
    a, b = _pair(torch_ref, x)
    for method in ("sinc_interpolation", "kaiser_window"):
        ours = F.resample(a, 22050, 16000, lpw, rolloff, method, beta)
        ref = TF.resample(b, 22050, 16000, lpw, rolloff, method, beta)
        np.testing.assert_allclose(_np(ours), ref.numpy(), atol=1e-5)


def test_resample_threads_and_grad():
    x = tc.from_numpy(_wave((3, 200000)))
    n0 = tc.get_num_threads()
    try:
        tc.set_num_threads(1)
        one = F.resample(x, 44100, 16000)
        tc.set_num_threads(3)
        many = F.resample(x, 44100, 16000)
    finally:
        tc.set_num_threads(n0)
    np.testing.assert_array_equal(_np(one), _np(many))
    xd = tc.from_numpy(_wave((2, 37), dtype=np.float64)).requires_grad_()
    assert tc.autograd.gradcheck(lambda v: F.resample(v, 5, 3), (xd,))
    assert tc.autograd.gradcheck(
        lambda v: F.resample(v, 2, 3, resampling_method="kaiser_window"), (xd,)
    )
    with pytest.raises(TypeError, match="floating"):
        F.resample(tc.zeros(10, dtype=tc.int32), 2, 1)
    with pytest.raises(ValueError, match="positive"):
        F.resample(tc.zeros(10), 0, 1)
    with pytest.raises(ValueError, match="resampling_method"):
        F.resample(tc.zeros(10), 2, 1, resampling_method="linear")


@pytest.mark.parametrize("norm", [None, "slaney"])
@pytest.mark.parametrize("scale", ["htk", "slaney"])
def test_melscale_fbanks(TF, norm, scale):
    ours = F.melscale_fbanks(201, 0.0, 8000.0, 80, 16000, norm, scale)
    ref = TF.melscale_fbanks(201, 0.0, 8000.0, 80, 16000, norm, scale)
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=2e-5, rtol=1e-5)
    ours = F.melscale_fbanks(513, 20.0, 7600.0, 40, 22050, norm, scale)
    ref = TF.melscale_fbanks(513, 20.0, 7600.0, 40, 22050, norm, scale)
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=2e-5, rtol=1e-5)


def test_linear_fbanks_and_dct(TF):
    np.testing.assert_allclose(
        _np(F.linear_fbanks(201, 10.0, 7000.0, 30, 16000)),
        TF.linear_fbanks(201, 10.0, 7000.0, 30, 16000).numpy(),
        atol=1e-6,
    )
    for norm in (None, "ortho"):
        np.testing.assert_allclose(
            _np(F.create_dct(13, 40, norm)), TF.create_dct(13, 40, norm).numpy(), atol=1e-6
        )


@pytest.mark.parametrize("top_db", [None, 40.0])
def test_db(torch_ref, TF, top_db):
    x = np.abs(_wave((2, 3, 20, 30))) ** 2
    a, b = _pair(torch_ref, x)
    ours = F.amplitude_to_DB(a, 10.0, 1e-10, 0.0, top_db)
    ref = TF.amplitude_to_DB(b, 10.0, 1e-10, 0.0, top_db)
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=1e-4)
    np.testing.assert_allclose(
        _np(F.DB_to_amplitude(ours, 1.0, 0.5)),
        TF.DB_to_amplitude(ref, 1.0, 0.5).numpy(),
        rtol=1e-5,
        atol=1e-7,
    )


def test_mu_law(torch_ref, TF):
    x = np.clip(_wave((2, 1000)), -1, 1)
    a, b = _pair(torch_ref, x)
    enc = F.mu_law_encoding(a, 256)
    np.testing.assert_array_equal(_np(enc), TF.mu_law_encoding(b, 256).numpy())
    np.testing.assert_allclose(
        _np(F.mu_law_decoding(enc, 256)),
        TF.mu_law_decoding(torch_ref.from_numpy(_np(enc)), 256).numpy(),
        atol=1e-6,
    )


def test_compute_deltas(torch_ref, TF):
    x = _wave((2, 10, 50))
    a, b = _pair(torch_ref, x)
    for win in (3, 5, 9):
        np.testing.assert_allclose(
            _np(F.compute_deltas(a, win)), TF.compute_deltas(b, win).numpy(), atol=1e-6
        )


def test_detect_pitch(torch_ref, TF):
    t = np.arange(16000) / 16000
    x = np.stack([np.sin(2 * np.pi * 220 * t), np.sin(2 * np.pi * 330 * t)]).astype(np.float32)
    a, b = _pair(torch_ref, x)
    ours = F.detect_pitch_frequency(a, 16000)
    ref = TF.detect_pitch_frequency(b, 16000)
    np.testing.assert_allclose(_np(ours), ref.numpy(), rtol=1e-5)
    assert abs(float(ours[0].median()) - 220) < 5


@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("norm_vars", [False, True])
def test_sliding_window_cmn(torch_ref, TF, center, norm_vars):
    x = _wave((2, 300, 13))
    a, b = _pair(torch_ref, x)
    ours = F.sliding_window_cmn(a, 100, 30, center, norm_vars)
    ref = TF.sliding_window_cmn(b, 100, 30, center, norm_vars)
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=1e-4)


def test_masking():
    tc.manual_seed(0)
    x = tc.ones(3, 2, 40, 50)
    y = F.mask_along_axis_iid(x, 10, 0.0, 3)
    zeros_per = (_np(y) == 0).reshape(3, 2, 40, 50)
    for b in range(3):
        for c in range(2):
            cols = zeros_per[b, c].all(axis=0)
            assert cols.sum() < 10 and (zeros_per[b, c].any(axis=0) == cols).all()
    y = F.mask_along_axis(tc.ones(2, 40, 50), 10, -1.0, 1)
    rows = (_np(y) == -1.0).all(axis=2)
    assert rows.sum(axis=1).max() < 10 and (rows[0] == rows[1]).all()
    with pytest.raises(ValueError, match="axis"):
        F.mask_along_axis(tc.ones(2, 4, 5), 2, 0.0, 3)


BIQUADS = [
    ("lowpass_biquad", (16000, 1000.0)),
    ("highpass_biquad", (16000, 500.0, 0.5)),
    ("bandpass_biquad", (16000, 1500.0, 1.0, True)),
    ("bandpass_biquad", (16000, 1500.0)),
    ("bandreject_biquad", (16000, 2000.0)),
    ("allpass_biquad", (16000, 800.0)),
    ("band_biquad", (16000, 1000.0, 2.0, True)),
    ("band_biquad", (16000, 1000.0)),
    ("treble_biquad", (16000, 6.0)),
    ("bass_biquad", (16000, -4.0, 150.0)),
    ("equalizer_biquad", (16000, 1200.0, 5.0, 1.5)),
    ("riaa_biquad", (44100,)),
    ("deemph_biquad", (48000,)),
]


@pytest.mark.parametrize("name,args", BIQUADS, ids=[f"{n}{i}" for i, (n, _) in enumerate(BIQUADS)])
def test_biquads(torch_ref, TF, name, args):
    x = _wave((2, 3, 2000))
    a, b = _pair(torch_ref, x)
    ours = getattr(F, name)(a, *args)
    ref = getattr(TF, name)(b, *args)
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=2e-5)


def test_lfilter(torch_ref, TF):
    x = _wave((3, 2, 1500), dtype=np.float64)
    a_c = np.array([[1.0, -1.2, 0.5, -0.1], [2.0, 0.3, 0.1, 0.05]])
    b_c = np.array([[0.3, 0.2, 0.1, 0.05], [0.5, 0.1, -0.2, 0.3]])
    a, b = _pair(torch_ref, x)
    ours = F.lfilter(a, tc.from_numpy(a_c), tc.from_numpy(b_c), clamp=False)
    ref = TF.lfilter(b, torch_ref.from_numpy(a_c), torch_ref.from_numpy(b_c), clamp=False)
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=1e-10)
    ours = F.lfilter(a, tc.from_numpy(a_c), tc.from_numpy(b_c), batching=False)
    ref = TF.lfilter(b, torch_ref.from_numpy(a_c), torch_ref.from_numpy(b_c), batching=False)
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=1e-10)
    ours = F.filtfilt(a, tc.from_numpy(a_c[0]), tc.from_numpy(b_c[0]))
    ref = TF.filtfilt(b, torch_ref.from_numpy(a_c[0]), torch_ref.from_numpy(b_c[0]))
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=1e-10)
    with pytest.raises(ValueError, match="same size"):
        F.lfilter(a, tc.ones(3), tc.ones(2))


def test_lfilter_grad(torch_ref, TF):
    x = tc.from_numpy(_wave((2, 40), dtype=np.float64) * 0.5).requires_grad_()
    acoef = tc.tensor([1.0, -0.6, 0.2], dtype=tc.float64).requires_grad_()
    bcoef = tc.tensor([0.4, 0.2, 0.1], dtype=tc.float64).requires_grad_()
    assert tc.autograd.gradcheck(lambda v, p, q: F.lfilter(v, p, q, clamp=False), (x, acoef, bcoef))
    assert tc.autograd.gradgradcheck(
        lambda v, p, q: F.lfilter(v, p, q, clamp=False), (x, acoef, bcoef)
    )
    # gradients agree with torchaudio's autograd
    out = F.lfilter(x, acoef, bcoef, clamp=False).sum()
    out.backward()
    xt = torch_ref.from_numpy(_np(x)).requires_grad_()
    at = torch_ref.tensor([1.0, -0.6, 0.2], dtype=torch_ref.float64, requires_grad=True)
    bt = torch_ref.tensor([0.4, 0.2, 0.1], dtype=torch_ref.float64, requires_grad=True)
    TF.lfilter(xt, at, bt, clamp=False).sum().backward()
    np.testing.assert_allclose(_np(acoef.grad), at.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(_np(x.grad), xt.grad.numpy(), rtol=1e-6)
    # far from the end, d(sum y)/dx is the filter's DC gain sum(b) / sum(a)
    np.testing.assert_allclose(_np(x.grad)[:, :10], 0.7 / 0.6, rtol=1e-6)


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("contrast", {"enhancement_amount": 60.0}),
        ("dcshift", {"shift": 0.3}),
        ("dcshift", {"shift": 0.3, "limiter_gain": 0.05}),
        ("dcshift", {"shift": -0.2, "limiter_gain": 0.1}),
        ("gain", {"gain_db": -3.0}),
        ("overdrive", {"gain": 15, "colour": 30}),
        ("phaser", {"sample_rate": 16000}),
        ("phaser", {"sample_rate": 16000, "sinusoidal": False}),
        ("flanger", {"sample_rate": 16000}),
        (
            "flanger",
            {
                "sample_rate": 16000,
                "modulation": "triangular",
                "interpolation": "quadratic",
                "regen": 20,
            },
        ),
        ("dither", {}),
        ("dither", {"noise_shaping": True}),
    ],
)
def test_effects(torch_ref, TF, name, kwargs):
    x = _wave((2, 3000)) * 1.5
    a, b = _pair(torch_ref, x)
    ours = getattr(F, name)(a, **kwargs)
    ref = getattr(TF, name)(b, **kwargs)
    np.testing.assert_allclose(_np(ours), ref.numpy(), atol=2e-5)


def test_batch_dims():
    x = tc.from_numpy(_wave((2, 3, 4, 500)))
    y = F.lowpass_biquad(x, 16000, 1000.0)
    np.testing.assert_allclose(
        _np(y[1, 2]), _np(F.lowpass_biquad(x[1, 2], 16000, 1000.0)), atol=1e-6
    )
    r = F.resample(x, 16000, 8000)
    assert tuple(r.shape) == (2, 3, 4, 250)
