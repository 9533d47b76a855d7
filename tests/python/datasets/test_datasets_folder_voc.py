import os

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.datasets import DatasetFolder, ImageFolder, VOCDetection, VOCSegmentation
from tensorcore.vision.io import encode_jpeg, encode_png


def _image(rng, h, w):
    return tc.from_numpy(rng.integers(0, 256, (3, h, w), dtype=np.uint8))


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    for cls, n in (("cat", 3), ("dog", 2), ("eel", 2)):
        os.makedirs(tmp_path / cls / "nested")
        for i in range(n):
            img = _image(rng, 20 + i, 24)
            data = encode_jpeg(img, 90) if i % 2 == 0 else encode_png(img)
            sub = "nested" if i == 2 else ""
            ext = ".jpg" if i % 2 == 0 else ".png"
            (tmp_path / cls / sub / f"{i}{ext}").write_bytes(data.numpy().tobytes())
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    return tmp_path


def test_image_folder_matches_torchvision(folder):
    torchvision = pytest.importorskip("torchvision")
    ours = ImageFolder(str(folder))
    ref = torchvision.datasets.ImageFolder(str(folder))
    assert ours.classes == ref.classes == ["cat", "dog", "eel"]
    assert ours.class_to_idx == ref.class_to_idx
    assert ours.samples == ref.samples and ours.targets == ref.targets
    for i in range(len(ours)):
        (img, y), (ref_img, ref_y) = ours[i], ref[i]
        assert y == ref_y
        np.testing.assert_array_equal(img.numpy().transpose(1, 2, 0), np.asarray(ref_img))


def test_loader_and_is_valid_file(folder):
    ds = ImageFolder(
        str(folder),
        loader=lambda p: os.path.basename(p),
        is_valid_file=lambda p: p.endswith(".png"),
    )
    assert [s for s, _ in ds] == ["1.png", "1.png", "1.png"]
    ds = DatasetFolder(str(folder), loader=os.path.getsize, extensions=(".txt", ".jpg"))
    assert len(ds) == 5 and ds[ds.samples.index((str(folder / "cat" / "notes.txt"), 0))][0] == 12
    with pytest.raises(ValueError, match="Both extensions and is_valid_file"):
        DatasetFolder(str(folder), loader=len, extensions=".jpg", is_valid_file=bool)
    ds = ImageFolder(str(folder), transform=lambda x: x.shape, target_transform=lambda y: -y)
    assert ds[3] == ((3, 20, 24), -1)


def test_folder_errors(folder, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ImageFolder(str(other / "missing"))
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder"):
        ImageFolder(str(other))
    os.makedirs(folder / "fox")
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes fox"):
        ImageFolder(str(folder))
    os.rmdir(folder / "fox")
    bad = folder / "dog" / "1.png"
    bad.write_bytes(bad.read_bytes()[:40])
    ds = ImageFolder(str(folder))
    with pytest.raises(RuntimeError, match=f"cannot decode image {bad}"):
        ds[ds.samples.index((str(bad), 1))]


VOC_PALETTE = [0, 0, 0, 128, 0, 0, 0, 128, 0, 128, 128, 0] + [0] * (3 * 251) + [224, 224, 192]


@pytest.fixture
def voc_root(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(1)
    base = tmp_path / "VOCdevkit" / "VOC2012"
    for d in (
        "JPEGImages",
        "Annotations",
        "SegmentationClass",
        "ImageSets/Main",
        "ImageSets/Segmentation",
    ):
        os.makedirs(base / d)
    names = ["2008_000001", "2008_000002"]
    for k, name in enumerate(names):
        img = _image(rng, 30, 40 + k)
        (base / "JPEGImages" / f"{name}.jpg").write_bytes(encode_jpeg(img, 92).numpy().tobytes())
        mask = rng.choice([0, 1, 2, 3, 255], size=(30, 40 + k)).astype(np.uint8)
        m = Image.fromarray(mask, mode="P")
        m.putpalette(VOC_PALETTE)
        m.save(base / "SegmentationClass" / f"{name}.png")
        objects = "".join(
            f"<object><name>{c}</name><difficult>0</difficult><bndbox><xmin>{1 + i}</xmin>"
            f"<ymin>2</ymin><xmax>{20 + i}</xmax><ymax>25</ymax></bndbox></object>"
            for i, c in enumerate(["dog", "cat"][: k + 1])
        )
        (base / "Annotations" / f"{name}.xml").write_text(
            f"<annotation><folder>VOC2012</folder><filename>{name}.jpg</filename><size>"
            f"<width>{40 + k}</width><height>30</height><depth>3</depth></size>{objects}"
            f"</annotation>"
        )
    for split in ("Main", "Segmentation"):
        (base / "ImageSets" / split / "train.txt").write_text("\n".join(names) + "\n")
    return str(tmp_path)


def test_voc_matches_torchvision(voc_root):
    torchvision = pytest.importorskip("torchvision")
    seg, ref_seg = VOCSegmentation(voc_root), torchvision.datasets.VOCSegmentation(voc_root)
    det, ref_det = VOCDetection(voc_root), torchvision.datasets.VOCDetection(voc_root)
    assert len(seg) == len(ref_seg) == len(det) == 2
    for i in range(2):
        (img, mask), (ref_img, ref_mask) = seg[i], ref_seg[i]
        np.testing.assert_array_equal(img.numpy().transpose(1, 2, 0), np.asarray(ref_img))
        assert tuple(mask.shape) == (1,) + np.asarray(ref_mask).shape
        np.testing.assert_array_equal(mask.numpy()[0], np.asarray(ref_mask))
        (_, target), (_, ref_target) = det[i], ref_det[i]
        assert target == ref_target
    assert len(det[1][1]["annotation"]["object"]) == 2


def test_voc_errors(voc_root, tmp_path):
    with pytest.raises(RuntimeError, match="Dataset not found"):
        VOCDetection(str(tmp_path / "none"))
    with pytest.raises(ValueError, match="image_set"):
        VOCDetection(voc_root, image_set="test")
    with pytest.raises(FileNotFoundError, match="val.txt"):
        VOCDetection(voc_root, image_set="val")
    xml = os.path.join(voc_root, "VOCdevkit", "VOC2012", "Annotations", "2008_000002.xml")
    with open(xml, "w") as f:
        f.write("<annotation>\n<size>\n</annotation>\n")
    with pytest.raises(ValueError, match=rf"{xml}:3:\d+: malformed XML"):
        VOCDetection(voc_root)[1]
