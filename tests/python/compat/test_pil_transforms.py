"""PIL images through tensorcore.vision.transforms, against torchvision 0.14 (issue 25, point 1)."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision import transforms as T

Image = pytest.importorskip("PIL.Image")


@pytest.fixture(scope="module")
def tv():
    return pytest.importorskip("torchvision.transforms")


def _image(mode="RGB", size=(45, 37), seed=0):
    rng = np.random.default_rng(seed)
    arr = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    return Image.fromarray(arr, "RGB").convert(mode)


def _same_pixels(a, b):
    assert isinstance(a, Image.Image) and a.mode == b.mode and a.size == b.size
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


# (name, our transform or function, torchvision's, as a function of the module)
PIL_CASES = [
    ("Resize", lambda t: t.Resize(20)),
    ("Resize-hw-bicubic", lambda t: t.Resize((50, 31), t.InterpolationMode.BICUBIC)),
    ("Resize-nearest", lambda t: t.Resize((13, 31), t.InterpolationMode.NEAREST)),
    ("Resize-max", lambda t: t.Resize(20, max_size=24)),
    ("CenterCrop", lambda t: t.CenterCrop(20)),
    ("CenterCrop-larger", lambda t: t.CenterCrop((50, 41))),
    ("HFlip", lambda t: t.RandomHorizontalFlip(1.0)),
    ("VFlip", lambda t: t.RandomVerticalFlip(1.0)),
    ("Pad", lambda t: t.Pad((1, 2, 3, 4), fill=7)),
    ("Pad-reflect", lambda t: t.Pad(3, padding_mode="reflect")),
    ("Pad-edge", lambda t: t.Pad(3, padding_mode="edge")),
    ("Pad-symmetric", lambda t: t.Pad([2, 5], padding_mode="symmetric")),
    ("Grayscale", lambda t: t.Grayscale()),
    ("Grayscale3", lambda t: t.Grayscale(3)),
    ("RandomGrayscale", lambda t: t.RandomGrayscale(1.0)),
    ("Invert", lambda t: t.RandomInvert(1.0)),
    ("Posterize", lambda t: t.RandomPosterize(3, 1.0)),
    ("Solarize", lambda t: t.RandomSolarize(100, 1.0)),
    ("Sharpness", lambda t: t.RandomAdjustSharpness(2.0, 1.0)),
    ("Autocontrast", lambda t: t.RandomAutocontrast(1.0)),
    ("Equalize", lambda t: t.RandomEqualize(1.0)),
    ("brightness", lambda t: lambda i: t.functional.adjust_brightness(i, 1.3)),
    ("gamma", lambda t: lambda i: t.functional.adjust_gamma(i, 0.8)),
    ("hue", lambda t: lambda i: t.functional.adjust_hue(i, -0.1)),
    ("rotate", lambda t: lambda i: t.functional.rotate(i, 30)),
    ("rotate-expand", lambda t: lambda i: t.functional.rotate(i, -17, expand=True, fill=9)),
    (
        "rotate-bilinear",
        lambda t: lambda i: t.functional.rotate(i, 12, t.InterpolationMode.BILINEAR),
    ),
    ("affine", lambda t: lambda i: t.functional.affine(i, 10, [2, 3], 1.1, [5.0, 0.0])),
    ("blur", lambda t: lambda i: t.functional.gaussian_blur(i, 5, 1.5)),
    ("crop", lambda t: lambda i: t.functional.crop(i, -2, 3, 20, 50)),
    ("resized_crop", lambda t: lambda i: t.functional.resized_crop(i, 3, 4, 20, 25, [16, 16])),
    ("to_grayscale", lambda t: lambda i: t.functional.to_grayscale(i, 3)),
]


@pytest.mark.parametrize("name,make", PIL_CASES, ids=[c[0] for c in PIL_CASES])
def test_pil_in_pil_out_matches_torchvision(name, make, tv):
    img = _image()
    _same_pixels(make(T)(img), make(tv)(img))


@pytest.mark.parametrize(
    "name,make",
    [
        ("contrast", lambda t: lambda i: t.functional.adjust_contrast(i, 0.7)),
        ("saturation", lambda t: lambda i: t.functional.adjust_saturation(i, 0.7)),
    ],
    ids=["contrast", "saturation"],
)
def test_pil_blends_within_one_level(name, make, tv):
    # Pillow rounds its blends; tensor arithmetic (ours, torchvision's tensor path) truncates.
    img = _image()
    ours, theirs = make(T)(img), make(tv)(img)
    assert ours.mode == theirs.mode
    diff = np.abs(np.asarray(ours).astype(int) - np.asarray(theirs).astype(int))
    assert diff.max() <= 1


def test_five_and_ten_crop_give_pil_tuples(tv):
    img = _image()
    for ours, theirs in (
        (T.FiveCrop(10)(img), tv.FiveCrop(10)(img)),
        (T.TenCrop(9, True)(img), tv.TenCrop(9, True)(img)),
    ):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same_pixels(a, b)


@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA", "P", "I", "F", "CMYK", "1"])
def test_to_tensor_and_pil_to_tensor_per_mode(mode, tv):
    img = _image(mode)
    for ours, theirs in ((T.ToTensor(), tv.ToTensor()), (T.PILToTensor(), tv.PILToTensor())):
        a, b = ours(img), theirs(img)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("mode", ["L", "LA", "RGBA", "P", "I", "F"])
def test_geometric_transforms_keep_the_mode(mode, tv):
    img = _image(mode)
    for make in (
        lambda t: t.RandomHorizontalFlip(1.0),
        lambda t: t.CenterCrop(17),
        lambda t: t.Pad(2),
    ):
        _same_pixels(make(T)(img), make(tv)(img))
    if mode == "P":
        assert make(T)(img).getpalette() == img.getpalette()


def test_to_tensor_of_ndarray(tv):
    for arr in (
        np.arange(24, dtype=np.uint8).reshape(2, 4, 3),
        np.linspace(0, 1, 8, dtype=np.float32).reshape(2, 4),
        np.arange(8, dtype=np.int64).reshape(2, 4, 1),
    ):
        a, b = T.ToTensor()(arr), tv.ToTensor()(arr)
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_to_pil_image_modes(tv):
    import torch

    rng = np.random.default_rng(1)
    cases = [
        (rng.random((3, 5, 6), dtype=np.float32), None),
        (rng.integers(0, 256, (1, 5, 6), dtype=np.uint8), None),
        (rng.integers(0, 256, (2, 5, 6), dtype=np.uint8), None),
        (rng.integers(0, 256, (4, 5, 6), dtype=np.uint8), "CMYK"),
        (rng.integers(0, 256, (3, 5, 6), dtype=np.uint8), "YCbCr"),
        (rng.integers(-1000, 1000, (1, 5, 6), dtype=np.int32), None),
        (rng.random((1, 5, 6), dtype=np.float32), "F"),
        (rng.random((5, 6), dtype=np.float32), None),
    ]
    for data, mode in cases:
        ours = T.ToPILImage(mode)(tc.tensor(data))
        theirs = tv.ToPILImage(mode)(torch.tensor(data))
        _same_pixels(ours, theirs)
        hwc = np.ascontiguousarray(np.moveaxis(data, 0, -1)) if data.ndim == 3 else data
        if hwc.dtype == np.uint8:
            _same_pixels(
                T.functional.to_pil_image(hwc, mode), tv.functional.to_pil_image(hwc, mode)
            )
    with pytest.raises(ValueError, match="channels"):
        T.ToPILImage()(tc.zeros(5, 2, 2))
    with pytest.raises(ValueError, match="mode"):
        T.ToPILImage("RGB")(tc.zeros(1, 2, 2, dtype=tc.uint8))
    with pytest.raises(TypeError, match="not supported"):
        T.ToPILImage()(np.zeros((2, 2, 3), np.float64))
    with pytest.raises(TypeError):
        T.ToPILImage()([1, 2])


def test_tensor_only_transforms_refuse_pil():
    img = _image()
    for t in (
        T.Normalize([0.5] * 3, [0.5] * 3),
        T.ConvertImageDtype(tc.float32),
        T.RandomErasing(p=1.0),
    ):
        with pytest.raises(TypeError, match="PIL"):
            t(img)
    with pytest.raises(TypeError, match="PIL Image"):
        T.functional.to_grayscale(tc.zeros(3, 2, 2))
    with pytest.raises(TypeError, match="PIL Image"):
        T.functional.pil_to_tensor(np.zeros((2, 2)))


def test_compose_of_pil_then_tensor_transforms(tv):
    import torch

    img = _image(size=(40, 30))

    def pipeline(lib):  # the same PIL-then-tensor pipeline in either library
        return lib.Compose(
            [
                lib.CenterCrop(24),
                lib.Resize(12),
                lib.RandomHorizontalFlip(1.0),
                lib.ToTensor(),
                lib.Normalize([0.5] * 3, [0.25] * 3),
            ]
        )

    ours, theirs = pipeline(T), pipeline(tv)
    np.testing.assert_allclose(ours(img).numpy(), theirs(img).numpy(), rtol=1e-6, atol=1e-6)
    back = T.Compose([T.ToPILImage(), T.Resize(8)])(tc.rand(3, 16, 16))
    assert isinstance(back, Image.Image) and back.size == (8, 8)
    assert torch  # torchvision's pipeline above ran on torch


def test_random_transforms_on_pil_are_seeded():
    img = _image()
    for t in (
        T.RandomResizedCrop(16),
        T.RandomRotation(30),
        T.ColorJitter(0.4, 0.4, 0.4, 0.1),
        T.RandomCrop(20, padding=2),
        T.RandomAffine(15, (0.1, 0.1)),
        T.RandomPerspective(p=1.0),
        T.GaussianBlur(3),
    ):
        tc.manual_seed(3)
        a = t(img)
        tc.manual_seed(3)
        b = t(img)
        assert isinstance(a, Image.Image) and a.mode == img.mode
        _same_pixels(a, b)
    assert T.RandomResizedCrop(16)(img).size == (16, 16)


def test_transform_modules_move_like_modules():
    # Transforms are nn.Modules: .to()/.cuda()/.float() must not hit a transform's own methods.
    pipe = T.Compose(
        [T.RandomHorizontalFlip(), T.ConvertImageDtype(tc.float32), T.Normalize([0.5], [0.5])]
    )
    assert pipe.to("cpu") is pipe and pipe.cpu() is pipe and pipe.float() is pipe
    assert pipe.eval() is pipe and list(pipe.state_dict()) == []
    out = pipe(tc.zeros(1, 4, 4, dtype=tc.uint8))
    assert out.dtype == tc.float32 and float(out.max()) == -1.0
