"""Python -> C++ deployment of audio front ends: save a pipeline, load it with the C++ runtime
(tc::audio::transforms::Pipeline, through its binding) and get the same output for the same input
and generator seed."""

import json

import numpy as np
import pytest

import tensorcore as tc
from shared_inputs import gen
from tensorcore import _C
from tensorcore.audio import transforms as T

if not hasattr(_C, "_audio_pipeline") or not hasattr(tc, "hann_window"):
    pytest.skip("this build has no audio pipeline runtime", allow_module_level=True)

Pipeline = _C._audio_pipeline.Pipeline


PIPELINES = {
    "logmel": lambda g: [
        T.MelSpectrogram(sample_rate=16000, n_fft=400, hop_length=160, n_mels=40),
        T.AmplitudeToDB(top_db=80),
    ],
    "mfcc": lambda g: [
        T.Resample(22050, 16000),
        T.MFCC(
            sample_rate=16000, n_mfcc=13, melkwargs={"n_fft": 256, "hop_length": 128, "n_mels": 32}
        ),
    ],
    "mfcc_log": lambda g: [
        T.MFCC(
            sample_rate=8000,
            n_mfcc=20,
            log_mels=True,
            norm=None,
            melkwargs={
                "n_fft": 200,
                "win_length": 160,
                "n_mels": 24,
                "norm": "slaney",
                "mel_scale": "slaney",
                "center": False,
            },
        )
    ],
    "specaugment": lambda g: [
        T.Spectrogram(n_fft=256, hop_length=64, power=1.0, pad=5, normalized=True),
        T.FrequencyMasking(30, generator=g),
        T.TimeMasking(25, p=0.5, generator=g),
        T.AmplitudeToDB("magnitude"),
    ],
    "melscale_window": lambda g: [
        T.Spectrogram(
            n_fft=128, win_length=100, power=None, normalized="frame_length", pad_mode="constant"
        ),
    ],
    "mulaw": lambda g: [
        T.Resample(
            48000,
            8000,
            resampling_method="kaiser_window",
            beta=8.0,
            lowpass_filter_width=8,
            rolloff=0.9,
        ),
        T.MuLawEncoding(256),
    ],
    "mulaw_roundtrip": lambda g: [
        T.MuLawEncoding(64),
        T.MuLawDecoding(64),
        T.Spectrogram(n_fft=64, power=3.0, window_fn=tc.hamming_window),
        T.MelScale(n_mels=10, sample_rate=8000, n_stft=33),
    ],
    "lfcc": lambda g: [
        T.Vol(0.5),
        T.LFCC(sample_rate=16000, n_lfcc=20, speckwargs={"n_fft": 256, "hop_length": 100}),
    ],
    "lfcc_log_deltas": lambda g: [
        T.Vol(3, "db"),
        T.Vol(2.0, "power"),
        T.LFCC(sample_rate=8000, n_filter=64, n_lfcc=13, log_lf=True, speckwargs={"n_fft": 128}),
        T.ComputeDeltas(win_length=7),
    ],
    "fade_centroid": lambda g: [
        T.Fade(300, 1000, "half_sine"),
        T.SpectralCentroid(16000, n_fft=256, hop_length=100, pad=3),
    ],
    "centroid_float_rate": lambda g: [
        T.SpectralCentroid(22050.0, n_fft=128, window_fn=tc.hamming_window)
    ],
    "stretch_fast": lambda g: [
        T.Spectrogram(n_fft=256, hop_length=64, power=None),
        T.TimeStretch(hop_length=64, n_freq=129, fixed_rate=1.3),
    ],
    "stretch_slow": lambda g: [
        T.Spectrogram(n_fft=128, power=None, window_fn=tc.hamming_window),
        T.TimeStretch(n_freq=65, fixed_rate=0.7),
    ],
    "stretch_inverse": lambda g: [
        T.Spectrogram(n_fft=256, hop_length=64, power=None, normalized=True),
        T.TimeStretch(hop_length=64, n_freq=129, fixed_rate=1.1),
        T.InverseSpectrogram(n_fft=256, hop_length=64, normalized=True),
    ],
    "inverse_frame_norm": lambda g: [
        T.Spectrogram(
            n_fft=128,
            win_length=100,
            power=None,
            normalized="frame_length",
            window_fn=tc.hamming_window,
        ),
        T.InverseSpectrogram(
            n_fft=128, win_length=100, normalized="frame_length", window_fn=tc.hamming_window
        ),
    ],
    "griffinlim": lambda g: [
        T.Spectrogram(n_fft=128, hop_length=32),
        T.GriffinLim(n_fft=128, hop_length=32, n_iter=5, rand_init=False),
    ],
    "logmel_cmn": lambda g: [
        T.MelSpectrogram(n_fft=256, n_mels=23),
        T.AmplitudeToDB(),
        T.SlidingWindowCmn(cmn_window=10, min_cmn_window=4, norm_vars=True),
    ],
}

EXPANDED = {"MelSpectrogram": ["Spectrogram", "MelScale"]}


def expanded_names(transforms):
    out = []
    for t in transforms:
        name = type(t).__name__
        if name == "MFCC":
            out += ["Spectrogram", "MelScale", "Log" if t.log_mels else "AmplitudeToDB", "DCT"]
        elif name == "LFCC":
            out += [
                "Spectrogram",
                "LinearFilterbank",
                "Log" if t.log_lf else "AmplitudeToDB",
                "DCT",
            ]
        else:
            out += EXPANDED.get(name, [name])
    return out


def waveform(shape, seed=0):
    return tc.from_numpy(np.random.default_rng(seed).uniform(-0.9, 0.9, shape).astype(np.float32))


def assert_same(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype == theirs.dtype
    a, b = ours.numpy(), theirs.numpy()
    np.testing.assert_array_equal(a, b)  # same ops in the same order: bit-identical


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.parametrize("shape", [(4000,), (2, 3, 4000)])
def test_cpp_pipeline_matches_python(tmp_path, name, shape):
    x = waveform(shape)
    if name == "specaugment" and len(shape) == 1:
        # a 2-d spectrogram has no dim 2 for TimeMasking (torchaudio raises too)
        with pytest.raises(IndexError):
            T.Compose(PIPELINES[name](gen(0)))(x)
        T.save_pipeline(PIPELINES[name](None), str(tmp_path / "s.json"))
        with pytest.raises(IndexError, match="TimeMasking: expected \\(channel, freq, time\\)"):
            Pipeline.load(str(tmp_path / "s.json"))(x, gen(0))
        return
    path = str(tmp_path / f"{name}.json")
    T.Compose(PIPELINES[name](None)).save(path)
    cpp = Pipeline.load(path)
    assert cpp.names() == expanded_names(PIPELINES[name](None))
    for seed in (0, 1, 2):
        ours = T.Compose(PIPELINES[name](gen(seed)))(x)
        theirs = cpp(x, gen(seed))
        assert_same(ours, theirs)


def test_masks_differ_by_seed_and_iid(tmp_path):
    spec = T.Spectrogram(n_fft=128)(waveform((3, 2, 3000), seed=3))  # (3, 2, 65, frames)
    steps = lambda g: [
        T.FrequencyMasking(20, iid_masks=True, generator=g),  # noqa: E731
        T.TimeMasking(10, iid_masks=True, generator=g),
    ]
    path = str(tmp_path / "iid.json")
    T.save_pipeline(steps(None), path)
    cpp = Pipeline.load(path)
    outs = []
    for seed in (0, 1):
        ours = T.Compose(steps(gen(seed)))(spec)
        theirs = cpp(spec, gen(seed))
        assert_same(ours, theirs)
        outs.append(theirs.numpy())
        # each (batch, channel) got its own masks: the zero patterns differ between examples
        zero_rows = (theirs.numpy() == 0).all(axis=-1)
        assert len({zero_rows[b, c].tobytes() for b in range(3) for c in range(2)}) > 1
    assert not np.array_equal(outs[0], outs[1])


def test_sequential_and_global_generator(tmp_path):
    nn = pytest.importorskip("tensorcore.nn")
    seq = nn.Sequential(T.MelSpectrogram(n_fft=256, n_mels=16), T.AmplitudeToDB(), T.TimeMasking(8))
    path = str(tmp_path / "seq.json")
    T.save_pipeline(seq, path)
    cpp = Pipeline.load(path)
    x = waveform((1, 5000))
    tc.manual_seed(7)
    ours = seq(x)
    tc.manual_seed(7)
    theirs = cpp(x)  # no generator: the default (global) one, as in Python
    assert_same(ours, theirs)


def test_file_format_and_errors(tmp_path):
    text = T.pipeline_json([T.MuLawEncoding(16)])
    doc = json.loads(text)
    assert doc["format"] == "tensorcore.audio.transforms" and doc["version"] == 1
    assert doc["transforms"] == [{"name": "MuLawEncoding", "params": {"quantization_channels": 16}}]
    with pytest.raises(ValueError, match="Vad is not supported by the C\\+\\+ audio pipeline"):
        T.save_pipeline([T.Vad(16000)], str(tmp_path / "x.json"))
    fade = dict(
        doc,
        transforms=[
            {"name": "Fade", "params": {"fade_in_len": 1, "fade_out_len": 1, "fade_shape": "cubic"}}
        ],
    )
    with pytest.raises(ValueError, match="Fade.fade_shape should be"):
        Pipeline.from_json(json.dumps(fade))
    with pytest.raises(
        ValueError, match="Fade: fade lengths \\(50, 0\\) exceed the waveform length 40"
    ):
        Pipeline.from_json(T.pipeline_json([T.Fade(50)]))(tc.zeros(40))
    with pytest.raises(ValueError, match="TimeStretch needs a fixed_rate"):
        T.save_pipeline([T.TimeStretch(n_freq=65)], str(tmp_path / "x.json"))
    with pytest.raises(TypeError, match="TimeStretch: expected a complex spectrogram"):
        Pipeline.from_json(T.pipeline_json([T.TimeStretch(n_freq=3, fixed_rate=2)]))(tc.zeros(3, 4))
    with pytest.raises(ValueError, match="SlidingWindowCmn: expected a \\(..., frames, feats\\)"):
        Pipeline.from_json(T.pipeline_json([T.SlidingWindowCmn()]))(tc.zeros(40))
    with pytest.raises(ValueError, match="not a tensorcore.audio.transforms file"):
        Pipeline.from_json(
            '{"format": "tensorcore.vision.transforms", "version": 1, "transforms": []}'
        )
    with pytest.raises(ValueError, match="unsupported version"):
        Pipeline.from_json(
            '{"format": "tensorcore.audio.transforms", "version": 2, "transforms": []}'
        )
    bad = dict(doc, transforms=[{"name": "Vad", "params": {}}])
    with pytest.raises(ValueError, match="transform 'Vad' is not supported"):
        Pipeline.from_json(json.dumps(bad))
    bad = dict(doc, transforms=[{"name": "MuLawEncoding", "params": {}}])
    with pytest.raises(ValueError, match="MuLawEncoding is missing 'quantization_channels'"):
        Pipeline.from_json(json.dumps(bad))
    spec = json.loads(T.pipeline_json([T.Spectrogram(n_fft=16)]))
    spec["transforms"][0]["params"]["window"] = [1.0, 2.0]
    with pytest.raises(ValueError, match="Spectrogram.window should have 16 values, got 2"):
        Pipeline.from_json(json.dumps(spec))
    with pytest.raises(ValueError, match="invalid JSON"):
        Pipeline.from_json("{")
    with pytest.raises(ValueError, match="cannot open"):
        Pipeline.load(str(tmp_path / "missing.json"))
    mel = Pipeline.from_json(T.pipeline_json([T.MelScale(n_mels=8, n_stft=33)]))
    with pytest.raises(ValueError, match="MelScale: expected 33 frequency bins"):
        mel(tc.zeros(2, 30, 5))
    with pytest.raises(TypeError, match="Spectrogram: expected a float waveform"):
        Pipeline.from_json(T.pipeline_json([T.Spectrogram(n_fft=16)]))(
            tc.zeros(100, dtype=tc.int64)
        )


@pytest.mark.parametrize("name", ["mfcc", "logmel", "mulaw_roundtrip"])
def test_float64_input(tmp_path, name):
    x = tc.from_numpy(np.random.default_rng(9).uniform(-0.9, 0.9, (2, 3000)))
    path = str(tmp_path / "p.json")
    T.save_pipeline(PIPELINES[name](None), path)
    ours = T.Compose(PIPELINES[name](gen(0)))(x)
    theirs = Pipeline.load(path)(x, gen(0))
    assert theirs.dtype == ours.dtype
    assert_same(ours, theirs)


@pytest.mark.parametrize(
    "shape", ["linear", "exponential", "logarithmic", "quarter_sine", "half_sine"]
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fade_shapes(tmp_path, shape, dtype):
    x = tc.from_numpy(np.random.default_rng(4).uniform(-0.9, 0.9, (2, 3000)).astype(dtype))
    steps = [T.Fade(700, 1200, shape)]
    cpp = Pipeline.from_json(T.pipeline_json(steps))
    ours = T.Compose(steps)(x)
    assert_same(ours, cpp(x))
    # really faded: silent at both ends, untouched in the middle
    out = cpp(x).numpy()
    assert np.abs(out[:, 0]).max() < 1e-3 and np.abs(out[:, -1]).max() < 0.02
    np.testing.assert_array_equal(out[:, 1000:1500], x.numpy()[:, 1000:1500])


@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("norm_vars", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sliding_window_cmn(tmp_path, center, norm_vars, dtype):
    feats = tc.from_numpy(np.random.default_rng(5).normal(size=(2, 3, 150, 13)).astype(dtype))
    steps = [
        T.SlidingWindowCmn(cmn_window=40, min_cmn_window=15, center=center, norm_vars=norm_vars)
    ]
    path = str(tmp_path / "cmn.json")
    T.save_pipeline(steps, path)
    ours = T.Compose(steps)(feats)
    theirs = Pipeline.load(path)(feats)
    assert_same(ours, theirs)
    # normalised: the first frame's window is frames [0, 40) or [0, 15), so its mean is removed
    assert not np.allclose(theirs.numpy(), feats.numpy())


@pytest.mark.parametrize("momentum", [0.99, 0.0])
def test_griffinlim_random_init_global_generator(tmp_path, momentum):
    steps = [
        T.Spectrogram(n_fft=200, hop_length=50, power=1.0),
        T.GriffinLim(n_fft=200, hop_length=50, power=1.0, n_iter=4, momentum=momentum, length=3000),
    ]
    cpp = Pipeline.from_json(T.pipeline_json(steps))
    x = waveform((2, 3000), seed=6)
    tc.manual_seed(11)
    ours = T.Compose(steps)(x)
    tc.manual_seed(11)
    theirs = cpp(x)
    assert tuple(theirs.shape) == (2, 3000)
    assert_same(ours, theirs)
    tc.manual_seed(12)
    assert not np.array_equal(cpp(x).numpy(), theirs.numpy())  # the phases are random


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inverse_mel_scale_same_iterations(tmp_path, dtype):
    x = tc.from_numpy(np.random.default_rng(8).uniform(-0.9, 0.9, (2, 2000)).astype(dtype))
    steps = [
        T.MelSpectrogram(sample_rate=8000, n_fft=128, n_mels=12),
        T.InverseMelScale(
            n_stft=65,
            n_mels=12,
            sample_rate=8000,
            max_iter=40,
            sgdargs={"lr": 0.05, "momentum": 0.8},
        ),
    ]
    path = str(tmp_path / "imel.json")
    T.save_pipeline(steps, path)
    cpp = Pipeline.load(path)
    assert cpp.names() == ["Spectrogram", "MelScale", "InverseMelScale"]
    tc.manual_seed(3)
    ours = T.Compose(steps)(x)
    tc.manual_seed(3)
    theirs = cpp(x)
    assert tuple(theirs.shape) == (2, 65, 2000 // 64 + 1)
    assert_same(ours, theirs)
    assert (theirs.numpy() >= 0).all()
    # early stop on tolerance_change: a loose tolerance stops after fewer steps, so differs
    loose = [
        steps[0],
        T.InverseMelScale(
            n_stft=65, n_mels=12, sample_rate=8000, max_iter=40, tolerance_change=1e3
        ),
    ]
    tc.manual_seed(3)
    ours_loose = T.Compose(loose)(x)
    tc.manual_seed(3)
    assert_same(ours_loose, Pipeline.from_json(T.pipeline_json(loose))(x))
    assert not np.array_equal(ours_loose.numpy(), theirs.numpy())
