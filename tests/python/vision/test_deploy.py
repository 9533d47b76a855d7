"""Python -> C++ deployment round trip: Compose.save, then the C++ Pipeline (through its binding)
must give the same output for the same input and generator seed."""
import numpy as np
import pytest

import tensorcore as tc
from tensorcore import _C
from tensorcore.vision import transforms as T

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def gen(seed):
    g = tc.Generator()
    g.manual_seed(seed)
    return g


PIPELINES = {
    "seed": lambda g: [T.RandomCrop(48, generator=g), T.RandomHorizontalFlip(0.3, generator=g),
                       T.ConvertImageDtype(tc.float32), T.Normalize(MEAN, STD)],
    "eval": lambda g: [T.Resize(60), T.CenterCrop(52), T.ConvertImageDtype(tc.float32),
                       T.Normalize(MEAN, STD)],
    "train": lambda g: [T.RandomResizedCrop(40, generator=g),
                        T.RandomHorizontalFlip(generator=g), T.RandomVerticalFlip(0.2, generator=g),
                        T.ConvertImageDtype(tc.float32), T.Normalize(MEAN, STD)],
    "unfused": lambda g: [T.RandomHorizontalFlip(0.5, generator=g), T.Resize([50, 45]),
                          T.ConvertImageDtype(tc.float32), T.Resize(30, interpolation="bicubic"),
                          T.Normalize([0.5], [0.25])],
    "cifar": lambda g: [T.RandomCrop(60, padding=4, padding_mode="reflect", generator=g),
                        T.RandomHorizontalFlip(generator=g), T.ConvertImageDtype(tc.float32),
                        T.Normalize(MEAN, STD)],
    "pad": lambda g: [T.Pad([1, 2, 3, 4], fill=7), T.RandomCrop(80, pad_if_needed=True, fill=3,
                                                                  generator=g),
                      T.Pad(2, padding_mode="symmetric"), T.Pad([-3, 1], padding_mode="edge"),
                      T.RandomVerticalFlip(0.5, generator=g)],
    "color": lambda g: [T.ColorJitter(0.4, 0.3, 0.5, 0.1, generator=g), T.Grayscale(3),
                        T.ColorJitter(brightness=(0.5, 1.5), generator=g),
                        T.ColorJitter(contrast=0.2, hue=0.2, generator=g, same_on_batch=True),
                        T.ConvertImageDtype(tc.float32), T.Grayscale(1)],
    "same_on_batch": lambda g: [T.RandomCrop(50, generator=g, same_on_batch=True),
                                T.RandomResizedCrop([30, 20], generator=g, same_on_batch=True),
                                T.ConvertImageDtype(tc.float32)],
}


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
            '"transforms": [{"name": "GaussianBlur", "params": {}}]}')
    with pytest.raises(ValueError, match="format"):
        _C._vision.Pipeline.from_json('{"transforms": []}')
    with pytest.raises(ValueError, match="cannot open"):
        _C._vision.Pipeline.load(str(tmp_path / "missing.json"))
    p = _C._vision.Pipeline.from_json(
        '{"format": "tensorcore.vision.transforms", "version": 1, '
        '"transforms": [{"name": "RandomCrop", "params": {"size": [90, 90]}}]}')
    with pytest.raises(ValueError, match="larger"):
        p(tc.zeros((3, 20, 20), dtype=tc.uint8))
