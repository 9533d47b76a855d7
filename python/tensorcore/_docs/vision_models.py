"""Docstrings of tensorcore.vision.models (builders, classes, weight enums) and vision.datasets."""

from ._style import doc

TARGET = "tensorcore.vision.models"

_WEIGHTS = "weights (WeightsEnum or str, optional): pretrained weights to load (None: random initialization)."
_PROGRESS = "progress (bool): show a download progress bar."
_KW = "**kwargs: passed to the model class (e.g. ``num_classes``)."

_BUILDERS = {
    "resnet18": ("ResNet-18", "ResNet18_Weights", "ResNet"),
    "resnet34": ("ResNet-34", "ResNet34_Weights", "ResNet"),
    "resnet50": ("ResNet-50", "ResNet50_Weights", "ResNet"),
    "resnet101": ("ResNet-101", "ResNet101_Weights", "ResNet"),
    "resnet152": ("ResNet-152", "ResNet152_Weights", "ResNet"),
    "resnext50_32x4d": ("ResNeXt-50 32x4d", "ResNeXt50_32X4D_Weights", "ResNet"),
    "resnext101_32x8d": ("ResNeXt-101 32x8d", "ResNeXt101_32X8D_Weights", "ResNet"),
    "resnext101_64x4d": ("ResNeXt-101 64x4d", "ResNeXt101_64X4D_Weights", "ResNet"),
    "wide_resnet50_2": ("Wide ResNet-50-2", "Wide_ResNet50_2_Weights", "ResNet"),
    "wide_resnet101_2": ("Wide ResNet-101-2", "Wide_ResNet101_2_Weights", "ResNet"),
    "vgg11": ("VGG-11", "VGG11_Weights", "VGG"),
    "vgg11_bn": ("VGG-11 with batch norm", "VGG11_BN_Weights", "VGG"),
    "vgg13": ("VGG-13", "VGG13_Weights", "VGG"),
    "vgg13_bn": ("VGG-13 with batch norm", "VGG13_BN_Weights", "VGG"),
    "vgg16": ("VGG-16", "VGG16_Weights", "VGG"),
    "vgg16_bn": ("VGG-16 with batch norm", "VGG16_BN_Weights", "VGG"),
    "vgg19": ("VGG-19", "VGG19_Weights", "VGG"),
    "vgg19_bn": ("VGG-19 with batch norm", "VGG19_BN_Weights", "VGG"),
    "mobilenet_v2": ("MobileNetV2", "MobileNet_V2_Weights", "MobileNetV2"),
    "mobilenet_v3_large": ("MobileNetV3-Large", "MobileNet_V3_Large_Weights", "MobileNetV3"),
    "mobilenet_v3_small": ("MobileNetV3-Small", "MobileNet_V3_Small_Weights", "MobileNetV3"),
}


def _weights_doc(builder, title):
    return (
        f"Pretrained weights of :func:`{builder}` ({title}). Members such as ``IMAGENET1K_V1`` carry "
        "``url``, ``filename``, ``num_classes`` and ``meta``; ``DEFAULT`` is the recommended one; "
        "``get_state_dict(progress)`` loads the state dict (from the local cache when present)."
    )


# Builders documented in their source keep that docstring (only their weights enum is here).
_DOCUMENTED_IN_SOURCE = {"wide_resnet50_2", "mobilenet_v2"}

_MODELS = {}
for _name, (_title, _weights, _cls) in _BUILDERS.items():
    _MODELS[_weights] = _weights_doc(_name, _title)
    if _name in _DOCUMENTED_IN_SOURCE:
        continue
    _MODELS[_name] = doc(
        f"{_name}(*, weights=None, progress=True, **kwargs) -> {_cls}",
        f"Builds a {_title} image classifier (torchvision's architecture and state-dict keys). "
        f"Input (N, 3, H, W) normalized images; output (N, num_classes) logits.",
        [_WEIGHTS + f" See :class:`{_weights}`.", _PROGRESS, _KW],
    )
_MODELS.update(
    {
        "ResNet": doc(
            "",
            "The ResNet family: a stem, four stages of residual blocks and a linear classifier.",
            [
                "block (type): BasicBlock or Bottleneck.",
                "layers (list of 4 ints): blocks per stage.",
                "num_classes (int): classifier outputs.",
                "zero_init_residual (bool): zero the last norm of each block.",
                "groups (int): ResNeXt cardinality.",
                "width_per_group (int): bottleneck width.",
                "replace_stride_with_dilation (list of 3 bools, optional): dilate instead of striding (segmentation).",
                "norm_layer (callable, optional): normalization (default BatchNorm2d).",
            ],
        ).lstrip(),
        "VGG": doc(
            "",
            "The VGG family: convolution ``features``, adaptive average pooling to 7x7 and a three-layer classifier.",
            [
                "features (Module): the convolution stack.",
                "num_classes (int): classifier outputs.",
                "init_weights (bool): torchvision's initialization.",
                "dropout (float): classifier dropout.",
            ],
        ).lstrip(),
        "MobileNetV3": doc(
            "",
            "MobileNetV3 (Large or Small): inverted residual blocks with squeeze-excitation and hard-swish.",
            [
                "inverted_residual_setting (list): the block configuration.",
                "last_channel (int): width of the penultimate layer.",
                "num_classes (int): classifier outputs.",
                "block (callable, optional): the block class.",
                "norm_layer (callable, optional): normalization.",
                "dropout (float): classifier dropout.",
            ],
        ).lstrip(),
        "MobileNetV2": doc(
            "",
            "MobileNetV2: inverted residual blocks with linear bottlenecks.",
            [
                "num_classes (int): classifier outputs.",
                "width_mult (float): channel multiplier.",
                "inverted_residual_setting (list, optional): block configuration.",
                "round_nearest (int): round channels to a multiple of this.",
                "block (callable, optional): the block class.",
                "norm_layer (callable, optional): normalization.",
                "dropout (float): classifier dropout.",
            ],
        ).lstrip(),
        "get_model_builder": doc(
            "get_model_builder(name) -> callable",
            "The builder function registered under ``name`` (e.g. ``'resnet50'``).",
            ["name (str): the model's name."],
            example=">>> tc.vision.models.get_model_builder('resnet18') is tc.vision.models.resnet18\nTrue",
        ),
    }
)

_SEG_KW = [
    "num_classes (int, optional): output classes (21 with the COCO-VOC weights).",
    "aux_loss (bool, optional): add the auxiliary FCN head on layer3.",
    "weights_backbone (WeightsEnum, optional): pretrained backbone weights.",
]
_SEGMENTATION = {}
for _name, _title, _weights in (
    ("fcn_resnet50", "FCN with a ResNet-50 backbone", "FCN_ResNet50_Weights"),
    ("fcn_resnet101", "FCN with a ResNet-101 backbone", "FCN_ResNet101_Weights"),
    ("deeplabv3_resnet50", "DeepLabV3 with a ResNet-50 backbone", "DeepLabV3_ResNet50_Weights"),
    ("deeplabv3_resnet101", "DeepLabV3 with a ResNet-101 backbone", "DeepLabV3_ResNet101_Weights"),
):
    _SEGMENTATION[_name] = doc(
        f"{_name}(*, weights=None, progress=True, num_classes=None, aux_loss=None, weights_backbone=None, **kwargs)",
        f"Builds {_title} (dilated, output stride 8) for semantic segmentation. Input (N, 3, H, W); output a dict with ``'out'`` (N, num_classes, H, W) (and ``'aux'``).",
        [_WEIGHTS, _PROGRESS, *_SEG_KW],
    )
    _SEGMENTATION[_weights] = _weights_doc(_name, _title)
_SEGMENTATION.update(
    {
        "FCNHead": doc(
            "",
            "The FCN head: 3x3 convolution, batch norm, ReLU, dropout and a 1x1 classifier.",
            ["in_channels (int): input channels.", "channels (int): output classes."],
        ).lstrip(),
        "DeepLabHead": doc(
            "",
            "The DeepLabV3 head: ASPP, a 3x3 convolution and a 1x1 classifier.",
            ["in_channels (int): input channels.", "num_classes (int): output classes."],
        ).lstrip(),
        "ASPPConv": doc(
            "",
            "One dilated 3x3 branch of the ASPP module (convolution, batch norm, ReLU).",
            [
                "in_channels (int): input channels.",
                "out_channels (int): output channels.",
                "dilation (int): the dilation rate.",
            ],
        ).lstrip(),
    }
)

_DETECTION = {
    "RetinaNet_ResNet50_FPN_Weights": _weights_doc(
        "retinanet_resnet50_fpn", "RetinaNet, ResNet-50 FPN"
    ),
    "RetinaNet_ResNet50_FPN_V2_Weights": _weights_doc(
        "retinanet_resnet50_fpn_v2", "RetinaNet v2, ResNet-50 FPN"
    ),
}

_ROOT = "root (str): directory of the dataset files."
_TF = (
    "transform (callable, optional): applied to the image.",
    "target_transform (callable, optional): applied to the target.",
)
_DL = "download (bool): download the archive into ``root`` if missing (needs network access)."
_TRAIN = "train (bool): training or test split."


_VOC_ARGS = [
    _ROOT,
    "year (str): the VOC year.",
    "image_set (str): ``'train'``, ``'val'`` or ``'trainval'``.",
    _DL,
    *_TF,
    "transforms (callable, optional): applied to both.",
]


def _image_dataset(text, split=_TRAIN):
    """A classification dataset's docstring: root, the split argument, transforms, download."""
    return doc("", text, [_ROOT, split, *_TF, _DL]).lstrip()


_DATASETS = {
    "VisionDataset": doc(
        "",
        "Base class of the vision datasets: stores ``root`` and the transforms and gives a readable repr.",
        [_ROOT, "transforms (callable, optional): applied to (image, target) together.", *_TF],
    ).lstrip(),
    "MNIST": _image_dataset(
        "MNIST handwritten digits: 28x28 grayscale images and labels 0-9 (60k train, 10k test), read from the IDX files."
    ),
    "FashionMNIST": _image_dataset(
        "Fashion-MNIST: 28x28 grayscale images of 10 clothing classes, MNIST's format."
    ),
    "KMNIST": _image_dataset(
        "Kuzushiji-MNIST: 28x28 images of 10 cursive Japanese characters, MNIST's format."
    ),
    "CIFAR10": _image_dataset(
        "CIFAR-10: 32x32 color images of 10 classes (50k train, 10k test), read from the Python pickle batches."
    ),
    "CIFAR100": _image_dataset("CIFAR-100: like CIFAR-10 with 100 fine classes."),
    "SVHN": _image_dataset(
        "Street View House Numbers: 32x32 color digit crops, from the .mat files.",
        "split (str): ``'train'``, ``'test'`` or ``'extra'``.",
    ),
    "VOCSegmentation": doc(
        "",
        "Pascal VOC segmentation: (image, mask) pairs from VOCdevkit.",
        _VOC_ARGS,
    ).lstrip(),
    "VOCDetection": doc(
        "",
        "Pascal VOC detection: (image, annotation dict parsed from the XML) pairs.",
        _VOC_ARGS,
    ).lstrip(),
    "has_file_allowed_extension": doc(
        "has_file_allowed_extension(filename, extensions) -> bool",
        "Whether ``filename`` ends with one of ``extensions`` (case-insensitive).",
        ["filename (str): the path.", "extensions (str or tuple): allowed suffixes."],
    ),
}

_MISC = {
    "tensorcore.audio": {
        "list_audio_backends": doc(
            "list_audio_backends() -> list",
            "The available audio I/O backends (``'sox'`` when built with SoX).",
        ),
        "get_audio_backend": doc(
            "get_audio_backend() -> str",
            "The backend used by :func:`tensorcore.audio.load` and :func:`tensorcore.audio.save`.",
        ),
        "set_audio_backend": doc(
            "set_audio_backend(backend) -> None",
            "Selects the audio I/O backend.",
            ["backend (str or None): one of :func:`list_audio_backends`."],
        ),
    },
    "tensorcore.backends.cudnn": {
        "is_built": doc("is_built() -> bool", "Whether tensorcore was built with cuDNN."),
        "algorithm_cache_size": doc(
            "algorithm_cache_size() -> int",
            "Number of convolution configurations whose cuDNN algorithm choice is cached (by the ``benchmark`` search or the heuristics); 0 without cuDNN.",
        ),
    },
    "tensorcore.amp": {
        "OptState": "The state of an optimizer within a :class:`GradScaler` step: READY, UNSCALED (``unscale_`` was called) or STEPPED.",
    },
    "tensorcore.profiler": {
        "ProfilerActivity": "Activities the profiler records: ``CPU`` (operators and Python functions) and ``CUDA`` (kernels).",
        "ProfilerAction": "What a profiling :func:`schedule` asks for at a step: NONE, WARMUP, RECORD or RECORD_AND_SAVE.",
    },
}

TARGETS = {
    "tensorcore.vision.models": _MODELS,
    "tensorcore.vision.models.segmentation": _SEGMENTATION,
    "tensorcore.vision.models.detection": _DETECTION,
    "tensorcore.vision.datasets": _DATASETS,
    **_MISC,
}
DOCS = _MODELS
