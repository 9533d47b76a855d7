"""VGG 11-19 with and without batch norm against torchvision 0.14: module trees and state-dict
keys, eval outputs (float32, float64) after a strict torch.save -> tc.load transfer, train-mode
loss and gradients (vgg11_bn), bad input.

The classifier (avgpool 7x7 + Linear 25088->4096->4096->classes, 120M parameters) is the same
code for all eight; its eval outputs are checked in full on vgg11_bn. For the other seven and for
the training step, after the full module trees are compared, both models get the same
small head (1x1 avgpool, Linear 512->64->64->classes) so the float32/float64 comparisons cover
the distinct feature stacks without moving half a gigabyte per model (and a 100M-entry gradient)."""

import pytest

import tensorcore as tc
import tensorcore.nn as nn
from tensorcore.vision import models

from vmodels_parity import perturb_batchnorm, skip_random_init

NAMES = ["vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]


def test_eval_matches_torchvision(parity):
    # 32x32 is the smallest input (five 2x2 pools); the adaptive pool then repeats the 1x1 map 7x7.
    tmodel, model = parity.pair(parity.tv.models.vgg11_bn, models.vgg11_bn, num_classes=10)
    parity.check_eval(tmodel, model, (1, 3, 32, 32))


def _small_head(nn_ns, num_classes):
    return nn_ns.AdaptiveAvgPool2d((1, 1)), nn_ns.Sequential(
        nn_ns.Linear(512, 64),
        nn_ns.ReLU(True),
        nn_ns.Dropout(),
        nn_ns.Linear(64, 64),
        nn_ns.ReLU(True),
        nn_ns.Dropout(),
        nn_ns.Linear(64, num_classes),
    )


def _pair_with_small_head(parity, name, **kwargs):
    parity.torch.manual_seed(0)
    tmodel = getattr(parity.tv.models, name)(num_classes=10, **kwargs).eval()
    with skip_random_init():
        model = getattr(models, name)(num_classes=10, **kwargs).eval()
    ours, theirs = model.state_dict(), tmodel.state_dict()
    assert list(ours) == list(theirs)
    assert all(tuple(ours[k].shape) == tuple(theirs[k].shape) for k in theirs)
    tmodel.avgpool, tmodel.classifier = _small_head(parity.torch.nn, 10)
    model.avgpool, model.classifier = _small_head(nn, 10)
    perturb_batchnorm(parity.torch, tmodel.eval())
    parity.transfer(tmodel, model.eval())
    return tmodel, model


@pytest.mark.parametrize("name", [n for n in NAMES if n != "vgg11_bn"])
def test_features_match_torchvision(parity, name):
    tmodel, model = _pair_with_small_head(parity, name)
    parity.check_eval(tmodel, model, (1, 3, 32, 32))


def test_train_loss_and_gradients(parity):
    tmodel, model = _pair_with_small_head(parity, "vgg11_bn", dropout=0.0)
    for m in list(tmodel.modules()) + list(model.modules()):
        if (
            type(m).__name__ == "Dropout"
        ):  # the small head's dropouts, as dropout=0.0 does for the full one
            m.p = 0.0
    parity.check_classifier_train(tmodel, model, (2, 3, 32, 32), [0, 9])


def test_bad_input():
    with skip_random_init():
        model = models.vgg11(init_weights=False).eval()
    with pytest.raises(
        ValueError, match=r"expected input of shape \(N, 3, H, W\), got \(1, 1, 32, 32\)"
    ):
        model(tc.randn(1, 1, 32, 32))
    with pytest.raises(ValueError, match="empty batch"):
        model(tc.randn(0, 3, 32, 32))
