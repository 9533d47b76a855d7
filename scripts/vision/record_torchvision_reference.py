"""Records torchvision's outputs for the functional cases in tests/python/vision/
reference_cases.py into tests/python/vision/data/torchvision_reference.npz.

Run (needs torch + torchvision): .venv/bin/python scripts/vision/record_torchvision_reference.py
"""

import os
import sys

import numpy as np
import torch
import torchvision.transforms.functional as TF

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "..", "tests", "python", "vision")
sys.path.insert(0, TESTS)
from reference_cases import CASES, case_args, case_key, image  # noqa: E402


def main():
    out = {}
    for dtype in ("uint8", "float32"):
        x = torch.from_numpy(image(dtype))
        for i, (name, args, kwargs, _) in enumerate(CASES):
            out[case_key(i, dtype)] = getattr(TF, name)(
                x.clone(), *case_args(name, args, dtype), **kwargs
            ).numpy()
    path = os.path.join(TESTS, "data", "torchvision_reference.npz")
    np.savez_compressed(path, **out)
    print(
        f"wrote {len(out)} arrays to {os.path.normpath(path)} (torchvision "
        f"{__import__('torchvision').__version__})"
    )


if __name__ == "__main__":
    main()
