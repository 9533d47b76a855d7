"""DatasetFolder / ImageFolder: `root/<class>/**/<file>` trees (torchvision 0.14's classes).

The default loader decodes through tensorcore.vision.io (libjpeg-turbo / libpng) into a
3 x H x W uint8 tensor, so the default extensions are the formats those decoders read; pass
`loader=` (any path -> sample callable) and `extensions=` or `is_valid_file=` for others.
"""

import os

from .vision import VisionDataset, read_rgb

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png")


def has_file_allowed_extension(filename, extensions):
    return filename.lower().endswith(
        extensions if isinstance(extensions, str) else tuple(extensions)
    )


def is_image_file(filename):
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory):
    """Sorted class folder names and their indices."""
    try:
        classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    except FileNotFoundError:
        raise FileNotFoundError(f"dataset folder {directory} does not exist") from None
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(directory, class_to_idx=None, extensions=None, is_valid_file=None):
    """[(path, class index)] of every valid file, classes in sorted order, files sorted."""
    directory = os.path.expanduser(os.fspath(directory))
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError(
            "Both extensions and is_valid_file cannot be None or not None at the same time"
        )
    if extensions is not None:

        def is_valid_file(path):
            return has_file_allowed_extension(path, extensions)

    instances, found = [], set()
    for target_class in sorted(class_to_idx):
        class_index = class_to_idx[target_class]
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    instances.append((path, class_index))
                    found.add(target_class)
    empty = set(class_to_idx) - found
    if empty:
        msg = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            msg += "Supported extensions are: " + (
                extensions if isinstance(extensions, str) else ", ".join(extensions)
            )
        raise FileNotFoundError(msg)
    return instances


class DatasetFolder(VisionDataset):
    """Items are (loader(path), class index); attributes classes, class_to_idx, samples,
    targets as in torchvision."""

    def __init__(
        self,
        root,
        loader,
        extensions=None,
        transform=None,
        target_transform=None,
        is_valid_file=None,
    ):
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(self.root, class_to_idx, extensions, is_valid_file)
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None):
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions, is_valid_file)

    def find_classes(self, directory):
        return find_classes(directory)

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        sample, target = self._transformed(sample, target)
        return sample, target

    def __len__(self):
        return len(self.samples)


def default_loader(path):
    """JPEG/PNG -> 3 x H x W uint8 tensor through tensorcore.vision.io."""
    return read_rgb(path)


class ImageFolder(DatasetFolder):
    """DatasetFolder over images; `imgs` is `samples`, as in torchvision."""

    def __init__(
        self, root, transform=None, target_transform=None, loader=default_loader, is_valid_file=None
    ):
        super().__init__(
            root,
            loader,
            IMG_EXTENSIONS if is_valid_file is None else None,
            transform=transform,
            target_transform=target_transform,
            is_valid_file=is_valid_file,
        )
        self.imgs = self.samples
