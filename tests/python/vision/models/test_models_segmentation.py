"""FCN / DeepLabV3 (ResNet-50/101 backbones) against torchvision 0.14: {"out", "aux"} outputs in
eval mode (float32, float64), train-mode losses and gradients, weights / weights_backbone
handling, autocast, fine-tuning a head, bad input."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F
from tensorcore.vision import models
from tensorcore.vision.models import segmentation

from vmodels_parity import channels_last, skip_random_init


def _tv_builder(parity, name):
    # torchvision 0.14 defaults weights_backbone to downloaded ImageNet weights; ours to None.
    fn = getattr(parity.tv.models.segmentation, name)
    return lambda **kw: fn(weights_backbone=None, **kw)


@pytest.mark.parametrize(
    "name,size",
    [
        ("fcn_resnet50", 64),
        ("deeplabv3_resnet50", 64),
        ("fcn_resnet101", 32),
        ("deeplabv3_resnet101", 32),
    ],
)
def test_eval_matches_torchvision(parity, name, size):
    tmodel, model = parity.pair(
        _tv_builder(parity, name), getattr(segmentation, name), num_classes=5, aux_loss=True
    )
    parity.check_eval(tmodel, model, (1, 3, size, size))


def test_without_aux_and_default_classes(parity):
    tmodel, model = parity.pair(
        _tv_builder(parity, "deeplabv3_resnet50"), segmentation.deeplabv3_resnet50
    )
    assert model.aux_classifier is None and model.classifier[4].out_channels == 21
    x = np.random.default_rng(0).standard_normal((1, 3, 48, 40)).astype(np.float32)
    out, ref = parity.run_both(tmodel, model, x)
    assert list(out) == ["out"] and out["out"].shape == (1, 21, 48, 40)
    parity.assert_close(out, ref, 2e-5)


@pytest.mark.parametrize("name", ["fcn_resnet50", "deeplabv3_resnet50"])
def test_train_losses_and_gradients(parity, name):
    tmodel, model = parity.pair(
        _tv_builder(parity, name), getattr(segmentation, name), num_classes=4, aux_loss=True
    )
    for m in list(tmodel.modules()) + list(model.modules()):
        if (
            type(m).__name__ == "Dropout"
        ):  # the heads' fixed dropouts; off so both runs are deterministic
            m.p = 0.0
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 32, 32)).astype(np.float32)
    target = rng.integers(0, 4, (2, 32, 32))

    def tc_loss(out):
        t = tc.from_numpy(target)
        return F.cross_entropy(out["out"], t) + 0.5 * F.cross_entropy(out["aux"], t)

    def torch_loss(out):
        t = parity.torch.from_numpy(target)
        ce = parity.torch.nn.functional.cross_entropy
        return ce(out["out"], t) + 0.5 * ce(out["aux"], t)

    parity.check_train(tmodel, model, x, tc_loss, torch_loss)


def test_channels_last_and_autocast(parity):
    tmodel, model = parity.pair(
        _tv_builder(parity, "fcn_resnet50"), segmentation.fcn_resnet50, num_classes=3
    )
    x_np = np.random.default_rng(4).standard_normal((1, 3, 64, 64)).astype(np.float32)
    with tc.no_grad():
        out = model(channels_last(tc.from_numpy(x_np)))["out"].numpy()
        with tc.autocast("cpu", dtype=tc.bfloat16):
            out_bf16 = model(tc.from_numpy(x_np))["out"]
    with parity.torch.no_grad():
        ref = tmodel(parity.torch.from_numpy(x_np))["out"].numpy()
    parity.assert_close(out, ref, 2e-5)
    assert out_bf16.dtype == tc.bfloat16
    assert np.abs(out_bf16.float().numpy() - ref).max() <= 0.05 * np.abs(ref).max()


def _fill_distinct(model):
    """Cheap stand-in for random weights: every floating tensor of the state gets its own value."""
    with tc.no_grad():
        for i, t in enumerate(model.state_dict().values()):
            if t.is_floating_point():
                t.fill_(0.001 * (i + 1))
    return model


def test_local_weights_set_classes_and_aux(tmp_path):
    with skip_random_init():
        source = _fill_distinct(segmentation.fcn_resnet50(num_classes=6, aux_loss=True))
    path = tmp_path / "fcn.pth"
    tc.save(source.state_dict(), path, format="pt")
    with skip_random_init():
        model = segmentation.fcn_resnet50(weights=path)
    # A local checkpoint says how many classes it predicts and whether it has the auxiliary head.
    assert model.aux_classifier is not None and model.classifier[4].out_channels == 6
    assert all(
        bool(tc.equal(a, b))
        for a, b in zip(model.state_dict().values(), source.state_dict().values())
    )
    with pytest.raises(
        RuntimeError, match='Unexpected key\\(s\\) in state_dict: "aux_classifier.0.weight"'
    ):
        segmentation.fcn_resnet50(weights=path, aux_loss=False)


def test_weights_backbone_loads_into_the_backbone(tmp_path):
    with skip_random_init():
        backbone = models.resnet50()
    tc.manual_seed(0)
    with tc.no_grad():
        backbone.layer3[0].conv1.weight.normal_()
    path = tmp_path / "r50.pth"
    tc.save(backbone.state_dict(), path, format="pt")
    with skip_random_init():
        model = segmentation.deeplabv3_resnet50(weights_backbone=path, num_classes=2)
    assert bool(tc.equal(model.backbone.layer3[0].conv1.weight, backbone.layer3[0].conv1.weight))
    assert "fc" not in dict(model.backbone.named_children())


def test_named_weights_say_what_to_download(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="deeplabv3_resnet50_coco-cd0a2569.pth"):
        segmentation.deeplabv3_resnet50(pretrained=True)
    with pytest.raises(FileNotFoundError, match="fcn_resnet101_coco-7ecb50ca.pth"):
        segmentation.fcn_resnet101(weights="COCO_WITH_VOC_LABELS_V1")
    # The legacy backbone flag means ResNet's V1 ImageNet weights, as in torchvision.
    with pytest.raises(FileNotFoundError, match="resnet50-0676ba61.pth"):
        segmentation.fcn_resnet50(pretrained_backbone=True)
    with pytest.raises(ValueError, match="'num_classes' expected value 21 but got 5"):
        segmentation.fcn_resnet50(weights=segmentation.FCN_ResNet50_Weights.DEFAULT, num_classes=5)


def test_fine_tuning_a_new_head():
    with skip_random_init():
        model = segmentation.deeplabv3_resnet50(num_classes=21, aux_loss=True)
    for p in model.backbone.parameters():
        p.requires_grad_(False)
    model.classifier[4] = nn.Conv2d(256, 3, 1)
    model.aux_classifier[4] = nn.Conv2d(256, 3, 1)
    for m in model.modules():  # skip_random_init left the other weights undefined
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.normal_(m.weight, 0, 0.02)
    model.train()
    out = model(tc.randn(2, 3, 32, 32))
    assert tuple(out["out"].shape) == (2, 3, 32, 32) and tuple(out["aux"].shape) == (2, 3, 32, 32)
    loss = F.cross_entropy(out["out"], tc.zeros(2, 32, 32, dtype=tc.int64))
    loss.backward()
    assert model.classifier[4].weight.grad is not None
    assert model.backbone.conv1.weight.grad is None


def test_bad_input_and_arguments():
    with skip_random_init():
        model = segmentation.fcn_resnet50(num_classes=2).eval()
    with pytest.raises(
        ValueError, match=r"FCN: expected input of shape \(N, 3, H, W\), got \(1, 2, 32, 32\)"
    ):
        model(tc.randn(1, 2, 32, 32))
    with pytest.raises(ValueError, match="empty batch"):
        model(tc.randn(0, 3, 32, 32))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        segmentation.deeplabv3_resnet50(aux=True)
