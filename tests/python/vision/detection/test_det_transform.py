import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.models.detection.transform import (
    GeneralizedRCNNTransform,
    _resized_size,
    resize_boxes,
    resize_keypoints,
)

from det_helpers import random_boxes, to_torch

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def test_resize_rule_matches_torchvision_formula(tv):
    """torchvision's size rule, evaluated with torch's own ops, over many image and target sizes."""
    import torch

    rng = np.random.default_rng(0)
    for _ in range(3000):
        h, w = (int(v) for v in rng.integers(1, 2500, 2))
        min_size, max_size = (
            float(rng.choice([800, 600, 96, 333, 512])),
            float(rng.choice([1333, 1000, 128, 777])),
        )
        shape = torch.tensor([h, w])
        scale = torch.min(
            min_size / torch.min(shape).to(torch.float32),
            max_size / torch.max(shape).to(torch.float32),
        ).item()
        want = (int(np.floor(h * scale)), int(np.floor(w * scale)))
        assert _resized_size(h, w, min_size, max_size, None) == want, (h, w, min_size, max_size)


@pytest.mark.parametrize(
    "shape,min_size,max_size",
    [
        ((3, 160, 200), 96, 128),
        ((3, 128, 96), 96, 128),
        ((3, 600, 450), 800, 1333),
        ((3, 37, 301), 50, 200),
        ((3, 599, 600), 800, 1333),
    ],
)
def test_resize_matches_torchvision(tv, shape, min_size, max_size):
    from torchvision.models.detection.transform import _resize_image_and_masks

    img = np.random.default_rng(1).random(shape, dtype=np.float32)
    want, _ = _resize_image_and_masks(to_torch(img), float(min_size), float(max_size))
    ours = GeneralizedRCNNTransform(min_size, max_size, MEAN, STD).eval()
    got, _ = ours.resize(tc.tensor(img))
    assert tuple(got.shape) == tuple(want.shape)
    # float32 bilinear: torch computes source coordinates in float32, tensorcore more precisely.
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=5e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_batch_targets_and_postprocess_match_torchvision(tv, dtype):
    from torchvision.models.detection.transform import GeneralizedRCNNTransform as TvTransform

    rng = np.random.default_rng(2)
    images = [rng.random((3, 160, 200)).astype(dtype), rng.random((3, 128, 96)).astype(dtype)]
    targets = [
        {"boxes": random_boxes(rng, 5, 160, 200, dtype=dtype), "labels": np.arange(5)},
        {"boxes": np.zeros((0, 4), dtype), "labels": np.zeros(0, np.int64)},
    ]
    kwargs = dict(min_size=(96,), max_size=128, image_mean=MEAN, image_std=STD)
    for training in (True, False):
        ours, ref = GeneralizedRCNNTransform(**kwargs), TvTransform(**kwargs)
        ours.train(training)
        ref.train(training)
        got_images, got_targets = ours(
            [tc.tensor(i) for i in images],
            [{k: tc.tensor(v) for k, v in t.items()} for t in targets],
        )
        want_images, want_targets = ref(
            [to_torch(i) for i in images], [to_torch(t) for t in targets]
        )
        assert (
            got_images.image_sizes
            == [tuple(s) for s in want_images.image_sizes]
            == [(96, 120), (128, 96)]
        )
        assert (
            tuple(got_images.tensors.shape) == tuple(want_images.tensors.shape) == (2, 3, 128, 128)
        )
        tol = 1e-4 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(
            got_images.tensors.numpy(), want_images.tensors.numpy(), atol=tol
        )
        assert float(got_images.tensors[0, :, 96:].abs().sum()) == 0  # zero padding
        for g, w in zip(got_targets, want_targets):
            assert g["boxes"].dtype == tc.tensor(np.zeros(0, dtype)).dtype
            np.testing.assert_array_equal(g["boxes"].numpy(), w["boxes"].numpy())
            np.testing.assert_array_equal(g["labels"].numpy(), w["labels"].numpy())
    # The caller's targets are not modified.
    assert targets[0]["boxes"].max() <= 200
    detections = [
        {"boxes": random_boxes(rng, 7, 96, 120, dtype=dtype)},
        {"boxes": random_boxes(rng, 3, 128, 96, dtype=dtype)},
    ]
    sizes, originals = [(96, 120), (128, 96)], [(160, 200), (128, 96)]
    got = ours.postprocess(
        [{k: tc.tensor(v) for k, v in d.items()} for d in detections], sizes, originals
    )
    want = ref.postprocess([to_torch(d) for d in detections], sizes, originals)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g["boxes"].numpy(), w["boxes"].numpy())


def test_multiscale_training_fixed_size_keypoints_and_masks(tv):
    import torch
    from torchvision.models.detection.transform import GeneralizedRCNNTransform as TvTransform

    # Training draws one of min_size per image, through tensorcore's generator.
    ours = GeneralizedRCNNTransform((64, 80, 96), 1000, MEAN, STD).train()
    seen = set()
    tc.manual_seed(0)
    for _ in range(20):
        batch, _ = ours([tc.rand(3, 50, 50)])
        seen.add(batch.image_sizes[0])
    # torchvision's float32 rule: 50 * (float32(1/50) * 64) = 63.99999 -> 63.
    assert seen == {(63, 63), (79, 79), (95, 95)}
    # fixed_size ignores min/max size: (width, height).
    fixed = GeneralizedRCNNTransform(64, 100, MEAN, STD, fixed_size=(70, 40)).eval()
    batch, _ = fixed([tc.rand(3, 50, 90)])
    assert batch.image_sizes == [(40, 70)] and tuple(batch.tensors.shape) == (1, 3, 64, 96)
    # size_divisible
    batch, _ = GeneralizedRCNNTransform(50, 100, MEAN, STD, size_divisible=16).eval()(
        [tc.rand(3, 50, 51)]
    )
    assert tuple(batch.tensors.shape) == (1, 3, 64, 64)
    # keypoints and masks follow the image
    rng = np.random.default_rng(3)
    kp = rng.random((2, 5, 3)).astype(np.float32) * 50
    masks = (rng.random((2, 50, 60)) > 0.5).astype(np.uint8)
    target = {
        "boxes": random_boxes(rng, 2, 50, 60),
        "labels": np.array([1, 2]),
        "keypoints": kp,
        "masks": masks,
    }
    img = rng.random((3, 50, 60), dtype=np.float32)
    kwargs = dict(min_size=(75,), max_size=200, image_mean=MEAN, image_std=STD)
    _, got = GeneralizedRCNNTransform(**kwargs).train()(
        [tc.tensor(img)], [{k: tc.tensor(v) for k, v in target.items()}]
    )
    _, want = TvTransform(**kwargs).train()([torch.tensor(img)], [to_torch(target)])
    np.testing.assert_allclose(got[0]["keypoints"].numpy(), want[0]["keypoints"].numpy(), rtol=1e-6)
    np.testing.assert_array_equal(got[0]["masks"].numpy(), want[0]["masks"].numpy())
    assert got[0]["masks"].dtype == tc.uint8
    ratios_box = resize_boxes(tc.tensor([[10.0, 20.0, 30.0, 40.0]]), (100, 50), (50, 100))
    np.testing.assert_array_equal(ratios_box.numpy(), [[20.0, 10.0, 60.0, 20.0]])
    np.testing.assert_array_equal(
        resize_keypoints(tc.tensor([[[10.0, 20.0, 1.0]]]), (100, 50), (50, 100)).numpy(),
        [[[20.0, 10.0, 1.0]]],
    )


def test_transform_errors():
    t = GeneralizedRCNNTransform(64, 100, MEAN, STD).eval()
    with pytest.raises(ValueError, match="empty list of images"):
        t([])
    with pytest.raises(ValueError, match="expected images with 3 channels"):
        t([tc.rand(4, 30, 30)])
    with pytest.raises(ValueError, match="3d tensors"):
        t([tc.rand(1, 3, 30, 30)])
    with pytest.raises(TypeError, match="floating type"):
        t([tc.zeros((3, 30, 30), dtype=tc.uint8)])
    with pytest.raises(TypeError, match=r"images\[1\] must be a Tensor"):
        t([tc.rand(3, 30, 30), np.zeros((3, 30, 30))])
    with pytest.raises(ValueError, match="2 images but 1 targets"):
        t(
            [tc.rand(3, 30, 30)] * 2,
            [{"boxes": tc.zeros(0, 4), "labels": tc.zeros(0, dtype=tc.int64)}],
        )
    with pytest.raises(ValueError, match="too small or too elongated"):
        GeneralizedRCNNTransform(10, 20, MEAN, STD).eval()([tc.rand(3, 1, 1000)])
    with pytest.raises(ValueError, match="image_std"):
        GeneralizedRCNNTransform(64, 100, MEAN, STD[:2])
