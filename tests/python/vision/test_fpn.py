from collections import OrderedDict

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.ops import FeaturePyramidNetwork, LastLevelMaxPool, LastLevelP6P7


def _features(lib, shapes, seed=0):
    rng = np.random.default_rng(seed)
    return OrderedDict(
        (f"f{i}", lib.tensor(rng.standard_normal(s).astype(np.float32)))
        for i, s in enumerate(shapes)
    )


SHAPES = [(2, 8, 32, 40), (2, 16, 16, 20), (2, 32, 7, 10)]


@pytest.mark.parametrize("extra", [None, "pool", "p6p7"])
def test_matches_torchvision_with_copied_weights(torch_ref, extra):
    tvops = pytest.importorskip("torchvision.ops")
    from torchvision.ops import feature_pyramid_network as tv_fpn

    tv_extra = {
        None: None,
        "pool": tv_fpn.LastLevelMaxPool(),
        "p6p7": tv_fpn.LastLevelP6P7(32, 12),
    }[extra]
    our_extra = {None: None, "pool": LastLevelMaxPool(), "p6p7": LastLevelP6P7(32, 12)}[extra]
    ref = tvops.FeaturePyramidNetwork([8, 16, 32], 12, extra_blocks=tv_extra)
    ours = FeaturePyramidNetwork([8, 16, 32], 12, extra_blocks=our_extra)
    state = {k: tc.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()}
    ours.load_state_dict(state)  # same key names as torchvision
    got = ours(_features(tc, SHAPES))
    want = ref(_features(torch_ref, SHAPES))
    assert list(got) == list(want)
    for k in want:
        np.testing.assert_allclose(
            got[k].detach().numpy(), want[k].detach().numpy(), rtol=1e-4, atol=1e-4
        )


def test_shapes_gradients_and_errors():
    fpn = FeaturePyramidNetwork([8, 16, 32], 6, extra_blocks=LastLevelMaxPool())
    feats = _features(tc, SHAPES)
    out = fpn(feats)
    assert [tuple(v.shape) for v in out.values()] == [
        (2, 6, 32, 40),
        (2, 6, 16, 20),
        (2, 6, 7, 10),
        (2, 6, 4, 5),
    ]
    sum(v.sum() for v in out.values()).backward()
    assert all(p.grad is not None for p in fpn.parameters())
    with pytest.raises(ValueError, match="3 feature maps"):
        fpn(OrderedDict(list(feats.items())[:2]))
    with pytest.raises(TypeError, match="dict"):
        fpn(list(feats.values()))
