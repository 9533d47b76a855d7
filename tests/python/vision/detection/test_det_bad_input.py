"""Bad input to RetinaNet gets a clear error naming the problem. A tiny backbone keeps it fast."""

import math

import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.vision.models.detection import RetinaNet
from tensorcore.vision.models.detection.anchor_utils import AnchorGenerator


class TinyBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=8, padding=1)
        self.out_channels = 8

    def forward(self, x):
        return self.conv(x)


def tiny_retinanet(num_classes=4):
    anchors = AnchorGenerator(((16, 32),), ((0.5, 1.0, 2.0),))
    return RetinaNet(
        TinyBackbone(), num_classes, min_size=48, max_size=64, anchor_generator=anchors
    )


def images():
    return [tc.rand(3, 40, 50), tc.rand(3, 30, 30)]


def good_targets():
    return [
        {"boxes": tc.tensor([[2.0, 3.0, 20.0, 30.0]]), "labels": tc.tensor([1])},
        {"boxes": tc.zeros(0, 4), "labels": tc.zeros(0, dtype=tc.int64)},
    ]


def test_tiny_model_trains_and_predicts():
    model = tiny_retinanet()
    losses = model.train()(images(), good_targets())
    assert all(math.isfinite(v.item()) for v in losses.values())
    out = model.eval()(images())
    assert len(out) == 2 and set(out[0]) == {"boxes", "scores", "labels"}


@pytest.mark.parametrize(
    "boxes,message",
    [
        ([[20.0, 3.0, 10.0, 30.0]], r"positive height and width.*target at index 0"),  # x2 < x1
        ([[2.0, 30.0, 20.0, 30.0]], r"positive height and width"),  # y2 == y1
        ([[2.0, float("nan"), 20.0, 30.0]], r"NaN or infinite"),
        ([[2.0, 3.0, float("inf"), 30.0]], r"NaN or infinite"),
    ],
)
def test_invalid_boxes(boxes, message):
    targets = good_targets()
    targets[0]["boxes"] = tc.tensor(boxes)
    with pytest.raises(ValueError, match=message):
        tiny_retinanet().train()(images(), targets)


@pytest.mark.parametrize(
    "change,error,message",
    [
        (lambda t: t[0].update(labels=tc.tensor([4])), ValueError, r"labels.*\[0, 4\)"),
        (lambda t: t[0].update(labels=tc.tensor([-1])), ValueError, r"labels.*\[0, 4\)"),
        (lambda t: t[0].update(labels=tc.tensor([1, 2])), ValueError, "1 boxes but 2 labels"),
        (lambda t: t[0].update(labels=tc.tensor([1.0])), TypeError, "integer"),
        (lambda t: t[0].update(boxes=tc.zeros(1, 5)), ValueError, r"shape \[N, 4\]"),
        (lambda t: t[0].update(boxes=[[1, 2, 3, 4]]), TypeError, "Tensor"),
        (lambda t: t[0].update(boxes=tc.tensor([[1, 2, 3, 4]])), TypeError, "floating point"),
        (lambda t: t[0].pop("labels"), ValueError, "'boxes' and 'labels'"),
        (lambda t: t.pop(), ValueError, "2 images but 1 targets"),
    ],
)
def test_invalid_targets(change, error, message):
    targets = good_targets()
    change(targets)
    with pytest.raises(error, match=message):
        tiny_retinanet().train()(images(), targets)


def test_invalid_images_and_calls():
    model = tiny_retinanet()
    with pytest.raises(ValueError, match="targets should not be none"):
        model.train()(images())
    model.eval()
    with pytest.raises(ValueError, match="expected images with 3 channels"):
        model([tc.rand(4, 40, 50)])
    with pytest.raises(ValueError, match="empty list of images"):
        model([])
    with pytest.raises(ValueError, match="empty list of images"):
        model(tc.zeros(0, 3, 40, 40))  # an empty batch tensor
    with pytest.raises(ValueError, match=r"\(N, C, H, W\) tensor"):
        model(tc.rand(3, 40, 40))  # one image not wrapped in a list
    with pytest.raises(TypeError, match="floating type"):
        model([tc.zeros((3, 40, 40), dtype=tc.uint8)])
    with pytest.raises(TypeError, match="list of dicts"):
        model.train()(images(), "boxes")
    # A batch tensor works like a list of images.
    assert len(model.eval()(tc.rand(2, 3, 40, 40))) == 2


def test_constructor_errors():
    class NoChannels(nn.Module):
        def forward(self, x):
            return x

    with pytest.raises(ValueError, match="out_channels"):
        RetinaNet(NoChannels(), 3)
    with pytest.raises(TypeError, match="anchor_generator"):
        RetinaNet(TinyBackbone(), 3, anchor_generator="anchors")


def test_mismatched_state_dict_keys_are_listed():
    model = tiny_retinanet()
    state = dict(model.state_dict())
    state.pop("head.classification_head.cls_logits.bias")
    state["head.extra.weight"] = tc.zeros(1)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(state)
    text = str(info.value)
    assert 'Missing key(s) in state_dict: "head.classification_head.cls_logits.bias"' in text
    assert 'Unexpected key(s) in state_dict: "head.extra.weight"' in text
    state = dict(tiny_retinanet(num_classes=7).state_dict())
    with pytest.raises(RuntimeError, match="size mismatch for head.classification_head.cls_logits"):
        model.load_state_dict(state)


def test_version1_head_checkpoints_load():
    """Checkpoints from before the heads' conv blocks were nested (conv.{2i} keys) still load."""
    model = tiny_retinanet()
    state = dict(model.state_dict())
    old = {}
    for key, value in state.items():
        for head in ("classification_head", "regression_head"):
            prefix = f"head.{head}.conv."
            if key.startswith(prefix):
                index, rest = key[len(prefix) :].split(".0.", 1)
                key = f"{prefix}{2 * int(index)}.{rest}"
        old[key] = value
    assert "head.regression_head.conv.6.weight" in old
    fresh = tiny_retinanet()
    fresh.load_state_dict(old)
    assert bool(
        (
            fresh.head.regression_head.conv[3][0].weight
            == model.head.regression_head.conv[3][0].weight
        ).all()
    )
