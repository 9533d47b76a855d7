"""tensorcore.vision.utils against torchvision 0.14's, pixel by pixel (issue 25, point 2)."""

import io
import warnings

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision import utils

Image = pytest.importorskip("PIL.Image")


@pytest.fixture(scope="module")
def tvu():
    return pytest.importorskip("torchvision.utils")


def _pair(arr):
    import torch

    return tc.tensor(arr), torch.tensor(arr)


def _equal(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


RNG = np.random.default_rng(0)
BATCH = RNG.random((5, 3, 6, 7), dtype=np.float32) * 3 - 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        dict(nrow=2, padding=1, pad_value=0.5),
        dict(normalize=True),
        dict(normalize=True, value_range=(-0.5, 0.5)),
        dict(normalize=True, scale_each=True, nrow=3),
        dict(padding=0, nrow=10),
    ],
)
def test_make_grid(kwargs, tvu):
    ours, theirs = _pair(BATCH)
    _equal(utils.make_grid(ours, **kwargs), tvu.make_grid(theirs, **kwargs))
    gray = BATCH[:, :1]
    ours, theirs = _pair(gray)
    _equal(utils.make_grid(ours, **kwargs), tvu.make_grid(theirs, **kwargs))
    ours, theirs = _pair(BATCH[0])
    _equal(utils.make_grid([ours, ours], **kwargs), tvu.make_grid([theirs, theirs], **kwargs))


def test_make_grid_errors():
    with pytest.raises(TypeError, match="list of tensors"):
        utils.make_grid(np.zeros((2, 3, 4, 4)))
    with pytest.raises(TypeError, match="value_range"):
        utils.make_grid(tc.zeros(2, 3, 4, 4), normalize=True, value_range=[0, 1])


@pytest.mark.parametrize("fmt", ["png", "bmp"])
def test_save_image_same_bytes_as_torchvision(fmt, tmp_path, tvu):
    ours, theirs = _pair(np.clip(BATCH, 0, 1))
    utils.save_image(ours, tmp_path / f"ours.{fmt}", nrow=3)
    tvu.save_image(theirs, tmp_path / f"theirs.{fmt}", nrow=3)
    a, b = Image.open(tmp_path / f"ours.{fmt}"), Image.open(tmp_path / f"theirs.{fmt}")
    assert a.size == b.size
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    buf = io.BytesIO()
    utils.save_image(ours[0], buf, format="png")
    assert buf.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"


IMAGE = RNG.integers(0, 256, (3, 40, 50), dtype=np.uint8)
BOXES = np.array([[2, 3, 20, 25], [10.7, 5.2, 45.9, 38.1], [30, 30, 30, 39]], dtype=np.float32)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        dict(labels=["cat", "dog", "x"], width=2),
        dict(colors="red", fill=True),
        dict(colors=[(255, 0, 0), "#00ff00", "blue"], labels=["a", "b", "c"], fill=True, width=3),
    ],
)
def test_draw_bounding_boxes(kwargs, tvu):
    (img, timg), (boxes, tboxes) = _pair(IMAGE), _pair(BOXES)
    _equal(
        utils.draw_bounding_boxes(img, boxes, **kwargs),
        tvu.draw_bounding_boxes(timg, tboxes, **kwargs),
    )
    (gray, tgray) = _pair(IMAGE[:1])
    _equal(
        utils.draw_bounding_boxes(gray, boxes, **kwargs),
        tvu.draw_bounding_boxes(tgray, tboxes, **kwargs),
    )


def test_draw_bounding_boxes_errors():
    img = tc.zeros(3, 8, 8, dtype=tc.uint8)
    with pytest.raises(ValueError, match="uint8"):
        utils.draw_bounding_boxes(img.float(), tc.zeros(1, 4))
    with pytest.raises(ValueError, match="xmin, ymin, xmax, ymax"):
        utils.draw_bounding_boxes(img, tc.tensor([[5.0, 0, 1, 4]]))
    with pytest.raises(ValueError, match="labels"):
        utils.draw_bounding_boxes(img, tc.zeros(2, 4), labels=["a"])
    with pytest.raises(ValueError, match="channels"):
        utils.draw_bounding_boxes(tc.zeros(2, 8, 8, dtype=tc.uint8), tc.zeros(1, 4))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert utils.draw_bounding_boxes(img, tc.zeros(0, 4)) is img
    assert "No box was drawn" in str(caught[0].message)


@pytest.mark.parametrize("alpha", [0.8, 0.3, 1.0])
def test_draw_segmentation_masks(alpha, tvu):
    masks = np.zeros((3, 40, 50), dtype=bool)
    masks[0, 5:20, 5:30] = True
    masks[1, 15:35, 20:45] = True  # overlaps mask 0: the later one wins
    masks[2] = RNG.random((40, 50)) > 0.8
    (img, timg), (m, tm) = _pair(IMAGE), _pair(masks)
    for colors in (None, ["red", (0, 255, 0), "#123456"], "yellow"):
        c = colors
        if isinstance(c, str):
            ours = utils.draw_segmentation_masks(img, m[0], alpha, c)
            theirs = tvu.draw_segmentation_masks(timg, tm[0], alpha, c)
        else:
            ours = utils.draw_segmentation_masks(img, m, alpha, c)
            theirs = tvu.draw_segmentation_masks(timg, tm, alpha, c)
        _equal(ours, theirs)


def test_draw_segmentation_masks_errors():
    img = tc.zeros(3, 4, 4, dtype=tc.uint8)
    with pytest.raises(ValueError, match="bool"):
        utils.draw_segmentation_masks(img, tc.zeros(1, 4, 4))
    with pytest.raises(ValueError, match="same size"):
        utils.draw_segmentation_masks(img, tc.zeros(1, 3, 4, dtype=tc.bool))
    with pytest.raises(ValueError, match="colors"):
        utils.draw_segmentation_masks(img, tc.zeros(2, 4, 4, dtype=tc.bool), colors=["red"])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        dict(colors="blue", radius=3),
        dict(connectivity=[(0, 1), (1, 2)], colors=(10, 200, 30), width=2),
    ],
)
def test_draw_keypoints(kwargs, tvu):
    points = np.array([[[5, 6], [20.5, 30.2], [40, 10]], [[45, 35], [2, 38], [25, 2]]], np.float32)
    (img, timg), (k, tk) = _pair(IMAGE), _pair(points)
    _equal(utils.draw_keypoints(img, k, **kwargs), tvu.draw_keypoints(timg, tk, **kwargs))
    with pytest.raises(ValueError, match="num_instances"):
        utils.draw_keypoints(img, k[0])
