"""torchvision.ops' building blocks, box regression losses, masks_to_boxes and structured dropout,
against torchvision 0.14 (skipped without it) and against their definitions."""

import math

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision import ops

torch = pytest.importorskip("torch")
tvops = pytest.importorskip("torchvision.ops")


def _t(x):
    return torch.from_numpy(np.asarray(x))


def _boxes(rng, n):
    xy = rng.uniform(0, 50, (n, 2))
    wh = rng.uniform(1, 30, (n, 2))
    return np.concatenate([xy, xy + wh], 1)


@pytest.mark.parametrize(
    "name", ["generalized_box_iou_loss", "distance_box_iou_loss", "complete_box_iou_loss"]
)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_box_losses_match_torchvision(name, reduction):
    rng = np.random.default_rng(0)
    b1, b2 = _boxes(rng, 7), _boxes(rng, 7)
    b2[0] = b1[0]  # identical pair: loss 0
    mine_in = tc.tensor(b1, requires_grad=True)
    mine = getattr(ops, name)(mine_in, tc.tensor(b2), reduction=reduction)
    ref_in = _t(b1).requires_grad_()
    ref = getattr(tvops, name)(ref_in, _t(b2), reduction=reduction)
    np.testing.assert_allclose(mine.detach().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    mine.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(mine_in.grad.numpy(), ref_in.grad.numpy(), rtol=1e-8, atol=1e-12)


def test_box_losses_empty_mean_is_zero_and_bad_input_is_named():
    empty = tc.zeros(0, 4)
    assert float(ops.generalized_box_iou_loss(empty, empty, reduction="mean")) == 0.0
    with pytest.raises(ValueError, match="invalid reduction"):
        ops.distance_box_iou_loss(tc.zeros(1, 4), tc.zeros(1, 4), reduction="avg")
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 4\)"):
        ops.complete_box_iou_loss(tc.zeros(2, 3), tc.zeros(2, 4))
    with pytest.raises(ValueError, match="do not broadcast"):
        ops.generalized_box_iou_loss(tc.zeros(2, 4), tc.zeros(3, 4))


def test_masks_to_boxes_matches_torchvision():
    rng = np.random.default_rng(1)
    masks = np.zeros((5, 20, 30), np.uint8)
    for m in masks:
        y0, x0 = rng.integers(0, 15), rng.integers(0, 25)
        m[y0 : y0 + rng.integers(1, 6), x0 : x0 + rng.integers(1, 6)] = 1
        m[rng.integers(0, 20), rng.integers(0, 30)] = 1  # a stray pixel widens the box
    mine = ops.masks_to_boxes(tc.tensor(masks))
    ref = tvops.masks_to_boxes(_t(masks))
    assert mine.dtype == tc.float32
    np.testing.assert_array_equal(mine.numpy(), ref.numpy())
    assert tuple(ops.masks_to_boxes(tc.zeros(0, 4, 4)).shape) == (0, 4)
    masks[3] = 0
    with pytest.raises(ValueError, match="mask 3 has no non-zero pixel"):
        ops.masks_to_boxes(tc.tensor(masks))
    with pytest.raises(ValueError, match=r"\(N, H, W\)"):
        ops.masks_to_boxes(tc.zeros(4, 4))


def _load_from_torchvision(mine, ref):
    state = {k: tc.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()}
    mine.load_state_dict(state)
    assert list(mine.state_dict()) == list(ref.state_dict())


@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.Conv2dNormActivation(3, 8, kernel_size=3, stride=2),
        lambda m: m.Conv2dNormActivation(
            3, 8, kernel_size=(3, 5), dilation=(1, 2), norm_layer=None
        ),
        lambda m: m.Conv3dNormActivation(2, 4, kernel_size=3),
        lambda m: m.SqueezeExcitation(8, 2),
        lambda m: m.MLP(8, [16, 4], dropout=0.0),
        lambda m: m.Permute([0, 2, 3, 1]),
    ],
)
def test_blocks_match_torchvision(build):
    tc.manual_seed(0)
    torch.manual_seed(0)
    mine, ref = build(ops), build(tvops)
    _load_from_torchvision(mine, ref)
    mine.eval()
    ref.eval()
    shape = {"Conv3dNormActivation": (1, 2, 5, 6, 7), "MLP": (3, 8), "Permute": (2, 3, 4, 5)}
    x = np.random.default_rng(2).standard_normal(shape.get(type(ref).__name__, (2, 8, 9, 9)))
    if type(ref).__name__ == "Conv2dNormActivation":
        x = x[:, :3]
    x = x.astype(np.float32)
    np.testing.assert_allclose(
        mine(tc.tensor(x)).detach().numpy(), ref(_t(x)).detach().numpy(), rtol=1e-5, atol=1e-5
    )


def test_models_use_the_ops_blocks():
    from tensorcore.vision.models import _utils

    assert _utils.Conv2dNormActivation is ops.Conv2dNormActivation
    assert _utils.SqueezeExcitation is ops.SqueezeExcitation


def test_stochastic_depth_statistics_and_identity():
    x = tc.ones(20000, 2)
    tc.manual_seed(3)
    out = ops.stochastic_depth(x, 0.25, "row")
    rows = out[:, 0].numpy()
    assert set(np.unique(rows).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert (out[:, 0] == out[:, 1]).all()  # one decision per row
    assert abs((rows == 0).mean() - 0.25) < 0.02
    batch = ops.stochastic_depth(tc.ones(50, 3), 0.5, "batch").numpy()
    assert len(np.unique(batch)) == 1  # one decision for the batch
    assert ops.stochastic_depth(x, 0.9, "row", training=False) is x
    module = ops.StochasticDepth(0.5, "row").eval()
    assert module(x) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        ops.stochastic_depth(x, 1.5, "row")
    with pytest.raises(ValueError, match="'batch' or 'row'"):
        ops.stochastic_depth(x, 0.5, "col")


@pytest.mark.parametrize("spatial", [2, 3])
def test_drop_block_blocks_and_rate(spatial):
    fn = ops.drop_block2d if spatial == 2 else ops.drop_block3d
    shape = (4, 8) + (24,) * spatial if spatial == 2 else (2, 4, 12, 12, 12)
    tc.manual_seed(4)
    out = fn(tc.ones(shape), p=0.2, block_size=3)
    dropped = (out == 0).numpy()
    # Expected fraction p (seeds overlap, so somewhat below p).
    assert 0.08 < dropped.mean() < 0.25
    # Kept values are rescaled so that the mean stays 1.
    assert math.isclose(float(out.mean()), 1.0, rel_tol=1e-4)
    # Every dropped position lies in a fully dropped block of side 3 (erosion+dilation check).
    import scipy.ndimage as ndi

    footprint = np.ones((1, 1) + (3,) * spatial, bool)
    opened = ndi.binary_dilation(ndi.binary_erosion(dropped, footprint, border_value=1), footprint)
    assert (opened | ~dropped).all()
    assert fn(tc.ones(shape), 0.5, 3, training=False).equal(tc.ones(shape))
    with pytest.raises(ValueError, match=f"should be {spatial + 2} dimensional"):
        fn(tc.ones(3, 3), 0.5, 3)


def test_drop_block_modules():
    tc.manual_seed(5)
    m = ops.DropBlock2d(0.3, 5)
    x = tc.ones(2, 3, 16, 16)
    assert (m(x) == 0).any()
    assert "block_size=5" in repr(m)
    assert m.eval()(x) is x
    assert ops.DropBlock3d(0.3, 3)(tc.ones(1, 2, 8, 8, 8)).shape == (1, 2, 8, 8, 8)
