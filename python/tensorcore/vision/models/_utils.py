"""Pieces the model families share: IntermediateLayerGetter (backbone features by layer name),
_make_divisible (MobileNet channel rounding), the conv-norm-activation and squeeze-excitation blocks
of torchvision.ops.misc, and the input check every model runs first."""

from collections import OrderedDict

import tensorcore as tc
import tensorcore.nn as nn
from tensorcore import fx

__all__ = [
    "IntermediateLayerGetter",
    "Conv2dNormActivation",
    "SqueezeExcitation",
    "check_image_batch",
]


@fx.has_side_effect
def check_image_batch(x, in_channels, model_name):
    """Rejects what the first convolution would fail on with a less direct message: non-tensors,
    non-4D input, the wrong channel count (in_channels None: not checked) and empty batches."""
    if not isinstance(x, tc.Tensor):
        raise TypeError(f"{model_name}: expected a Tensor input, got {type(x).__name__}")
    if x.dim() != 4 or (in_channels is not None and x.shape[1] != in_channels):
        channels = "C" if in_channels is None else in_channels
        raise ValueError(
            f"{model_name}: expected input of shape (N, {channels}, H, W), got {tuple(x.shape)}"
        )
    if x.shape[0] == 0:
        raise ValueError(f"{model_name}: got an empty batch (input shape {tuple(x.shape)})")


# tensorcore.fx records the check as one call (it branches on the shape, which symbolic tracing
# cannot follow); wrap() by object also covers the models that import it by name.
fx.wrap("check_image_batch")


class IntermediateLayerGetter(nn.ModuleDict):
    """Runs the model's direct children in order up to the last one named in return_layers and
    returns an OrderedDict {return_layers[name]: output}. Children after that one are dropped, so
    the backbone's state-dict keys are the model's own, minus the unused head."""

    _version = 2

    def __init__(self, model, return_layers):
        children = [name for name, _ in model.named_children()]
        if not set(return_layers).issubset(children):
            raise ValueError("return_layers are not present in model")
        orig_return_layers = return_layers
        pending = {str(k): str(v) for k, v in return_layers.items()}
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            pending.pop(name, None)
            if not pending:
                break
        super().__init__(layers)
        self.return_layers = {str(k): str(v) for k, v in orig_return_layers.items()}

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out


def _make_divisible(v, divisor, min_value=None):
    """Rounds a channel count to the nearest multiple of divisor (at least min_value), never going
    more than 10% below v (the rule of the TensorFlow MobileNet reference)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


# tensorcore's in-place hardswish/hardsigmoid/silu compute out of place and copy back, which breaks
# backward (the copy overwrites an input the composite saved) and saves no memory: these are built
# out of place even where torchvision asks for inplace=True (outputs and state dicts are the same).
_NO_INPLACE = (nn.Hardswish, nn.Hardsigmoid, nn.SiLU)


def activation_module(activation_layer, inplace):
    """activation_layer(inplace=inplace), except for the layers in _NO_INPLACE (out of place)."""
    if inplace is None:
        return activation_layer()
    return activation_layer(inplace=bool(inplace) and activation_layer not in _NO_INPLACE)


class Conv2dNormActivation(nn.Sequential):
    """Conv2d, then an optional norm layer and activation, as one Sequential (keys .0/.1/.2 as in
    torchvision.ops.Conv2dNormActivation). The convolution has a bias only without a norm layer,
    unless bias says otherwise; padding defaults to 'same' for odd kernels."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size=3,
        stride=1,
        padding=None,
        groups=1,
        norm_layer=nn.BatchNorm2d,
        activation_layer=nn.ReLU,
        dilation=1,
        inplace=True,
        bias=None,
    ):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [
            nn.Conv2d(
                in_channels,
                out_channels,
                kernel_size,
                stride,
                padding,
                dilation=dilation,
                groups=groups,
                bias=bias,
            )
        ]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_module(activation_layer, inplace))
        super().__init__(*layers)
        self.out_channels = out_channels


class SqueezeExcitation(nn.Module):
    """Channel attention (Hu et al.): global average pool, 1x1 conv down to squeeze_channels,
    activation, 1x1 conv back up, scale_activation, and the input scaled per channel."""

    def __init__(
        self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid
    ):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, x):
        scale = self.avgpool(x)
        scale = self.activation(self.fc1(scale))
        return self.scale_activation(self.fc2(scale))

    def forward(self, x):
        return self._scale(x) * x
