"""MobileNetV2 (torchvision.models.mobilenetv2): inverted residual blocks with linear bottlenecks,
same constructor arguments and state-dict keys as torchvision."""

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F

from ._api import register_model
from ._utils import (
    Conv2dNormActivation,
    _make_divisible,
    check_image_batch,
    init_mobilenet_weights,
)
from ._weights import classifier_state_dict, load_weights, make_weights_enum

__all__ = ["MobileNetV2", "MobileNet_V2_Weights", "mobilenet_v2"]


class InvertedResidual(nn.Module):
    """1x1 expansion (skipped when expand_ratio is 1), 3x3 depthwise, 1x1 linear projection;
    the input is added back when the shape is unchanged."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=None):
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        self.stride = stride
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(
                Conv2dNormActivation(
                    inp, hidden_dim, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6
                )
            )
        layers += [
            Conv2dNormActivation(
                hidden_dim,
                hidden_dim,
                stride=stride,
                groups=hidden_dim,
                norm_layer=norm_layer,
                activation_layer=nn.ReLU6,
            ),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            norm_layer(oup),
        ]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


# (expansion t, output channels c, repeats n, first stride s) per stage, from the paper.
_DEFAULT_SETTING = [
    [1, 16, 1, 1],
    [6, 24, 2, 2],
    [6, 32, 3, 2],
    [6, 64, 4, 2],
    [6, 96, 3, 1],
    [6, 160, 3, 2],
    [6, 320, 1, 1],
]


class MobileNetV2(nn.Module):
    def __init__(
        self,
        num_classes=1000,
        width_mult=1.0,
        inverted_residual_setting=None,
        round_nearest=8,
        block=None,
        norm_layer=None,
        dropout=0.2,
    ):
        super().__init__()
        block = InvertedResidual if block is None else block
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        if inverted_residual_setting is None:
            inverted_residual_setting = _DEFAULT_SETTING
        if len(inverted_residual_setting) == 0 or len(inverted_residual_setting[0]) != 4:
            raise ValueError(
                "inverted_residual_setting should be non-empty or a 4-element list, "
                f"got {inverted_residual_setting}"
            )
        input_channel = _make_divisible(32 * width_mult, round_nearest)
        # The last convolution only ever widens: a narrow network keeps 1280 features.
        self.last_channel = _make_divisible(1280 * max(1.0, width_mult), round_nearest)
        features = [
            Conv2dNormActivation(
                3, input_channel, stride=2, norm_layer=norm_layer, activation_layer=nn.ReLU6
            )
        ]
        for t, c, n, s in inverted_residual_setting:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(
                    block(
                        input_channel,
                        output_channel,
                        s if i == 0 else 1,
                        expand_ratio=t,
                        norm_layer=norm_layer,
                    )
                )
                input_channel = output_channel
        features.append(
            Conv2dNormActivation(
                input_channel,
                self.last_channel,
                kernel_size=1,
                norm_layer=norm_layer,
                activation_layer=nn.ReLU6,
            )
        )
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes)
        )

        init_mobilenet_weights(self)

    def _forward_impl(self, x):
        check_image_batch(x, getattr(self.features[0][0], "in_channels", None), type(self).__name__)
        x = self.features(x)
        x = tc.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1)
        return self.classifier(x)

    def forward(self, x):
        return self._forward_impl(x)


MobileNet_V2_Weights = make_weights_enum(
    "MobileNet_V2_Weights",
    {
        "IMAGENET1K_V1": ("https://download.pytorch.org/models/mobilenet_v2-b0353104.pth", 1000),
        "IMAGENET1K_V2": ("https://download.pytorch.org/models/mobilenet_v2-7ebf99e0.pth", 1000),
    },
    default="IMAGENET1K_V2",
)


@register_model(MobileNet_V2_Weights)
def mobilenet_v2(weights=None, progress=True, *, pretrained=None, **kwargs):
    """MobileNetV2; weights= / pretrained= as described in _weights.py."""
    state = classifier_state_dict(
        MobileNet_V2_Weights, weights, pretrained, progress, kwargs, "mobilenet_v2"
    )
    return load_weights(MobileNetV2(**kwargs), state)
