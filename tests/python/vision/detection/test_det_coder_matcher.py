import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.models.detection import _utils as det_utils

from det_helpers import random_boxes, to_torch


@pytest.mark.parametrize("weights", [(1.0, 1.0, 1.0, 1.0), (10.0, 10.0, 5.0, 5.0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_box_coder_matches_torchvision(tv, weights, dtype):
    from torchvision.models.detection import _utils as tv_utils

    rng = np.random.default_rng(0)
    refs, props = (
        random_boxes(rng, 300, 200, 300, dtype=dtype),
        random_boxes(rng, 300, 200, 300, dtype=dtype),
    )
    ours, ref = det_utils.BoxCoder(weights), tv_utils.BoxCoder(weights)
    # Same arithmetic as torchvision; only log/exp may round differently (an ulp), which the
    # corner = centre -/+ half-size cancellation can raise to a few ulps of the box scale.
    eps = np.finfo(dtype).eps

    def same(a, b):
        np.testing.assert_allclose(
            a.numpy(), b.numpy(), rtol=4 * eps, atol=8 * eps * np.abs(b.numpy()).max(initial=0)
        )

    got = ours.encode_single(tc.tensor(refs), tc.tensor(props))
    want = ref.encode_single(to_torch(refs), to_torch(props))
    assert got.dtype == (tc.float64 if dtype == np.float64 else tc.float32)
    same(got, want)
    # Decoding includes clamped huge log-scales (exp overflow guard) and several boxes per anchor.
    codes = rng.standard_normal((300, 8)).astype(dtype)
    codes[:5, 2] = 50.0
    got = ours.decode_single(tc.tensor(codes), tc.tensor(props))
    want = ref.decode_single(to_torch(codes), to_torch(props))
    same(got, want)
    # The list forms split/merge per image.
    split = [100, 0, 200]
    parts_r = [tc.tensor(a) for a in np.split(refs, np.cumsum(split)[:-1])]
    parts_p = [tc.tensor(a) for a in np.split(props, np.cumsum(split)[:-1])]
    got = ours.encode(parts_r, parts_p)
    want = ref.encode(
        [to_torch(p.numpy()) for p in parts_r], [to_torch(p.numpy()) for p in parts_p]
    )
    assert [g.shape[0] for g in got] == split
    for g, w in zip(got, want):
        same(g, w)
    got = ours.decode(tc.tensor(codes), parts_p)
    want = ref.decode(to_torch(codes), [to_torch(p.numpy()) for p in parts_p])
    assert tuple(got.shape) == tuple(want.shape) == (300, 2, 4)
    same(got, want)


def test_box_linear_coder_matches_torchvision(tv):
    from torchvision.models.detection import _utils as tv_utils

    rng = np.random.default_rng(1)
    refs, props = random_boxes(rng, 50, 100, 100), random_boxes(rng, 50, 100, 100)
    for normalize in (True, False):
        ours, ref = det_utils.BoxLinearCoder(normalize), tv_utils.BoxLinearCoder(normalize)
        codes = ours.encode(tc.tensor(refs), tc.tensor(props))
        np.testing.assert_allclose(
            codes.numpy(), ref.encode(to_torch(refs), to_torch(props)).numpy(), rtol=1e-6
        )
        np.testing.assert_allclose(
            ours.decode(codes, tc.tensor(refs)).numpy(),
            ref.decode(to_torch(codes.numpy()), to_torch(refs)).numpy(),
            rtol=1e-6,
        )


def _iou_matrix(rng, num_gt, num_pred):
    from tensorcore.vision.ops import box_iou

    gts = random_boxes(rng, num_gt, 100, 100, min_side=10)
    preds = random_boxes(rng, num_pred, 100, 100, min_side=10)
    preds[:num_gt] = gts + rng.uniform(-3, 3, gts.shape).astype(np.float32)  # some good matches
    preds[num_gt : 2 * num_gt] = gts  # exact ties with the ground truth boxes
    return box_iou(tc.tensor(gts), tc.tensor(np.maximum(preds, 0))).numpy()


@pytest.mark.parametrize("low_quality", [False, True])
@pytest.mark.parametrize("thresholds", [(0.5, 0.4), (0.7, 0.3), (0.5, 0.5)])
def test_matcher_matches_torchvision(tv, low_quality, thresholds):
    from torchvision.models.detection import _utils as tv_utils

    rng = np.random.default_rng(2)
    quality = _iou_matrix(rng, 6, 400)
    quality[5] = 0.0  # a ground truth overlapping nothing: every prediction ties at 0
    ours = det_utils.Matcher(*thresholds, allow_low_quality_matches=low_quality)
    ref = tv_utils.Matcher(*thresholds, allow_low_quality_matches=low_quality)
    got, want = ours(tc.tensor(quality)).numpy(), ref(to_torch(quality)).numpy()
    np.testing.assert_array_equal(got, want)
    assert set(np.unique(got)) - set(range(6)) <= {-1, -2}


def test_ssd_matcher_and_errors(tv):
    from torchvision.models.detection import _utils as tv_utils

    quality = _iou_matrix(np.random.default_rng(3), 4, 60)
    np.testing.assert_array_equal(
        det_utils.SSDMatcher(0.5)(tc.tensor(quality)).numpy(),
        tv_utils.SSDMatcher(0.5)(to_torch(quality)).numpy(),
    )
    with pytest.raises(ValueError, match="No ground-truth boxes"):
        det_utils.Matcher(0.5, 0.4)(tc.zeros(0, 10))
    with pytest.raises(ValueError, match="No proposal boxes"):
        det_utils.Matcher(0.5, 0.4)(tc.zeros(3, 0))
    with pytest.raises(ValueError, match="low_threshold"):
        det_utils.Matcher(0.3, 0.4)


@pytest.mark.parametrize("loss_type", ["l1", "smooth_l1", "giou", "diou", "ciou"])
def test_box_losses_match_torchvision(tv, loss_type):
    import torch
    from torchvision.models.detection import _utils as tv_utils

    rng = np.random.default_rng(4)
    anchors, gts = (
        random_boxes(rng, 40, 100, 100, dtype=np.float64),
        random_boxes(rng, 40, 100, 100, dtype=np.float64),
    )
    pred = rng.standard_normal((40, 4)) * 0.3
    p_tc, p_t = tc.tensor(pred, requires_grad=True), torch.tensor(pred, requires_grad=True)
    got = det_utils._box_loss(
        loss_type,
        det_utils.BoxCoder((1.0,) * 4),
        tc.tensor(anchors),
        tc.tensor(gts),
        p_tc,
        {"beta": 0.5},
    )
    want = tv_utils._box_loss(
        loss_type,
        tv_utils.BoxCoder((1.0,) * 4),
        to_torch(anchors),
        to_torch(gts),
        p_t,
        {"beta": 0.5},
    )
    got.backward()
    want.backward()
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
    np.testing.assert_allclose(p_tc.grad.numpy(), p_t.grad.numpy(), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="Unsupported loss"):
        det_utils._box_loss(
            "l3", det_utils.BoxCoder((1.0,) * 4), tc.tensor(anchors), tc.tensor(gts), p_tc
        )


def _nms_case(rng, n, num_classes):
    boxes = random_boxes(rng, n, 300, 400, min_side=20)
    boxes[n // 2 :] = boxes[: n - n // 2] + rng.uniform(-4, 4, (n - n // 2, 4)).astype(
        np.float32
    )  # overlaps
    return boxes, rng.random(n).astype(np.float32), rng.integers(0, num_classes, n)


@pytest.mark.parametrize(
    "n", [300, 999, 1001, 5000]
)  # both sides of torchvision's 4000-coordinate switch
def test_batched_nms_matches_torchvision(tv, n):
    from torchvision.ops import batched_nms as tv_batched_nms

    boxes, scores, idxs = _nms_case(np.random.default_rng(n), n, 20)
    got = det_utils.batched_nms(tc.tensor(boxes), tc.tensor(scores), tc.tensor(idxs), 0.5).numpy()
    want = tv_batched_nms(to_torch(boxes), to_torch(scores), to_torch(idxs), 0.5).numpy()
    np.testing.assert_array_equal(got, want)


def test_sampler_and_helpers():
    tc.manual_seed(0)
    matched = tc.tensor([[-1, 0, 0, 0, 1, 2, 0, 3, 0, 0]][0])
    pos, neg = det_utils.BalancedPositiveNegativeSampler(4, 0.5)([matched])
    assert int(pos[0].sum()) == 2 and int(neg[0].sum()) == 2
    assert bool((matched[pos[0].bool()] >= 1).all()) and bool((matched[neg[0].bool()] == 0).all())
    assert det_utils._topk_min(tc.zeros(7), 1000, 0) == 7
