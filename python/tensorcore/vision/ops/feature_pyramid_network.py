"""torchvision.ops.FeaturePyramidNetwork: top-down feature pyramid over a backbone's maps.

Parameter names follow torchvision 0.14 (inner_blocks.{i}.0.weight, layer_blocks.{i}.0.weight),
so its state dicts load unchanged."""

from collections import OrderedDict

from ... import nn
from ...nn import functional as F
from ...nn._native import _interpolate_like
from ... import fx


def _conv_block(in_channels, out_channels, kernel_size, norm_layer):
    layers = [
        nn.Conv2d(
            in_channels,
            out_channels,
            kernel_size,
            padding=kernel_size // 2,
            bias=norm_layer is None,
        )
    ]
    if norm_layer is not None:
        layers.append(norm_layer(out_channels))
    return nn.Sequential(*layers)


class ExtraFPNBlock(nn.Module):
    """Base class for blocks appended after the pyramid (results, inputs, names) -> (results, names)."""

    def forward(self, results, x, names):
        raise NotImplementedError


class LastLevelMaxPool(ExtraFPNBlock):
    """Adds a 'pool' level: a stride-2 1x1 max-pool of the last pyramid level."""

    def forward(self, results, x, names):
        return results + [F.max_pool2d(results[-1], 1, 2, 0)], names + ["pool"]


class LastLevelP6P7(ExtraFPNBlock):
    """RetinaNet's extra levels P6 and P7 (stride-2 3x3 convs)."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.p6 = nn.Conv2d(in_channels, out_channels, 3, 2, 1)
        self.p7 = nn.Conv2d(out_channels, out_channels, 3, 2, 1)
        for module in (self.p6, self.p7):
            nn.init.kaiming_uniform_(module.weight, a=1)
            nn.init.constant_(module.bias, 0)
        self.use_P5 = in_channels == out_channels

    def forward(self, p, c, names):
        p5, c5 = p[-1], c[-1]
        x = p5 if self.use_P5 else c5
        p6 = self.p6(x)
        p7 = self.p7(F.relu(p6))
        return p + [p6, p7], names + ["p6", "p7"]


# tensorcore.fx records the upsampling to the lateral's size as one call (its size is read from a
# tensor); wrap() by object also covers the segmentation models that import it.
fx.wrap("_interpolate_like")


class FeaturePyramidNetwork(nn.Module):
    def __init__(self, in_channels_list, out_channels, extra_blocks=None, norm_layer=None):
        super().__init__()
        if not in_channels_list:
            raise ValueError("FeaturePyramidNetwork: in_channels_list must not be empty")
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels <= 0:
                raise ValueError(
                    f"FeaturePyramidNetwork: in_channels must be positive, got {in_channels}"
                )
            self.inner_blocks.append(_conv_block(in_channels, out_channels, 1, norm_layer))
            self.layer_blocks.append(_conv_block(out_channels, out_channels, 3, norm_layer))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_uniform_(m.weight, a=1)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
        if extra_blocks is not None and not isinstance(extra_blocks, ExtraFPNBlock):
            raise TypeError(
                f"extra_blocks should be an ExtraFPNBlock, got {type(extra_blocks).__name__}"
            )
        self.extra_blocks = extra_blocks

    def forward(self, x):
        if not isinstance(x, dict):
            raise TypeError(
                f"FeaturePyramidNetwork expects an (ordered) dict of feature maps, got {type(x).__name__}"
            )
        names, feats = list(x.keys()), list(x.values())
        if len(feats) != len(self.inner_blocks):
            raise ValueError(
                f"FeaturePyramidNetwork: built for {len(self.inner_blocks)} feature maps, "
                f"got {len(feats)}"
            )
        last_inner = self.inner_blocks[-1](feats[-1])
        results = [self.layer_blocks[-1](last_inner)]
        for idx in range(len(feats) - 2, -1, -1):
            lateral = self.inner_blocks[idx](feats[idx])
            top_down = _interpolate_like(last_inner, lateral, mode="nearest")
            last_inner = lateral + top_down
            results.insert(0, self.layer_blocks[idx](last_inner))
        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, feats, names)
        return OrderedDict(zip(names, results))
