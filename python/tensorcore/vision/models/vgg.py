"""VGG 11/13/16/19 with and without batch norm (torchvision.models.vgg), same module tree and
state-dict keys as torchvision."""

import tensorcore as tc
import tensorcore.nn as nn

from ._api import register_model
from ._utils import check_image_batch
from ._weights import (
    WeightsEnum,
    load_weights,
    make_weights_enum,
    overwrite_named_param,
    resolve_weights,
    weights_state_dict,
)

__all__ = [
    "VGG",
    "VGG11_Weights",
    "VGG11_BN_Weights",
    "VGG13_Weights",
    "VGG13_BN_Weights",
    "VGG16_Weights",
    "VGG16_BN_Weights",
    "VGG19_Weights",
    "VGG19_BN_Weights",
    "vgg11",
    "vgg11_bn",
    "vgg13",
    "vgg13_bn",
    "vgg16",
    "vgg16_bn",
    "vgg19",
    "vgg19_bn",
]


class VGG(nn.Module):
    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        # A fixed 7x7 grid, so the classifier's size does not depend on the input size.
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        first = self.features[0] if len(self.features) else None
        check_image_batch(x, getattr(first, "in_channels", None), type(self).__name__)
        x = self.features(x)
        x = tc.flatten(self.avgpool(x), 1)
        return self.classifier(x)


def make_layers(cfg, batch_norm=False):
    """3x3 convolutions (each followed by BatchNorm when batch_norm, then ReLU); "M" is a 2x2 max pool."""
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
        layers += (
            [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            if batch_norm
            else [conv2d, nn.ReLU(inplace=True)]
        )
        in_channels = v
    return nn.Sequential(*layers)


# The configurations of the paper's Table 1 (A = VGG11, B = VGG13, D = VGG16, E = VGG19).
cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [
        64,
        64,
        "M",
        128,
        128,
        "M",
        256,
        256,
        256,
        256,
        "M",
        512,
        512,
        512,
        512,
        "M",
        512,
        512,
        512,
        512,
        "M",
    ],
}

_URL = "https://download.pytorch.org/models/"


def _enum(name, filename, extra=None):
    entries = {"IMAGENET1K_V1": (_URL + filename, 1000)}
    entries.update(extra or {})
    return make_weights_enum(name, entries, "IMAGENET1K_V1")


VGG11_Weights = _enum("VGG11_Weights", "vgg11-8a719046.pth")
VGG11_BN_Weights = _enum("VGG11_BN_Weights", "vgg11_bn-6002323d.pth")
VGG13_Weights = _enum("VGG13_Weights", "vgg13-19584684.pth")
VGG13_BN_Weights = _enum("VGG13_BN_Weights", "vgg13_bn-abd245e5.pth")
# IMAGENET1K_FEATURES: the SSD authors' feature weights; no class count (its classifier is not trained).
VGG16_Weights = _enum(
    "VGG16_Weights",
    "vgg16-397923af.pth",
    {"IMAGENET1K_FEATURES": (_URL + "vgg16_features-amdegroot-88682ab5.pth", None)},
)
VGG16_BN_Weights = _enum("VGG16_BN_Weights", "vgg16_bn-6c64b313.pth")
VGG19_Weights = _enum("VGG19_Weights", "vgg19-dcbb9e9d.pth")
VGG19_BN_Weights = _enum("VGG19_BN_Weights", "vgg19_bn-c79401a0.pth")


def _vgg(cfg, batch_norm, enum_cls, weights, pretrained, progress, kwargs, builder):
    source = resolve_weights(enum_cls, weights, pretrained, builder=builder)
    if source is not None:
        kwargs["init_weights"] = False  # every parameter is about to be overwritten
        if isinstance(source, WeightsEnum) and source.num_classes is not None:
            overwrite_named_param(kwargs, "num_classes", source.num_classes)
    state = weights_state_dict(source, progress)
    return load_weights(VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs), state)


# weights= / pretrained= as described in _weights.py.


@register_model(VGG11_Weights)
def vgg11(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _vgg("A", False, VGG11_Weights, weights, pretrained, progress, kwargs, "vgg11")


@register_model(VGG11_BN_Weights)
def vgg11_bn(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _vgg("A", True, VGG11_BN_Weights, weights, pretrained, progress, kwargs, "vgg11_bn")


@register_model(VGG13_Weights)
def vgg13(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _vgg("B", False, VGG13_Weights, weights, pretrained, progress, kwargs, "vgg13")


@register_model(VGG13_BN_Weights)
def vgg13_bn(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _vgg("B", True, VGG13_BN_Weights, weights, pretrained, progress, kwargs, "vgg13_bn")


@register_model(VGG16_Weights)
def vgg16(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _vgg("D", False, VGG16_Weights, weights, pretrained, progress, kwargs, "vgg16")


@register_model(VGG16_BN_Weights)
def vgg16_bn(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _vgg("D", True, VGG16_BN_Weights, weights, pretrained, progress, kwargs, "vgg16_bn")


@register_model(VGG19_Weights)
def vgg19(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _vgg("E", False, VGG19_Weights, weights, pretrained, progress, kwargs, "vgg19")


@register_model(VGG19_BN_Weights)
def vgg19_bn(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _vgg("E", True, VGG19_BN_Weights, weights, pretrained, progress, kwargs, "vgg19_bn")
