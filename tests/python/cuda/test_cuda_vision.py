"""tensorcore.vision on CUDA tensors: the transforms that are compositions of core ops (and the
crop/flip classes) run on the device and agree with the CPU; the native kernels (warps, blur,
color, equalize, the RoI ops, deform_conv2d, the C++ Pipeline) keep CUDA images on the device
(their comparisons with the CPU: test_cuda_vision_warps.py, test_cuda_vision_roi.py).
Skipped without a GPU (see conftest.py)."""

import numpy as np
import pytest

import shared_inputs
import tensorcore as tc
from tensorcore import _C
from tensorcore.vision import ops
from tensorcore.vision import transforms as T
from tensorcore.vision.transforms import functional as F


def image(dtype, shape=(2, 3, 21, 26), seed=0):
    return shared_inputs.image(dtype, shape, seed)


def same(gpu, cpu, u8_tol=0, atol=1e-5):
    assert gpu.is_cuda, "result should stay on the GPU"
    g, c = gpu.cpu().numpy(), cpu.numpy()
    assert g.shape == c.shape and g.dtype == c.dtype
    if g.dtype == np.uint8:
        assert np.abs(g.astype(int) - c.astype(int)).max() <= u8_tol
    else:
        np.testing.assert_allclose(g, c, atol=atol, rtol=1e-5)


COMPOSED = [
    (
        "normalize",
        lambda x: F.normalize(
            F.convert_image_dtype(x, tc.float32), [0.4, 0.5, 0.6], [0.2, 0.25, 0.3]
        ),
        0,
    ),
    ("convert_image_dtype", lambda x: F.convert_image_dtype(x, tc.float32), 0),
    ("hflip", F.hflip, 0),
    ("vflip", F.vflip, 0),
    ("crop", lambda x: F.crop(x, 3, 4, 10, 12), 0),
    ("crop_outside", lambda x: F.crop(x, -3, 20, 10, 12), 0),
    ("center_crop", lambda x: F.center_crop(x, [11, 30]), 0),
    ("pad_constant", lambda x: F.pad(x, [1, 2, 3, 4], fill=5), 0),
    ("pad_reflect", lambda x: F.pad(x, [3, 1, 2, 4], padding_mode="reflect"), 0),
    ("pad_symmetric", lambda x: F.pad(x, [3, 1, 2, 4], padding_mode="symmetric"), 0),
    ("rgb_to_grayscale", lambda x: F.rgb_to_grayscale(x, 3), 0),
    ("adjust_brightness", lambda x: F.adjust_brightness(x, 1.3), 1),
    ("adjust_contrast", lambda x: F.adjust_contrast(x, 0.7), 1),
    ("adjust_saturation", lambda x: F.adjust_saturation(x, 1.6), 1),
    ("adjust_hue", lambda x: F.adjust_hue(x, 0.2), 1),
    ("adjust_gamma", lambda x: F.adjust_gamma(x, 0.8), 1),
    ("adjust_sharpness", lambda x: F.adjust_sharpness(x, 1.7), 1),
    ("invert", F.invert, 0),
    ("solarize", lambda x: F.solarize(x, 0.5 if x.is_floating_point() else 128), 0),
    ("autocontrast", F.autocontrast, 1),
    ("erase", lambda x: F.erase(x, 2, 3, 5, 6, 0.0), 0),
]


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("name,fn,u8_tol", COMPOSED, ids=[c[0] for c in COMPOSED])
def test_composed_functional_runs_on_cuda(dtype, name, fn, u8_tol):
    x = image(dtype)
    same(fn(x.cuda()), fn(x), u8_tol=u8_tol, atol=2e-5)


def test_posterize_equalize_on_cuda():
    x = image("uint8")
    same(F.posterize(x.cuda(), 3), F.posterize(x, 3))
    same(F.equalize(x.cuda()), F.equalize(x))


def test_per_sample_color_jitter_and_normalize_classes_on_cuda():
    x = image("uint8", (4, 3, 16, 20))
    pipe = lambda g: T.Compose(
        [  # noqa: E731
            T.ColorJitter(0.4, 0.3, 0.5, 0.1, generator=g),
            T.ConvertImageDtype(tc.float32),
            T.Normalize([0.5], [0.25]),
        ]
    )
    ours = pipe(tc.Generator().manual_seed(3))(x.cuda())
    ref = pipe(tc.Generator().manual_seed(3))(x)
    same(ours, ref, atol=2e-5)


def test_seed_pipeline_and_erasing_run_on_cuda_with_the_cpu_parameters():
    # On CUDA the crop/flip/convert/normalize stages run as the same fused kernel; they draw the
    # same parameters, so the result equals the CPU's.
    x = image("uint8", (6, 3, 40, 48))

    def pipe(g):
        return shared_inputs.fused_crop_flip_normalize(g, T.RandomErasing(0.8, generator=g))

    for seed in (0, 1):
        same(
            pipe(tc.Generator().manual_seed(seed))(x.cuda()),
            pipe(tc.Generator().manual_seed(seed))(x),
            atol=1e-5,
        )


def test_native_kernels_keep_cuda_images_on_the_device():
    # Every transform kernel has a CUDA path now (test_cuda_vision_warps.py compares them with
    # the CPU); none of them raises for a CUDA image any more.
    x = image("uint8").cuda()
    for out in (
        F.rotate(x, 30.0),
        F.gaussian_blur(x, 3),
        F.equalize(x),
        F.perspective(
            x, [[0, 0], [25, 0], [25, 20], [0, 20]], [[1, 2], [24, 0], [23, 19], [2, 18]]
        ),
    ):
        assert out.is_cuda and out.dtype == tc.uint8
    feats = tc.rand(1, 2, 8, 8).cuda()
    rois = tc.tensor([[0.0, 1.0, 1.0, 6.0, 6.0]]).cuda()
    assert ops.roi_pool(feats, rois, 2).is_cuda
    pipe = _C._vision.Pipeline.from_json(
        '{"format": "tensorcore.vision.transforms", "version": 1, '
        '"transforms": [{"name": "GaussianBlur", "params": {"kernel_size": 3, "sigma": [1, 2]}}]}'
    )
    assert pipe(x).is_cuda
