"""Audio functionals and transforms on CUDA tensors: the same result as on the CPU (they run on
core ops: stft -> cuFFT, filter banks -> matmul, ...), internal tensors (windows, filter banks,
masks, frequency axes) created on the input's device, and a clear NotImplementedError naming the
op for the ops that only have a CPU kernel (resample, lfilter and the SoX-style effects).
Skipped without a GPU (conftest.py)."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.audio import functional as F
from tensorcore.audio import transforms as T


def wave(shape, seed=0, dtype=np.float32):
    return tc.from_numpy(np.random.default_rng(seed).uniform(-0.9, 0.9, shape).astype(dtype))


def close(gpu, cpu, rtol=1e-4, atol=1e-4):
    assert gpu.device.type == "cuda", f"result is on {gpu.device}, expected cuda"
    assert tuple(gpu.shape) == tuple(cpu.shape) and gpu.dtype == cpu.dtype
    np.testing.assert_allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=rtol, atol=atol)


def both(transform, x, **tol):
    cpu = transform(x)
    gpu = transform(x.cuda())
    close(gpu, cpu, **tol)
    return gpu


WAVE_TRANSFORMS = {
    "spectrogram": lambda: T.Spectrogram(n_fft=256, hop_length=64, pad=4, normalized=True),
    "spectrogram_complex": lambda: T.Spectrogram(n_fft=128, power=None),
    "melspectrogram": lambda: T.MelSpectrogram(
        sample_rate=16000, n_fft=400, hop_length=160, n_mels=40
    ),
    "mfcc": lambda: T.MFCC(sample_rate=16000, n_mfcc=13, melkwargs={"n_fft": 256, "n_mels": 32}),
    "lfcc": lambda: T.LFCC(sample_rate=16000, n_lfcc=20, speckwargs={"n_fft": 256}),
    "fade": lambda: T.Fade(500, 900, "half_sine"),
    "vol": lambda: T.Vol(3.0, "db"),
    "spectral_centroid": lambda: T.SpectralCentroid(16000, n_fft=256),
    "mulaw": lambda: T.MuLawEncoding(256),
}


@pytest.mark.parametrize("name", sorted(WAVE_TRANSFORMS))
def test_waveform_transform_matches_cpu(name):
    x = wave((2, 4000))
    # dB / centroid outputs are in large units: compare relative to their scale
    tol = {
        "mfcc": dict(rtol=1e-3, atol=1e-2),
        "lfcc": dict(rtol=1e-3, atol=1e-2),
        "spectral_centroid": dict(rtol=1e-4, atol=1e-2),
        "mulaw": dict(rtol=0, atol=1),
    }
    both(WAVE_TRANSFORMS[name](), x, **tol.get(name, {}))


def test_spectrogram_float64_and_batched():
    both(
        T.MelSpectrogram(n_fft=256, n_mels=20),
        wave((2, 3, 3000), dtype=np.float64),
        rtol=1e-9,
        atol=1e-9,
    )


def test_feature_transforms_match_cpu():
    spec = T.MelSpectrogram(n_fft=256, n_mels=20)(wave((2, 4000)))
    both(T.AmplitudeToDB(top_db=80), spec, rtol=1e-4, atol=1e-3)
    both(T.ComputeDeltas(win_length=7), spec)
    feats = wave((2, 150, 13), seed=3)
    both(T.SlidingWindowCmn(cmn_window=40, min_cmn_window=15, norm_vars=True), feats)
    both(T.SlidingWindowCmn(cmn_window=40, center=True), feats)


def test_masking_same_masks_as_cpu():
    spec = T.Spectrogram(n_fft=128)(wave((3, 2, 3000), seed=2))

    def run(x):
        g = tc.Generator()
        g.manual_seed(5)
        x = T.FrequencyMasking(20, iid_masks=True, generator=g)(x)
        x = T.TimeMasking(10, generator=g)(x)
        return x

    close(run(spec.cuda()), run(spec), rtol=0, atol=0)


def test_inverse_transforms_match_cpu():
    x = wave((1, 4000), seed=1)
    complex_spec = T.Spectrogram(n_fft=256, power=None)(x)
    inv = T.InverseSpectrogram(n_fft=256)
    close(inv(complex_spec.cuda(), 4000), inv(complex_spec, 4000), atol=1e-4)
    mag = T.Spectrogram(n_fft=256)(x)
    both(T.GriffinLim(n_fft=256, n_iter=4, rand_init=False), mag, atol=1e-3)
    stretched = both(T.TimeStretch(n_freq=129, fixed_rate=1.3), complex_spec, atol=1e-3)
    assert stretched.shape[-1] == int(np.ceil(complex_spec.shape[-1] / 1.3))
    mel = T.MelScale(n_mels=16, sample_rate=16000, n_stft=129)(mag)
    both(T.InverseMelScale(n_stft=129, n_mels=16, max_iter=20), mel, rtol=1e-3, atol=1e-3)


CPU_ONLY = {
    "resample": lambda x: F.resample(x, 16000, 8000),
    "Resample": lambda x: T.Resample(16000, 8000)(x),
    "lfilter": lambda x: F.lfilter(x, tc.tensor([1.0, -0.5]).cuda(), tc.tensor([0.5, 0.5]).cuda()),
    "lowpass_biquad": lambda x: F.lowpass_biquad(x, 16000, 1000.0),
    "overdrive": lambda x: F.overdrive(x),
    "phaser": lambda x: F.phaser(x, 16000),
    "flanger": lambda x: F.flanger(x, 16000),
    "vad": lambda x: F.vad(x, 16000),
}


@pytest.mark.parametrize("name", sorted(CPU_ONLY))
def test_cpu_only_ops_raise_not_implemented(name):
    op = {"Resample": "resample", "lowpass_biquad": "lfilter"}.get(name, name)
    with pytest.raises(
        NotImplementedError, match=f"{op}: has a CPU kernel only, got a tensor on cuda"
    ):
        CPU_ONLY[name](wave((2, 4000)).cuda())


def test_cpp_pipeline_on_cuda_input():
    _C = pytest.importorskip("tensorcore._C")
    if not hasattr(_C, "_audio_pipeline"):
        pytest.skip("no audio pipeline runtime in this build")
    steps = [T.Fade(100, 100), T.MelSpectrogram(n_fft=256, n_mels=20), T.AmplitudeToDB()]
    pipe = _C._audio_pipeline.Pipeline.from_json(T.pipeline_json(steps))
    x = wave((2, 4000))
    close(pipe(x.cuda()), pipe(x), rtol=1e-4, atol=1e-3)
    resample = _C._audio_pipeline.Pipeline.from_json(T.pipeline_json([T.Resample(16000, 8000)]))
    with pytest.raises(NotImplementedError, match="resample: has a CPU kernel only"):
        resample(x.cuda())
