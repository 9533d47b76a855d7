"""torchvision.datasets' classes over tensorcore's image IO: ImageFolder / DatasetFolder,
CocoDetection (+ CocoDetectionTargets for detection models), VOCDetection / VOCSegmentation
(images decode lazily to 3 x H x W uint8 tensors); MNIST / FashionMNIST / KMNIST, CIFAR10 /
CIFAR100, SVHN and FakeData (PIL images, as torchvision's)."""

from .cifar import CIFAR10, CIFAR100, SVHN, FakeData
from .mnist import MNIST, FashionMNIST, KMNIST
from .coco import CocoDetection, CocoDetectionTargets, coco_to_detection_target, collate_detection
from .folder import (
    IMG_EXTENSIONS,
    DatasetFolder,
    ImageFolder,
    default_loader,
    find_classes,
    has_file_allowed_extension,
    make_dataset,
)
from .vision import StandardTransform, VisionDataset
from .voc import VOCDetection, VOCSegmentation, read_index_mask

__all__ = [
    "CIFAR10",
    "CIFAR100",
    "FakeData",
    "FashionMNIST",
    "KMNIST",
    "MNIST",
    "SVHN",
    "CocoDetection",
    "CocoDetectionTargets",
    "DatasetFolder",
    "ImageFolder",
    "VOCDetection",
    "VOCSegmentation",
    "VisionDataset",
    "StandardTransform",
    "IMG_EXTENSIONS",
    "coco_to_detection_target",
    "collate_detection",
    "default_loader",
    "find_classes",
    "has_file_allowed_extension",
    "make_dataset",
    "read_index_mask",
]
