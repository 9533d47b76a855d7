import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.models.detection.anchor_utils import AnchorGenerator
from tensorcore.vision.models.detection.image_list import ImageList
from tensorcore.vision.models.detection.retinanet import _default_anchorgen

CONFIGS = [
    (((32,), (64,), (128,)), ((0.5, 1.0, 2.0),) * 3),
    (((16, 24), (48, 80)), ((0.25, 1.0), (1.0, 3.0, 0.3))),
    ((128, 256, 512), (0.5, 1.0, 2.0)),  # flat sizes: one size per feature map
]


def _pair(tv, sizes, ratios, image_shape, map_shapes, dtype):
    import torch
    from torchvision.models.detection.anchor_utils import AnchorGenerator as TvAnchorGenerator
    from torchvision.models.detection.image_list import ImageList as TvImageList

    ours, ref = AnchorGenerator(sizes, ratios), TvAnchorGenerator(sizes, ratios)
    n = 2
    maps_tc = [tc.zeros((n, 4) + s, dtype=dtype) for s in map_shapes]
    maps_t = [
        torch.zeros((n, 4) + s, dtype=getattr(torch, str(dtype).split(".")[-1])) for s in map_shapes
    ]
    sizes_list = [image_shape, (image_shape[0] - 7, image_shape[1] - 3)]
    got = ours(ImageList(tc.zeros((n, 3) + image_shape, dtype=dtype), sizes_list), maps_tc)
    want = ref(TvImageList(torch.zeros((n, 3) + image_shape), sizes_list), maps_t)
    return got, want


@pytest.mark.parametrize("sizes,ratios", CONFIGS)
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_anchors_match_torchvision(tv, sizes, ratios, dtype):
    ours = AnchorGenerator(sizes, ratios)
    n_maps = len(ours.cell_anchors)
    map_shapes = [(40, 50), (20, 25), (10, 13)][:n_maps]
    got, want = _pair(tv, sizes, ratios, (320, 400), map_shapes, dtype)
    assert len(got) == len(want) == 2
    for g, w in zip(got, want):
        assert g.dtype == dtype
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert ours.num_anchors_per_location() == [
        len(s) * len(a) for s, a in zip(ours.sizes, ours.aspect_ratios)
    ]


def test_retinanet_default_anchors_non_divisible_maps(tv):
    """RetinaNet's 5 levels x 9 anchors, on a padded image whose maps are not exact divisors."""
    from torchvision.models.detection.retinanet import _default_anchorgen as tv_default

    ours, ref = _default_anchorgen(), tv_default()
    assert ours.sizes == ref.sizes and ours.aspect_ratios == ref.aspect_ratios
    assert ours.num_anchors_per_location() == ref.num_anchors_per_location() == [9] * 5
    for a, b in zip(ours.cell_anchors, ref.cell_anchors):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    shapes = [(25, 34), (13, 17), (7, 9), (4, 5), (2, 3)]  # an 200x272 batch
    got, want = _pair(tv, ours.sizes, ours.aspect_ratios, (200, 272), shapes, tc.float32)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    assert got[0].shape[0] == 9 * sum(h * w for h, w in shapes)


def test_anchor_errors():
    gen = AnchorGenerator(((32,), (64,)), ((1.0,), (1.0,)))
    images = ImageList(tc.zeros(1, 3, 64, 64), [(64, 64)])
    with pytest.raises(ValueError, match="feature maps"):
        gen(images, [tc.zeros(1, 4, 8, 8)])
    with pytest.raises(ValueError, match="no feature maps"):
        gen(images, [])
    with pytest.raises(TypeError, match="ImageList"):
        gen(tc.zeros(1, 3, 64, 64), [tc.zeros(1, 4, 8, 8)] * 2)
    with pytest.raises(ValueError, match="same number"):
        AnchorGenerator(((32,), (64,)), ((1.0,),) * 3)
