"""Saves a training pipeline for the C++ example and prints the checksum Python computes for it.

Run: .venv/bin/python examples/vision_transforms_deploy.py /tmp/pipe.json [seed]
then build/vision_transforms_deploy /tmp/pipe.json [seed] prints the same numbers.
"""
import sys

import numpy as np

import tensorcore as tc
from tensorcore.vision import transforms as T


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "pipeline.json"
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    pipe = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(0.3),
                      T.ConvertImageDtype(tc.float32),
                      T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    pipe.save(path)
    n, c, y, x = np.meshgrid(np.arange(4), np.arange(3), np.arange(256), np.arange(256),
                             indexing="ij")
    img = tc.from_numpy(((n * 7 + c * 31 + y * 3 + x) % 256).astype(np.uint8))
    g = tc.Generator()
    g.manual_seed(seed)
    for t in pipe.transforms:
        if t.random:
            t.generator = g
    out = pipe(img).numpy().astype(np.float64).reshape(-1)
    print("output", list(pipe(img).shape))
    # Sequential sums (np.cumsum), the same order as the C++ loop, so the digits agree.
    weighted = np.cumsum(out * (np.arange(out.size) % 997))[-1]
    print(f"checksum {np.cumsum(out)[-1]:.6f} {weighted:.6f}")


if __name__ == "__main__":
    main()
