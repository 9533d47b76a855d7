"""VisionDataset: the root / transform / target_transform / transforms plumbing of
torchvision.datasets.VisionDataset."""

import os

from ...utils.data import Dataset
from ..._C import DecodeError
from ..io.image import ImageReadMode, read_image


def _apply_transforms(transform, target_transform, input, target):
    if transform is not None:
        input = transform(input)
    if target_transform is not None:
        target = target_transform(target)
    return input, target


class StandardTransform:
    """(image, target) -> (transform(image), target_transform(target))."""

    def __init__(self, transform=None, target_transform=None):
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input, target):
        return _apply_transforms(self.transform, self.target_transform, input, target)

    def __repr__(self):
        parts = [self.__class__.__name__]
        if self.transform is not None:
            parts.append(f"Transform: {self.transform!r}")
        if self.target_transform is not None:
            parts.append(f"Target transform: {self.target_transform!r}")
        return "\n".join(parts)


class VisionDataset(Dataset):
    _repr_indent = 4

    def __init__(self, root, transforms=None, transform=None, target_transform=None):
        self.root = os.path.expanduser(os.fspath(root)) if root is not None else root
        has_transforms = transforms is not None
        has_separate = transform is not None or target_transform is not None
        if has_transforms and has_separate:
            raise ValueError(
                "Only transforms or transform/target_transform can be passed as argument"
            )
        self.transform = transform
        self.target_transform = target_transform
        if has_separate:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index):
        raise NotImplementedError

    def _transformed(self, sample, target):
        """(sample, target) through transform / target_transform, as the datasets' items."""
        return _apply_transforms(self.transform, self.target_transform, sample, target)

    def __len__(self):
        raise NotImplementedError

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            lines.append(f"Root location: {self.root}")
        lines += self.extra_repr().splitlines()
        if self.transforms is not None:
            lines += repr(self.transforms).splitlines()
        pad = " " * self._repr_indent
        return "\n".join(["Dataset " + self.__class__.__name__] + [pad + line for line in lines])


def read_rgb(path):
    """Decodes a JPEG/PNG file to a 3 x H x W uint8 tensor (what ImageFolder's and the detection
    datasets' default loader returns); errors name the file."""
    try:
        return read_image(path, ImageReadMode.RGB)
    except DecodeError as e:
        raise RuntimeError(f"cannot decode image {path}: {e}") from None
    except (FileNotFoundError, OSError, RuntimeError) as e:
        if not os.path.exists(path):
            raise FileNotFoundError(f"image file {path} does not exist") from None
        raise RuntimeError(f"cannot read image {path}: {e}") from None
