"""The image kernels on CUDA against the CPU kernels on the same inputs: the warps (rotate /
affine / perspective, per-sample matrices), gaussian_blur, the fused crop/flip/normalize of
Compose, the fused color kernels, equalize, and the C++ deployment Pipeline on CUDA images.
The warp and the blur share their per-pixel code with the CPU and both sides compile it without
FMA contraction, so results must be identical; the fused normalize allows float rounding.
Skipped without a GPU (see conftest.py)."""

import numpy as np
import pytest

import shared_inputs
from shared_inputs import gen
import tensorcore as tc
from tensorcore import _C
from tensorcore.vision import transforms as T
from tensorcore.vision.transforms import functional as F

V = _C._vision


def image(dtype, shape=(3, 3, 29, 37), seed=0):
    return shared_inputs.image(dtype, shape, seed)


def exact(gpu, cpu, tol=0):
    """Equal; with tol, within tol (uint8 steps or float units) where a device reduction (a
    mean) feeds the kernel and may round differently from the CPU's."""
    assert gpu.is_cuda, "the result should stay on the GPU"
    g, c = gpu.cpu().numpy(), cpu.numpy()
    assert g.shape == c.shape and g.dtype == c.dtype
    if tol == 0:
        np.testing.assert_array_equal(g, c)
    else:
        assert np.abs(g.astype(np.float64) - c.astype(np.float64)).max() <= tol


DTYPES = ["uint8", np.float32, np.float64]

WARPS = [
    ("rotate", lambda x, i: F.rotate(x, 30.0, interpolation=i)),
    (
        "rotate_expand_fill",
        lambda x, i: F.rotate(x, -75.0, interpolation=i, expand=True, fill=[10.0]),
    ),
    (
        "rotate_center_fill3",
        lambda x, i: F.rotate(x, 12.5, interpolation=i, center=[5, 9], fill=[1.0, 2.0, 3.0]),
    ),
    (
        "affine",
        lambda x, i: F.affine(x, 17.0, [3, -2], 0.8, [10.0, -5.0], interpolation=i, fill=[0.5]),
    ),
    (
        "perspective",
        lambda x, i: F.perspective(
            x,
            [[0, 0], [36, 0], [36, 28], [0, 28]],
            [[3, 2], [33, 1], [35, 27], [2, 26]],
            interpolation=i,
        ),
    ),
    (
        "perspective_fill",
        lambda x, i: F.perspective(
            x,
            [[0, 0], [36, 0], [36, 28], [0, 28]],
            [[5, 4], [30, 0], [36, 20], [1, 28]],
            interpolation=i,
            fill=[7.0],
        ),
    ),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("interp", ["nearest", "bilinear"])
@pytest.mark.parametrize("name,fn", WARPS, ids=[w[0] for w in WARPS])
def test_warps_equal_cpu(dtype, interp, name, fn):
    x = image(dtype)
    exact(fn(x.cuda(), interp), fn(x, interp))


@pytest.mark.parametrize("dtype", ["uint8", np.float32])
def test_per_sample_warps_equal_cpu(dtype):
    # RandomRotation / RandomAffine / RandomPerspective draw one matrix per sample: one launch
    # with (N, 9) matrices.
    x = image(dtype, (5, 3, 32, 40), seed=1)
    for seed in (0, 1):
        for make in (
            lambda g: T.RandomRotation(40, expand=True, generator=g),
            lambda g: T.RandomAffine(
                20, (0.1, 0.2), (0.8, 1.2), 10, fill=3, interpolation="bilinear", generator=g
            ),
            lambda g: T.RandomPerspective(0.5, p=1.0, generator=g),
        ):
            exact(make(gen(seed))(x.cuda()), make(gen(seed))(x))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "kernel,sigma", [(3, None), ((5, 9), (0.7, 2.5)), ((1, 7), 1.1), ((21, 3), 4.0)]
)
def test_gaussian_blur_equals_cpu(dtype, kernel, sigma):
    x = image(dtype, (2, 3, 23, 31))
    exact(F.gaussian_blur(x.cuda(), kernel, sigma), F.gaussian_blur(x, kernel, sigma))


def test_gaussian_blur_per_sample_sigma_and_edge_sizes():
    x = image("uint8", (6, 3, 20, 24), seed=2)
    for seed in (0, 3):
        exact(
            T.GaussianBlur((7, 5), (0.2, 3.0), generator=gen(seed))(x.cuda()),
            T.GaussianBlur((7, 5), (0.2, 3.0), generator=gen(seed))(x),
        )
    # Kernels nearly as large as the image (reflection of up to H - 1 rows) and 1-pixel images.
    small = image(np.float32, (1, 2, 4, 33))
    exact(F.gaussian_blur(small.cuda(), [5, 7]), F.gaussian_blur(small, [5, 7]))
    one = image(np.float64, (2, 1, 1, 1))
    exact(F.gaussian_blur(one.cuda(), 1, 0.5), F.gaussian_blur(one, 1, 0.5))


def test_native_kernels_reject_other_dtypes_on_cuda():
    x = tc.zeros(1, 3, 8, 8, dtype=tc.int32).cuda()
    with pytest.raises(TypeError, match="warp"):
        V.warp(x, [1, 0, 0, 0, 1, 0, 0, 0, 1], 8, 8, 0, None)
    with pytest.raises(TypeError, match="gaussian_blur"):
        V.gaussian_blur(x, 3, 3, [1.0], [1.0])
    with pytest.raises(TypeError, match="equalize"):
        F.equalize(x.float())
    with pytest.raises(TypeError):
        V.blend(x.to(tc.float64), [0.5], 0, [])


@pytest.mark.parametrize("dtype", ["uint8", np.float32])
def test_fused_crop_flip_normalize_on_cuda(dtype):
    # Compose fuses the crops, flips, conversion and Normalize into one kernel on CUDA too.
    x = image(dtype, (6, 3, 40, 48), seed=3)
    pipe = shared_inputs.fused_crop_flip_normalize
    for seed in (0, 1, 2):
        gpu, cpu = pipe(gen(seed))(x.cuda()), pipe(gen(seed))(x)
        assert gpu.is_cuda and gpu.dtype == tc.float32
        np.testing.assert_allclose(gpu.cpu().numpy(), cpu.numpy(), rtol=1e-6, atol=1e-6)
    crop = V.crop_flip(x.cuda(), [1, 2, 3, 4, 5, 6], [0], [1, 0, 1, 0, 1, 0], [0], 20, 30)
    exact(crop, V.crop_flip(x, [1, 2, 3, 4, 5, 6], [0], [1, 0, 1, 0, 1, 0], [0], 20, 30))


@pytest.mark.parametrize("dtype", ["uint8", np.float32])
def test_fused_color_kernels_equal_cpu(dtype):
    x = image(dtype, (4, 3, 19, 23), seed=4)
    for fn in (
        lambda t: F.adjust_brightness(t, 1.3),
        lambda t: F.adjust_saturation(t, 1.7),
        lambda t: F.adjust_hue(t, -0.3),
    ):
        exact(fn(x.cuda()), fn(x))
    # Contrast blends towards the image's mean gray level, a device reduction.
    tol = 1 if dtype == "uint8" else 1e-6
    for fn in (
        lambda t: F.adjust_contrast(t, 0.6),
        lambda t: T.ColorJitter(0.4, 0.3, 0.5, 0.2, generator=gen(5))(t),
    ):
        exact(fn(x.cuda()), fn(x), tol)


def test_equalize_equals_cpu():
    x = image("uint8", (3, 3, 33, 17), seed=6)
    flat = tc.full((1, 3, 8, 8), 7, dtype=tc.uint8)  # one bin: step 0, image unchanged
    for img in (x, flat, x[:, :, :1, :1]):
        exact(F.equalize(img.cuda()), F.equalize(img))


# The deployment pipelines of tests/python/vision/test_deploy.py, run by the C++ Pipeline on CUDA
# images: every stage now has a CUDA path, so the result equals the C++ Pipeline on the CPU.
CPP_PIPELINES = {
    "seed": lambda g: [
        T.RandomCrop(48, generator=g),
        T.RandomHorizontalFlip(0.3, generator=g),
        T.ConvertImageDtype(tc.float32),
        T.Normalize([0.5, 0.4, 0.3], [0.2] * 3),
    ],
    "eval": lambda g: [T.Resize(60), T.CenterCrop(52), T.ConvertImageDtype(tc.float32)],
    "pad": shared_inputs.padding_transforms,
    "color": lambda g: [
        T.ColorJitter(0.4, 0.3, 0.5, 0.1, generator=g),
        T.Grayscale(3),
        T.RandomEqualize(0.6, generator=g),
        T.RandomInvert(0.5, generator=g),
        T.RandomAutocontrast(0.6, generator=g),
    ],
    "warps": lambda g: [
        T.RandomRotation(30, expand=True, generator=g),
        T.RandomAffine(20, translate=(0.1, 0.2), interpolation="bilinear", fill=7, generator=g),
        T.RandomPerspective(0.4, p=0.6, fill=[1, 2, 3], generator=g),
        T.GaussianBlur(5, (0.5, 2.0), generator=g),
    ],
    "erase": lambda g: [
        T.ConvertImageDtype(tc.float32),
        T.RandomErasing(p=0.9, value="random", generator=g),
        T.RandomErasing(p=0.9, value=[0.1, 0.2, 0.3], generator=g),
    ],
}


# Where the CUDA path may round differently: the fused normalize (one FMA), uint8 resize (±1, see
# test_cuda_vision_ops.py) then converted to float, ColorJitter's contrast mean (a reduction).
CPP_TOLERANCE = {"seed": 1e-5, "eval": 1.0 / 255 + 1e-6, "color": 1}


@pytest.mark.parametrize("name", sorted(CPP_PIPELINES))
@pytest.mark.parametrize("batched", [False, True])
def test_cpp_pipeline_on_cuda_images(tmp_path, name, batched):
    x = image("uint8", (4, 3, 64, 72) if batched else (3, 64, 72), seed=7)
    path = str(tmp_path / f"{name}.json")
    T.Compose(CPP_PIPELINES[name](None)).save(path)
    cpp = V.Pipeline.load(path)
    for seed in (0, 1):
        gpu, cpu = cpp(x.cuda(), gen(seed)), cpp(x, gen(seed))
        exact(gpu, cpu, CPP_TOLERANCE.get(name, 0))
