"""Audio benchmarks: tensorcore.audio vs torchaudio in one run, same machine, same threads.

Run: .venv/bin/python benchmarks/bench_audio.py [--threads N] [--minutes M]
Cases: Resample 48k->16k and 44.1k->16k over M minutes (default 10) of audio, load of 1-minute
WAV / FLAC / MP3 files (made with the sox CLI), and MelSpectrogram(n_fft=400, hop=160, n_mels=80)
over M minutes of 16 kHz audio when tensorcore has the FFT. Prints medians and tc/torchaudio
ratios (< 1: tensorcore is faster).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile

import numpy as np

import tensorcore as tc
import tensorcore.audio as ta
from _common import parse_bench_args, run_times

try:
    import torch
    import torchaudio
except Exception:  # pragma: no cover - reference absent
    torch = torchaudio = None


def median_time(fn, min_time=1.0, min_runs=3, max_runs=50):
    return statistics.median(run_times(fn, min_time, min_runs, max_runs))


def fmt(t):
    return f"{t * 1e3:.1f} ms" if t >= 1e-3 else f"{t * 1e6:.0f} us"


def row(name, ours, ref):
    ratio = f"{ours / ref:.2f}" if ref else "-"
    print(f"| {name} | {fmt(ours)} | {fmt(ref) if ref else '-'} | {ratio} |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=10.0)
    args = parse_bench_args(parser, torch, 0)
    print("| case | tensorcore | torchaudio | ratio |\n|---|---|---|---|")
    rng = np.random.default_rng(0)

    for sr in (48000, 44100):
        x = (0.1 * rng.standard_normal((1, int(sr * 60 * args.minutes)))).astype(np.float32)
        xt = tc.from_numpy(x)
        ours = median_time(lambda: ta.functional.resample(xt, sr, 16000))
        ref = None
        if torchaudio is not None:
            xr = torch.from_numpy(x)
            resampler = torchaudio.transforms.Resample(
                sr, 16000
            )  # kernel precomputed, its fast path
            ref = median_time(lambda: resampler(xr))
        row(
            f"Resample {sr // 1000 if sr % 1000 == 0 else sr / 1000}k->16k, {args.minutes:g} min mono",
            ours,
            ref,
        )

    if shutil.which("sox"):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src.wav")
            subprocess.run(
                [
                    "sox",
                    "-n",
                    "-r",
                    "44100",
                    "-c",
                    "2",
                    "-b",
                    "16",
                    src,
                    "synth",
                    "60",
                    "sine",
                    "200-2000",
                    "pinknoise",
                    "gain",
                    "-6",
                ],
                check=True,
            )
            for ext, opts in (("wav", []), ("flac", []), ("mp3", [])):
                path = os.path.join(d, "one_minute." + ext)
                subprocess.run(["sox", src, *opts, path], check=True)
                ours = median_time(lambda: ta.load(path))
                ref = median_time(lambda: torchaudio.load(path)) if torchaudio else None
                row(f"load 1-minute 44.1k stereo {ext.upper()}", ours, ref)

    spectrogram = getattr(getattr(ta, "transforms", None), "MelSpectrogram", None)
    if spectrogram is not None:
        x = (0.1 * rng.standard_normal((1, int(16000 * 60 * args.minutes)))).astype(np.float32)
        mel = spectrogram(sample_rate=16000, n_fft=400, hop_length=160, n_mels=80)
        xt = tc.from_numpy(x)
        ours = median_time(lambda: mel(xt))
        ref = None
        if torchaudio is not None:
            mel_ref = torchaudio.transforms.MelSpectrogram(
                sample_rate=16000, n_fft=400, hop_length=160, n_mels=80
            )
            xr = torch.from_numpy(x)
            ref = median_time(lambda: mel_ref(xr))
        row(f"MelSpectrogram(400, 160, 80), {args.minutes:g} min 16 kHz", ours, ref)
        melkw = {"n_fft": 400, "hop_length": 160, "n_mels": 80}
        mfcc = ta.transforms.MFCC(sample_rate=16000, n_mfcc=40, melkwargs=melkw)
        ours = median_time(lambda: mfcc(xt))
        ref = None
        if torchaudio is not None:
            mfcc_ref = torchaudio.transforms.MFCC(sample_rate=16000, n_mfcc=40, melkwargs=melkw)
            ref = median_time(lambda: mfcc_ref(xr))
        row(f"MFCC(40, mel 400/160/80), {args.minutes:g} min 16 kHz", ours, ref)
        # The same MFCC saved and run by the C++ pipeline (tc::audio::transforms::Pipeline).
        from tensorcore import _C

        if hasattr(_C, "_audio_pipeline"):
            cpp = _C._audio_pipeline.Pipeline.from_json(ta.transforms.pipeline_json([mfcc]))
            ours = median_time(lambda: cpp(xt))
            row(f"MFCC via C++ pipeline, {args.minutes:g} min 16 kHz", ours, ref)
    else:
        print("| MelSpectrogram | needs tensorcore.fft (not built yet) | - | - |")


if __name__ == "__main__":
    main()
