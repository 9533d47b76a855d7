"""Audio model benchmarks: tensorcore.audio.models vs torchaudio 0.13 in one run, same machine,
same threads, same weights (copied through a torch state dict).

Run: .venv/bin/python benchmarks/bench_audio_models.py [--threads N] [--reps R] [--quick]
     [--only wav2letter,convtasnet,wavernn_train,wavernn_infer] [--ref-frames F] [--amp]

Cases (the issue's targets; ratio = tensorcore time / torchaudio time, < 1: tensorcore faster):
  Wav2Letter, mfcc input (13 coefficients), batch 16 x 10 s (1000 frames): training step
      (forward, CTC loss, backward, SGD step)                                     target <= 1.0
  ConvTasNet default size, batch 4 x 4 s at 8 kHz: training step (forward, MSE to the sources,
      backward, SGD step) target <= 1.0; inference (no_grad forward)             target <= 0.9
  WaveRNN default size, batch 32, 5 hops of 275 samples: training step (forward, cross
      entropy, backward, SGD step)                                               target <= 1.0
  WaveRNN infer, 1 s of 22.05 kHz audio (80 frames), default sizes, 1 thread: samples/s
      unfolded and in fold mode; target >= 3x (unfolded) and >= 10x (fold) torchaudio's rate.
      torchaudio's loop is timed on the first --ref-frames frames (default 8 = 2200 steps) and
      compared as samples/s (its cost per sample does not depend on the length). The unfolded
      loop is also compared with the time the per-step matrix-vector products need when the
      same weights are streamed back to back by the same kernel (the machine's read bandwidth
      for this working set).
--quick shrinks every case (batch and length / 4) for a smoke run on a busy machine.
--amp runs the training steps' forward passes under CPU bfloat16 autocast in both libraries
(ConvTasNet's decoder in float32 in both, as torch 1.13's CPU autocast cannot run it otherwise).
Timings are medians of --reps runs after one warm-up run.
"""

import argparse
import io
import sys
import time

import numpy as np

import tensorcore as tc
import tensorcore.audio as ta
from _common import parse_bench_args, median_time

try:
    import torch
    import torchaudio
except Exception:  # pragma: no cover - reference absent
    torch = torchaudio = None


def fmt(t):
    return f"{t:.2f} s" if t >= 1 else f"{t * 1e3:.1f} ms"


def row(name, ours, ref, target=None):
    if AMP and "training" in name:
        name += ", bf16 autocast"
    ratio = f"{ours / ref:.2f}" if ref else "-"
    goal = f" (target <= {target})" if target is not None else ""
    print(f"| {name} | {fmt(ours)} | {fmt(ref) if ref else '-'} | {ratio}{goal} |", flush=True)


def copy_weights(ref_model, our_model):
    buf = io.BytesIO()
    torch.save(ref_model.state_dict(), buf)
    our_model.load_state_dict(tc.load(io.BytesIO(buf.getvalue())), strict=True)
    return our_model


AMP = False  # --amp: forward passes under CPU bfloat16 autocast in both libraries


def train_step(lib, model, loss_fn, inputs, lr=1e-3):
    opt = lib.optim.SGD(model.parameters(), lr=lr)

    def step():
        opt.zero_grad()
        with lib.autocast("cpu", dtype=lib.bfloat16, enabled=AMP):
            out = model(*inputs)
        loss = loss_fn(out.float())
        loss.backward()
        opt.step()

    return step


def float32_under_autocast(lib, module):
    """torch 1.13's CPU autocast leaves conv_transpose1d unlisted, and its float32 weight then
    refuses a bfloat16 input: ConvTasNet's decoder runs in float32 in both libraries (as the
    convtasnet pipeline does)."""
    forward = module.forward

    def float32_forward(x):
        with lib.autocast("cpu", enabled=False):
            return forward(x.float())

    module.forward = float32_forward


def bench_wav2letter(args, rng):
    batch, frames = (16, 1000) if not args.quick else (4, 250)
    feats = rng.standard_normal((batch, 13, frames)).astype(np.float32)
    out_frames = frames // 2
    targets = rng.integers(1, 40, (batch, 100 if not args.quick else 25))

    def make(lib, model, ctc):
        x = lib.from_numpy(feats.copy())
        tgt = lib.from_numpy(targets.copy())
        in_len = lib.full((batch,), out_frames, dtype=lib.int64)
        tgt_len = lib.full((batch,), targets.shape[1], dtype=lib.int64)

        def loss(log_probs):  # (batch, classes, frames) -> CTC wants (frames, batch, classes)
            return ctc(log_probs.permute(2, 0, 1), tgt, in_len, tgt_len)

        return train_step(lib, model, loss, [x])

    ours = ta.models.Wav2Letter(num_classes=40, input_type="mfcc", num_features=13)
    t_ours = None
    t_ref = None
    if torch is not None:
        ref = torchaudio.models.Wav2Letter(num_classes=40, input_type="mfcc", num_features=13)
        copy_weights(ref, ours)
        t_ref = median_time(make(torch, ref, torch.nn.CTCLoss()), args.reps)
    t_ours = median_time(make(tc, ours, tc.nn.CTCLoss()), args.reps)
    row(f"Wav2Letter mfcc training step, batch {batch} x {frames} frames", t_ours, t_ref, 1.0)


def bench_convtasnet(args, rng):
    batch, n = (4, 32000) if not args.quick else (1, 8000)
    mix = rng.standard_normal((batch, 1, n)).astype(np.float32)
    src = rng.standard_normal((batch, 2, n)).astype(np.float32)
    ours = ta.models.ConvTasNet()
    ref = None
    if torch is not None:
        ref = torchaudio.models.ConvTasNet()
        copy_weights(ref, ours)

    if AMP:
        float32_under_autocast(tc, ours.decoder)
        if ref is not None:
            float32_under_autocast(torch, ref.decoder)

    def make(lib, model):
        x, y = lib.from_numpy(mix.copy()), lib.from_numpy(src.copy())
        return train_step(lib, model, lambda out: ((out - y) ** 2).mean(), [x])

    t_ref = None
    if ref is not None:
        try:
            t_ref = median_time(make(torch, ref), args.reps)
        except RuntimeError as e:  # torch 1.13's CPU autocast: group_norm on bfloat16 input
            print(f"torchaudio's ConvTasNet step fails here: {e}", file=sys.stderr)
    t_ours = median_time(make(tc, ours), args.reps)
    row(f"ConvTasNet training step, batch {batch} x {n / 8000:g} s at 8 kHz", t_ours, t_ref, 1.0)

    def infer(lib, model):
        x = lib.from_numpy(mix.copy())

        def run():
            with lib.no_grad():
                model(x)

        return run

    if ref is not None:
        ref.eval()
    ours.eval()
    t_ref = median_time(infer(torch, ref), args.reps) if ref is not None else None
    t_ours = median_time(infer(tc, ours), args.reps)
    row(f"ConvTasNet inference, batch {batch} x {n / 8000:g} s at 8 kHz", t_ours, t_ref, 0.9)


WAVERNN = dict(upsample_scales=[5, 5, 11], n_classes=256, hop_length=275)


def bench_wavernn_train(args, rng):
    batch, hops = (32, 5) if not args.quick else (8, 5)
    frames = hops + 4  # kernel_size 5 eats 4 frames
    spec = rng.random((batch, 1, 128, frames)).astype(np.float32)
    labels = rng.integers(0, 256, (batch, hops * 275))
    wave = (2 * labels / 255.0 - 1).astype(np.float32)[:, None, :]
    ours = ta.models.WaveRNN(**WAVERNN)
    ref = None
    if torch is not None:
        ref = torchaudio.models.WaveRNN(**WAVERNN)
        copy_weights(ref, ours)

    def make(lib, model):
        x, s, y = (
            lib.from_numpy(wave.copy()),
            lib.from_numpy(spec.copy()),
            lib.from_numpy(labels.copy()),
        )
        ce = lib.nn.CrossEntropyLoss()
        return train_step(
            lib, model, lambda out: ce(out.squeeze(1).reshape(-1, 256), y.reshape(-1)), [x, s]
        )

    t_ref = median_time(make(torch, ref), args.reps) if ref is not None else None
    t_ours = median_time(make(tc, ours), args.reps)
    row(f"WaveRNN training step, batch {batch} x {hops} hops", t_ours, t_ref, 1.0)


def bench_wavernn_infer(args, rng):
    # One thread for both, as the issue asks (the sampling loop is latency-bound).
    tc.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
    frames = 80 if not args.quick else 20
    spec = rng.random((1, 128, frames)).astype(np.float32)
    ours = ta.models.WaveRNN(**WAVERNN).eval()
    ref = None
    if torch is not None:
        torch.manual_seed(0)
        ref = torchaudio.models.WaveRNN(**WAVERNN).eval()
        copy_weights(ref, ours)
    x = tc.from_numpy(spec)
    samples = frames * 275
    reps = max(1, args.reps // 2)
    t_unfolded = median_time(lambda: ours.infer(x), reps)
    t_fold = median_time(lambda: ours.infer(x, fold=True), reps)
    t_fold_short = median_time(lambda: ours.infer(x, fold=True, target=2750, overlap=275), reps)
    rate_ref = None
    if ref is not None:
        ref_frames = min(frames, args.ref_frames)
        xr = torch.from_numpy(spec[:, :, :ref_frames].copy())

        def run_ref():
            with torch.no_grad():
                ref.infer(xr)

        rate_ref = ref_frames * 275 / median_time(run_ref, 1)
    print(
        f"\nWaveRNN infer, {samples} samples ({samples / 22050:.2f} s at 22.05 kHz), default sizes, 1 thread"
    )
    print("| mode | samples/s | x torchaudio's rate |\n|---|---|---|")
    if rate_ref:
        print(
            f"| torchaudio infer (first {min(frames, args.ref_frames)} frames) | {rate_ref:.0f} | 1.00 |"
        )
    for name, t, goal in (
        ("unfolded", t_unfolded, 3),
        ("fold, target 11000, overlap 550", t_fold, 10),
        ("fold, target 2750, overlap 275", t_fold_short, 10),
    ):
        rate = samples / t
        speedup = f"{rate / rate_ref:.1f} (target >= {goal})" if rate_ref else "-"
        print(f"| {name} | {rate:.0f} | {speedup} |")

    # What the unfolded step's products cost when the same weights stream back to back.
    R, Fc = ours.n_rnn, ours.fc1.weight.shape[0]
    with tc.no_grad():
        mats = [
            ours.rnn1.weight_hh_l0,
            ours.rnn2.weight_ih_l0[:, :R],
            ours.rnn2.weight_hh_l0,
            ours.fc1.weight[:, :R],
            ours.fc2.weight[:, :Fc],
            ours.fc3.weight,
        ]
        mats = [m.detach().contiguous() for m in mats]
    vecs = [tc.randn(1, m.shape[1]) for m in mats]
    linear = tc._C._models_audio.small_batch_linear
    step_bytes = sum(m.numel() * 4 for m in mats)

    def products():
        for m, v in zip(mats, vecs):
            linear(v, m)

    # Pairs measured back to back (a short unfolded run, then the products alone), so load
    # changes on a shared machine hit both; the median pair is reported.
    short = x[:, :, :8]
    pairs = []
    for _ in range(3):
        t0 = time.perf_counter()
        ours.infer(short)
        t_step = (time.perf_counter() - t0) / (8 * 275)
        t0 = time.perf_counter()
        for _ in range(100):
            products()
        pairs.append((t_step, (time.perf_counter() - t0) / 100))
    t_step, t_products = sorted(pairs, key=lambda p: p[1] / p[0])[1]
    print(
        f"\nper unfolded step: {t_step * 1e6:.0f} us; its matrix-vector products read "
        f"{step_bytes / 1e6:.1f} MB of weights, which alone take {t_products * 1e6:.0f} us "
        f"streamed back to back ({step_bytes / t_products / 1e9:.1f} GB/s read bandwidth); "
        f"the step runs at {t_products / t_step * 100:.0f}% of that bound "
        f"({step_bytes / t_step / 1e9:.1f} GB/s effective)"
    )
    print(
        "(the conditioning parts of fc, GRU1's input product and the aux products are computed "
        "ahead as batched products and are not in the per-step bytes)"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ref-frames", type=int, default=8)
    parser.add_argument("--only", default="wav2letter,convtasnet,wavernn_train,wavernn_infer")
    parser.add_argument(
        "--amp", action="store_true", help="training steps under CPU bfloat16 autocast (both)"
    )
    args = parse_bench_args(parser, torch, 0)
    global AMP
    AMP = args.amp
    if torch is None:
        print("torch/torchaudio not installed: tensorcore times only", file=sys.stderr)
    rng = np.random.default_rng(0)
    only = set(args.only.split(","))
    print("| case | tensorcore | torchaudio | ratio |\n|---|---|---|---|")
    if "wav2letter" in only:
        bench_wav2letter(args, rng)
    if "convtasnet" in only:
        bench_convtasnet(args, rng)
    if "wavernn_train" in only:
        bench_wavernn_train(args, rng)
    if "wavernn_infer" in only:
        bench_wavernn_infer(args, rng)


if __name__ == "__main__":
    main()
