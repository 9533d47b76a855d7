"""tc.onnx.export: the classification and segmentation models written as ONNX (opset 17) run in
onnxruntime and give our outputs, also on other batch and image sizes (dynamic axes), as
torchvision's test_onnx checks; unsupported ops are named."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.vision import models
from tensorcore.vision.models import segmentation

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
import tensorcore.onnx  # noqa: E402


def run_onnx(path, x):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x.numpy()})


@pytest.mark.parametrize(
    "make",
    [
        lambda: models.resnet18(num_classes=7),
        lambda: models.mobilenet_v3_small(),
        lambda: models.mobilenet_v2(num_classes=5),
        lambda: models.resnet50(num_classes=5),
        lambda: models.mobilenet_v3_large(num_classes=5),
        lambda: segmentation.fcn_resnet50(
            pretrained=False, pretrained_backbone=False, num_classes=3, aux_loss=True
        ),
        lambda: segmentation.deeplabv3_resnet50(
            pretrained=False, pretrained_backbone=False, num_classes=3
        ),
    ],
    ids=[
        "resnet18",
        "mobilenet_v3_small",
        "mobilenet_v2",
        "resnet50",
        "mobilenet_v3_large",
        "fcn_resnet50",
        "deeplabv3_resnet50",
    ],
)
def test_export_matches_onnxruntime(make, tmp_path):
    tc.manual_seed(0)
    model = make().eval()
    path = tmp_path / "m.onnx"
    x = tc.randn(1, 3, 64, 64)
    m = tc.onnx.export(model, x, path, input_names=["x"], dynamic_axes={"x": [0, 2, 3]})
    assert m.opset_import[0].version == 17
    onnx.checker.check_model(onnx.load(str(path)))
    for inp in (x, tc.randn(2, 3, 72, 48)):
        with tc.no_grad():
            ref = model(inp)
        ref = list(ref.values()) if isinstance(ref, dict) else [ref]
        got = run_onnx(path, inp)
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g, r.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["vgg11"])
def test_vgg_exports_adaptive_pool_as_average_pool(name, tmp_path):
    # VGG's AdaptiveAvgPool2d((7, 7)) is the identity on the 7x7 maps of a 224x224 input. The
    # 25088 x 4096 classifier is swapped for a small one to keep the file (and the test) small.
    tc.manual_seed(0)
    model = getattr(models, name)()
    model.classifier = nn.Sequential(nn.Linear(512 * 7 * 7, 10))
    model.eval()
    path = tmp_path / "vgg.onnx"
    x = tc.randn(1, 3, 224, 224)
    m = tc.onnx.export(model, x, path, input_names=["x"], dynamic_axes={"x": [0]})
    assert "GlobalAveragePool" not in {n.op_type for n in m.graph.node}
    for inp in (x, tc.randn(2, 3, 224, 224)):
        with tc.no_grad():
            ref = model(inp)
        np.testing.assert_allclose(run_onnx(path, inp)[0], ref.numpy(), rtol=1e-4, atol=1e-4)


def test_adaptive_avg_pool_to_a_divisor_and_the_error_otherwise(tmp_path):
    tc.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1), nn.AdaptiveAvgPool2d((7, 7)), nn.Flatten(1)
    ).eval()
    x = tc.randn(2, 3, 28, 21)  # windows of 4 x 3
    m = tc.onnx.export(model, x, tmp_path / "p.onnx", input_names=["x"])
    pools = [n for n in m.graph.node if n.op_type == "AveragePool"]
    assert len(pools) == 1 and list(pools[0].attribute[0].ints) == [4, 3]
    with tc.no_grad():
        ref = model(x)
    np.testing.assert_allclose(
        run_onnx(tmp_path / "p.onnx", x)[0], ref.numpy(), rtol=1e-5, atol=1e-6
    )
    with pytest.warns(UserWarning, match="only for the traced input size"):
        tc.onnx.export(model, x, tmp_path / "d.onnx", dynamic_axes={"input0": [0, 2, 3]})
    with pytest.raises(NotImplementedError, match=r"from \(10, 10\) to \(7, 7\).*multiple"):
        tc.onnx.export(model, tc.randn(1, 3, 10, 10), tmp_path / "q.onnx")


def test_unsupported_op_is_named(tmp_path):
    def f(x):
        return tc.topk(x, 2)[0]

    with pytest.raises(NotImplementedError, match=r"Tensor.topk|_C.topk"):
        tc.onnx.export(f, tc.randn(3, 5), tmp_path / "f.onnx")
    with pytest.raises(ValueError, match="opset 17"):
        tc.onnx.export(
            models.resnet18(), tc.randn(1, 3, 32, 32), tmp_path / "g.onnx", opset_version=11
        )
