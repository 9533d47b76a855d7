"""Inputs shared by the tests of several areas (CPU and their CUDA counterparts), so the
CPU and CUDA suites build the same cases the same way. Importable from any test: pytest puts this
folder (the one holding the top conftest.py) on sys.path."""

import numpy as np

import tensorcore as tc


def gen(seed=1):
    """A tensorcore Generator seeded with seed."""
    return tc.Generator().manual_seed(seed)


def image(dtype, shape, seed=0):
    """Random uint8 pixels of `shape`; any other dtype gets them scaled to [0, 1]."""
    x = np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)
    if dtype == "uint8":
        return tc.from_numpy(x)
    return tc.from_numpy((x / 255.0).astype(dtype))


def fused_crop_flip_normalize(g, *more):
    """RandomCrop(32), random flips, float conversion and ImageNet's Normalize drawing from g: the
    stages Compose runs as one fused kernel (on CPU and CUDA); `more` transforms follow them."""
    from tensorcore.vision import transforms as T

    return T.Compose(
        [
            T.RandomCrop(32, generator=g),
            T.RandomHorizontalFlip(0.5, generator=g),
            T.RandomVerticalFlip(0.5, generator=g),
            T.ConvertImageDtype(tc.float32),
            T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
            *more,
        ]
    )


def padding_transforms(g):
    """Constant, symmetric, edge and negative padding around a padded random crop: the deployment
    pipelines' padding case (the Python transforms, the C++ Pipeline, on CPU and CUDA)."""
    from tensorcore.vision import transforms as T

    return [
        T.Pad([1, 2, 3, 4], fill=7),
        T.RandomCrop(80, pad_if_needed=True, fill=3, generator=g),
        T.Pad(2, padding_mode="symmetric"),
        T.Pad([-3, 1], padding_mode="edge"),
        T.RandomVerticalFlip(0.5, generator=g),
    ]


def deform_conv_inputs(
    rng,
    n=2,
    cin=4,
    h=9,
    w=10,
    cout=6,
    groups=2,
    og=2,
    k=(3, 3),
    stride=(2, 2),
    padding=(1, 2),
    dilation=(1, 1),
):
    """NumPy float64 (input, offset, weight, bias, mask) for deform_conv2d, and its keyword
    arguments; og offset groups, offsets spread over about +-2 pixels."""
    oh = (h + 2 * padding[0] - dilation[0] * (k[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (k[1] - 1) - 1) // stride[1] + 1
    arrays = [
        rng.standard_normal((n, cin, h, w)),
        rng.standard_normal((n, 2 * og * k[0] * k[1], oh, ow)) * 2,
        rng.standard_normal((cout, cin // groups, k[0], k[1])),
        rng.standard_normal(cout),
        rng.random((n, og * k[0] * k[1], oh, ow)),
    ]
    return arrays, dict(stride=stride, padding=padding, dilation=dilation)


# embedding_bag (indices, offsets, keyword arguments): 1-D with offsets in each mode and with
# include_last_offset, 2-D (fixed-size bags) with padding_idx.
EMBEDDING_BAG_CASES = [
    (np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 4]), dict(mode="sum")),
    (np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 3, 3, 6]), dict(mode="mean")),
    (np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 2, 5]), dict(mode="max")),
    (
        np.array([1, 2, 4, 5, 4, 3, 2, 9]),
        np.array([0, 2, 5, 8]),
        dict(mode="sum", include_last_offset=True),
    ),
    (np.array([[1, 2, 4], [5, 4, 3]]), None, dict(mode="mean", padding_idx=4)),
    (np.array([[1, 2, 4], [5, 4, 3]]), None, dict(mode="max")),
]


# (optimizer name, constructor arguments): every option that changes the update rule, each at
# least once; the optimizer tests run them against torch.optim, the CUDA ones against the CPU.
OPTIMIZER_CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True, "betas": (0.8, 0.9)}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True, "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.3, "amsgrad": True}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.2},
    ),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("Adadelta", {"lr": 1.0, "weight_decay": 0.05}),
    ("Adamax", {"lr": 0.02, "weight_decay": 0.05}),
    ("Adamax", {"lr": 0.02, "weight_decay": 0.05, "maximize": True}),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.05}),
    ("RAdam", {"lr": 0.02, "weight_decay": 0.05}),
]
