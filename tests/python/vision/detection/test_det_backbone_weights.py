"""ResNet-FPN backbones, FrozenBatchNorm2d and the weights arguments of the detection builders
(nothing is downloaded: named weights are read from torch's checkpoint cache or fail clearly)."""

import os
import warnings

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.vision.models import detection as D
from tensorcore.vision.models.detection.backbone_utils import resnet_fpn_backbone
from tensorcore.vision.ops import FrozenBatchNorm2d

from det_helpers import assert_detections_equal, to_numpy, to_torch


def _flags(model):
    return {n: p.requires_grad for n, p in model.named_parameters()}


@pytest.mark.parametrize("trainable,returned", [(2, None), (5, [2, 4]), (0, [1, 3])])
def test_resnet_fpn_backbone_matches_torchvision(tv, tmp_path, trainable, returned):
    import torch
    from torchvision.models.detection.backbone_utils import resnet_fpn_backbone as tv_backbone

    torch.manual_seed(0)
    ref = tv_backbone(
        backbone_name="resnet18",
        weights=None,
        trainable_layers=trainable,
        returned_layers=returned,
        norm_layer=torch.nn.BatchNorm2d,
    ).eval()
    ours = resnet_fpn_backbone(
        "resnet18",
        None,
        norm_layer=nn.BatchNorm2d,
        trainable_layers=trainable,
        returned_layers=returned,
    ).eval()
    assert list(ours.state_dict()) == list(ref.state_dict())
    assert _flags(ours) == _flags(ref)
    torch.save(ref.state_dict(), tmp_path / "fpn.pth")
    ours.load_state_dict(tc.load(str(tmp_path / "fpn.pth")))
    x = np.random.default_rng(0).random((1, 3, 96, 64), dtype=np.float32)
    with torch.no_grad():
        want = ref(torch.from_numpy(x))
    got = ours(tc.tensor(x))
    assert list(got) == list(want) and ours.out_channels == ref.out_channels == 256
    for k in want:
        np.testing.assert_allclose(got[k].detach().numpy(), want[k].numpy(), rtol=1e-4, atol=1e-4)


def test_frozen_batch_norm_matches_torchvision_and_backbone_loads_bn_checkpoints(tv, tmp_path):
    import torch
    from torchvision.ops import FrozenBatchNorm2d as TvFrozen

    torch.manual_seed(0)
    ref, ours = TvFrozen(6, eps=1e-3), FrozenBatchNorm2d(6, eps=1e-3)
    with torch.no_grad():
        for buf in ref.buffers():
            buf.uniform_(0.5, 1.5)
    assert list(ours.state_dict()) == list(ref.state_dict()) and repr(ours) == repr(ref)
    ours.load_state_dict({k: tc.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 6, 5, 4)).astype(np.float32)
    np.testing.assert_allclose(
        ours(tc.tensor(x)).numpy(), ref(torch.from_numpy(x)).numpy(), rtol=1e-6, atol=1e-6
    )
    assert not list(ours.parameters())  # frozen: buffers only
    # A BatchNorm ResNet checkpoint (with num_batches_tracked) loads into a frozen-norm backbone.
    torch.manual_seed(1)
    resnet = tv.models.resnet18()
    torch.save(resnet.state_dict(), tmp_path / "resnet18.pth")
    ours = resnet_fpn_backbone(
        "resnet18", str(tmp_path / "resnet18.pth"), trainable_layers=3
    ).eval()
    ref = tv.models.detection.backbone_utils._resnet_fpn_extractor(
        tv.models.resnet18(norm_layer=TvFrozen), 3
    ).eval()
    ref.body.load_state_dict(resnet.state_dict(), strict=False)
    fpn_state = {k: v for k, v in ref.state_dict().items() if k.startswith("fpn.")}
    ours.load_state_dict(
        {
            **{k: tc.tensor(v.numpy()) for k, v in fpn_state.items()},
            **{k: v for k, v in ours.state_dict().items() if not k.startswith("fpn.")},
        }
    )
    x = np.random.default_rng(1).random((1, 3, 64, 64), dtype=np.float32)
    with torch.no_grad():
        want = ref(torch.from_numpy(x))
    got = ours(tc.tensor(x))
    for k in want:
        np.testing.assert_allclose(got[k].detach().numpy(), want[k].numpy(), rtol=1e-4, atol=1e-4)


def test_backbone_argument_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    with pytest.raises(ValueError, match="unknown backbone_name 'resnet7'"):
        resnet_fpn_backbone("resnet7", None)
    with pytest.raises(ValueError, match=r"range \[0,5\]"):
        resnet_fpn_backbone("resnet18", None, trainable_layers=6)
    with pytest.raises(ValueError, match=r"range \[1,4\]"):
        resnet_fpn_backbone("resnet18", None, returned_layers=[0, 2])
    # torchvision's legacy pretrained=True: ResNet's first ImageNet weights, from the cache only.
    with pytest.raises(FileNotFoundError, match="resnet18-f37072fd.pth"):
        resnet_fpn_backbone("resnet18", True)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        resnet_fpn_backbone("resnet18", str(tmp_path / "missing.pth"))


def test_retinanet_builder_weight_arguments(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError) as info:
        D.retinanet_resnet50_fpn(pretrained=True)
    assert "retinanet_resnet50_fpn_coco-eeacb38b.pth" in str(info.value)
    assert "https://download.pytorch.org/models/" in str(info.value)
    with pytest.raises(
        FileNotFoundError, match="resnet50-0676ba61.pth"
    ):  # IMAGENET1K_V1, as torchvision
        D.retinanet_resnet50_fpn(pretrained_backbone=True)
    with pytest.raises(FileNotFoundError, match="resnet50-11ad3fa6.pth"):
        D.retinanet_resnet50_fpn(weights_backbone="IMAGENET1K_V2")
    with pytest.raises(ValueError, match="'num_classes' expected value 91 but got 5"):
        D.retinanet_resnet50_fpn(weights=D.RetinaNet_ResNet50_FPN_Weights.COCO_V1, num_classes=5)
    with pytest.raises(ValueError, match="not both"):
        D.retinanet_resnet50_fpn(weights="COCO_V1", pretrained=True)
    with pytest.raises(ValueError, match="unknown weights 'COCO_V9'"):
        D.retinanet_resnet50_fpn(weights="COCO_V9")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        D.retinanet_resnet50_fpn(weights=str(tmp_path / "nothing.pth"))
    with pytest.warns(UserWarning, match="trainable_backbone_layers"):
        model = D.retinanet_resnet50_fpn(num_classes=3, trainable_backbone_layers=2)
    assert all(_flags(model).values())  # no pretrained weights: everything trains, plain BatchNorm
    assert isinstance(model.backbone.body.bn1, nn.BatchNorm2d)


def test_named_coco_weights_from_the_cache_match_torchvision(tv, tmp_path, monkeypatch):
    """COCO_V1 read from torch's checkpoint cache (no download) by both libraries: frozen
    backbone norm with eps=0 (torchvision's overwrite_eps), 91 classes, same detections."""
    import torch

    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    cache = tmp_path / "hub" / "checkpoints"
    cache.mkdir(parents=True)
    torch.manual_seed(0)
    source = tv.models.detection.retinanet_resnet50_fpn(weights=None, weights_backbone=None)
    with torch.no_grad():
        for m in source.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_var.uniform_(0.5, 1.5)
        source.head.classification_head.cls_logits.bias.uniform_(-4.0, -1.0)  # varied scores
    torch.save(source.state_dict(), cache / "retinanet_resnet50_fpn_coco-eeacb38b.pth")
    del source
    settings = dict(min_size=64, max_size=80, score_thresh=0.1, detections_per_img=50)
    ref = tv.models.detection.retinanet_resnet50_fpn(
        weights=tv.models.detection.RetinaNet_ResNet50_FPN_Weights.COCO_V1, **settings
    ).eval()
    ours = D.retinanet_resnet50_fpn(
        weights=D.RetinaNet_ResNet50_FPN_Weights.COCO_V1, **settings
    ).eval()
    assert _flags(ours) == _flags(ref)
    frozen = [m for m in ours.modules() if isinstance(m, FrozenBatchNorm2d)]
    assert len(frozen) == 53 and all(m.eps == 0.0 for m in frozen)
    assert ours.head.classification_head.num_classes == 91
    images = [np.random.default_rng(0).random((3, 70, 90), dtype=np.float32)]
    with torch.no_grad():
        want = to_numpy(ref([to_torch(i) for i in images]))
    with tc.no_grad():
        got = to_numpy(ours([tc.tensor(i) for i in images]))
    assert len(want[0]["boxes"]) > 10
    assert_detections_equal(got, want, box_tol=2e-3, score_tol=1e-4)
    # A path to the same file is recognised as the COCO_V1 checkpoint (eps=0); num_classes comes
    # from the file.
    path = os.path.join(cache, "retinanet_resnet50_fpn_coco-eeacb38b.pth")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        by_path = D.retinanet_resnet50_fpn(weights=path)
    assert by_path.head.classification_head.num_classes == 91
    assert all(m.eps == 0.0 for m in by_path.modules() if isinstance(m, FrozenBatchNorm2d))
