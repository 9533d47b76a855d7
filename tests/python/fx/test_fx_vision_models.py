"""Every vision model traced with tensorcore.fx gives the eager model's outputs exactly."""

import math

import pytest

import tensorcore as tc
import tensorcore.fx as fx
from tensorcore.vision import models
from tensorcore.vision.models import segmentation
from tensorcore.vision.models.detection import retinanet_resnet50_fpn


@pytest.fixture
def fast_init(monkeypatch):
    """Big weights get a tiled random pattern instead of drawing every value (VGG's 120M and
    Wide ResNet's 69M parameters would take most of a minute to draw on the test machine); the
    traced and eager models share the weights either way, so the comparison is unchanged."""
    import tensorcore.nn.init as init

    def tiled(tensor, *args, **kwargs):
        n = tensor.numel()
        if n < 100_000:
            return originals["normal_"](tensor, 0.0, 0.05)
        fan_in = max(n // tensor.shape[0], 1)
        pattern = tc.randn(4099) / math.sqrt(fan_in)
        reps = -(-n // pattern.numel())
        with tc.no_grad():
            tensor.copy_(pattern.repeat(reps)[:n].view(tensor.shape))
        return tensor

    originals = {name: getattr(init, name) for name in ("normal_",)}
    for name in ("normal_", "uniform_", "kaiming_normal_", "kaiming_uniform_", "xavier_uniform_"):
        if hasattr(init, name):
            monkeypatch.setattr(init, name, tiled)


def _image(size=32):
    tc.manual_seed(0)
    return tc.randn(1, 3, size, size)


@pytest.mark.parametrize(
    "name",
    [
        "resnet18",
        "resnet50",
        "resnext50_32x4d",
        "wide_resnet50_2",
        "mobilenet_v2",
        "mobilenet_v3_small",
        "mobilenet_v3_large",
        "vgg11",
        "vgg11_bn",
    ],
)
def test_classification_models_trace_exactly(name, fast_init):
    tc.manual_seed(0)
    model = getattr(models, name)(num_classes=10).eval()
    gm = fx.symbolic_trace(model)
    gm.graph.lint()
    x = _image()
    with tc.no_grad():
        assert tc.equal(gm(x), model(x))
    # The input check stays in the traced module.
    with pytest.raises(ValueError, match="expected input of shape"):
        gm(tc.randn(1, 4, 32, 32))


@pytest.mark.parametrize("name", ["fcn_resnet50", "deeplabv3_resnet50"])
def test_segmentation_models_trace_with_dict_outputs(name):
    tc.manual_seed(0)
    model = getattr(segmentation, name)(weights_backbone=None, num_classes=3, aux_loss=True)
    model.eval()
    gm = fx.symbolic_trace(model)
    x = _image()
    with tc.no_grad():
        expected, got = model(x), gm(x)
    assert sorted(got) == sorted(expected) == ["aux", "out"]
    for key in expected:
        assert tc.equal(got[key], expected[key])
    # The traced graph upsamples to the input size read at run time: another size works too.
    with tc.no_grad():
        assert gm(_image(40))["out"].shape == (1, 3, 40, 40)


class _DenseRetinaNet(tc.nn.Module):
    """RetinaNet's static part: backbone + FPN + classification/regression heads."""

    def __init__(self, detector):
        super().__init__()
        self.backbone = detector.backbone
        self.head = detector.head

    def forward(self, images):
        features = list(self.backbone(images).values())
        return self.head(features)


def test_retinanet_static_parts_trace_and_the_full_detector_fails_clearly():
    tc.manual_seed(0)
    detector = retinanet_resnet50_fpn(weights_backbone=None, num_classes=5).eval()
    x = _image(64)
    backbone = fx.symbolic_trace(detector.backbone)
    with tc.no_grad():
        expected = detector.backbone(x)
        got = backbone(x)
    assert list(got) == list(expected)
    for key in expected:
        assert tc.equal(got[key], expected[key])
    dense = _DenseRetinaNet(detector)
    gm = fx.symbolic_trace(dense)
    with tc.no_grad():
        expected, got = dense(x), gm(x)
    assert sorted(got) == ["bbox_regression", "cls_logits"]
    for key in expected:
        assert tc.equal(got[key], expected[key])
    # Post-processing (resizing, score thresholds, NMS) depends on values, as in torchvision.
    with pytest.raises(fx.TraceError, match="cannot be iterated"):
        fx.symbolic_trace(detector)
