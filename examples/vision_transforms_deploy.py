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
    pipe = T.Compose(
        [
            T.RandomResizedCrop(224),
            T.RandomHorizontalFlip(0.3),
            T.RandomApply(
                [
                    T.RandomRotation(15, interpolation="bilinear"),
                    T.GaussianBlur(5, sigma=(0.1, 1.5)),
                ],
                p=0.5,
            ),
            T.ConvertImageDtype(tc.float32),
            T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
            T.RandomErasing(p=0.25),
        ]
    )
    pipe.save(path)
    n, c, y, x = np.meshgrid(
        np.arange(4), np.arange(3), np.arange(256), np.arange(256), indexing="ij"
    )
    img = tc.from_numpy(((n * 7 + c * 31 + y * 3 + x) % 256).astype(np.uint8))
    g = tc.Generator()
    g.manual_seed(seed)
    # The C++ Pipeline draws every random transform (nested ones too) from one generator;
    # T.load(path, generator) builds the same pipeline with that generator set everywhere.
    result = T.load(path, generator=g)(img)
    out = result.numpy().astype(np.float64).reshape(-1)
    print("output", list(result.shape))
    # Sequential sums (np.cumsum), the same order as the C++ loop, so the digits agree.
    weighted = np.cumsum(out * (np.arange(out.size) % 997))[-1]
    print(f"checksum {np.cumsum(out)[-1]:.6f} {weighted:.6f}")


if __name__ == "__main__":
    main()
