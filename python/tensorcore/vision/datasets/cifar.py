"""CIFAR10 / CIFAR100, SVHN and FakeData: torchvision's classes and file formats.

CIFAR reads the "python version" batches (pickled dicts, as the archive ships them; opening
them runs their pickle, as torchvision does, so use files from a trusted source); SVHN reads
the .mat files through scipy.io. Items are (PIL RGB image, int label) like torchvision's;
`data` is the uint8 NumPy array torchvision exposes (N x 32 x 32 x 3 for CIFAR, N x 3 x 32 x
32 for SVHN).
"""

import os
import pickle

import numpy as np

import tensorcore as tc

from ...utils._download import check_integrity, download_and_extract_archive, download_url
from .vision import VisionDataset

__all__ = ["CIFAR10", "CIFAR100", "SVHN", "FakeData"]


def _rgb_image(hwc):
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover
        return tc.from_numpy(np.ascontiguousarray(hwc.transpose(2, 0, 1)))
    return Image.fromarray(np.ascontiguousarray(hwc))


class _Labelled(VisionDataset):
    def __getitem__(self, index):
        img, target = self._image(index), int(self.targets[index])
        img, target = self._transformed(img, target)
        return img, int(target)

    def __len__(self):
        return len(self.data)


class CIFAR10(_Labelled):
    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [
        ["data_batch_1", "c99cafc152244af753f735de768cd75f"],
        ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
        ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
        ["data_batch_4", "634d18415352ddfa80567beed471001a"],
        ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"],
    ]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {
        "filename": "batches.meta",
        "key": "label_names",
        "md5": "5ff9c542aee3614f3951f8cda6e48888",
    }

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        data, self.targets = [], []
        for name, _ in self.train_list if train else self.test_list:
            entry = self._unpickle(os.path.join(self.root, self.base_folder, name))
            data.append(np.asarray(entry["data"], dtype=np.uint8))
            labels = entry["labels"] if "labels" in entry else entry["fine_labels"]
            self.targets.extend(int(x) for x in labels)
        flat = np.vstack(data) if data else np.zeros((0, 3072), np.uint8)
        if flat.shape[1:] != (3072,) or flat.shape[0] != len(self.targets):
            raise ValueError(
                f"{type(self).__name__}: batches hold {flat.shape} pixels for "
                f"{len(self.targets)} labels (expected N x 3072)"
            )
        self.data = flat.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)  # HWC, as torchvision
        meta = self._unpickle(os.path.join(self.root, self.base_folder, self.meta["filename"]))
        self.classes = list(meta[self.meta["key"]])
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}

    @staticmethod
    def _unpickle(path):
        with open(path, "rb") as f:
            try:
                return pickle.load(f, encoding="latin1")
            except (pickle.UnpicklingError, EOFError, ValueError) as e:
                raise RuntimeError(f"{path}: not a CIFAR batch file ({e})") from None

    def _check_integrity(self):
        files = self.train_list + self.test_list + [[self.meta["filename"], self.meta["md5"]]]
        return all(
            check_integrity(os.path.join(self.root, self.base_folder, name), md5, "md5")
            for name, md5 in files
        )

    def download(self):
        if self._check_integrity():
            return
        download_and_extract_archive(
            self.url,
            self.root,
            filename=self.filename,
            checksum=self.tgz_md5,
            hash_type="md5",
            progress=False,
        )

    def _image(self, index):
        return _rgb_image(self.data[index])

    def extra_repr(self):
        return f"Split: {'Train' if self.train else 'Test'}"


class CIFAR100(CIFAR10):
    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {
        "filename": "meta",
        "key": "fine_label_names",
        "md5": "7973b15100ade9c7d40fb424638fde48",
    }


class SVHN(_Labelled):
    split_list = {
        "train": [
            "http://ufldl.stanford.edu/housenumbers/train_32x32.mat",
            "train_32x32.mat",
            "e26dedcc434d2e4c54c9b2d4a06d8373",
        ],
        "test": [
            "http://ufldl.stanford.edu/housenumbers/test_32x32.mat",
            "test_32x32.mat",
            "eb5a983be6a315427106f1b164d9cef3",
        ],
        "extra": [
            "http://ufldl.stanford.edu/housenumbers/extra_32x32.mat",
            "extra_32x32.mat",
            "a93ce644f1a588dc4d68dda5feec44a7",
        ],
    }

    def __init__(self, root, split="train", transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        if split not in self.split_list:
            raise ValueError(
                f"Unknown value '{split}' for argument split. Valid values are "
                f"{{{', '.join(self.split_list)}}}."
            )
        self.split = split
        self.url, self.filename, self.file_md5 = self.split_list[split]
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError(
                "Dataset not found or corrupted. You can use download=True to download it"
            )
        try:
            import scipy.io as sio
        except ImportError:  # pragma: no cover
            raise RuntimeError("SVHN reads .mat files with scipy.io; install scipy") from None
        path = os.path.join(self.root, self.filename)
        try:
            mat = sio.loadmat(path)
        except (ValueError, OSError, TypeError) as e:
            raise RuntimeError(f"{path}: not a readable SVHN .mat file ({e})") from None
        if "X" not in mat or "y" not in mat or mat["X"].ndim != 4:
            raise ValueError(f"{path}: expected 'X' (32 x 32 x 3 x N) and 'y' (N x 1) arrays")
        labels = mat["y"].astype(np.int64).squeeze(-1)
        np.place(labels, labels == 10, 0)  # the digit 0 is stored as class 10
        self.labels = labels
        self.data = np.transpose(mat["X"], (3, 2, 0, 1))  # N x C x H x W, as torchvision

    @property
    def targets(self):
        return self.labels

    def _check_integrity(self):
        return check_integrity(os.path.join(self.root, self.filename), self.file_md5, "md5")

    def download(self):
        if self._check_integrity():
            return
        download_url(
            self.url,
            self.root,
            self.filename,
            checksum=self.file_md5,
            hash_type="md5",
            progress=False,
        )

    def _image(self, index):
        return _rgb_image(np.transpose(self.data[index], (1, 2, 0)))

    def extra_repr(self):
        return f"Split: {self.split}"


class FakeData(VisionDataset):
    """Random images from a per-index seed, pixel for pixel those of torchvision's FakeData.

    Item ``i`` is what torch draws after ``torch.manual_seed(i + random_offset)``: a
    ``randn(*image_size)`` image made a PIL image by ``ToPILImage``, and a ``randint`` target.
    The draws come from a reproduction of torch's CPU stream (``tensorcore._torch_cpu_stream``),
    so tensorcore's own global random state is neither used nor changed.
    """

    def __init__(
        self,
        size=1000,
        image_size=(3, 224, 224),
        num_classes=10,
        transform=None,
        target_transform=None,
        random_offset=0,
    ):
        super().__init__(None, transform=transform, target_transform=target_transform)
        self.size, self.num_classes = size, num_classes
        self.image_size, self.random_offset = image_size, random_offset

    def __getitem__(self, index):
        if index >= len(self):
            raise IndexError(f"{type(self).__name__} index out of range")
        from ..._torch_cpu_stream import TorchCPUStream
        from ..transforms import ToPILImage

        stream = TorchCPUStream(index + self.random_offset)
        img = tc.from_numpy(stream.randn(*self.image_size))
        # a 0-d int64 tensor, as torchvision hands it to target_transform
        target = tc.tensor(int(stream.randint(0, self.num_classes, 1)[0]), dtype=tc.int64)
        img = ToPILImage()(img)
        img, target = self._transformed(img, target)
        return img, int(target)

    def __len__(self):
        return self.size
