"""VOCDetection / VOCSegmentation (torchvision 0.14's classes) over
`<root>/VOCdevkit/VOC<year>/{JPEGImages,Annotations,SegmentationClass,ImageSets}`.

Images are 3 x H x W uint8 tensors. VOCSegmentation's target is a 1 x H x W uint8 tensor of
class indices (torchvision gives the palette PIL image; PILToTensor of it is this tensor).
VOCDetection's target is the XML as nested dicts, exactly as torchvision parses it.
"""

import collections
import os
import struct
import zlib
from xml.etree.ElementTree import ParseError, parse

from ...utils._download import download_and_extract_archive
from ..io.image import ImageReadMode, read_file, decode_png
from .vision import VisionDataset, read_rgb

DATASET_YEAR_DICT = {
    "2012": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2012/VOCtrainval_11-May-2012.tar",
        "VOCtrainval_11-May-2012.tar",
        "6cd6e144f989b92b3379bac3b3de84fd",
        os.path.join("VOCdevkit", "VOC2012"),
    ),
    "2011": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2011/VOCtrainval_25-May-2011.tar",
        "VOCtrainval_25-May-2011.tar",
        "6c3384ef61512963050cb5d687e5bf1e",
        os.path.join("TrainVal", "VOCdevkit", "VOC2011"),
    ),
    "2010": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2010/VOCtrainval_03-May-2010.tar",
        "VOCtrainval_03-May-2010.tar",
        "da459979d0c395079b5c75ee67908abb",
        os.path.join("VOCdevkit", "VOC2010"),
    ),
    "2009": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2009/VOCtrainval_11-May-2009.tar",
        "VOCtrainval_11-May-2009.tar",
        "a3e00b113cfcfebf17e343f59da3caa1",
        os.path.join("VOCdevkit", "VOC2009"),
    ),
    "2008": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2008/VOCtrainval_14-Jul-2008.tar",
        "VOCtrainval_11-May-2012.tar",
        "2629fa636546599198acfcfbfcf1904a",
        os.path.join("VOCdevkit", "VOC2008"),
    ),
    "2007": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2007/VOCtrainval_06-Nov-2007.tar",
        "VOCtrainval_06-Nov-2007.tar",
        "c52e279531787c972589f7e41ab4ae64",
        os.path.join("VOCdevkit", "VOC2007"),
    ),
    "2007-test": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2007/VOCtest_06-Nov-2007.tar",
        "VOCtest_06-Nov-2007.tar",
        "b6e924de25625d8de591ea690078ad9f",
        os.path.join("VOCdevkit", "VOC2007"),
    ),
}


def _png_palette(data, path):
    """The PLTE entries of a PNG (None for a PNG without one)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise RuntimeError(f"{path} is not a PNG file")
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"PLTE":
            raw = data[pos + 8 : pos + 8 + length]
            return [tuple(raw[i : i + 3]) for i in range(0, len(raw) - 2, 3)]
        if kind in (b"IDAT", b"IEND"):
            return None
        pos += 12 + length
    return None


def read_index_mask(path):
    """A palette (or grayscale) PNG -> 1 x H x W uint8 tensor of palette indices.

    Our PNG decoder expands palettes to RGB, so the indices are recovered through the
    palette's colours (VOC's palette has distinct colours; a palette that repeats a colour
    maps it to its first index)."""
    import numpy as np
    import tensorcore as tc

    try:
        raw = read_file(path)
    except (OSError, RuntimeError):
        raise FileNotFoundError(f"mask file {path} does not exist or cannot be read") from None
    data = raw.numpy().tobytes()
    palette = _png_palette(data, path)
    try:
        if palette is None:
            return decode_png(raw, ImageReadMode.GRAY)
        rgb = decode_png(raw, ImageReadMode.RGB).numpy().astype(np.int32)
    except (RuntimeError, zlib.error) as e:
        raise RuntimeError(f"cannot decode mask {path}: {e}") from None
    keys = (rgb[0] << 16) | (rgb[1] << 8) | rgb[2]
    lut = {}
    for i, (r, g, b) in enumerate(palette):
        lut.setdefault((r << 16) | (g << 8) | b, i)
    colours = np.array(sorted(lut), dtype=np.int64)
    pos = np.searchsorted(colours, keys)
    pos = np.clip(pos, 0, len(colours) - 1)
    if not np.array_equal(colours[pos], keys):
        raise RuntimeError(f"{path}: pixel colours outside the PNG's palette")
    indices = np.array([lut[c] for c in colours.tolist()], dtype=np.uint8)[pos]
    return tc.from_numpy(np.ascontiguousarray(indices[None]))


class _VOCBase(VisionDataset):
    _SPLITS_DIR = ""
    _TARGET_DIR = ""
    _TARGET_FILE_EXT = ""

    def __init__(
        self,
        root,
        year="2012",
        image_set="train",
        download=False,
        transform=None,
        target_transform=None,
        transforms=None,
    ):
        super().__init__(root, transforms, transform, target_transform)
        years = [str(y) for y in range(2007, 2013)]
        if year not in years:
            raise ValueError(
                f"Unknown value '{year}' for argument year. Valid values are "
                f"{{{', '.join(years)}}}."
            )
        sets = ["train", "trainval", "val"] + (["test"] if year == "2007" else [])
        if image_set not in sets:
            raise ValueError(
                f"Unknown value '{image_set}' for argument image_set. Valid values "
                f"are {{{', '.join(sets)}}}."
            )
        self.year, self.image_set = year, image_set
        key = "2007-test" if year == "2007" and image_set == "test" else year
        self.url, self.filename, self.md5, base_dir = DATASET_YEAR_DICT[key]
        voc_root = os.path.join(self.root, base_dir)
        if download and not os.path.isdir(voc_root):
            download_and_extract_archive(
                self.url, self.root, filename=self.filename, checksum=self.md5, hash_type="md5"
            )
        if not os.path.isdir(voc_root):
            raise RuntimeError(
                f"Dataset not found at {voc_root}. You can use download=True to download it"
            )
        split_f = os.path.join(voc_root, "ImageSets", self._SPLITS_DIR, image_set + ".txt")
        try:
            with open(split_f) as f:
                file_names = [x.strip() for x in f.readlines() if x.strip()]
        except FileNotFoundError:
            raise FileNotFoundError(f"VOC split file {split_f} does not exist") from None
        self.images = [os.path.join(voc_root, "JPEGImages", x + ".jpg") for x in file_names]
        self.targets = [
            os.path.join(voc_root, self._TARGET_DIR, x + self._TARGET_FILE_EXT) for x in file_names
        ]

    def __len__(self):
        return len(self.images)


class VOCSegmentation(_VOCBase):
    _SPLITS_DIR = "Segmentation"
    _TARGET_DIR = "SegmentationClass"
    _TARGET_FILE_EXT = ".png"

    @property
    def masks(self):
        return self.targets

    def __getitem__(self, index):
        img = read_rgb(self.images[index])
        target = read_index_mask(self.masks[index])
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target


class VOCDetection(_VOCBase):
    _SPLITS_DIR = "Main"
    _TARGET_DIR = "Annotations"
    _TARGET_FILE_EXT = ".xml"

    @property
    def annotations(self):
        return self.targets

    def __getitem__(self, index):
        img = read_rgb(self.images[index])
        path = self.annotations[index]
        try:
            root = parse(path).getroot()
        except FileNotFoundError:
            raise FileNotFoundError(f"VOC annotation {path} does not exist") from None
        except ParseError as e:
            line, col = e.position
            raise ValueError(f"{path}:{line}:{col}: malformed XML ({e})") from None
        target = self.parse_voc_xml(root)
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target

    @staticmethod
    def parse_voc_xml(node):
        """XML element -> nested dicts; repeated tags become lists and `object` is always a
        list (torchvision's conventions)."""
        result = {}
        children = list(node)
        if children:
            grouped = collections.defaultdict(list)
            for child in map(VOCDetection.parse_voc_xml, children):
                for key, value in child.items():
                    grouped[key].append(value)
            if node.tag == "annotation":
                grouped["object"] = [grouped["object"]]
            result = {node.tag: {k: v[0] if len(v) == 1 else v for k, v in grouped.items()}}
        if node.text:
            text = node.text.strip()
            if not children:
                result[node.tag] = text
        return result
