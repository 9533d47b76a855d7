"""CocoDetection (torchvision 0.14's class) and a wrapper that turns its annotation lists into
the `{"boxes", "labels", "image_id", "area", "iscrowd"}` targets detection models train on.

The annotation file is indexed here (json + dicts, the same grouping pycocotools builds:
annotations per image in file order) and checked on load: an annotation whose image_id or
category_id has no entry, a duplicate id, or a missing field raises ValueError naming the file
and the entry, where pycocotools would silently drop or crash later.
"""

import json
import os

from .vision import VisionDataset, read_rgb


def _load_annotation_file(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"COCO annotation file {path} does not exist") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}:{e.lineno}:{e.colno}: invalid JSON ({e.msg})") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 JSON ({e.reason})") from None
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise ValueError(f"{path}: not a COCO annotation file (no 'images' list)")
    return data


def _index(path, data):
    """{image id: image record}, {image id: [annotations]} with the references checked."""
    images = {}
    for k, img in enumerate(data["images"]):
        if not isinstance(img, dict) or "id" not in img or "file_name" not in img:
            raise ValueError(f"{path}: images[{k}] lacks 'id' or 'file_name'")
        if img["id"] in images:
            raise ValueError(f"{path}: images[{k}] repeats image id {img['id']}")
        images[img["id"]] = img
    categories = None
    if isinstance(data.get("categories"), list):
        categories = {c.get("id") for c in data["categories"] if isinstance(c, dict)}
    by_image = {i: [] for i in images}
    seen = set()
    for k, ann in enumerate(data.get("annotations") or []):
        if not isinstance(ann, dict) or "image_id" not in ann:
            raise ValueError(f"{path}: annotations[{k}] lacks 'image_id'")
        ann_id = ann.get("id")
        if ann_id is not None:
            if ann_id in seen:
                raise ValueError(f"{path}: annotations[{k}] repeats annotation id {ann_id}")
            seen.add(ann_id)
        if ann["image_id"] not in by_image:
            raise ValueError(
                f"{path}: annotations[{k}] (id {ann_id}) refers to image_id "
                f"{ann['image_id']!r}, which has no entry in 'images'"
            )
        if categories is not None and "category_id" in ann and ann["category_id"] not in categories:
            raise ValueError(
                f"{path}: annotations[{k}] (id {ann_id}) refers to category_id "
                f"{ann['category_id']!r}, which has no entry in 'categories'"
            )
        by_image[ann["image_id"]].append(ann)
    return images, by_image


class CocoDetection(VisionDataset):
    """Items are (image, [annotation dicts]); the image is a 3 x H x W uint8 tensor.

    Args:
        root: the folder holding the images (e.g. `coco/train2017`).
        annFile: the `instances_<split>.json` file.
        transform / target_transform: applied to the image / the annotation list.
        transforms: applied to (image, target) together (exclusive with the two above).
    """

    def __init__(self, root, annFile, transform=None, target_transform=None, transforms=None):
        super().__init__(root, transforms, transform, target_transform)
        self.annFile = os.fspath(annFile)
        self.dataset = _load_annotation_file(self.annFile)
        self.imgs, self.img_to_anns = _index(self.annFile, self.dataset)
        self.cats = {c["id"]: c for c in self.dataset.get("categories") or []}
        self.ids = sorted(self.imgs)

    def _load_image(self, id):
        return read_rgb(os.path.join(self.root, self.imgs[id]["file_name"]))

    def _load_target(self, id):
        return list(self.img_to_anns[id])

    def __getitem__(self, index):
        id = self.ids[index]
        image, target = self._load_image(id), self._load_target(id)
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target

    def __len__(self):
        return len(self.ids)


def coco_to_detection_target(image_id, annotations, height, width, keep_crowd=False):
    """COCO annotations -> {"boxes": float32 [N, 4] xyxy clamped to the image, "labels": int64
    [N], "image_id": int, "area": float32 [N], "iscrowd": int64 [N]}.

    Crowd regions are dropped unless keep_crowd (models train on single instances; evaluation
    wants them kept as ignore regions); boxes with no width or height after clamping are
    dropped; an image without annotations gives N = 0 tensors of the right shapes."""
    import tensorcore as tc

    boxes, labels, areas, crowd = [], [], [], []
    for ann in annotations:
        is_crowd = int(ann.get("iscrowd", 0))
        if is_crowd and not keep_crowd:
            continue
        x, y, w, h = (float(v) for v in ann["bbox"])
        x0, y0 = min(max(x, 0.0), width), min(max(y, 0.0), height)
        x1, y1 = min(max(x + w, 0.0), width), min(max(y + h, 0.0), height)
        if x1 <= x0 or y1 <= y0:
            continue
        boxes.append([x0, y0, x1, y1])
        labels.append(int(ann["category_id"]))
        areas.append(float(ann.get("area", w * h)))
        crowd.append(is_crowd)
    return {
        "boxes": tc.tensor(boxes, dtype=tc.float32).reshape(-1, 4),
        "labels": tc.tensor(labels, dtype=tc.int64).reshape(-1),
        "image_id": image_id,
        "area": tc.tensor(areas, dtype=tc.float32).reshape(-1),
        "iscrowd": tc.tensor(crowd, dtype=tc.int64).reshape(-1),
    }


class CocoDetectionTargets(VisionDataset):
    """Wraps a CocoDetection so items are (image, detection target dict); the wrapped
    dataset's `transforms` then see that dict (joint image/box transforms).

    Args:
        dataset: a CocoDetection.
        keep_crowd: keep iscrowd=1 regions in the targets (default: drop them).
        remove_empty: leave out images with no box left (training on positives only).
    """

    def __init__(self, dataset, keep_crowd=False, remove_empty=False):
        if not isinstance(dataset, CocoDetection):
            raise TypeError(
                f"CocoDetectionTargets wraps a CocoDetection, got {type(dataset).__name__}"
            )
        super().__init__(dataset.root, transforms=dataset.transforms)
        self.dataset = dataset
        self.keep_crowd = keep_crowd
        ids = dataset.ids
        if remove_empty:
            ids = [i for i in ids if self._target(i)["labels"].numel() > 0]
        self.ids = ids

    def _target(self, id):
        img = self.dataset.imgs[id]
        if "width" not in img or "height" not in img:
            raise ValueError(f"{self.dataset.annFile}: image {id} lacks 'width'/'height'")
        return coco_to_detection_target(
            id, self.dataset.img_to_anns[id], img["height"], img["width"], self.keep_crowd
        )

    def __getitem__(self, index):
        id = self.ids[index]
        image = self.dataset._load_image(id)
        target = self._target(id)
        if tuple(image.shape[-2:]) != (
            self.dataset.imgs[id]["height"],
            self.dataset.imgs[id]["width"],
        ):
            raise ValueError(
                f"{self.dataset.imgs[id]['file_name']}: the image is "
                f"{tuple(image.shape[-2:])} (h, w) but {self.dataset.annFile} says "
                f"{(self.dataset.imgs[id]['height'], self.dataset.imgs[id]['width'])}"
            )
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target

    def __len__(self):
        return len(self.ids)


def collate_detection(batch):
    """DataLoader collate_fn for detection: a tuple of images and a tuple of targets (the
    images differ in size, so nothing is stacked)."""
    return tuple(zip(*batch))
