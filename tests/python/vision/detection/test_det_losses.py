"""The heads' losses against torchvision's compute_loss on the same outputs and matches: values and
gradients, with ignored (between-threshold) anchors, images without objects, float32/float64."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.models.detection import _utils as det_utils
from tensorcore.vision.models.detection.retinanet import (
    RetinaNetClassificationHead,
    RetinaNetRegressionHead,
)
from tensorcore.vision.ops import sigmoid_focal_loss

from det_helpers import random_boxes


def _matches(rng, anchors):
    # -2 (ignored), -1 (background) and matches to 3 ground truths; the second image has none.
    return [rng.choice([-2, -1, -1, -1, -1, 0, 1, 2], anchors), np.full(anchors, -1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_classification_loss_matches_torchvision(tv, dtype):
    import torch
    from torchvision.models.detection.retinanet import RetinaNetClassificationHead as TvHead

    rng = np.random.default_rng(0)
    anchors, classes = 3000, 7
    logits = (rng.standard_normal((2, anchors, classes)) * 3 - 2).astype(dtype)
    logits[0, :5, 0] = [30.0, -30.0, 0.0, 17.0, -17.0]  # saturated and zero logits
    matched = _matches(rng, anchors)
    labels = [np.array([1, 6, 0]), np.zeros(0, np.int64)]
    x_t, x_tc = torch.tensor(logits, requires_grad=True), tc.tensor(logits, requires_grad=True)
    want = TvHead(8, 9, classes).compute_loss(
        [{"labels": torch.tensor(l)} for l in labels],
        {"cls_logits": x_t},
        [torch.tensor(m) for m in matched],
    )
    got = RetinaNetClassificationHead(8, 9, classes).compute_loss(
        [{"labels": tc.tensor(l)} for l in labels],
        {"cls_logits": x_tc},
        [tc.tensor(m) for m in matched],
    )
    want.backward()
    got.backward()
    rtol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got.item(), want.item(), rtol=rtol)
    scale = np.abs(x_t.grad.numpy()).max()
    np.testing.assert_allclose(x_tc.grad.numpy(), x_t.grad.numpy(), rtol=0, atol=10 * rtol * scale)
    assert float(x_tc.grad[0][tc.tensor(matched[0]) == -2].abs().sum()) == 0  # ignored anchors


@pytest.mark.parametrize("alpha,gamma", [(0.25, 2.0), (-1.0, 2.0), (0.5, 1.5), (0.25, 0.0)])
def test_one_hot_focal_sum_equals_the_dense_focal_loss(alpha, gamma):
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((50, 6)) * 3
    weight = (rng.random(50) > 0.2).astype(np.float64)
    rows = np.where(weight == 1)[0][:10]
    cols = rng.integers(0, 6, 10)
    target = np.zeros((50, 6))
    target[rows, cols] = 1
    x1, x2 = tc.tensor(logits, requires_grad=True), tc.tensor(logits, requires_grad=True)
    got = det_utils._one_hot_focal_loss_sum(
        x1, tc.tensor(weight), tc.tensor(rows), tc.tensor(cols), alpha, gamma
    )
    dense = sigmoid_focal_loss(x2, tc.tensor(target), alpha, gamma) * tc.tensor(weight)[:, None]
    want = dense.sum()
    got.backward()
    want.backward()
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
    np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("loss_type", ["l1", "giou"])
def test_regression_loss_matches_torchvision(tv, loss_type):
    import torch
    from torchvision.models.detection.retinanet import RetinaNetRegressionHead as TvHead

    rng = np.random.default_rng(2)
    anchors = random_boxes(rng, 400, 200, 300, min_side=8, dtype=np.float64)
    regression = rng.standard_normal((2, 400, 4)) * 0.2
    boxes = [random_boxes(rng, 3, 200, 300, min_side=8, dtype=np.float64), np.zeros((0, 4))]
    matched = _matches(rng, 400)
    ref, ours = TvHead(8, 9), RetinaNetRegressionHead(8, 9)
    ref._loss_type = ours._loss_type = loss_type
    r_t, r_tc = (
        torch.tensor(regression, requires_grad=True),
        tc.tensor(regression, requires_grad=True),
    )
    want = ref.compute_loss(
        [{"boxes": torch.tensor(b)} for b in boxes],
        {"bbox_regression": r_t},
        [torch.tensor(anchors)] * 2,
        [torch.tensor(m) for m in matched],
    )
    got = ours.compute_loss(
        [{"boxes": tc.tensor(b)} for b in boxes],
        {"bbox_regression": r_tc},
        [tc.tensor(anchors)] * 2,
        [tc.tensor(m) for m in matched],
    )
    want.backward()
    got.backward()
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
    np.testing.assert_allclose(r_tc.grad.numpy(), r_t.grad.numpy(), rtol=1e-10, atol=1e-14)
