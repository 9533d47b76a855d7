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
    """Weights of up to 3M values are drawn (normal, std 1/sqrt(fan_in)); bigger ones (VGG's
    classifier, 120M values, most of a minute to draw on the test machine) are filled with
    1/fan_in. The traced and eager models share the weights either way, so the comparison is
    unchanged; the convolutions stay random so the features differ per channel."""
    import tensorcore.nn.init as init

    draw = init.normal_

    def fast(tensor, *args, **kwargs):
        n = tensor.numel()
        fan_in = max(n // max(tensor.shape[0], 1), 1) if tensor.dim() > 1 else n
        if n < 3_000_000:
            return draw(tensor, 0.0, 1.0 / math.sqrt(fan_in))
        with tc.no_grad():
            return tensor.fill_(1.0 / fan_in)

    for name in ("normal_", "uniform_", "kaiming_normal_", "kaiming_uniform_", "xavier_uniform_"):
        if hasattr(init, name):
            monkeypatch.setattr(init, name, fast)


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
def test_segmentation_models_trace_with_dict_outputs(name, fast_init):
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


def test_retinanet_traces_with_its_data_dependent_stages_wrapped(fast_init):
    tc.manual_seed(0)
    detector = retinanet_resnet50_fpn(
        weights_backbone=None, num_classes=5, min_size=64, max_size=96, score_thresh=0.0
    ).eval()
    x = _image(64)
    batches = []
    for shape in [(2, 3, 64, 64), (1, 3, 48, 80), (1, 3, 80, 64)]:
        tc.manual_seed(sum(shape))
        batches.append(tc.rand(*shape))
    with tc.no_grad():
        scores = tc.cat([d["scores"] for b in batches for d in detector(b)])
    # A threshold in the middle of the untrained scores, so detection counts vary per image.
    detector.score_thresh = float(scores.sort().values[len(scores) // 2])
    # The backbone + FPN alone (an OrderedDict of levels).
    backbone = fx.symbolic_trace(detector.backbone)
    with tc.no_grad():
        expected = detector.backbone(x)
        got = backbone(x)
    assert list(got) == list(expected)
    for key in expected:
        assert tc.equal(got[key], expected[key])
    # Backbone + FPN + heads.
    dense = _DenseRetinaNet(detector)
    gm = fx.symbolic_trace(dense)
    with tc.no_grad():
        expected, got = dense(x), gm(x)
    assert sorted(got) == ["bbox_regression", "cls_logits"]
    for key in expected:
        assert tc.equal(got[key], expected[key])
    # The whole detector: input preparation, anchors and post-processing are single wrapped
    # calls, the dense part node by node; other image sizes, batch sizes and numbers of
    # detections than while tracing give the eager results.
    gm = fx.symbolic_trace(detector)
    targets = [n.target.__name__ for n in gm.graph.nodes if n.op == "call_function"]
    assert "_prepare_detector_inputs" in targets and "_detections" in targets
    assert sum(n.op == "call_module" for n in gm.graph.nodes) > 100
    counts = set()
    for images in batches:
        with tc.no_grad():
            expected, got = detector(images), gm(images)
        assert len(got) == len(expected) == images.shape[0]
        for want, have in zip(expected, got):
            assert sorted(have) == ["boxes", "labels", "scores"]
            for key in want:
                assert tc.equal(have[key], want[key])
            counts.add(len(want["boxes"]))
    assert len(counts) > 1  # the detection count varied between the images
    with pytest.raises(ValueError, match="images should be"):
        gm(tc.rand(3, 64, 64))


def test_traced_model_retraces_transforms_copies_and_pickles():
    import copy
    import pickle

    tc.manual_seed(0)
    model = models.mobilenet_v3_small(num_classes=4).eval()
    gm = fx.symbolic_trace(model)
    x = _image()
    with tc.no_grad():
        expected = model(x)
        retraced = fx.symbolic_trace(gm)  # generated code traces like the original
        assert retraced.code == gm.code and tc.equal(retraced(x), expected)
        assert tc.equal(fx.Transformer(gm).transform()(x), expected)
        assert tc.equal(fx.Interpreter(gm).run(x), expected)
        assert tc.equal(copy.deepcopy(gm)(x), expected)
        assert tc.equal(pickle.loads(pickle.dumps(gm))(x), expected)
