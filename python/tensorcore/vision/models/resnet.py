"""ResNet, ResNeXt and Wide ResNet (torchvision.models.resnet): same constructor arguments and
module tree, so torchvision state dicts load strictly and ``model.fc = nn.Linear(...)`` works."""

import tensorcore as tc
import tensorcore.nn as nn

from ._api import register_model
from ._utils import check_image_batch
from ._weights import classifier_state_dict, load_weights, make_weights_enum, overwrite_named_param

__all__ = [
    "ResNet",
    "BasicBlock",
    "Bottleneck",
    "ResNet18_Weights",
    "ResNet34_Weights",
    "ResNet50_Weights",
    "ResNet101_Weights",
    "ResNet152_Weights",
    "ResNeXt50_32X4D_Weights",
    "ResNeXt101_32X8D_Weights",
    "ResNeXt101_64X4D_Weights",
    "Wide_ResNet50_2_Weights",
    "Wide_ResNet101_2_Weights",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnet152",
    "resnext50_32x4d",
    "resnext101_32x8d",
    "resnext101_64x4d",
    "wide_resnet50_2",
    "wide_resnet101_2",
]


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    """3x3 convolution; padding equals dilation so the spatial size only changes by the stride."""
    return nn.Conv2d(
        in_planes,
        out_planes,
        kernel_size=3,
        stride=stride,
        padding=dilation,
        groups=groups,
        bias=False,
        dilation=dilation,
    )


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class _Block(nn.Module):
    """A residual block: relu(main branch(x) + shortcut(x)); subclasses build the main branch
    (_build) and run it (_main). The constructor arguments are torchvision's."""

    def __init__(
        self,
        inplanes,
        planes,
        stride=1,
        downsample=None,
        groups=1,
        base_width=64,
        dilation=1,
        norm_layer=None,
    ):
        super().__init__()
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        self._build(inplanes, planes, stride, groups, base_width, dilation, norm_layer)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self._main(x)
        # The shortcut after the main branch, as torchvision (same node order when fx-traced).
        identity = x if self.downsample is None else self.downsample(x)
        # In place, as torchvision: the sum and its ReLU reuse the block output's memory.
        out += identity
        return self.relu(out)


class BasicBlock(_Block):
    """Two 3x3 convolutions with a residual connection (ResNet-18/34)."""

    expansion = 1

    def _build(self, inplanes, planes, stride, groups, base_width, dilation, norm_layer):
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)

    def _main(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self.bn2(self.conv2(out))


class Bottleneck(_Block):
    """1x1 reduce, 3x3 (grouped for ResNeXt, dilated on request, strided), 1x1 expand by 4; the
    stride sits on the 3x3 convolution (ResNet v1.5, as torchvision)."""

    expansion = 4

    def _build(self, inplanes, planes, stride, groups, base_width, dilation, norm_layer):
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)

    def _main(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self.bn3(self.conv3(out))


class ResNet(nn.Module):
    def __init__(
        self,
        block,
        layers,
        num_classes=1000,
        zero_init_residual=False,
        groups=1,
        width_per_group=64,
        replace_stride_with_dilation=None,
        norm_layer=None,
    ):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        if len(layers) != 4:
            raise ValueError(
                f"ResNet: layers must give the block count of the 4 stages, got {list(layers)}"
            )
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError(
                "replace_stride_with_dilation should be None "
                f"or a 3-element tuple, got {replace_stride_with_dilation}"
            )
        self.inplanes = 64
        self.dilation = 1
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(
            block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0]
        )
        self.layer3 = self._make_layer(
            block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1]
        )
        self.layer4 = self._make_layer(
            block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2]
        )
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            # Each residual branch starts as zero, so every block starts as the identity.
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        previous_dilation = self.dilation
        if dilate:  # keep the resolution: the stride becomes dilation of the following convolutions
            self.dilation *= stride
            stride = 1
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                norm_layer(planes * block.expansion),
            )
        layers = [
            block(
                self.inplanes,
                planes,
                stride,
                downsample,
                self.groups,
                self.base_width,
                previous_dilation,
                norm_layer,
            )
        ]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(
                block(
                    self.inplanes,
                    planes,
                    groups=self.groups,
                    base_width=self.base_width,
                    dilation=self.dilation,
                    norm_layer=norm_layer,
                )
            )
        return nn.Sequential(*layers)

    def _check_input(self, x):
        check_image_batch(x, getattr(self.conv1, "in_channels", None), type(self).__name__)

    def _forward_impl(self, x):
        self._check_input(x)
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.layer4(x)
        x = tc.flatten(self.avgpool(x), 1)
        return self.fc(x)

    def forward(self, x):
        return self._forward_impl(x)


_IMAGENET = 1000
_URL = "https://download.pytorch.org/models/"


def _enum(name, v1, v2=None):
    entries = {"IMAGENET1K_V1": (_URL + v1, _IMAGENET)}
    if v2 is not None:
        entries["IMAGENET1K_V2"] = (_URL + v2, _IMAGENET)
    return make_weights_enum(name, entries, "IMAGENET1K_V2" if v2 is not None else "IMAGENET1K_V1")


ResNet18_Weights = _enum("ResNet18_Weights", "resnet18-f37072fd.pth")
ResNet34_Weights = _enum("ResNet34_Weights", "resnet34-b627a593.pth")
ResNet50_Weights = _enum("ResNet50_Weights", "resnet50-0676ba61.pth", "resnet50-11ad3fa6.pth")
ResNet101_Weights = _enum("ResNet101_Weights", "resnet101-63fe2227.pth", "resnet101-cd907fc2.pth")
ResNet152_Weights = _enum("ResNet152_Weights", "resnet152-394f9c45.pth", "resnet152-f82ba261.pth")
ResNeXt50_32X4D_Weights = _enum(
    "ResNeXt50_32X4D_Weights", "resnext50_32x4d-7cdf4587.pth", "resnext50_32x4d-1a0047aa.pth"
)
ResNeXt101_32X8D_Weights = _enum(
    "ResNeXt101_32X8D_Weights", "resnext101_32x8d-8ba56ff5.pth", "resnext101_32x8d-110c445d.pth"
)
ResNeXt101_64X4D_Weights = _enum("ResNeXt101_64X4D_Weights", "resnext101_64x4d-173b62eb.pth")
Wide_ResNet50_2_Weights = _enum(
    "Wide_ResNet50_2_Weights", "wide_resnet50_2-95faca4d.pth", "wide_resnet50_2-9ba9bcbe.pth"
)
Wide_ResNet101_2_Weights = _enum(
    "Wide_ResNet101_2_Weights", "wide_resnet101_2-32ee1156.pth", "wide_resnet101_2-d733dc28.pth"
)


def _builder(name, weights_enum, block, layers, width=None, doc=None):
    """The registered builder `name`(weights=None, progress=True, *, pretrained=None, **kwargs):
    weights= (a file path, a state dict, a weights enum member or its name) or the legacy
    pretrained= (True means the DEFAULT member), see _weights.py. width: the (groups,
    width_per_group) that ResNeXt and Wide ResNet fix."""

    def builder(weights=None, progress=True, *, pretrained=None, **kwargs):
        if width is not None:
            # The variant's shape is part of its name: conflicting explicit values are an error,
            # as torchvision.
            overwrite_named_param(kwargs, "groups", width[0])
            overwrite_named_param(kwargs, "width_per_group", width[1])
        state = classifier_state_dict(weights_enum, weights, pretrained, progress, kwargs, name)
        return load_weights(ResNet(block, layers, **kwargs), state)

    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = doc
    return register_model(weights_enum)(builder)


resnet18 = _builder("resnet18", ResNet18_Weights, BasicBlock, [2, 2, 2, 2])
resnet34 = _builder("resnet34", ResNet34_Weights, BasicBlock, [3, 4, 6, 3])
resnet50 = _builder("resnet50", ResNet50_Weights, Bottleneck, [3, 4, 6, 3])
resnet101 = _builder("resnet101", ResNet101_Weights, Bottleneck, [3, 4, 23, 3])
resnet152 = _builder("resnet152", ResNet152_Weights, Bottleneck, [3, 8, 36, 3])
resnext50_32x4d = _builder(
    "resnext50_32x4d", ResNeXt50_32X4D_Weights, Bottleneck, [3, 4, 6, 3], width=(32, 4)
)
resnext101_32x8d = _builder(
    "resnext101_32x8d", ResNeXt101_32X8D_Weights, Bottleneck, [3, 4, 23, 3], width=(32, 8)
)
resnext101_64x4d = _builder(
    "resnext101_64x4d", ResNeXt101_64X4D_Weights, Bottleneck, [3, 4, 23, 3], width=(64, 4)
)
wide_resnet50_2 = _builder(
    "wide_resnet50_2",
    Wide_ResNet50_2_Weights,
    Bottleneck,
    [3, 4, 6, 3],
    width=(1, 128),
    doc="ResNet-50 with twice the channels in each bottleneck's 3x3 convolution.",
)
wide_resnet101_2 = _builder(
    "wide_resnet101_2", Wide_ResNet101_2_Weights, Bottleneck, [3, 4, 23, 3], width=(1, 128)
)
