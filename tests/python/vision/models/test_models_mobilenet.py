"""MobileNetV2 / V3 against torchvision 0.14: eval outputs (float32, float64) after a strict
state-dict transfer, constructor arguments, train-mode loss and gradients, channels_last,
autocast, bad input."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn as nn
from tensorcore.vision import models

from vmodels_parity import channels_last


@pytest.mark.parametrize("name", ["mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small"])
def test_eval_matches_torchvision(parity, name):
    tmodel, model = parity.pair_named(name, num_classes=10)
    parity.check_eval(tmodel, model, (2, 3, 64, 64))


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("mobilenet_v2", {"width_mult": 0.5, "round_nearest": 4, "dropout": 0.3}),
        (
            "mobilenet_v2",
            {"inverted_residual_setting": [[1, 16, 1, 1], [4, 24, 2, 2], [4, 40, 2, 2]]},
        ),
        ("mobilenet_v3_large", {"width_mult": 0.75, "reduced_tail": True, "dilated": True}),
        ("mobilenet_v3_small", {"width_mult": 1.25, "dropout": 0.1}),
    ],
)
def test_constructor_arguments(parity, name, kwargs):
    tmodel, model = parity.pair_named(name, num_classes=6, **kwargs)
    assert list(model.state_dict()) == list(tmodel.state_dict())
    parity.check_eval(tmodel, model, (1, 3, 64, 64))


def test_norm_layer_argument(parity):
    tmodel, model = parity.pair(
        parity.tv.models.mobilenet_v2, models.mobilenet_v2, num_classes=5, norm_layer=None
    )
    parity.torch.manual_seed(0)
    tmodel = parity.tv.models.mobilenet_v2(
        num_classes=5, norm_layer=lambda c: parity.torch.nn.GroupNorm(8, c)
    ).eval()
    model = models.mobilenet_v2(num_classes=5, norm_layer=lambda c: nn.GroupNorm(8, c)).eval()
    parity.transfer(tmodel, model)
    parity.check_eval(tmodel, model, (1, 3, 32, 32))


def test_train_loss_and_gradients(parity):
    # dropout=0 makes the training forward deterministic in both libraries.
    tmodel, model = parity.pair(
        parity.tv.models.mobilenet_v3_small, models.mobilenet_v3_small, num_classes=10, dropout=0.0
    )
    # torch 1.13's hardsigmoid backward multiplies by a float32 1/6 even in float64, so its float64
    # gradients through the squeeze-excitation blocks are off by ~3e-8 relative (ours use 1/6 exactly).
    parity.check_classifier_train(tmodel, model, (2, 3, 64, 64), [1, 8], rel64=2e-7)


def test_channels_last_and_autocast(parity):
    tmodel, model = parity.pair(parity.tv.models.mobilenet_v2, models.mobilenet_v2, num_classes=10)
    x_np = np.random.default_rng(3).standard_normal((2, 3, 64, 64)).astype(np.float32)
    with tc.no_grad():
        out = model(channels_last(tc.from_numpy(x_np))).numpy()
        with tc.autocast("cpu", dtype=tc.bfloat16):
            out_bf16 = model(tc.from_numpy(x_np))
    with parity.torch.no_grad():
        ref = tmodel(parity.torch.from_numpy(x_np)).numpy()
    parity.assert_close(out, ref, 2e-5)
    assert out_bf16.dtype == tc.bfloat16
    assert np.abs(out_bf16.float().numpy() - ref).max() <= 0.05 * np.abs(ref).max()


def test_bad_input_and_arguments():
    model = models.mobilenet_v3_small().eval()
    with pytest.raises(
        ValueError, match=r"expected input of shape \(N, 3, H, W\), got \(2, 4, 32, 32\)"
    ):
        model(tc.randn(2, 4, 32, 32))
    with pytest.raises(ValueError, match="empty batch"):
        models.mobilenet_v2().eval()(tc.randn(0, 3, 32, 32))
    with pytest.raises(ValueError, match="inverted_residual_setting should be non-empty"):
        models.mobilenet_v2(inverted_residual_setting=[[1, 16, 1]])
    with pytest.raises(ValueError, match="stride should be 1 or 2"):
        models.mobilenet_v2(inverted_residual_setting=[[1, 16, 1, 3]])
    with pytest.raises(TypeError, match="unexpected keyword"):
        models.mobilenet_v3_large(widht_mult=0.5)
