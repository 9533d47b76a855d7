"""tc.jit against eager and against torch.jit.trace, on the same machine in one run.

    python benchmarks/bench_jit.py [--threads N] [--repeats R]

Prints the median time of ResNet-50 (batch 1, 224x224) run
  - eagerly from Python (tensorcore),
  - as a traced graph on the C++ runtime (called from Python; the call releases the GIL),
  - frozen (batch norm folded into the convolutions),
  - torchvision's resnet50 traced with torch.jit.trace (torch 1.13), if installed, both as traced
    (the issue's reference) and frozen with torch.jit.freeze (conv+bn folded, the stricter one),
and the time to load the saved file; then RetinaNet end to end (JPEG bytes -> decode -> resize /
normalize -> model -> post-processing) as one traced graph against torchvision's eager pipeline
(torchvision.io.decode_jpeg + retinanet_resnet50_fpn in eval mode), same weights and image.
Ratios are ours / reference: our traced graph against torch's traced one, our frozen graph
against torch's frozen one.
"""

import argparse
import os
import tempfile

import tensorcore as tc
from tensorcore.vision import models
from _common import median_time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--skip-detection", action="store_true")
    args = ap.parse_args()
    tc.set_num_threads(args.threads)
    tc.manual_seed(0)
    model = models.resnet50().eval()
    x = tc.randn(1, 3, 224, 224)
    traced = tc.jit.trace(model, x)
    frozen = tc.jit.freeze(traced)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r50.tcj")
        traced.save(path)
        load_s = median_time(lambda: tc.jit.load(path), 5)
        size_mb = os.path.getsize(path) / 1e6

    def eager():
        with tc.no_grad():
            model(x)

    results = {}
    torch_traced = torch_frozen = None
    try:
        import torch
        import torchvision

        torch.set_num_threads(args.threads)
        tm = torchvision.models.resnet50().eval()
        tx = torch.randn(1, 3, 224, 224)
        with torch.no_grad():
            torch_traced = torch.jit.trace(tm, tx)
            torch_frozen = torch.jit.freeze(torch.jit.trace(tm, tx))

        def torch_runner(module):
            def run():
                with torch.no_grad():
                    module(tx)

            return run

        torch_run = torch_runner(torch_frozen)
        torch_traced_run = torch_runner(torch_traced)
    except ImportError:
        torch_run = torch_traced_run = None
    for _ in range(2):  # interleaved rounds
        for name, fn in (
            ("eager", eager),
            ("traced", lambda: traced(x)),
            ("frozen", lambda: frozen(x)),
            ("torch.jit (traced)", torch_traced_run),
            ("torch.jit (frozen)", torch_run),
        ):
            if fn is not None:
                results.setdefault(name, []).append(median_time(fn, args.repeats))
    best = {k: min(v) for k, v in results.items()}
    print(f"ResNet-50, batch 1, 224x224, {args.threads} threads (median of {args.repeats})")
    for name, t in best.items():
        print(f"  {name:20s} {t * 1e3:8.2f} ms")
    print(f"  traced / eager       {best['traced'] / best['eager']:.3f}")
    print(f"  frozen / eager       {best['frozen'] / best['eager']:.3f}")
    if "torch.jit (frozen)" in best:
        t_traced, t_frozen = best["torch.jit (traced)"], best["torch.jit (frozen)"]
        print(f"  traced / torch.jit (traced)   {best['traced'] / t_traced:.3f}")
        print(f"  frozen / torch.jit (frozen)   {best['frozen'] / t_frozen:.3f}")
        print(f"  traced / torch.jit (frozen)   {best['traced'] / t_frozen:.3f}")
    print(f"  load {size_mb:.1f} MB file: {load_s * 1e3:.1f} ms")
    if torch_run is not None and not args.skip_detection:
        bench_detection(args)


def bench_detection(args):
    import io

    import numpy as np
    import torch
    import torchvision
    from PIL import Image

    from tensorcore.vision.io import ImageReadMode, decode_image
    from tensorcore.vision.models import detection

    rng = np.random.default_rng(0)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)).save(buf, "JPEG")
    data = tc.from_numpy(np.frombuffer(buf.getvalue(), dtype=np.uint8).copy())
    tdata = torch.frombuffer(bytearray(buf.getvalue()), dtype=torch.uint8)
    tc.manual_seed(0)
    ours = detection.retinanet_resnet50_fpn(pretrained=False, pretrained_backbone=False).eval()
    theirs = torchvision.models.detection.retinanet_resnet50_fpn(
        weights=None, weights_backbone=None
    ).eval()
    theirs.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in ours.state_dict().items()})

    class Pipeline(tc.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, data):
            return self.model([decode_image(data, ImageReadMode.RGB).float() / 255.0])[0]

    traced = tc.jit.trace(Pipeline(ours).eval(), data)

    def torch_pipeline():
        with torch.no_grad():
            img = torchvision.io.decode_jpeg(tdata).float() / 255.0
            return theirs([img])[0]

    times = {"traced": [], "torchvision eager": []}
    for _ in range(2):
        times["traced"].append(median_time(lambda: traced(data), max(3, args.repeats // 5)))
        times["torchvision eager"].append(median_time(torch_pipeline, max(3, args.repeats // 5)))
    best = {k: min(v) for k, v in times.items()}
    print(f"RetinaNet ResNet-50 FPN, 480x640 JPEG end to end, {args.threads} threads")
    for name, t in best.items():
        print(f"  {name:20s} {t * 1e3:8.1f} ms")
    print(f"  traced / torchvision {best['traced'] / best['torchvision eager']:.3f}")


if __name__ == "__main__":
    main()
