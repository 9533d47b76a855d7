"""CUDA benchmark: tensorcore vs PyTorch on the same GPU in one run.

  python3 benchmarks/bench_cuda.py [--quick]

Prints, for each case, the time per call of both libraries (CUDA events, median of several
repetitions after warm-up), a throughput figure and the ratio tc/torch (below 1 = tensorcore
faster). Bandwidth-bound cases are also reported against the measured device-to-device copy
bandwidth.
"""

import argparse
import statistics
import sys
import time

import tensorcore as tc

try:
    import torch

    if not torch.cuda.is_available():
        torch = None
except Exception:  # pragma: no cover
    torch = None


def gpu_time(lib, fn, reps, inner):
    """Median milliseconds per call over `reps` groups of `inner` calls."""
    mod = lib.cuda
    for _ in range(2):
        fn()
    mod.synchronize()
    times = []
    for _ in range(reps):
        s, e = mod.Event(enable_timing=True), mod.Event(enable_timing=True)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / inner)
    return statistics.median(times)


def host_time(lib, fn, n):
    """Host-side microseconds per call (launch overhead), synchronizing once at the end."""
    for _ in range(100):
        fn()
    lib.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    lib.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6


def row(name, t_tc, t_th, unit_fn, unit):
    ratio = f"{t_tc / t_th:6.2f}" if t_th else "   n/a"
    th = f"{t_th:9.3f} ms {unit_fn(t_th):9.1f} {unit}" if t_th else " " * 26
    print(
        f"{name:34s} tc {t_tc:9.3f} ms {unit_fn(t_tc):9.1f} {unit}   torch {th}   tc/torch {ratio}"
    )
    sys.stdout.flush()


# ResNet-50's convolutions: (label, in, out, kernel, stride, padding, spatial size).
RESNET50_CONVS = [
    ("conv1 7x7/2 3->64 @224", 3, 64, 7, 2, 3, 224),
    ("1x1 64->256 @56", 64, 256, 1, 1, 0, 56),
    ("3x3 64->64 @56", 64, 64, 3, 1, 1, 56),
    ("3x3/2 128->128 @56", 128, 128, 3, 2, 1, 56),
    ("3x3 256->256 @14", 256, 256, 3, 1, 1, 14),
    ("1x1 1024->256 @14", 1024, 256, 1, 1, 0, 14),
    ("3x3 512->512 @7", 512, 512, 3, 1, 1, 7),
]


def channels_last(lib, t):
    """torch's channels_last memory format; for tensorcore the same NHWC-strided view of an NCHW shape."""
    if lib is not tc:
        return t.contiguous(memory_format=torch.channels_last)
    return t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)


def bench_conv(libs, quick, reps):
    """conv2d forward + backward (input and weight gradients) on ResNet-50 shapes, cudnn.benchmark on."""
    batch = 8 if quick else 64
    print(f"\n-- conv2d forward+backward, ResNet-50 shapes, batch {batch} (cudnn.benchmark = True)")
    for name in libs:
        libs[name].backends.cudnn.benchmark = True
    for dt_name, tf32 in (("float16", False), ("float32", True)):
        for layout in ("NCHW", "channels_last"):
            total = {}
            for label, cin, cout, k, s, p, hw in RESNET50_CONVS:
                t = {}
                for name, lib in libs.items():
                    lib.backends.cudnn.allow_tf32 = tf32
                    dt = getattr(lib, dt_name)
                    x = lib.randn(batch, cin, hw, hw, device="cuda", dtype=dt)
                    w = lib.randn(cout, cin, k, k, device="cuda", dtype=dt) * 0.05
                    if layout == "channels_last":
                        x, w = channels_last(lib, x), channels_last(lib, w)
                    x.requires_grad_(True)
                    w.requires_grad_(True)
                    conv = lib.nn.functional.conv2d
                    gy = conv(x.detach(), w.detach(), None, s, p).detach()

                    def step(x=x, w=w, gy=gy, conv=conv, s=s, p=p):
                        x.grad = None
                        w.grad = None
                        conv(x, w, None, s, p).backward(gy)

                    t[name] = gpu_time(lib, step, reps, 3)
                    total[name] = total.get(name, 0.0) + t[name]
                    del x, w, gy
                ho = (hw + 2 * p - k) // s + 1
                flop = (
                    3 * 2 * batch * cout * cin * k * k * ho * ho
                )  # forward, grad input, grad weight
                row(
                    f"{dt_name[:4]} {layout[:6]} {label}",
                    t["tc"],
                    t.get("torch"),
                    lambda ms, f=flop: f / (ms * 1e-3) / 1e12,
                    "TFLOP/s",
                )
            th = total.get("torch")
            print(
                f"   {dt_name} {layout}: all layers tc {total['tc']:.3f} ms"
                + (f", torch {th:.3f} ms, tc/torch {total['tc'] / th:.2f}" if th else "")
            )
    for name in libs:
        libs[name].backends.cudnn.benchmark = False
        libs[name].backends.cudnn.allow_tf32 = True


def bench_fft_scan_sort(libs, quick, reps):
    """cuFFT (FFT 2^20 batched) and the native scan / sort / unique kernels."""
    log_n = 16 if quick else 20
    n, batch = 1 << log_n, 4 if quick else 16
    print(
        f"\n-- FFT 2^{log_n} batched x{batch} (GFLOP/s counted as 5 N log2 N per complex transform)"
    )
    cflops = lambda ms: batch * 5 * n * log_n / (ms * 1e-3) / 1e9  # noqa: E731
    rflops = lambda ms: batch * 2.5 * n * log_n / (ms * 1e-3) / 1e9  # noqa: E731
    cases = (
        ("fft c2c complex64", lambda lib, x, c: lambda: lib.fft.fft(c), cflops),
        ("rfft r2c float32", lambda lib, x, c: lambda: lib.fft.rfft(x), rflops),
        (
            "irfft c2r float32",
            lambda lib, x, c: lambda h=lib.fft.rfft(x): lib.fft.irfft(h, n=n),
            rflops,
        ),
        (
            "fft c2c complex128",
            lambda lib, x, c: lambda c2=c.to(lib.complex128): lib.fft.fft(c2),
            cflops,
        ),
    )
    for label, make, unit in cases:
        t = {}
        for name, lib in libs.items():
            x = lib.randn(batch, n, device="cuda")
            c = lib.randn(batch, n, device="cuda").to(lib.complex64)
            t[name] = gpu_time(lib, make(lib, x, c), reps, 5)
            del x, c
        row(label, t["tc"], t.get("torch"), unit, "GFLOP/s")
    m = 1 << (22 if quick else 26)
    print(
        "\n-- scans / sort / unique (GB/s: input read once + outputs written once, indices int64)"
    )
    gb = lambda nbytes: lambda ms: nbytes / (ms * 1e-3) / 1e9  # noqa: E731
    cases = (
        (
            f"cumsum 1 x {m}",
            lambda lib: lib.randn(m, device="cuda"),
            lambda lib, x: lambda: lib.cumsum(x, 0),
            8 * m,
        ),
        (
            f"cumsum {m // 1024} x 1024 (dim 1)",
            lambda lib: lib.randn(m // 1024, 1024, device="cuda"),
            lambda lib, x: lambda: lib.cumsum(x, 1),
            8 * m,
        ),
        (
            f"cummax {m // 64} x 64",
            lambda lib: lib.randn(m // 64, 64, device="cuda"),
            lambda lib, x: lambda: lib.cummax(x, 1),
            16 * m,
        ),
        (
            f"sort {m // 4}",
            lambda lib: lib.randn(m // 4, device="cuda"),
            lambda lib, x: lambda: lib.sort(x),
            4 * m,
        ),
        (
            f"sort {m // 4096} x 1024",
            lambda lib: lib.randn(m // 4096, 1024, device="cuda"),
            lambda lib, x: lambda: lib.sort(x, 1),
            4 * m,
        ),
        (
            f"topk k=10 of {m // 16384} x 4096",
            lambda lib: lib.randn(m // 16384, 4096, device="cuda"),
            lambda lib, x: lambda: lib.topk(x, 10, 1),
            m,
        ),
        (
            f"unique {m // 4} int64 (1000 values)",
            lambda lib: lib.randint(0, 1000, (m // 4,), device="cuda"),
            lambda lib, x: lambda: lib.unique(x, return_inverse=True, return_counts=True),
            4 * m,
        ),
    )
    for label, make_x, make_fn, nbytes in cases:
        t = {}
        for name, lib in libs.items():
            x = make_x(lib)
            t[name] = gpu_time(lib, make_fn(lib, x), reps, 3)
            del x
        row(label, t["tc"], t.get("torch"), gb(nbytes), "GB/s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    args = ap.parse_args()
    if not tc.cuda.is_available():
        print("no CUDA device: nothing to benchmark")
        return
    print(
        f"device: {tc.cuda.get_device_name(0)}; torch: "
        f"{torch.__version__ if torch else 'not available'}"
    )
    n = (1 << 24) if args.quick else (1 << 28)  # 256M float32 = 1 GiB per tensor
    mm = 2048 if args.quick else 8192
    reps = 5

    libs = {"tc": tc}
    if torch:
        libs["torch"] = torch
    res = {}

    # ---- bandwidth ----
    for name, lib in libs.items():
        a = lib.rand(n, device="cuda")
        b = lib.rand(n, device="cuda")
        out = lib.empty(n, device="cuda")
        # The lambdas run before the `del` below (ruff reads the del as making `out` unbound).
        res[name, "copy"] = gpu_time(lib, lambda: out.copy_(a), reps, 3)  # noqa: F821
        res[name, "add"] = gpu_time(lib, lambda: lib.add(a, b), reps, 3)
        res[name, "add_out"] = gpu_time(lib, lambda: out.copy_(a).add_(b), reps, 3)  # noqa: F821
        res[name, "sum"] = gpu_time(lib, lambda: a.sum(), reps, 3)
        x = (
            lib.rand(4096, 1024, device="cuda")
            if not args.quick
            else lib.rand(1024, 1024, device="cuda")
        )

        def softmax_like(x=x, lib=lib):
            e = lib.exp(x - x.amax(dim=1, keepdim=True))
            return e / e.sum(dim=1, keepdim=True)

        res[name, "softmax"] = gpu_time(lib, softmax_like, reps, 10)
        res[name, "rowsum"] = gpu_time(lib, lambda x=x: x.sum(dim=1), reps, 10)
        res[name, "colsum"] = gpu_time(lib, lambda x=x: x.sum(dim=0), reps, 10)
        del a, b, out, x
        if name == "torch":
            torch.cuda.empty_cache()
        else:
            tc.cuda.empty_cache()

    gb = lambda nbytes: lambda ms: nbytes / (ms * 1e-3) / 1e9  # noqa: E731
    copy_bw = gb(2 * 4 * n)(res["tc", "copy"])
    print(f"\n-- bandwidth (n = {n} float32); tc device-to-device copy: {copy_bw:.0f} GB/s")
    get = lambda k: res.get(("torch", k))  # noqa: E731
    row("copy_ (read+write)", res["tc", "copy"], get("copy"), gb(8 * n), "GB/s")
    row("add a+b (2 reads + write)", res["tc", "add"], get("add"), gb(12 * n), "GB/s")
    row("sum (1 read)", res["tc", "sum"], get("sum"), gb(4 * n), "GB/s")
    rows = 4096 if not args.quick else 1024
    row(
        f"softmax-like ({rows}x1024)",
        res["tc", "softmax"],
        get("softmax"),
        gb(4 * rows * 1024 * 6),
        "GB/s",
    )
    row(
        f"sum(dim=1) ({rows}x1024)", res["tc", "rowsum"], get("rowsum"), gb(4 * rows * 1024), "GB/s"
    )
    row(
        f"sum(dim=0) ({rows}x1024)", res["tc", "colsum"], get("colsum"), gb(4 * rows * 1024), "GB/s"
    )
    print(
        f"   add at {gb(12 * n)(res['tc', 'add']) / copy_bw * 100:.0f}% and sum at "
        f"{gb(4 * n)(res['tc', 'sum']) / copy_bw * 100:.0f}% of the measured copy bandwidth"
    )

    # ---- matmul ----
    print(f"\n-- matmul {mm}^3")
    flops = lambda ms: 2 * mm**3 / (ms * 1e-3) / 1e12  # noqa: E731
    for label, dt_name, tf32 in (
        ("fp16", "float16", False),
        ("bf16", "bfloat16", False),
        ("tf32", "float32", True),
        ("fp32", "float32", False),
    ):
        t = {}
        for name, lib in libs.items():
            dt = getattr(lib, dt_name)
            if name == "torch":
                torch.backends.cuda.matmul.allow_tf32 = tf32
            else:
                tc.backends.cuda.matmul.allow_tf32 = tf32
            a = lib.randn(mm, mm, device="cuda", dtype=dt)
            b = lib.randn(mm, mm, device="cuda", dtype=dt)
            t[name] = gpu_time(lib, lambda: a @ b, 3 if label == "fp32" else reps, 2)
            del a, b
        row(f"matmul {label}", t["tc"], t.get("torch"), flops, "TFLOP/s")
    tc.backends.cuda.matmul.allow_tf32 = False

    # ---- convolution (cuDNN) ----
    bench_conv(libs, args.quick, reps)
    bench_fft_scan_sort(libs, args.quick, reps)

    # ---- launch overhead ----
    print("\n-- per-op launch overhead (host time per call, 1-element tensors)")
    for label, fn_of in (
        ("a + b", lambda lib, a, b: lambda: a + b),
        ("a.add_(1)", lambda lib, a, b: lambda: a.add_(1)),
        ("a.sum()", lambda lib, a, b: lambda: a.sum()),
    ):
        t = {}
        for name, lib in libs.items():
            a = lib.ones(1, device="cuda")
            b = lib.ones(1, device="cuda")
            t[name] = host_time(lib, fn_of(lib, a, b), 20000)
        th = t.get("torch")
        ratio = f"{t['tc'] / th:6.2f}" if th else "   n/a"
        print(
            f"{label:34s} tc {t['tc']:7.2f} us   torch {th if th else float('nan'):7.2f} us   tc/torch {ratio}"
        )


if __name__ == "__main__":
    main()
