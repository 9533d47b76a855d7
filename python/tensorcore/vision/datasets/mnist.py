"""MNIST, FashionMNIST and KMNIST: torchvision's classes over the IDX files (raw/ folder).

Items are (PIL image of mode 'L', int label) as torchvision's, so its transforms pipelines
(ToTensor, Normalize, ...) run unchanged; `data` (uint8 N x H x W) and `targets` (int64 N) are
tensors. download=True fetches the .gz files from the mirrors in turn and unpacks them.
"""

import os
import urllib.error

import numpy as np

import tensorcore as tc

from ...utils._download import check_integrity, download_and_extract_archive
from .vision import VisionDataset

__all__ = ["MNIST", "FashionMNIST", "KMNIST", "read_sn3_pascalvincent_tensor"]

# IDX type codes -> big-endian NumPy dtypes.
_IDX_TYPES = {8: ">u1", 9: ">i1", 11: ">i2", 12: ">i4", 13: ">f4", 14: ">f8"}


def read_sn3_pascalvincent_tensor(path, strict=True):
    """Reads an IDX file (LeCun's format: magic, dims, big-endian data) into a tensor."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _IDX_TYPES:
        raise ValueError(f"{path}: not an IDX file (bad magic number {data[:4].hex()})")
    ndim = data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{path}: truncated IDX header")
    shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim)]
    dtype = np.dtype(_IDX_TYPES[data[2]])
    expected = int(np.prod(shape)) * dtype.itemsize
    if strict and len(data) - header != expected:
        raise ValueError(
            f"{path}: IDX data holds {len(data) - header} bytes, the header says {shape} "
            f"({expected} bytes)"
        )
    array = np.frombuffer(data, dtype=dtype, count=int(np.prod(shape)), offset=header)
    return tc.from_numpy(array.astype(dtype.newbyteorder("=")).reshape(shape))


def read_label_file(path):
    x = read_sn3_pascalvincent_tensor(path)
    if x.dtype != tc.uint8 or x.dim() != 1:
        raise ValueError(f"{path}: expected a 1-d uint8 label file, got {x.dtype} {list(x.shape)}")
    return x.long()


def read_image_file(path):
    x = read_sn3_pascalvincent_tensor(path)
    if x.dtype != tc.uint8 or x.dim() != 3:
        raise ValueError(f"{path}: expected a 3-d uint8 image file, got {x.dtype} {list(x.shape)}")
    return x


class MNIST(VisionDataset):
    mirrors = [
        "http://yann.lecun.com/exdb/mnist/",
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
    ]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    classes = [
        "0 - zero",
        "1 - one",
        "2 - two",
        "3 - three",
        "4 - four",
        "5 - five",
        "6 - six",
        "7 - seven",
        "8 - eight",
        "9 - nine",
    ]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError(
                f"Dataset not found in {self.raw_folder}. You can use download=True to download it"
            )
        prefix = "train" if train else "t10k"
        self.data = read_image_file(os.path.join(self.raw_folder, f"{prefix}-images-idx3-ubyte"))
        self.targets = read_label_file(os.path.join(self.raw_folder, f"{prefix}-labels-idx1-ubyte"))
        if self.data.shape[0] != self.targets.shape[0]:
            raise ValueError(
                f"{type(self).__name__}: {self.data.shape[0]} images but "
                f"{self.targets.shape[0]} labels in {self.raw_folder}"
            )

    @property
    def raw_folder(self):
        return os.path.join(self.root, type(self).__name__, "raw")

    @property
    def processed_folder(self):
        return os.path.join(self.root, type(self).__name__, "processed")

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def _check_exists(self):
        return all(
            check_integrity(os.path.join(self.raw_folder, os.path.splitext(name)[0]))
            for name, _ in self.resources
        )

    def download(self):
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources:
            errors = []
            for mirror in self.mirrors:
                try:
                    download_and_extract_archive(
                        f"{mirror}{filename}",
                        self.raw_folder,
                        filename=filename,
                        checksum=md5,
                        hash_type="md5",
                        progress=False,
                    )
                    break
                except (urllib.error.URLError, OSError, RuntimeError) as e:
                    errors.append(f"{mirror}{filename}: {e}")
            else:
                raise RuntimeError(
                    f"Error downloading {filename} from every mirror:\n" + "\n".join(errors)
                )

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        img = _gray_image(img.numpy())
        img, target = self._transformed(img, target)
        return img, target

    def __len__(self):
        return self.data.shape[0]

    def extra_repr(self):
        return f"Split: {'Train' if self.train else 'Test'}"


def _gray_image(array):
    """A PIL 'L' image like torchvision's items; a (1, H, W) uint8 tensor without Pillow."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover
        return tc.from_numpy(np.ascontiguousarray(array)).unsqueeze(0)
    return Image.fromarray(array, mode="L")


class FashionMNIST(MNIST):
    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = [
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ]


class KMNIST(MNIST):
    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
        ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
        ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
        ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134"),
    ]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]
