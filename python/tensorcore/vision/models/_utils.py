"""Pieces the model families share: IntermediateLayerGetter (backbone features by layer name),
_make_divisible (MobileNet channel rounding), and the input check every model runs first."""

from collections import OrderedDict

import tensorcore as tc
import tensorcore.nn as nn
from tensorcore import fx

# The blocks live in vision.ops (torchvision.ops.misc); the model families import them from here.
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation, activation_module  # noqa: F401

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


def init_mobilenet_weights(model):
    """torchvision's MobileNetV2/V3 initialisation: convolutions kaiming-normal (fan_out) with zero
    bias, norms one/zero, linear layers normal(0, 0.01) with zero bias."""
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, 0.01)
            nn.init.zeros_(m.bias)


def _make_divisible(v, divisor, min_value=None):
    """Rounds a channel count to the nearest multiple of divisor (at least min_value), never going
    more than 10% below v (the rule of the TensorFlow MobileNet reference)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v
