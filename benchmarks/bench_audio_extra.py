"""The newer torchaudio 0.13 functions over tensorcore vs torchaudio, in one process.

Run: .venv/bin/python benchmarks/bench_audio_extra.py [--threads N] [--repeats R]
Cases: rnnt_loss forward + backward (batch 8, 150 frames, 40 labels, 256 classes, varying
lengths), loudness of 10 s of 16 kHz stereo, pitch_shift of 2 s at 16 kHz by 4 steps, and
MVDR (ref_channel) on a 6-channel 257 x 200 spectrum. Each repeat times both libraries back to
back (interleaved); prints the medians and the tc/torchaudio ratio (< 1: tensorcore faster).
"""

import argparse
import statistics
import time

import numpy as np

import tensorcore as tc
import tensorcore.audio.functional as F
import tensorcore.audio.transforms as T
from _common import parse_bench_args

try:
    import torch
    import torchaudio.functional as TF
    import torchaudio.transforms as TT
except Exception:  # pragma: no cover - reference absent
    torch = TF = TT = None


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def compare(name, ours, ref, repeats):
    ours()
    if ref is not None:
        ref()
    t_ours, t_ref = [], []
    for _ in range(repeats):
        t_ours.append(timed(ours))
        if ref is not None:
            t_ref.append(timed(ref))
    a = statistics.median(t_ours)
    b = statistics.median(t_ref) if t_ref else None
    ratio = f"{a / b:.2f}" if b else "-"
    ref_text = f"{b * 1e3:.1f} ms" if b else "-"
    print(f"| {name} | {a * 1e3:.1f} ms | {ref_text} | {ratio} |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    args = parse_bench_args(parser, torch, 0)
    print("| case | tensorcore | torchaudio | ratio |\n|---|---|---|---|")
    rng = np.random.default_rng(0)

    batch, frames, labels, classes = 8, 150, 40, 256
    logits = rng.standard_normal((batch, frames, labels + 1, classes)).astype(np.float32)
    targets = rng.integers(1, classes, (batch, labels)).astype(np.int32)
    t_len = np.array([frames] + list(rng.integers(frames // 2, frames, batch - 1)), np.int32)
    u_len = np.array([labels] + list(rng.integers(labels // 2, labels, batch - 1)), np.int32)

    def rnnt_ours():
        x = tc.tensor(logits, requires_grad=True)
        F.rnnt_loss(x, *[tc.tensor(a) for a in (targets, t_len, u_len)], blank=0).backward()

    def rnnt_ref():
        x = torch.tensor(logits, requires_grad=True)
        TF.rnnt_loss(x, *[torch.tensor(a) for a in (targets, t_len, u_len)], blank=0).backward()

    compare("rnnt_loss fwd+bwd 8x150x41x256", rnnt_ours, rnnt_ref if TF else None, args.repeats)

    wave = (0.1 * rng.standard_normal((2, 160000))).astype(np.float32)
    w_tc = tc.tensor(wave)
    w_ref = torch.tensor(wave) if torch else None
    compare(
        "loudness 2 x 10 s @16k",
        lambda: F.loudness(w_tc, 16000),
        (lambda: TF.loudness(w_ref, 16000)) if TF else None,
        args.repeats,
    )
    short = w_tc[:, :32000].contiguous()
    short_ref = w_ref[:, :32000].contiguous() if torch else None
    # the transforms precompute the resampling kernel (torchaudio builds it per call otherwise)
    shift = T.PitchShift(16000, 4)
    shift_ref = TT.PitchShift(16000, 4) if TT else None
    if shift_ref is not None:
        shift_ref(short_ref)
    compare(
        "PitchShift 2 x 2 s @16k, +4 steps",
        lambda: shift(short),
        (lambda: shift_ref(short_ref)) if TT else None,
        args.repeats,
    )

    spec = (rng.standard_normal((6, 257, 200)) + 1j * rng.standard_normal((6, 257, 200))).astype(
        np.complex64
    )
    mask_s = rng.random((257, 200)).astype(np.float32)
    mask_n = 1 - mask_s
    mvdr, mvdr_ref = T.MVDR(), (TT.MVDR() if TT else None)
    args_tc = [tc.tensor(a) for a in (spec, mask_s, mask_n)]
    args_ref = [torch.tensor(a) for a in (spec, mask_s, mask_n)] if torch else None
    compare(
        "MVDR ref_channel 6 ch x 257 x 200",
        lambda: mvdr(*args_tc),
        (lambda: mvdr_ref(*args_ref)) if TT else None,
        args.repeats,
    )


if __name__ == "__main__":
    main()
