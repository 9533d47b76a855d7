"""Python -> C++ deployment round trip: Compose.save, then the C++ Pipeline (through its binding)
must give the same output for the same input and generator seed."""

import numpy as np
import pytest

import tensorcore as tc
from shared_inputs import gen, padding_transforms
from tensorcore import _C
from tensorcore.vision import transforms as T

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


PIPELINES = {
    "seed": lambda g: [
        T.RandomCrop(48, generator=g),
        T.RandomHorizontalFlip(0.3, generator=g),
        T.ConvertImageDtype(tc.float32),
        T.Normalize(MEAN, STD),
    ],
    "eval": lambda g: [
        T.Resize(60),
        T.CenterCrop(52),
        T.ConvertImageDtype(tc.float32),
        T.Normalize(MEAN, STD),
    ],
    "train": lambda g: [
        T.RandomResizedCrop(40, generator=g),
        T.RandomHorizontalFlip(generator=g),
        T.RandomVerticalFlip(0.2, generator=g),
        T.ConvertImageDtype(tc.float32),
        T.Normalize(MEAN, STD),
    ],
    "unfused": lambda g: [
        T.RandomHorizontalFlip(0.5, generator=g),
        T.Resize([50, 45]),
        T.ConvertImageDtype(tc.float32),
        T.Resize(30, interpolation="bicubic"),
        T.Normalize([0.5], [0.25]),
    ],
    "cifar": lambda g: [
        T.RandomCrop(60, padding=4, padding_mode="reflect", generator=g),
        T.RandomHorizontalFlip(generator=g),
        T.ConvertImageDtype(tc.float32),
        T.Normalize(MEAN, STD),
    ],
    "pad": padding_transforms,
    "color": lambda g: [
        T.ColorJitter(0.4, 0.3, 0.5, 0.1, generator=g),
        T.Grayscale(3),
        T.ColorJitter(brightness=(0.5, 1.5), generator=g),
        T.ColorJitter(contrast=0.2, hue=0.2, generator=g, same_on_batch=True),
        T.ConvertImageDtype(tc.float32),
        T.Grayscale(1),
    ],
    "pixel": lambda g: [
        T.RandomGrayscale(0.5, generator=g),
        T.RandomInvert(0.5, generator=g),
        T.RandomSolarize(0.6, 0.7, generator=g),
        T.RandomApply([T.RandomInvert(1.0, generator=g)], generator=g),
        T.RandomAutocontrast(0.6, generator=g),
        T.RandomAdjustSharpness(1.8, 0.6, generator=g),
        T.RandomAdjustSharpness(0.3, 0.5, generator=g, same_on_batch=True),
    ],
    "posterize_uint8": lambda g: [
        T.RandomPosterize(3, 0.6, generator=g),
        T.RandomSolarize(128, 0.5, generator=g),
        T.RandomPosterize(6, 0.5, generator=g, same_on_batch=True),
        T.RandomEqualize(0.6, generator=g),
    ],
    "same_on_batch": lambda g: [
        T.RandomCrop(50, generator=g, same_on_batch=True),
        T.RandomResizedCrop([30, 20], generator=g, same_on_batch=True),
        T.ConvertImageDtype(tc.float32),
    ],
}


# The transforms added to the C++ runtime later: warps, blur, erasing and the containers. Each
# runs on uint8 and float32 inputs, single images and batches (per-sample draws), and with
# same_on_batch=True.
NEW_PIPELINES = {
    "rotation": lambda g: [
        T.RandomRotation(30, generator=g),
        T.RandomRotation(
            (-90, 90), interpolation="bilinear", fill=[10, 20, 30], center=[5, 9], generator=g
        ),
        T.RandomRotation(25, expand=True, fill=None, generator=g),
        T.RandomRotation(40, interpolation="bilinear", expand=True, fill=3, generator=g),
    ],
    "affine": lambda g: [
        T.RandomAffine(
            20,
            translate=(0.1, 0.2),
            scale=(0.8, 1.2),
            shear=(-10, 10, -5, 5),
            interpolation="bilinear",
            fill=7,
            generator=g,
        ),
        T.RandomAffine(10, shear=8, center=[20, 30], fill=None, generator=g),
        T.RandomAffine((-5, 15), scale=(0.9, 1.1), generator=g),
    ],
    "perspective": lambda g: [
        T.RandomPerspective(0.4, p=0.6, fill=[1, 2, 3], generator=g),
        T.RandomPerspective(0.3, p=0.7, interpolation="nearest", fill=None, generator=g),
        T.RandomPerspective(0.5, p=1.0, generator=g),
    ],
    "blur_erase": lambda g: [
        T.GaussianBlur(5, (0.5, 2.0), generator=g),
        T.GaussianBlur((3, 7), 1.3, generator=g),
        T.RandomErasing(p=0.7, generator=g),
        T.RandomErasing(
            p=0.8, value=[9, 50, 200], scale=(0.05, 0.2), ratio=(0.5, 2.0), generator=g
        ),
    ],
    "erase_random": lambda g: [
        T.ConvertImageDtype(tc.float32),
        T.RandomErasing(p=0.9, value="random", generator=g),
        T.GaussianBlur(3, generator=g),
    ],
    "containers": lambda g: [
        T.RandomApply(
            [T.ColorJitter(0.4, 0.3, generator=g), T.RandomRotation(15, generator=g)],
            p=0.6,
            generator=g,
        ),
        T.RandomChoice(
            [
                T.RandomHorizontalFlip(1.0, generator=g),
                T.GaussianBlur(3, generator=g),
                T.RandomAffine(10, translate=(0.1, 0.1), generator=g),
            ],
            p=[1, 2, 3],
            generator=g,
        ),
        T.RandomOrder(
            [
                T.RandomVerticalFlip(0.5, generator=g),
                T.RandomErasing(p=1.0, generator=g),
                T.ColorJitter(brightness=0.3, generator=g),
            ],
            generator=g,
        ),
        T.RandomApply(
            [
                T.RandomChoice(
                    [T.RandomPerspective(p=1.0, generator=g), T.GaussianBlur(5, generator=g)],
                    generator=g,
                )
            ],
            p=0.5,
            generator=g,
        ),
    ],
    "with_fusion": lambda g: [
        T.RandomResizedCrop(48, generator=g),
        T.RandomApply([T.GaussianBlur(5, generator=g)], generator=g),
        T.RandomCrop(40, generator=g),
        T.RandomHorizontalFlip(generator=g),
        T.ConvertImageDtype(tc.float32),
        T.Normalize(MEAN, STD),
        T.RandomErasing(p=0.5, generator=g),
    ],
    # PIPELINES' pixel pipelines, here also in float32 and 4 seeds.
    "pixel": PIPELINES["pixel"],
    "posterize_uint8": PIPELINES["posterize_uint8"],
    "same_on_batch": lambda g: [
        T.RandomRotation(30, expand=True, generator=g, same_on_batch=True),
        T.RandomAffine(15, translate=(0.1, 0.1), generator=g, same_on_batch=True),
        T.RandomPerspective(p=0.8, generator=g, same_on_batch=True),
        T.GaussianBlur(3, generator=g, same_on_batch=True),
        T.RandomErasing(p=0.9, generator=g, same_on_batch=True),
        T.RandomApply([T.RandomRotation(10, generator=g)], p=0.5, generator=g, same_on_batch=True),
        T.RandomChoice(
            [T.RandomVerticalFlip(1.0, generator=g), T.GaussianBlur(3, generator=g)],
            generator=g,
            same_on_batch=True,
        ),
        T.RandomOrder(
            [T.RandomHorizontalFlip(generator=g), T.GaussianBlur(3, generator=g)],
            generator=g,
            same_on_batch=True,
        ),
    ],
}


def _input(shape, dtype):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, shape, dtype=np.uint8)
    return tc.from_numpy(x if dtype == "uint8" else (x / 255.0).astype(np.float32))


@pytest.mark.parametrize("name", sorted(NEW_PIPELINES))
@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_cpp_pipeline_new_transforms_match_python(tmp_path, name, batched, dtype):
    if name.endswith("_uint8") and dtype != "uint8":
        pytest.skip("posterize takes uint8 images only")
    x = _input((6, 3, 50, 62) if batched else (3, 50, 62), dtype)
    path = str(tmp_path / f"{name}.json")
    T.Compose(NEW_PIPELINES[name](None)).save(path)
    cpp = _C._vision.Pipeline.load(path)
    assert cpp.names() == [type(t).__name__ for t in NEW_PIPELINES[name](None)]
    for seed in (0, 1, 2, 3):
        ours = T.Compose(NEW_PIPELINES[name](gen(seed)))(x)
        theirs = cpp(x, gen(seed))
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        # Python's loader rebuilds the same pipeline.
        again = T.load(path, generator=gen(seed))(x)
        np.testing.assert_array_equal(again.numpy(), ours.numpy())


def test_cpp_pipeline_changes_the_image_and_varies_per_sample():
    # Guards against a round trip that matches because both sides do nothing.
    x = _input((4, 3, 50, 62), "uint8")
    for name in ("rotation", "affine", "blur_erase"):
        out = T.Compose(NEW_PIPELINES[name](gen(5)))(x)
        assert not np.array_equal(out.numpy()[:, :, :50, :62], x.numpy())
        assert not np.array_equal(out.numpy()[0], out.numpy()[1])


def test_cpp_pipeline_rejects_bad_new_transforms():
    head = '{"format": "tensorcore.vision.transforms", "version": 1, "transforms": ['
    with pytest.raises(ValueError, match="nearest or bilinear"):
        _C._vision.Pipeline.from_json(
            head + '{"name": "RandomRotation", "params": '
            '{"degrees": [0, 1], "interpolation": "bicubic"}}]}'
        )
    with pytest.raises(ValueError, match="one probability per transform"):
        _C._vision.Pipeline.from_json(
            head + '{"name": "RandomChoice", "params": {"transforms": '
            '[{"name": "Grayscale", "params": {"num_output_channels": '
            '3}}], "p": [0.5, 0.5]}}]}'
        )
    with pytest.raises(ValueError, match="not supported"):
        _C._vision.Pipeline.from_json(
            head + '{"name": "RandomApply", "params": {"p": 0.5, '
            '"transforms": [{"name": "Lambda", "params": {}}]}}]}'
        )
    p = _C._vision.Pipeline.from_json(
        head + '{"name": "GaussianBlur", "params": {"kernel_size": [9, 9], "sigma": [1, 2]}}]}'
    )
    with pytest.raises(ValueError, match="reflect padding"):
        p(tc.zeros((3, 3, 20), dtype=tc.uint8))
    with pytest.raises(TypeError, match="cannot be saved"):
        T.Compose([T.RandomApply([T.Lambda(lambda x: x)])]).save("/tmp/never_written.json")
    with pytest.raises(TypeError, match="cannot be saved"):
        T.Compose([T.LinearTransformation(tc.eye(3), tc.zeros(3))]).save("/tmp/never.json")
    with pytest.raises(ValueError, match="odd"):
        _C._vision.Pipeline.from_json(
            head + '{"name": "GaussianBlur", "params": {"kernel_size": [4, 3], "sigma": [1, 2]}}]}'
        )


@pytest.mark.parametrize("name", sorted(PIPELINES))
@pytest.mark.parametrize("batched", [False, True])
def test_cpp_pipeline_matches_python(tmp_path, name, batched):
    rng = np.random.default_rng(0)
    shape = (5, 3, 64, 72) if batched else (3, 64, 72)
    x = tc.from_numpy(rng.integers(0, 256, shape, dtype=np.uint8))
    path = str(tmp_path / f"{name}.json")
    T.Compose(PIPELINES[name](None)).save(path)
    cpp = _C._vision.Pipeline.load(path)
    assert cpp.names() == [type(t).__name__ for t in PIPELINES[name](None)]
    for seed in (0, 1, 2):
        ours = T.Compose(PIPELINES[name](gen(seed)))(x)
        theirs = cpp(x, gen(seed))
        assert ours.shape == theirs.shape
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_cpp_pipeline_errors(tmp_path):
    with pytest.raises(ValueError, match="not supported"):
        _C._vision.Pipeline.from_json(
            '{"format": "tensorcore.vision.transforms", "version": 1, '
            '"transforms": [{"name": "Lambda", "params": {}}]}'
        )
    with pytest.raises(ValueError, match="format"):
        _C._vision.Pipeline.from_json('{"transforms": []}')
    with pytest.raises(ValueError, match="cannot open"):
        _C._vision.Pipeline.load(str(tmp_path / "missing.json"))
    p = _C._vision.Pipeline.from_json(
        '{"format": "tensorcore.vision.transforms", "version": 1, '
        '"transforms": [{"name": "RandomCrop", "params": {"size": [90, 90]}}]}'
    )
    with pytest.raises(ValueError, match="larger"):
        p(tc.zeros((3, 20, 20), dtype=tc.uint8))
