"""tc.onnx.export of retinanet_resnet50_fpn: the native detection ops (resize and batching,
anchor grid, post-processing with class-wise NMS) decomposed into standard ONNX ops, run in
onnxruntime against our eager detections as torchvision's test_onnx checks them: the example
size, other sizes through dynamic axes (including the square size whose resize scale sits on a
float32 rounding tie), and an image where nothing passes the score threshold."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.vision.models import detection

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
import tensorcore.onnx  # noqa: E402


class Boxes(nn.Module):
    """One image in, (boxes, scores, labels) out, as torchvision's ONNX tests call the model."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, image):
        d = self.model([image])[0]
        return d["boxes"], d["scores"], d["labels"]


class TwoImages(nn.Module):
    """Two images batched by the model (padded to a common size), one graph input each."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, a, b):
        out = []
        for d in self.model([a, b]):
            out += [d["boxes"], d["scores"], d["labels"]]
        return tuple(out)


def retinanet():
    # Random weights from a fixed seed; a score threshold that the random heads pass on noise
    # images (scores ~0.03-0.04) but not on a flat grey one (~0.012).
    tc.manual_seed(0)
    return detection.retinanet_resnet50_fpn(
        pretrained=False,
        pretrained_backbone=False,
        num_classes=3,
        min_size=128,
        max_size=160,
        score_thresh=0.02,
        detections_per_img=20,
    ).eval()


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    model = Boxes(retinanet()).eval()
    path = tmp_path_factory.mktemp("onnx") / "retinanet.onnx"
    example = tc.rand(3, 240, 320)
    m = tc.onnx.export(
        model,
        (example,),
        path,
        input_names=["image"],
        output_names=["boxes", "scores", "labels"],
        dynamic_axes={"image": [1, 2]},
    )
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return model, m, session, example


def check(model, session, *images, names=("image",)):
    with tc.no_grad():
        want = [t.numpy() for t in model(*images)]
    got = session.run(None, {n: x.numpy() for n, x in zip(names, images)})
    assert len(got) == len(want)
    for i in range(0, len(want), 3):
        for g, w, name in zip(got[i : i + 3], want[i : i + 3], ("boxes", "scores", "labels")):
            assert g.shape == w.shape, f"{name}: onnxruntime {g.shape}, eager {w.shape}"
        np.testing.assert_allclose(got[i], want[i], rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(got[i + 1], want[i + 1], rtol=1e-3, atol=1e-5)
        np.testing.assert_array_equal(got[i + 2], want[i + 2])
        assert got[i + 2].dtype == np.int64
    return want[0].shape[0]


def test_graph_is_standard_onnx(exported):
    _, m, _, _ = exported
    assert m.opset_import[0].version == 17
    onnx.checker.check_model(m)
    ops = {n.op_type for n in m.graph.node}
    assert {"NonMaxSuppression", "TopK", "Resize", "Pad", "Range"} <= ops
    assert all(n.domain in ("", "ai.onnx") for n in m.graph.node)
    dims = m.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == [3, "image_dim1", "image_dim2"]


def test_example_image(exported):
    model, _, session, example = exported
    assert check(model, session, example) > 0


def test_other_sizes_and_counts(exported):
    model, _, session, _ = exported
    tc.manual_seed(3)
    counts = {check(model, session, tc.rand(3, h, w)) for h, w in ((200, 200), (180, 260))}
    assert min(counts) > 0


def test_nothing_passes_the_threshold(exported):
    model, _, session, _ = exported
    assert check(model, session, tc.full((3, 150, 210), 0.5)) == 0


def test_two_images_in_one_batch(tmp_path):
    model = TwoImages(retinanet()).eval()
    path = tmp_path / "two.onnx"
    tc.manual_seed(1)
    a, b = tc.rand(3, 240, 320), tc.rand(3, 200, 180)
    tc.onnx.export(
        model, (a, b), path, input_names=["a", "b"], dynamic_axes={"a": [1, 2], "b": [1, 2]}
    )
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    check(model, session, a, b, names=("a", "b"))
    check(model, session, tc.rand(3, 150, 150), tc.full((3, 260, 200), 0.5), names=("a", "b"))
