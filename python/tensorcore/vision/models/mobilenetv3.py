"""MobileNetV3 large and small (torchvision.models.mobilenetv3): inverted residuals with optional
squeeze-excitation and hard-swish, same constructor arguments and state-dict keys as torchvision."""

from functools import partial

import tensorcore as tc
import tensorcore.nn as nn

from ._api import register_model
from ._utils import (
    init_mobilenet_weights,
    Conv2dNormActivation,
    SqueezeExcitation,
    _make_divisible,
    activation_module,
    check_image_batch,
)
from ._weights import classifier_state_dict, load_weights, make_weights_enum

__all__ = [
    "MobileNetV3",
    "MobileNet_V3_Large_Weights",
    "MobileNet_V3_Small_Weights",
    "mobilenet_v3_large",
    "mobilenet_v3_small",
]


class InvertedResidualConfig:
    """One block of the architecture table; channel counts are scaled by width_mult and rounded to 8."""

    def __init__(
        self,
        input_channels,
        kernel,
        expanded_channels,
        out_channels,
        use_se,
        activation,
        stride,
        dilation,
        width_mult,
    ):
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se = use_se
        self.use_hs = activation == "HS"
        self.stride = stride
        self.dilation = dilation

    @staticmethod
    def adjust_channels(channels, width_mult):
        return _make_divisible(channels * width_mult, 8)


class InvertedResidual(nn.Module):
    def __init__(
        self, cnf, norm_layer, se_layer=partial(SqueezeExcitation, scale_activation=nn.Hardsigmoid)
    ):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        activation_layer = nn.Hardswish if cnf.use_hs else nn.ReLU
        layers = []
        if cnf.expanded_channels != cnf.input_channels:
            layers.append(
                Conv2dNormActivation(
                    cnf.input_channels,
                    cnf.expanded_channels,
                    kernel_size=1,
                    norm_layer=norm_layer,
                    activation_layer=activation_layer,
                )
            )
        # A dilated block keeps the resolution: its stride turns into dilation.
        stride = 1 if cnf.dilation > 1 else cnf.stride
        layers.append(
            Conv2dNormActivation(
                cnf.expanded_channels,
                cnf.expanded_channels,
                kernel_size=cnf.kernel,
                stride=stride,
                dilation=cnf.dilation,
                groups=cnf.expanded_channels,
                norm_layer=norm_layer,
                activation_layer=activation_layer,
            )
        )
        if cnf.use_se:
            layers.append(
                se_layer(cnf.expanded_channels, _make_divisible(cnf.expanded_channels // 4, 8))
            )
        layers.append(
            Conv2dNormActivation(
                cnf.expanded_channels,
                cnf.out_channels,
                kernel_size=1,
                norm_layer=norm_layer,
                activation_layer=None,
            )
        )
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result += input
        return result


class MobileNetV3(nn.Module):
    def __init__(
        self,
        inverted_residual_setting,
        last_channel,
        num_classes=1000,
        block=None,
        norm_layer=None,
        dropout=0.2,
    ):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not all(isinstance(s, InvertedResidualConfig) for s in inverted_residual_setting):
            raise TypeError("The inverted_residual_setting should be List[InvertedResidualConfig]")
        block = InvertedResidual if block is None else block
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        first_channels = inverted_residual_setting[0].input_channels
        layers = [
            Conv2dNormActivation(
                3,
                first_channels,
                kernel_size=3,
                stride=2,
                norm_layer=norm_layer,
                activation_layer=nn.Hardswish,
            )
        ]
        layers += [block(cnf, norm_layer) for cnf in inverted_residual_setting]
        lastconv_input_channels = inverted_residual_setting[-1].out_channels
        lastconv_output_channels = 6 * lastconv_input_channels
        layers.append(
            Conv2dNormActivation(
                lastconv_input_channels,
                lastconv_output_channels,
                kernel_size=1,
                norm_layer=norm_layer,
                activation_layer=nn.Hardswish,
            )
        )
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(lastconv_output_channels, last_channel),
            activation_module(nn.Hardswish, inplace=True),
            nn.Dropout(p=dropout, inplace=True),
            nn.Linear(last_channel, num_classes),
        )
        init_mobilenet_weights(self)

    def _forward_impl(self, x):
        check_image_batch(x, getattr(self.features[0][0], "in_channels", None), type(self).__name__)
        x = self.features(x)
        x = tc.flatten(self.avgpool(x), 1)
        return self.classifier(x)

    def forward(self, x):
        return self._forward_impl(x)


def _mobilenet_v3_conf(arch, width_mult=1.0, reduced_tail=False, dilated=False):
    """The block table of the paper (Tables 1 and 2). reduced_tail halves the channels of the last
    stage and dilated swaps its stride for dilation; both are for segmentation backbones."""
    reduce_divider = 2 if reduced_tail else 1
    dilation = 2 if dilated else 1
    bneck_conf = partial(InvertedResidualConfig, width_mult=width_mult)
    if arch == "mobilenet_v3_large":
        c4, c4e = 160 // reduce_divider, 960 // reduce_divider
        setting = [
            bneck_conf(16, 3, 16, 16, False, "RE", 1, 1),
            bneck_conf(16, 3, 64, 24, False, "RE", 2, 1),
            bneck_conf(24, 3, 72, 24, False, "RE", 1, 1),
            bneck_conf(24, 5, 72, 40, True, "RE", 2, 1),
            bneck_conf(40, 5, 120, 40, True, "RE", 1, 1),
            bneck_conf(40, 5, 120, 40, True, "RE", 1, 1),
            bneck_conf(40, 3, 240, 80, False, "HS", 2, 1),
            bneck_conf(80, 3, 200, 80, False, "HS", 1, 1),
            bneck_conf(80, 3, 184, 80, False, "HS", 1, 1),
            bneck_conf(80, 3, 184, 80, False, "HS", 1, 1),
            bneck_conf(80, 3, 480, 112, True, "HS", 1, 1),
            bneck_conf(112, 3, 672, 112, True, "HS", 1, 1),
            bneck_conf(112, 5, 672, c4, True, "HS", 2, dilation),
            bneck_conf(c4, 5, c4e, c4, True, "HS", 1, dilation),
            bneck_conf(c4, 5, c4e, c4, True, "HS", 1, dilation),
        ]
        last_channel = InvertedResidualConfig.adjust_channels(1280 // reduce_divider, width_mult)
    elif arch == "mobilenet_v3_small":
        c4, c4e = 96 // reduce_divider, 576 // reduce_divider
        setting = [
            bneck_conf(16, 3, 16, 16, True, "RE", 2, 1),
            bneck_conf(16, 3, 72, 24, False, "RE", 2, 1),
            bneck_conf(24, 3, 88, 24, False, "RE", 1, 1),
            bneck_conf(24, 5, 96, 40, True, "HS", 2, 1),
            bneck_conf(40, 5, 240, 40, True, "HS", 1, 1),
            bneck_conf(40, 5, 240, 40, True, "HS", 1, 1),
            bneck_conf(40, 5, 120, 48, True, "HS", 1, 1),
            bneck_conf(48, 5, 144, 48, True, "HS", 1, 1),
            bneck_conf(48, 5, 288, c4, True, "HS", 2, dilation),
            bneck_conf(c4, 5, c4e, c4, True, "HS", 1, dilation),
            bneck_conf(c4, 5, c4e, c4, True, "HS", 1, dilation),
        ]
        last_channel = InvertedResidualConfig.adjust_channels(1024 // reduce_divider, width_mult)
    else:
        raise ValueError(f"Unsupported model type {arch}")
    return setting, last_channel


MobileNet_V3_Large_Weights = make_weights_enum(
    "MobileNet_V3_Large_Weights",
    {
        "IMAGENET1K_V1": (
            "https://download.pytorch.org/models/mobilenet_v3_large-8738ca79.pth",
            1000,
        ),
        "IMAGENET1K_V2": (
            "https://download.pytorch.org/models/mobilenet_v3_large-5c1a4163.pth",
            1000,
        ),
    },
    default="IMAGENET1K_V2",
)
MobileNet_V3_Small_Weights = make_weights_enum(
    "MobileNet_V3_Small_Weights",
    {
        "IMAGENET1K_V1": (
            "https://download.pytorch.org/models/mobilenet_v3_small-047dcff4.pth",
            1000,
        ),
    },
    default="IMAGENET1K_V1",
)


def _mobilenet_v3(arch, enum_cls, weights, pretrained, progress, kwargs):
    conf = {k: kwargs.pop(k) for k in ("width_mult", "reduced_tail", "dilated") if k in kwargs}
    state = classifier_state_dict(enum_cls, weights, pretrained, progress, kwargs, arch)
    setting, last_channel = _mobilenet_v3_conf(arch, **conf)
    return load_weights(MobileNetV3(setting, last_channel, **kwargs), state)


# weights= / pretrained= as described in _weights.py; width_mult, reduced_tail and dilated shape
# the block table, the other keywords go to MobileNetV3.


@register_model(MobileNet_V3_Large_Weights)
def mobilenet_v3_large(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _mobilenet_v3(
        "mobilenet_v3_large", MobileNet_V3_Large_Weights, weights, pretrained, progress, kwargs
    )


@register_model(MobileNet_V3_Small_Weights)
def mobilenet_v3_small(weights=None, progress=True, *, pretrained=None, **kwargs):
    return _mobilenet_v3(
        "mobilenet_v3_small", MobileNet_V3_Small_Weights, weights, pretrained, progress, kwargs
    )
