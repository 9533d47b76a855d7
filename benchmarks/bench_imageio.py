"""Image IO: tensorcore.vision.io vs torchvision.io and PIL, in one run.

Run: .venv/bin/python benchmarks/bench_imageio.py [--batch 64] [--threads 1,2,all] [--batch-only]
     [--picture P]
Cases: single-thread decode of a 1920x1080 4:2:0 q90 JPEG and of a 1920x1080 RGB PNG (MP/s),
JPEG/PNG encode, and batched decode of `--batch` JPEGs against the thread count. The picture
is ImageMagick's plasma fractal (photo-like texture) when `convert` exists, else a synthetic
gradient with noise. Ratios are time(tc) / time(reference): below 1 means tensorcore is faster.
"""

import argparse
import io
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import tensorcore as tc
from tensorcore.vision import io as tcio

try:
    import torch
    import torchvision.io as tvio
except Exception:  # pragma: no cover
    torch = tvio = None
try:
    from PIL import Image
except Exception:  # pragma: no cover
    Image = None

W, H = 1920, 1080


CPU_TIMES = {}


def median_time(fn, min_time=1.0, min_runs=5, max_runs=500):
    """Median wall time; the median CPU time of the same runs goes to CPU_TIMES[fn] (on a
    shared machine CPU time shows the work done when wall time mostly shows the contention)."""
    fn()
    times, cpu = [], []
    start = time.perf_counter()
    while (time.perf_counter() - start < min_time or len(times) < min_runs) and len(
        times
    ) < max_runs:
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    CPU_TIMES["last"] = statistics.median(cpu)
    return statistics.median(times)


def timed(fn):
    wall = median_time(fn)
    return wall, CPU_TIMES["last"]


def picture(path=None):
    if path:
        return np.asarray(Image.open(path).convert("RGB"))
    if shutil.which("convert"):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.png")
            subprocess.run(
                [
                    "convert",
                    "-size",
                    f"{W}x{H}",
                    "-seed",
                    "3",
                    "plasma:fractal",
                    "-blur",
                    "0x1",
                    path,
                ],
                check=True,
            )
            return np.asarray(Image.open(path).convert("RGB"))
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:H, 0:W]
    img = np.stack([x * 255 // W, y * 255 // H, (x + y) * 255 // (W + H)], -1)
    return np.clip(img + rng.integers(-8, 9, img.shape), 0, 255).astype(np.uint8)


def row(name, times, mp):
    """times: lib -> (wall, cpu) seconds. Prints wall ms, MP/s and both ratios."""
    ours_wall, ours_cpu = times["tensorcore"]
    cells = [f"{name:<28}"]
    for lib, (wall, cpu) in times.items():
        cells.append(f"{lib} {wall * 1e3:7.2f} ms ({mp / wall:6.1f} MP/s, cpu {cpu * 1e3:7.2f} ms)")
    for lib, (wall, cpu) in times.items():
        if lib != "tensorcore":
            cells.append(f"tc/{lib} wall {ours_wall / wall:4.2f} cpu {ours_cpu / cpu:4.2f}")
    print(" | ".join(cells))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument(
        "--threads",
        default="1,2,all",
        help="thread counts for the batched decode; 'all' = every core",
    )
    ap.add_argument(
        "--batch-only",
        action="store_true",
        help="only the batched decode (thread scaling on a many-core machine)",
    )
    ap.add_argument("--picture", help="use this image (1920x1080) instead of generating one")
    args = ap.parse_args()
    if Image is None:
        raise SystemExit("PIL is needed to make the test pictures")
    tc.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
    img = picture(args.picture)
    mp = W * H / 1e6

    def save(fmt, **kw):
        b = io.BytesIO()
        Image.fromarray(img).save(b, fmt, **kw)
        return b.getvalue()

    jpeg = save("JPEG", quality=90, subsampling=2)
    png = save("PNG", compress_level=6)
    print(
        f"picture {W}x{H}: JPEG q90 4:2:0 {len(jpeg)} bytes, PNG {len(png)} bytes; "
        f"cores {os.cpu_count()}"
    )
    tj = tc.from_numpy(np.frombuffer(jpeg, np.uint8).copy())
    tp = tc.from_numpy(np.frombuffer(png, np.uint8).copy())
    refs = {}
    if tvio is not None:
        refs["torchvision"] = (
            torch.from_numpy(np.frombuffer(jpeg, np.uint8).copy()),
            torch.from_numpy(np.frombuffer(png, np.uint8).copy()),
        )

    if args.batch_only:
        batched(args, tj, refs, mp)
        return

    # Decode (single thread). PIL decodes to H x W x C (np.asarray forces the decode).
    times = {"tensorcore": timed(lambda: tcio.decode_jpeg(tj))}
    if "torchvision" in refs:
        times["torchvision"] = timed(lambda: tvio.decode_jpeg(refs["torchvision"][0]))
    times["PIL"] = timed(lambda: np.asarray(Image.open(io.BytesIO(jpeg))))
    row("decode JPEG 1080p q90 4:2:0", times, mp)

    times = {"tensorcore": timed(lambda: tcio.decode_png(tp))}
    if "torchvision" in refs:
        times["torchvision"] = timed(lambda: tvio.decode_png(refs["torchvision"][1]))
    times["PIL"] = timed(lambda: np.asarray(Image.open(io.BytesIO(png))))
    row("decode PNG 1080p RGB", times, mp)

    # Encode from a planar C x H x W tensor (torchvision's input layout).
    chw = tc.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
    times = {"tensorcore": timed(lambda: tcio.encode_jpeg(chw, 90))}
    if "torchvision" in refs:
        tchw = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
        times["torchvision"] = timed(lambda: tvio.encode_jpeg(tchw, 90))
    pil_img = Image.fromarray(img)
    times["PIL"] = timed(lambda: pil_img.save(io.BytesIO(), "JPEG", quality=90))
    row("encode JPEG 1080p q90", times, mp)

    times = {"tensorcore": timed(lambda: tcio.encode_png(chw, 6))}
    if "torchvision" in refs:
        times["torchvision"] = timed(lambda: tvio.encode_png(tchw, 6))
    times["PIL"] = timed(lambda: pil_img.save(io.BytesIO(), "PNG", compress_level=6))
    row("encode PNG 1080p level 6", times, mp)

    batched(args, tj, refs, mp)


def thread_counts(spec):
    cores = os.cpu_count() or 1
    counts = [cores if v.strip() == "all" else int(v) for v in spec.split(",")]
    return sorted(set(n for n in counts if 1 <= n <= 2 * cores))


def batched(args, tj, refs, mp):
    """Batched JPEG decode throughput vs threads; the reference is a Python thread pool over
    torchvision's single-image decode_jpeg."""
    batch = [tj] * args.batch
    tbatch = [refs["torchvision"][0]] * args.batch if "torchvision" in refs else None
    base = None
    print(
        f"batched decode of {args.batch} JPEGs (1080p), {os.cpu_count()} cores: throughput vs "
        "threads (speedup and parallel efficiency against 1 thread)"
    )
    for n in thread_counts(args.threads):
        t = median_time(lambda: tcio.decode_jpeg(batch, num_threads=n), min_time=2.0, min_runs=3)
        cpu = CPU_TIMES["last"]
        base = base or t
        line = (
            f"  threads {n:3d}: tensorcore {t * 1e3:8.1f} ms, {args.batch / t:7.1f} img/s "
            f"({args.batch * mp / t:7.1f} MP/s), speedup {base / t:5.2f}x, efficiency "
            f"{base / t / n * 100:5.1f}%, cpu/wall {cpu / t:4.2f}"
        )
        if tbatch is not None:
            with ThreadPoolExecutor(n) as pool:
                tt = median_time(
                    lambda: list(pool.map(tvio.decode_jpeg, tbatch)), min_time=2.0, min_runs=3
                )
            line += (
                f" | torchvision+ThreadPool {args.batch / tt:7.1f} img/s | "
                f"tc/torchvision time {t / tt:5.2f}"
            )
        print(line)


if __name__ == "__main__":
    main()
