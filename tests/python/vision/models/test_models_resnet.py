"""ResNet / ResNeXt / Wide ResNet against torchvision 0.14: strict state-dict transfer both ways,
eval outputs (float32, float64), train-mode loss and gradients, channels_last, autocast, bad input."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F
from tensorcore.vision import models

from vmodels_parity import channels_last

SMALL = ["resnet18", "resnet34", "resnet50", "resnext50_32x4d", "wide_resnet50_2"]
# The 101/152-layer models once, at the smallest size that reaches layer4 (1x1 there).
LARGE = ["resnet101", "resnet152", "resnext101_32x8d", "resnext101_64x4d", "wide_resnet101_2"]


@pytest.mark.parametrize("name", SMALL)
def test_eval_matches_torchvision(parity, name):
    tmodel, model = parity.pair_named(name, num_classes=10)
    parity.check_eval(tmodel, model, (1, 3, 64, 64))


@pytest.mark.parametrize("name", LARGE)
def test_eval_matches_torchvision_deep(parity, name):
    tmodel, model = parity.pair_named(name, num_classes=10)
    parity.check_eval(tmodel, model, (1, 3, 32, 32))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"replace_stride_with_dilation": [False, True, True]},
        {"zero_init_residual": True, "groups": 2, "width_per_group": 32},
    ],
)
def test_constructor_arguments(parity, kwargs):
    tmodel, model = parity.pair(parity.tv.models.resnet50, models.resnet50, num_classes=7, **kwargs)
    parity.check_eval(tmodel, model, (1, 3, 48, 48))


def test_norm_layer_argument(parity):
    def group_norm(c):
        return nn.GroupNorm(4, c)

    def tgroup_norm(c):
        return parity.torch.nn.GroupNorm(4, c)

    parity.torch.manual_seed(0)
    tmodel = parity.tv.models.resnet18(norm_layer=tgroup_norm, num_classes=5).eval()
    model = models.resnet18(norm_layer=group_norm, num_classes=5).eval()
    parity.transfer(tmodel, model)
    assert isinstance(model.layer2[0].downsample[1], nn.GroupNorm)
    parity.check_eval(tmodel, model, (2, 3, 32, 32))


@pytest.mark.parametrize("name", ["resnet18", "resnet50"])
def test_train_loss_and_gradients(parity, name):
    tmodel, model = parity.pair_named(name, num_classes=10)
    parity.check_classifier_train(tmodel, model, (2, 3, 64, 64), [3, 7])


def test_our_checkpoint_loads_in_torchvision(parity, tmp_path):
    tc.manual_seed(3)
    model = models.resnet18(num_classes=10).train()
    with tc.no_grad():  # move the running statistics off their initial values
        model(tc.randn(2, 3, 32, 32))
    model.eval()
    path = tmp_path / "ours.pth"
    tc.save(model.state_dict(), path, format="pt")
    tmodel = parity.tv.models.resnet18(num_classes=10).eval()
    tmodel.load_state_dict(parity.torch.load(path), strict=True)
    parity.check_eval(tmodel, model, (1, 3, 32, 32))


def test_channels_last_matches(parity):
    tmodel, model = parity.pair(parity.tv.models.resnet50, models.resnet50, num_classes=10)
    x_np = np.random.default_rng(4).standard_normal((2, 3, 64, 64)).astype(np.float32)
    x = channels_last(tc.from_numpy(x_np))
    assert tuple(x.stride()) == (64 * 64 * 3, 1, 64 * 3, 3)
    with tc.no_grad():
        out = model(x).numpy()
    with parity.torch.no_grad():
        tmodel = tmodel.to(memory_format=parity.torch.channels_last)
        ref = tmodel(
            parity.torch.from_numpy(x_np).contiguous(memory_format=parity.torch.channels_last)
        ).numpy()
    parity.assert_close(out, ref, 2e-5)


def test_channels_last_training_gradients_match_nchw():
    tc.manual_seed(0)
    model = models.resnet18(num_classes=4)
    x, y = tc.randn(2, 3, 32, 32), tc.tensor([1, 2])
    grads = []
    for inp in (x, channels_last(x)):
        model.zero_grad()
        F.cross_entropy(model(inp), y).backward()
        grads.append({n: p.grad.clone() for n, p in model.named_parameters()})
    for name, g in grads[0].items():
        assert bool(
            tc.allclose(grads[1][name], g, rtol=1e-3, atol=1e-5 * float(g.abs().max()) + 1e-7)
        ), name


def test_autocast_bf16_cpu(parity):
    tmodel, model = parity.pair(parity.tv.models.resnet18, models.resnet18, num_classes=10)
    x = np.random.default_rng(5).standard_normal((2, 3, 64, 64)).astype(np.float32)
    with tc.no_grad(), tc.autocast("cpu", dtype=tc.bfloat16):
        out = model(tc.from_numpy(x))
    with parity.torch.no_grad(), parity.torch.autocast("cpu", dtype=parity.torch.bfloat16):
        ref = tmodel(parity.torch.from_numpy(x))
    assert out.dtype == tc.bfloat16 and ref.dtype == parity.torch.bfloat16
    out, ref = out.float().numpy(), ref.float().numpy()
    # bf16 keeps 8 bits of mantissa: both runs agree to a few percent of the output range.
    assert np.abs(out - ref).max() <= 0.05 * np.abs(ref).max()


def test_autocast_bf16_training_step():
    model = models.resnet18(num_classes=4)
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    x, y = tc.randn(2, 3, 32, 32), tc.tensor([0, 3])
    with tc.autocast("cpu", dtype=tc.bfloat16):
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    assert model.conv1.weight.grad.dtype == tc.float32
    assert bool(tc.isfinite(model.conv1.weight.grad).all())
    opt.step()


def test_fine_tuning_replaces_fc_and_freezes_backbone():
    model = models.resnet18()
    for p in model.parameters():
        p.requires_grad_(False)
    model.fc = nn.Linear(model.fc.in_features, 3)
    out = model(tc.randn(2, 3, 32, 32))
    assert tuple(out.shape) == (2, 3)
    F.cross_entropy(out, tc.tensor([0, 2])).backward()
    assert model.fc.weight.grad is not None and model.conv1.weight.grad is None
    assert sorted(model.state_dict())[:2] == ["bn1.bias", "bn1.num_batches_tracked"]


def test_bad_input_messages():
    model = models.resnet18().eval()
    with pytest.raises(
        ValueError, match=r"expected input of shape \(N, 3, H, W\), got \(1, 1, 32, 32\)"
    ):
        model(tc.randn(1, 1, 32, 32))
    with pytest.raises(ValueError, match="expected input of shape"):
        model(tc.randn(3, 32, 32))
    with pytest.raises(ValueError, match="empty batch"):
        model(tc.randn(0, 3, 32, 32))
    with pytest.raises(TypeError, match="expected a Tensor"):
        model(np.zeros((1, 3, 32, 32), np.float32))


def test_basic_block_rejects_groups_and_dilation():
    with pytest.raises(ValueError, match="groups=1 and base_width=64"):
        models.resnet18(groups=2)
    with pytest.raises(NotImplementedError, match="Dilation > 1"):
        models.resnet18(replace_stride_with_dilation=[False, False, True])
    with pytest.raises(ValueError, match="3-element"):
        models.resnet50(replace_stride_with_dilation=[True])
    with pytest.raises(ValueError, match="'groups' expected value 32 but got 8"):
        models.resnext50_32x4d(groups=8)
