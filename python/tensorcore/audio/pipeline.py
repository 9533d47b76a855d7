"""Saving audio front ends for the C++ runtime (tc::audio::transforms::Pipeline).

A pipeline is a Compose, an nn.Sequential or a list of transforms. The file is JSON:
{"format": "tensorcore.audio.transforms", "version": 1, "transforms": [{"name", "params"}]}.
Composite transforms are stored as the steps they run, so the C++ side needs few kernels:
MelSpectrogram -> Spectrogram + MelScale; MFCC -> Spectrogram + MelScale + AmplitudeToDB (or Log
when log_mels) + DCT; LFCC -> Spectrogram + LinearFilterbank + AmplitudeToDB (or Log) + DCT. Buffers (window, filter banks, DCT matrix) are stored by value, so C++
computes with exactly the same numbers.
"""

import json
import math

from . import transforms as _T

FORMAT = "tensorcore.audio.transforms"


def _values(t):
    return [float(v) for v in t.detach().numpy().astype("float64").ravel()]


def _matrix(name, m):
    rows, cols = (int(v) for v in m.shape)
    return {"name": name, "params": {"rows": rows, "cols": cols, "matrix": _values(m)}}


def _spectrogram(t):
    if getattr(t, "pad_mode", "reflect") not in ("reflect", "constant", "replicate", "circular"):
        raise ValueError(f"save_pipeline: Spectrogram pad_mode {t.pad_mode!r} is not supported")
    return {
        "name": "Spectrogram",
        "params": {
            "n_fft": int(t.n_fft),
            "win_length": int(t.win_length),
            "hop_length": int(t.hop_length),
            "pad": int(t.pad),
            "window": _values(t.window),
            "power": None if getattr(t, "power", None) is None else float(t.power),
            "normalized": t.normalized,
            "center": bool(t.center),
            "pad_mode": t.pad_mode,
            "onesided": bool(t.onesided),
        },
    }


def _amplitude_to_db(t):
    return {
        "name": "AmplitudeToDB",
        "params": {
            "multiplier": float(t.multiplier),
            "amin": float(t.amin),
            "db_multiplier": float(t.db_multiplier),
            "top_db": None if t.top_db is None else float(t.top_db),
        },
    }


def _steps(t):
    """The JSON steps of one transform (several for composites)."""
    if isinstance(t, (Compose, list, tuple)) or type(t).__name__ == "Sequential":
        out = []
        for sub in t.transforms if isinstance(t, Compose) else t:
            out += _steps(sub)
        return out
    if isinstance(t, _T.Spectrogram):
        return [_spectrogram(t)]
    if isinstance(t, _T.MelScale):
        return [_matrix("MelScale", t.fb)]
    if isinstance(t, _T.MelSpectrogram):
        return [_spectrogram(t.spectrogram), _matrix("MelScale", t.mel_scale.fb)]
    if isinstance(t, _T.MFCC):
        steps = _steps(t.MelSpectrogram)
        steps.append(
            {"name": "Log", "params": {"offset": 1e-6}}
            if t.log_mels
            else _amplitude_to_db(t.amplitude_to_DB)
        )
        return steps + [_matrix("DCT", t.dct_mat)]
    if isinstance(t, _T.LFCC):
        steps = [_spectrogram(t.Spectrogram), _matrix("LinearFilterbank", t.filter_mat)]
        steps.append(
            {"name": "Log", "params": {"offset": 1e-6}}
            if t.log_lf
            else _amplitude_to_db(t.amplitude_to_DB)
        )
        return steps + [_matrix("DCT", t.dct_mat)]
    if isinstance(t, _T.AmplitudeToDB):
        return [_amplitude_to_db(t)]
    if isinstance(t, _T.Vol):
        # the factor Vol.forward multiplies by, computed here exactly as there
        if t.gain_type == "amplitude":
            factor = float(t.gain)
        else:
            db = t.gain if t.gain_type == "db" else 10 * math.log10(t.gain)
            factor = None if db == 0 else 10 ** (db / 20)
        return [{"name": "Vol", "params": {"factor": factor}}]
    if isinstance(t, _T.ComputeDeltas):
        return [
            {"name": "ComputeDeltas", "params": {"win_length": int(t.win_length), "mode": t.mode}}
        ]
    if isinstance(t, _T.Fade):
        return [
            {
                "name": "Fade",
                "params": {
                    "fade_in_len": int(t.fade_in_len),
                    "fade_out_len": int(t.fade_out_len),
                    "fade_shape": t.fade_shape,
                },
            }
        ]
    if isinstance(t, _T.SlidingWindowCmn):
        return [
            {
                "name": "SlidingWindowCmn",
                "params": {
                    "cmn_window": int(t.cmn_window),
                    "min_cmn_window": int(t.min_cmn_window),
                    "center": bool(t.center),
                    "norm_vars": bool(t.norm_vars),
                },
            }
        ]
    if isinstance(t, _T.SpectralCentroid):
        # fmax keeps Python's type (sample_rate // 2): linspace's end is an int or a float there too
        return [
            {
                "name": "SpectralCentroid",
                "params": {
                    "n_fft": int(t.n_fft),
                    "win_length": int(t.win_length),
                    "hop_length": int(t.hop_length),
                    "pad": int(t.pad),
                    "window": _values(t.window),
                    "fmax": t.sample_rate // 2,
                },
            }
        ]
    if isinstance(t, _T.InverseSpectrogram):
        step = _spectrogram(t)  # the same fields; power is unused
        step["name"] = "InverseSpectrogram"
        return [step]
    if isinstance(t, _T.InverseMelScale):
        return [
            {
                "name": "InverseMelScale",
                "params": {
                    "n_stft": int(t.fb.shape[0]),
                    "n_mels": int(t.fb.shape[1]),
                    "fb": _values(t.fb),
                    "max_iter": int(t.max_iter),
                    "tolerance_loss": float(t.tolerance_loss),
                    "tolerance_change": float(t.tolerance_change),
                    "lr": float(t.sgdargs.get("lr", 0.1)),
                    "momentum": float(t.sgdargs.get("momentum", 0.0)),
                },
            }
        ]
    if isinstance(t, _T.GriffinLim):
        return [
            {
                "name": "GriffinLim",
                "params": {
                    "n_fft": int(t.n_fft),
                    "win_length": int(t.win_length),
                    "hop_length": int(t.hop_length),
                    "window": _values(t.window),
                    "power": float(t.power),
                    "n_iter": int(t.n_iter),
                    "momentum": float(t.momentum),
                    "length": None if t.length is None else int(t.length),
                    "rand_init": bool(t.rand_init),
                },
            }
        ]
    if isinstance(t, _T.TimeStretch):
        if t.fixed_rate is None:
            raise ValueError(
                "save_pipeline: TimeStretch needs a fixed_rate to be saved (the C++ "
                "pipeline has no per-call rate)"
            )
        return [
            {
                "name": "TimeStretch",
                "params": {
                    "rate": float(t.fixed_rate),
                    "n_freq": int(t.phase_advance.shape[0]),
                    "phase_advance": _values(t.phase_advance),
                },
            }
        ]
    if isinstance(t, _T.Resample):
        return [
            {
                "name": "Resample",
                "params": {
                    "orig_freq": t.orig_freq,
                    "new_freq": t.new_freq,
                    "lowpass_filter_width": int(t.lowpass_filter_width),
                    "rolloff": float(t.rolloff),
                    "resampling_method": t.resampling_method,
                    "beta": None if t.beta is None else float(t.beta),
                },
            }
        ]
    if isinstance(t, (_T.MuLawEncoding, _T.MuLawDecoding)):
        return [
            {
                "name": type(t).__name__,
                "params": {"quantization_channels": int(t.quantization_channels)},
            }
        ]
    if isinstance(t, (_T.FrequencyMasking, _T.TimeMasking)):
        return [
            {
                "name": type(t).__name__,
                "params": {
                    "mask_param": int(t.mask_param),
                    "axis": int(t.axis),
                    "iid_masks": bool(t.iid_masks),
                    "p": float(t.p),
                    "mask_value": 0.0,
                },
            }
        ]
    raise ValueError(
        f"save_pipeline: {type(t).__name__} is not supported by the C++ audio "
        "pipeline (supported: Spectrogram, MelScale, MelSpectrogram, MFCC, LFCC, "
        "AmplitudeToDB, Resample, MuLawEncoding, MuLawDecoding, FrequencyMasking, "
        "TimeMasking, Vol, ComputeDeltas, Fade, SlidingWindowCmn, "
        "SpectralCentroid, TimeStretch (fixed_rate), InverseSpectrogram, GriffinLim, InverseMelScale, and Compose / nn.Sequential / lists of "
        "them)"
    )


def pipeline_json(transforms):
    """The JSON text the C++ Pipeline loads."""
    return json.dumps({"format": FORMAT, "version": 1, "transforms": _steps(transforms)})


def save_pipeline(transforms, path):
    """Writes `transforms` (Compose, nn.Sequential or list) to `path` for
    tc::audio::transforms::Pipeline::load."""
    text = pipeline_json(transforms)
    with open(path, "w") as f:
        f.write(text)


class Compose:
    """Applies transforms in order (like torchvision's Compose); save(path) writes the pipeline
    for the C++ runtime."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, x):
        import tensorcore as tc

        if isinstance(x, tc.Tensor) and tc.jit.is_tracing():
            # One native node running the saved pipeline (the C++ Pipeline), so a traced graph
            # handles any waveform length as this pipeline would.
            return tc._C._audio_pipeline.apply_pipeline(pipeline_json(self.transforms), x)
        for t in self.transforms:
            x = t(x)
        return x

    def save(self, path):
        save_pipeline(self, path)

    def __repr__(self):
        inner = "".join(f"\n    {t!r}" for t in self.transforms)
        return f"Compose({inner}\n)"
