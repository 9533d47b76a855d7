"""tc.onnx.export: the classification and segmentation models written as ONNX (opset 17) run in
onnxruntime and give our outputs, also on other batch and image sizes (dynamic axes), as
torchvision's test_onnx checks; unsupported ops are named."""

import numpy as np
import pytest

import tensorcore as tc
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
        lambda: segmentation.fcn_resnet50(
            pretrained=False, pretrained_backbone=False, num_classes=3, aux_loss=True
        ),
        lambda: segmentation.deeplabv3_resnet50(
            pretrained=False, pretrained_backbone=False, num_classes=3
        ),
    ],
    ids=["resnet18", "mobilenet_v3_small", "mobilenet_v2", "fcn_resnet50", "deeplabv3_resnet50"],
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


def test_unsupported_op_is_named(tmp_path):
    def f(x):
        return tc.topk(x, 2)[0]

    with pytest.raises(NotImplementedError, match=r"Tensor.topk|_C.topk"):
        tc.onnx.export(f, tc.randn(3, 5), tmp_path / "f.onnx")
    with pytest.raises(ValueError, match="opset 17"):
        tc.onnx.export(
            models.resnet18(), tc.randn(1, 3, 32, 32), tmp_path / "g.onnx", opset_version=11
        )
