"""torchvision.ops.misc: sigmoid_focal_loss, FrozenBatchNorm2d and the building blocks models
share (Conv2dNormActivation, Conv3dNormActivation, SqueezeExcitation, MLP, Permute)."""

import tensorcore as tc
import tensorcore.nn as nn
from tensorcore.nn import Module


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0, reduction="none"):
    """Focal loss (Lin et al. 2017) on logits; reduction 'none' | 'mean' | 'sum'."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(
            f"sigmoid_focal_loss: invalid reduction {reduction!r}; expected 'none', 'mean' or 'sum'"
        )
    p = tc.sigmoid(inputs)
    # Numerically stable binary cross entropy with logits.
    ce = inputs.clamp(min=0) - inputs * targets + tc.log1p(tc.exp(-inputs.abs()))
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


class FrozenBatchNorm2d(Module):
    """BatchNorm2d with fixed statistics and affine parameters (buffers, not parameters)."""

    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.num_features, self.eps = num_features, eps
        self._set("weight", tc.ones(num_features))
        self._set("bias", tc.zeros(num_features))
        self._set("running_mean", tc.zeros(num_features))
        self._set("running_var", tc.ones(num_features))

    def _set(self, name, value):
        if hasattr(self, "register_buffer"):
            self.register_buffer(name, value)
        else:
            setattr(self, name, value)

    def forward(self, x):
        if x.dim() != 4 or x.shape[1] != self.num_features:
            raise ValueError(
                f"FrozenBatchNorm2d: expected input (N, {self.num_features}, H, W), "
                f"got {list(x.shape)}"
            )
        scale = self.weight * (self.running_var + self.eps).rsqrt()
        bias = self.bias - self.running_mean * scale
        return x * scale.reshape(1, -1, 1, 1) + bias.reshape(1, -1, 1, 1)

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}"


# tensorcore's in-place hardswish/hardsigmoid/silu compute out of place and copy back, which breaks
# backward (the copy overwrites an input the composite saved) and saves no memory: these are built
# out of place even where torchvision asks for inplace=True (outputs and state dicts are the same).
_NO_INPLACE = (nn.Hardswish, nn.Hardsigmoid, nn.SiLU)


def activation_module(activation_layer, inplace):
    """activation_layer(inplace=inplace), except for the layers in _NO_INPLACE (out of place)."""
    if inplace is None:
        return activation_layer()
    return activation_layer(inplace=bool(inplace) and activation_layer not in _NO_INPLACE)


def _same_padding(kernel_size, dilation, ndim):
    """'same' padding for odd kernels, per dimension when kernel_size or dilation is a tuple."""
    if isinstance(kernel_size, int) and isinstance(dilation, int):
        return (kernel_size - 1) // 2 * dilation
    kernel = (kernel_size,) * ndim if isinstance(kernel_size, int) else tuple(kernel_size)
    dil = (dilation,) * ndim if isinstance(dilation, int) else tuple(dilation)
    if len(kernel) != ndim or len(dil) != ndim:
        raise ValueError(
            f"ConvNormActivation: kernel_size {kernel_size} and dilation {dilation} must have "
            f"{ndim} entries"
        )
    return tuple((k - 1) // 2 * d for k, d in zip(kernel, dil))


class _ConvNormActivation(nn.Sequential):
    _conv = None  # the convolution class
    _norm = None  # the default norm layer
    _ndim = 0

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size=3,
        stride=1,
        padding=None,
        groups=1,
        norm_layer="default",
        activation_layer=nn.ReLU,
        dilation=1,
        inplace=True,
        bias=None,
    ):
        if isinstance(norm_layer, str) and norm_layer == "default":
            norm_layer = self._norm  # BatchNorm2d/3d, as torchvision's defaults
        if padding is None:
            padding = _same_padding(kernel_size, dilation, self._ndim)
        if bias is None:
            bias = norm_layer is None
        layers = [
            self._conv(
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


class Conv2dNormActivation(_ConvNormActivation):
    """Conv2d, then an optional norm layer and activation, as one Sequential (keys .0/.1/.2 as in
    torchvision.ops.Conv2dNormActivation). The convolution has a bias only without a norm layer,
    unless bias says otherwise; padding defaults to 'same' for odd kernels.

    Example::

        >>> block = tc.vision.ops.Conv2dNormActivation(3, 16, kernel_size=3, stride=2)
        >>> block(tc.zeros(1, 3, 32, 32)).shape
        tensorcore.Size([1, 16, 16, 16])
    """

    _conv, _norm, _ndim = nn.Conv2d, nn.BatchNorm2d, 2


class Conv3dNormActivation(_ConvNormActivation):
    """Conv3d, then an optional norm layer (BatchNorm3d by default) and activation, as one
    Sequential: the 3-d counterpart of Conv2dNormActivation (torchvision.ops)."""

    _conv, _norm, _ndim = nn.Conv3d, nn.BatchNorm3d, 3


class SqueezeExcitation(Module):
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


class MLP(nn.Sequential):
    """Multi-layer perceptron: for each entry of hidden_channels but the last, Linear, optional
    norm layer, activation and Dropout; then a final Linear and Dropout (torchvision.ops.MLP, with
    the same Sequential indices, so state dicts load either way).

    Example::

        >>> mlp = tc.vision.ops.MLP(8, [16, 4], dropout=0.1)
        >>> mlp(tc.zeros(2, 8)).shape
        tensorcore.Size([2, 4])
    """

    def __init__(
        self,
        in_channels,
        hidden_channels,
        norm_layer=None,
        activation_layer=nn.ReLU,
        inplace=None,
        bias=True,
        dropout=0.0,
    ):
        hidden_channels = list(hidden_channels)
        if not hidden_channels:
            raise ValueError("MLP: hidden_channels must name at least one layer width")
        # Dropout takes inplace like the activation, so the flag reaches both (as torchvision).
        params = {} if inplace is None else {"inplace": inplace}
        layers = []
        in_dim = in_channels
        for hidden_dim in hidden_channels[:-1]:
            layers.append(nn.Linear(in_dim, hidden_dim, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden_dim))
            layers.append(activation_layer(**params))
            layers.append(nn.Dropout(dropout, **params))
            in_dim = hidden_dim
        layers.append(nn.Linear(in_dim, hidden_channels[-1], bias=bias))
        layers.append(nn.Dropout(dropout, **params))
        super().__init__(*layers)


class Permute(Module):
    """Permutes the input's dimensions (dims as in Tensor.permute); a module so that it can sit
    in a Sequential, as in ConvNeXt-style blocks."""

    def __init__(self, dims):
        super().__init__()
        self.dims = list(dims)

    def forward(self, x):
        return tc.permute(x, self.dims)
