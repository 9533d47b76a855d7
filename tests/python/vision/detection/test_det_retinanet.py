"""The whole retinanet_resnet50_fpn against torchvision 0.14 with the same weights (torchvision's
model initialised at random, saved by torch.save, loaded with tc.load): detections in eval mode,
losses and every parameter's gradient in train mode, state dicts both ways."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.models import detection as D

from det_helpers import assert_detections_equal, to_numpy, to_torch

# Small images and sizes keep a ResNet-50 run cheap; the two images have different sizes.
SIZES = dict(min_size=64, max_size=80)
NUM_CLASSES = 5


def _images(dtype):
    rng = np.random.default_rng(0)
    return [rng.random((3, 160, 200)).astype(dtype), rng.random((3, 128, 96)).astype(dtype)]


def _targets(dtype):
    boxes = [
        np.array([[10, 20, 80, 90], [50, 60, 150, 140], [0, 0, 30, 40], [100, 5, 199, 60]], dtype),
        np.zeros((0, 4), dtype),
    ]  # the second image has no objects
    labels = [np.array([1, 3, 4, 1]), np.zeros((0,), np.int64)]
    return [{"boxes": b, "labels": l} for b, l in zip(boxes, labels)]


def _spread_head_init(ref, torch):
    """Wider random heads than torchvision's init (std 0.01, prior 0.01), so the scores vary a lot
    and many overlapping boxes pass a low threshold: post-processing has real work to do."""
    torch.manual_seed(1)
    with torch.no_grad():
        ref.head.classification_head.cls_logits.weight.normal_(std=0.05)
        ref.head.classification_head.cls_logits.bias.uniform_(-4.0, -1.0)
        ref.head.regression_head.bbox_reg.weight.normal_(std=0.03)


@pytest.fixture(scope="module")
def eval_pair(tv, tmp_path_factory):
    import torch

    torch.manual_seed(0)
    settings = dict(SIZES, score_thresh=0.1, topk_candidates=300, detections_per_img=100)
    ref = tv.models.detection.retinanet_resnet50_fpn(
        weights=None, weights_backbone=None, num_classes=NUM_CLASSES, **settings
    ).eval()
    _spread_head_init(ref, torch)
    path = tmp_path_factory.mktemp("retinanet") / "retinanet.pth"
    torch.save(ref.state_dict(), path)
    ours = D.retinanet_resnet50_fpn(num_classes=NUM_CLASSES, **settings).eval()
    result = ours.load_state_dict(tc.load(str(path)), strict=True)
    assert not result.missing_keys and not result.unexpected_keys
    return ref, ours, path


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eval_detections_match_torchvision(eval_pair, dtype):
    import torch

    ref, ours, _ = eval_pair
    if dtype == np.float64:
        ref, ours = ref.double(), ours.double()
    try:
        with torch.no_grad():
            want = to_numpy(ref([to_torch(i) for i in _images(dtype)]))
        with tc.no_grad():
            got = to_numpy(ours([tc.tensor(i) for i in _images(dtype)]))
    finally:
        ref.float(), ours.float()
    assert [len(g["boxes"]) for g in got] == [len(w["boxes"]) for w in want]
    assert min(len(w["boxes"]) for w in want) >= 50  # many detections survive NMS
    for g in got:
        assert g["boxes"].dtype == dtype and g["labels"].dtype == np.int64
    # float32: torchvision resizes with float32 source coordinates (ours are exact), so inputs
    # differ by ~1e-5 and boxes (in pixels of 200x160 images) by up to a few 1e-3.
    tight = dtype == np.float64
    assert_detections_equal(
        got, want, box_tol=1e-9 if tight else 5e-3, score_tol=1e-10 if tight else 1e-4
    )


def test_state_dict_round_trips_and_attribute_paths(eval_pair, tmp_path):
    import torch

    ref, ours, _ = eval_pair
    assert list(ours.state_dict()) == list(ref.state_dict())
    path = tmp_path / "ours.pth"
    tc.save(ours.state_dict(), str(path), format="pt")
    result = ref.load_state_dict(torch.load(path), strict=True)  # torchvision reads our file
    assert not result.missing_keys and not result.unexpected_keys
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in ref.named_modules()]
    assert isinstance(ours.head.classification_head.conv[0][0], tc.nn.Conv2d)
    assert ours.head.classification_head.cls_logits.out_channels == 9 * NUM_CLASSES


def test_fine_tuning_replaces_the_classification_head(eval_pair):
    _, ours, _ = eval_pair
    model = D.retinanet_resnet50_fpn(num_classes=NUM_CLASSES, **SIZES)
    model.load_state_dict(ours.state_dict())
    model.head.classification_head = D.RetinaNetClassificationHead(256, 9, 3)
    targets = [{k: tc.tensor(v) for k, v in t.items()} for t in _targets(np.float32)]
    targets[0]["labels"] = tc.tensor([0, 2, 1, 1])
    losses = model.train()([tc.tensor(i) for i in _images(np.float32)], targets)
    assert set(losses) == {"classification", "bbox_regression"}
    losses["classification"].backward()
    assert model.head.classification_head.cls_logits.weight.grad is not None


def _train_pair(tv, torch, dtype, frozen, tmp_path):
    """(torchvision model, ours) with equal weights in train mode. frozen: the fine-tuning setup
    (FrozenBatchNorm2d backbone, 3 trainable stages), as loading backbone weights gives."""
    torch.manual_seed(0)
    if frozen:
        from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
        from torchvision.ops import FrozenBatchNorm2d
        from torchvision.ops.feature_pyramid_network import LastLevelP6P7

        body = tv.models.resnet50(norm_layer=FrozenBatchNorm2d)
        with torch.no_grad():  # give the frozen statistics non-trivial values
            for m in body.modules():
                if isinstance(m, FrozenBatchNorm2d):
                    m.running_mean.uniform_(-0.1, 0.1)
                    m.running_var.uniform_(0.5, 1.5)
        torch.save(body.state_dict(), tmp_path / "resnet50.pth")
        backbone = _resnet_fpn_extractor(
            body, 3, returned_layers=[2, 3, 4], extra_blocks=LastLevelP6P7(256, 256)
        )
        ref = tv.models.detection.RetinaNet(backbone, NUM_CLASSES, **SIZES)
        ours = D.retinanet_resnet50_fpn(
            num_classes=NUM_CLASSES, weights_backbone=str(tmp_path / "resnet50.pth"), **SIZES
        )
    else:
        ref = tv.models.detection.retinanet_resnet50_fpn(
            weights=None, weights_backbone=None, num_classes=NUM_CLASSES, **SIZES
        )
        ours = D.retinanet_resnet50_fpn(num_classes=NUM_CLASSES, **SIZES)
    torch.save(ref.state_dict(), tmp_path / "retinanet.pth")
    ours.load_state_dict(tc.load(str(tmp_path / "retinanet.pth")), strict=True)
    if dtype == np.float64:
        ref, ours = ref.double(), ours.double()
    return ref.train(), ours.train()


@pytest.mark.parametrize("dtype,frozen", [(np.float64, False), (np.float32, True)])
def test_train_losses_and_every_gradient_match_torchvision(tv, tmp_path, dtype, frozen):
    """float64 with BatchNorm in training mode (batch statistics of tiny maps make float32
    gradients too ill-conditioned to compare); float32 in the fine-tuning setup."""
    import torch

    ref, ours = _train_pair(tv, torch, dtype, frozen, tmp_path)
    requires = {n: p.requires_grad for n, p in ref.named_parameters()}
    assert {n: p.requires_grad for n, p in ours.named_parameters()} == requires
    if frozen:
        assert (
            not requires["backbone.body.layer1.0.conv1.weight"]
            and requires["backbone.body.layer2.0.conv1.weight"]
        )
    want = ref([to_torch(i) for i in _images(dtype)], [to_torch(t) for t in _targets(dtype)])
    got = ours(
        [tc.tensor(i) for i in _images(dtype)],
        [{k: tc.tensor(v) for k, v in t.items()} for t in _targets(dtype)],
    )
    assert set(got) == set(want) == {"classification", "bbox_regression"}
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    for k in want:
        np.testing.assert_allclose(got[k].item(), want[k].item(), rtol=rtol)
    (want["classification"] + want["bbox_regression"]).backward()
    (got["classification"] + got["bbox_regression"]).backward()
    ref_params = dict(ref.named_parameters())
    checked = 0
    for name, p in ours.named_parameters():
        g_ref = ref_params[name].grad
        if g_ref is None:
            assert p.grad is None, name
            continue
        scale = np.abs(g_ref.numpy()).max()
        tol = 1e-8 * scale if dtype == np.float64 else 2e-3 * scale
        np.testing.assert_allclose(p.grad.numpy(), g_ref.numpy(), rtol=0, atol=tol, err_msg=name)
        checked += 1
    assert checked == sum(requires.values())


def test_autocast_bfloat16_eval_runs(eval_pair):
    _, ours, _ = eval_pair
    with tc.no_grad(), tc.autocast("cpu"):
        out = ours([tc.tensor(i) for i in _images(np.float32)])
    assert len(out) == 2 and all(o["boxes"].shape[1] == 4 for o in out)
    assert all(bool(tc.isfinite(o["boxes"].float()).all()) for o in out)


def test_retinanet_v2_matches_torchvision(tv, tmp_path):
    """retinanet_resnet50_fpn_v2: GroupNorm heads, P6 from C5, GIoU box loss."""
    import torch

    torch.manual_seed(0)
    settings = dict(SIZES, score_thresh=0.02, detections_per_img=60)
    ref = tv.models.detection.retinanet_resnet50_fpn_v2(
        weights=None, weights_backbone=None, num_classes=NUM_CLASSES, **settings
    )
    _spread_head_init(ref, torch)
    torch.save(ref.state_dict(), tmp_path / "v2.pth")
    ours = D.retinanet_resnet50_fpn_v2(weights=str(tmp_path / "v2.pth"), **settings)
    assert ours.head.regression_head._loss_type == "giou"
    assert isinstance(ours.head.classification_head.conv[0][1], tc.nn.GroupNorm)
    ref.eval(), ours.eval()
    with torch.no_grad():
        want = to_numpy(ref([to_torch(i) for i in _images(np.float32)]))
    with tc.no_grad():
        got = to_numpy(ours([tc.tensor(i) for i in _images(np.float32)]))
    assert min(len(w["boxes"]) for w in want) >= 20
    assert_detections_equal(got, want, box_tol=5e-3, score_tol=1e-4)
    ref.train(), ours.train()
    want = ref(
        [to_torch(i) for i in _images(np.float32)], [to_torch(t) for t in _targets(np.float32)]
    )
    got = ours(
        [tc.tensor(i) for i in _images(np.float32)],
        [{k: tc.tensor(v) for k, v in t.items()} for t in _targets(np.float32)],
    )
    for k in want:
        np.testing.assert_allclose(got[k].item(), want[k].item(), rtol=1e-4)
