"""FFT benchmarks: tensorcore.fft vs torch.fft vs numpy.fft on the same machine in one run.

Run: .venv/bin/python benchmarks/bench_fft.py [--threads N] [--quick] [--sizes 1009,10007] [--sweep]
--sweep: batched rows of non-smooth lengths (~200K points per call) instead of the main table.
Prints the best time of each library and the ratio tc/torch (< 1 means tensorcore is faster).
numpy.fft is always single-threaded (pocketfft).
"""

import argparse

import numpy as np

import tensorcore as tc
from _common import apply_threads, run_times

try:
    import torch
except Exception:  # pragma: no cover
    torch = None


def median_time(fn, min_time=0.25, max_runs=500):
    # The minimum is the least noisy estimate on a shared machine.
    return min(run_times(fn, min_time, 5, max_runs))


def fmt(t):
    return f"{t * 1e6:10.1f}us" if t < 1e-3 else f"{t * 1e3:10.2f}ms"


# Non-smooth lengths: primes (p-1 smooth, Rader candidates: 1009, 4093, 8191, 65537; 10007 has
# 10006 = 2 * 5003, so Bluestein) and powers of 5.
ODD_SIZES = [1009, 4093, 8191, 10007, 65537, 3125, 15625]


def cases(quick, sizes=None):
    only_sizes = sizes is not None
    if sizes is None:
        sizes = [2**k for k in range(10, 21)] + [1000, 4097, 44100] + ODD_SIZES
        if quick:
            sizes = [1024, 4096, 2**16, 2**20, 1000, 4097, 44100] + ODD_SIZES
    rng = np.random.default_rng(0)
    for n in sizes:
        xr = rng.standard_normal(n).astype(np.float32)
        xc = (xr + 1j * rng.standard_normal(n)).astype(np.complex64)
        yield f"fft  c64 n={n}", "fft", xc
        yield f"rfft f32 n={n}", "rfft", xr
    if only_sizes:
        return
    xb = rng.standard_normal((64, 4096)).astype(np.float32)
    yield "fft  c64 64x4096", "fft", (xb + 1j * xb).astype(np.complex64)
    yield "rfft f32 64x4096", "rfft", xb
    yield "irfft c64 64x2049", "irfft", np.fft.rfft(xb).astype(np.complex64)
    img = rng.standard_normal((1024, 1024)).astype(np.float32)
    yield "fft2 c64 1024x1024", "fft2", (img + 1j * img).astype(np.complex64)
    yield "rfft2 f32 1024x1024", "rfft2", img
    yield "fft dim0 c64 1024x1024", ("fft", {"dim": 0}), (img + 1j * img).astype(np.complex64)
    yield (
        "rfft2 f32 16x3x224x224",
        "rfft2",
        rng.standard_normal((16, 3, 224, 224)).astype(np.float32),
    )
    xd = rng.standard_normal(2**16)
    yield "fft  c128 n=65536", "fft", (xd + 1j * xd)
    yield "rfft f64 n=65536", "rfft", xd


SWEEP_SIZES = [
    37,
    101,
    509,
    1009,
    1021,
    2039,
    4093,
    4097,
    8191,
    10007,
    65537,
    243,
    625,
    3125,
    15625,
    2187,
    3000,
]


def sweep(sizes):
    """Rows of length n batched to ~200K points: fft (c64) and rfft (f32) vs torch."""
    rng = np.random.default_rng(0)
    print(f"{'case':24s} {'tensorcore':>12s} {'torch':>12s} {'tc/torch':>9s}")
    for n in sizes:
        b = max(1, 200000 // n)
        xr = rng.standard_normal((b, n)).astype(np.float32)
        xc = (xr + 1j * rng.standard_normal((b, n))).astype(np.complex64)
        for fn, x in (("fft", xc), ("rfft", xr)):
            t_tc = median_time(lambda a=tc.from_numpy(x): getattr(tc.fft, fn)(a))
            t_th = median_time(lambda a=torch.from_numpy(x): getattr(torch.fft, fn)(a))
            print(
                f"{fn + ' ' + str(b) + 'x' + str(n):24s} {fmt(t_tc)} {fmt(t_th)} {t_tc / t_th:9.2f}"
            )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=0, help="0 = library defaults")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sizes", default=None, help="comma-separated lengths: only fft/rfft of these")
    ap.add_argument("--sweep", action="store_true", help="batched non-smooth lengths")
    args = ap.parse_args()
    apply_threads(args.threads, torch)
    if args.sweep:
        sweep([int(v) for v in args.sizes.split(",")] if args.sizes else SWEEP_SIZES)
        return
    print(
        f"{'case':24s} {'tensorcore':>12s} {'torch':>12s} {'numpy':>12s} {'tc/torch':>9s} {'tc/numpy':>9s}"
    )
    sizes = [int(v) for v in args.sizes.split(",")] if args.sizes else None
    for name, fn, x in cases(args.quick, sizes):
        fn, kw = fn if isinstance(fn, tuple) else (fn, {})
        np_kw = {"axis": kw["dim"]} if "dim" in kw else {}
        t_tc = median_time(lambda a=tc.from_numpy(x): getattr(tc.fft, fn)(a, **kw))
        t_np = median_time(lambda: getattr(np.fft, fn)(x, **np_kw))
        t_th = (
            median_time(lambda a=torch.from_numpy(x): getattr(torch.fft, fn)(a, **kw))
            if torch
            else float("nan")
        )
        print(
            f"{name:24s} {fmt(t_tc)} {fmt(t_th)} {fmt(t_np)} {t_tc / t_th:9.2f} {t_tc / t_np:9.2f}"
        )
    if sizes:
        return
    # stft: 60 s of 16 kHz audio, n_fft=400, hop=160, hann window (torchaudio's Spectrogram set-up).
    audio = np.random.default_rng(1).standard_normal(16000 * 60).astype(np.float32)
    a_tc = tc.from_numpy(audio)
    w_tc = tc.hann_window(400)
    t_tc = median_time(lambda: tc.stft(a_tc, 400, 160, window=w_tc, return_complex=True))
    if torch is not None:
        a_th = torch.from_numpy(audio)
        w_th = torch.hann_window(400)
        t_th = median_time(lambda: torch.stft(a_th, 400, 160, window=w_th, return_complex=True))
    else:
        t_th = float("nan")
    print(f"{'stft 60s@16k n_fft=400':24s} {fmt(t_tc)} {fmt(t_th)} {'':>12s} {t_tc / t_th:9.2f}")
    b_tc = tc.stft(a_tc, 400, 160, window=w_tc, return_complex=True)
    t_tc = median_time(lambda: tc.istft(b_tc, 400, 160, window=w_tc))
    if torch is not None:
        b_th = torch.stft(a_th, 400, 160, window=w_th, return_complex=True)
        t_th = median_time(lambda: torch.istft(b_th, 400, 160, window=w_th))
    print(f"{'istft 60s@16k n_fft=400':24s} {fmt(t_tc)} {fmt(t_th)} {'':>12s} {t_tc / t_th:9.2f}")


if __name__ == "__main__":
    main()
