"""Functional-transform cases shared by the torchvision comparison and the recorded references
(scripts/vision/record_torchvision_reference.py writes data/torchvision_reference.npz from them,
so the comparison still runs on machines without torchvision)."""

import numpy as np

# (name, args, kwargs, uint8 tolerance): torchvision functional name and arguments; the same
# call is made on tensorcore.vision.transforms.functional.
CASES = [
    ("hflip", (), {}, 0),
    ("vflip", (), {}, 0),
    ("crop", (3, 5, 20, 30), {}, 0),
    ("crop", (-4, 30, 20, 30), {}, 0),
    ("crop", (15, 20, 9, 10), {}, 0),
    ("center_crop", ([20, 31],), {}, 0),
    ("center_crop", ([50, 40],), {}, 0),
    ("pad", ([3, 1, 2, 4],), {"fill": 7}, 0),
    ("pad", ([3, 1, 2, 4],), {"padding_mode": "edge"}, 0),
    ("pad", ([3, 1, 2, 4],), {"padding_mode": "reflect"}, 0),
    ("pad", ([3, 1, 2, 4],), {"padding_mode": "symmetric"}, 0),
    ("pad", ([-2, 1, 3, -4],), {}, 0),
    ("rgb_to_grayscale", (), {}, 0),
    ("rgb_to_grayscale", (3,), {}, 0),
    ("adjust_brightness", (1.4,), {}, 0),
    ("adjust_contrast", (0.6,), {}, 0),
    ("adjust_saturation", (1.7,), {}, 0),
    ("adjust_hue", (0.23,), {}, 1),
    ("adjust_hue", (-0.4,), {}, 1),
    ("adjust_gamma", (0.7, 1.1), {}, 1),
    ("adjust_sharpness", (1.8,), {}, 1),
    ("invert", (), {}, 0),
    ("solarize", (0.5,), {}, 0),
    ("autocontrast", (), {}, 0),
    ("gaussian_blur", ([5, 3], [1.2, 0.7]), {}, 1),
    ("erase", (3, 4, 10, 12, 0.0), {}, 0),
]


def case_args(name, args, dtype):
    if name == "solarize" and dtype == "uint8":
        return (128,)
    return args


def case_key(i, dtype):
    name = CASES[i][0]
    return f"{i:02d}_{name}_{dtype}"


def image(dtype, shape=(3, 21, 26), seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "uint8":
        return rng.integers(0, 256, shape, dtype=np.uint8)
    return rng.random(shape, dtype=np.float32)
