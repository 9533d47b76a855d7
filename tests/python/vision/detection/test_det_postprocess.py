"""RetinaNet post-processing against torchvision's on the same head outputs: many candidates above
the threshold, overlapping boxes, per-level top-k, both NMS paths, truncation, images of
different sizes."""

import types

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.models.detection import RetinaNet, _utils as det_utils
from tensorcore.vision.models.detection.anchor_utils import AnchorGenerator
from tensorcore.vision.models.detection.image_list import ImageList

from det_helpers import assert_detections_equal, to_numpy, to_torch

LEVELS = [(16, 20), (8, 10), (4, 5), (2, 3), (1, 2)]
IMAGE_SHAPES = [(120, 150), (128, 96)]


def _case(seed, num_classes, dtype, logit_mean=-2.5):
    rng = np.random.default_rng(seed)
    gen = AnchorGenerator(tuple((s,) for s in (16, 32, 64, 128, 256)), ((0.5, 1.0, 2.0),) * 5)
    maps = [tc.zeros((2, 1) + s, dtype=dtype) for s in LEVELS]
    anchors = gen(ImageList(tc.zeros((2, 3, 128, 160), dtype=dtype), IMAGE_SHAPES), maps)
    sizes = [3 * h * w for h, w in LEVELS]
    np_dtype = np.float32 if dtype == tc.float32 else np.float64
    logits = [
        (rng.standard_normal((2, n, num_classes)) * 1.5 + logit_mean).astype(np_dtype)
        for n in sizes
    ]
    regression = [(rng.standard_normal((2, n, 4)) * 0.3).astype(np_dtype) for n in sizes]
    split_anchors = [list(a.split(sizes)) for a in anchors]
    return logits, regression, split_anchors


def _run_both(tv, logits, regression, anchors, **settings):
    from torchvision.models.detection.retinanet import RetinaNet as TvRetinaNet
    from torchvision.models.detection import _utils as tv_utils

    ref_self = types.SimpleNamespace(box_coder=tv_utils.BoxCoder((1.0,) * 4), **settings)
    our_self = types.SimpleNamespace(box_coder=det_utils.BoxCoder((1.0,) * 4), **settings)
    want = TvRetinaNet.postprocess_detections(
        ref_self,
        {
            "cls_logits": [to_torch(x) for x in logits],
            "bbox_regression": [to_torch(x) for x in regression],
        },
        [[to_torch(a) for a in per_image] for per_image in anchors],
        IMAGE_SHAPES,
    )
    got = RetinaNet.postprocess_detections(
        our_self,
        {
            "cls_logits": [tc.tensor(x) for x in logits],
            "bbox_regression": [tc.tensor(x) for x in regression],
        },
        anchors,
        IMAGE_SHAPES,
    )
    return to_numpy(got), to_numpy(want)


SETTINGS = dict(score_thresh=0.05, nms_thresh=0.5, detections_per_img=300, topk_candidates=1000)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
@pytest.mark.parametrize(
    "overrides",
    [
        {},  # thousands of boxes: one NMS per class
        {"topk_candidates": 40, "detections_per_img": 25},  # per-level top-k and truncation
        {"score_thresh": 0.6, "nms_thresh": 0.3},  # few boxes: the coordinate-trick NMS
        {"score_thresh": 0.0},  # every score passes (no logit pre-filter)
        {"score_thresh": 0.9999},  # nothing passes
    ],
)
def test_postprocess_matches_torchvision(tv, dtype, overrides):
    logits, regression, anchors = _case(0, 6, dtype)
    got, want = _run_both(tv, logits, regression, anchors, **{**SETTINGS, **overrides})
    assert_detections_equal(
        got, want, box_tol=1e-4 if dtype == tc.float32 else 1e-10, score_tol=1e-6
    )
    for g in got:
        assert g["labels"].dtype == np.int64 and g["scores"].dtype == g["boxes"].dtype
        assert np.all(np.diff(g["scores"]) <= 0)  # sorted by decreasing score
    if overrides.get("score_thresh") == 0.9999:
        assert all(len(g["boxes"]) == 0 for g in got)
    elif not overrides:
        assert min(len(g["boxes"]) for g in got) > 100  # post-processing really filtered something


def test_postprocess_many_classes_and_distinct_anchor_tensors(tv):
    """91 classes (COCO) and anchors given as separate tensors per image (the generic path)."""
    logits, regression, anchors = _case(1, 91, tc.float32, logit_mean=-3.5)
    anchors = [[a.clone() for a in per_image] for per_image in anchors]
    got, want = _run_both(tv, logits, regression, anchors, **SETTINGS)
    assert_detections_equal(got, want, box_tol=1e-4, score_tol=1e-6)
    assert len(set(np.concatenate([g["labels"] for g in got]).tolist())) > 30


def test_postprocess_near_threshold_scores(tv):
    """Logits exactly at and around logit(score_thresh): the pre-filter must not drop any score
    the exact threshold keeps."""
    logits, regression, anchors = _case(2, 3, tc.float32)
    edge = np.float32(np.log(0.05 / 0.95))
    for level in logits:
        flat = level.reshape(-1)
        flat[::7] = (
            edge + np.float32(np.random.default_rng(0).integers(-50, 50, flat[::7].shape)) * 1e-7
        )
    got, want = _run_both(tv, logits, regression, anchors, **SETTINGS)
    assert_detections_equal(got, want, box_tol=1e-4, score_tol=1e-6)


def test_postprocess_errors():
    logits, regression, anchors = _case(3, 2, tc.float32)
    with pytest.raises(ValueError, match="levels of logits"):
        from tensorcore.vision.models.detection.postprocess import postprocess_detections

        postprocess_detections(
            [tc.tensor(x) for x in logits],
            [tc.tensor(x) for x in regression[:2]],
            anchors,
            IMAGE_SHAPES,
            det_utils.BoxCoder((1.0,) * 4),
        )
    with pytest.raises(ValueError, match="anchors for 1 images"):
        postprocess_detections(
            [tc.tensor(x) for x in logits],
            [tc.tensor(x) for x in regression],
            anchors[:1],
            IMAGE_SHAPES,
            det_utils.BoxCoder((1.0,) * 4),
        )
