"""The models' own random initialisation (the parity tests overwrite it with torchvision's
weights): the distributions torchvision's constructors draw from."""

import math

import pytest

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.init as tc_init
from tensorcore.vision import models


def _std(t):
    return float(t.detach().double().std())


def _check_kaiming_fan_out(model, gain=math.sqrt(2.0)):
    checked = 0
    for m in model.modules():
        if isinstance(m, nn.Conv2d) and m.weight.numel() >= 4096:  # enough samples for the std
            fan_out = m.out_channels * m.kernel_size[0] * m.kernel_size[1]
            expected = gain / math.sqrt(fan_out)
            assert abs(_std(m.weight) / expected - 1) < 0.1, (m, _std(m.weight), expected)
            checked += 1
    assert checked > 5


def test_resnet_init():
    tc.manual_seed(0)
    model = models.resnet18()
    _check_kaiming_fan_out(model)
    assert float(model.bn1.weight.sum()) == 64 and float(model.bn1.bias.abs().sum()) == 0
    # fc keeps nn.Linear's default: uniform in +-1/sqrt(in_features).
    bound = 1 / math.sqrt(512)
    assert float(model.fc.weight.abs().max()) <= bound and _std(model.fc.weight) > 0.5 * bound


def test_zero_init_residual():
    model = models.resnet18(zero_init_residual=True)
    assert float(model.layer1[0].bn2.weight.abs().sum()) == 0
    assert float(model.layer1[0].bn1.weight.sum()) == 64
    model = models.resnet50(zero_init_residual=True)
    assert float(model.layer3[2].bn3.weight.abs().sum()) == 0
    assert float(model.layer3[2].bn2.weight.sum()) == 256


@pytest.mark.parametrize("builder", [models.mobilenet_v2, models.mobilenet_v3_small])
def test_mobilenet_init(builder):
    tc.manual_seed(1)
    model = builder()
    _check_kaiming_fan_out(model)
    for m in model.modules():
        if isinstance(m, nn.Conv2d) and m.bias is not None:
            assert float(m.bias.abs().sum()) == 0
        if isinstance(m, nn.Linear):
            assert abs(_std(m.weight) / 0.01 - 1) < 0.05 and float(m.bias.abs().sum()) == 0


def test_mobilenet_v3_norm_defaults():
    bn = models.mobilenet_v3_small().features[0][1]
    assert isinstance(bn, nn.BatchNorm2d) and bn.eps == 0.001 and bn.momentum == 0.01


def test_vgg_init(monkeypatch):
    # The two big classifier matrices (120M entries) would take tc's normal_ seconds to fill; the
    # spy records that they are drawn from N(0, 0.01) and draws only the smaller tensors.
    real_normal = tc_init.normal_
    big_draws = []

    def spy_normal(tensor, mean=0.0, std=1.0, generator=None):
        if tensor.numel() > 5_000_000:
            big_draws.append((tuple(tensor.shape), mean, std))
            return tensor
        return real_normal(tensor, mean, std, generator)

    monkeypatch.setattr(tc_init, "normal_", spy_normal)
    tc.manual_seed(2)
    model = models.vgg11()
    assert big_draws == [((4096, 25088), 0, 0.01), ((4096, 4096), 0, 0.01)]
    _check_kaiming_fan_out(model)
    last = model.classifier[6]
    assert abs(_std(last.weight) / 0.01 - 1) < 0.02 and float(last.bias.abs().sum()) == 0
    assert float(model.classifier[0].bias.abs().sum()) == 0
    assert float(model.features[0].bias.abs().sum()) == 0
