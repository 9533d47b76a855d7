"""RetinaNet detection on COCO-layout data (torchvision's detection reference: SGD with momentum,
linear warm-up, LR steps, aspect-ratio grouping, horizontal-flip augmentation, trainable
backbone layers, --test-only). Held-out COCO mAP/AR through pycocotools.
"""

import os

import numpy as np

import tensorcore as tc
from tensorcore.vision.datasets import CocoDetection, CocoDetectionTargets
from tensorcore.vision.models.detection import (
    RetinaNet,
    retinanet_resnet50_fpn,
    retinanet_resnet50_fpn_v2,
)
from tensorcore.vision.models.detection.backbone_utils import resnet_fpn_backbone
from tensorcore.vision.models.detection.retinanet import (
    _DEFAULT_ANCHOR_SIZES as TORCHVISION_ANCHOR_SIZES,
)
from tensorcore.vision.models.detection.retinanet import _default_anchorgen, _v2_head
from tensorcore.vision.ops import FrozenBatchNorm2d, LastLevelP6P7

from ..common import Task
from ..common.errors import PipelineError
from ..common.metrics.detection import coco_evaluate


def aspect_ratio_groups(ratios, k):
    """torchvision's create_aspect_ratio_groups: bins 2 ** linspace(-1, 1, 2k + 1) of w / h."""
    if k <= 0:
        return None
    bins = 2 ** np.linspace(-1, 1, 2 * k + 1)
    return [int(np.digitize(r, bins)) for r in ratios]


class RetinaNetTask(Task):
    name = "retinanet"
    main_metric = "map"
    metric_mode = "max"

    @staticmethod
    def add_arguments(parser):
        g = parser.add_argument_group("retinanet")
        g.add_argument("--train-split", default="train2017")
        g.add_argument("--eval-split", default="val2017")
        g.add_argument(
            "--backbone", default="resnet50", choices=("resnet50", "resnet34", "resnet18")
        )
        g.add_argument("--trainable-backbone-layers", type=int, default=None,
                       help="0-5, with --weights-backbone (default 3)")  # fmt: skip
        g.add_argument("--weights-backbone", default=None, help="ImageNet ResNet weights file")
        g.add_argument("--num-classes", type=int, default=0, help="0: largest category id + 1")
        g.add_argument("--fpn-channels", type=int, default=256,
                       help="the feature pyramid's and heads' width (resnet18/34; the heads' work "
                       "grows with its square)")  # fmt: skip
        g.add_argument("--anchor-sizes", type=int, nargs=5, default=list(TORCHVISION_ANCHOR_SIZES),
                       metavar="SIZE", help="base anchor size on each of P3-P7 (strides 8-128), "
                       "each with scales 2^0, 2^(1/3), 2^(2/3) and ratios 0.5, 1, 2; smaller sizes "
                       "suit small objects in small images")  # fmt: skip
        g.add_argument("--head", choices=("v1", "v2"), default="v1",
                       help="v1: retinanet_resnet50_fpn's heads (plain convolutions, L1 box "
                       "loss); v2: retinanet_resnet50_fpn_v2's (GroupNorm after each head "
                       "convolution, GIoU box loss)")  # fmt: skip
        g.add_argument("--min-size", type=int, default=800)
        g.add_argument("--max-size", type=int, default=1333)
        g.add_argument("--aspect-ratio-group-factor", type=int, default=3)
        g.add_argument("--data-augmentation", choices=("hflip", "none"), default="hflip")
        g.add_argument("--score-thresh", type=float, default=0.05)
        g.add_argument("--detections-per-img", type=int, default=300)
        parser.set_defaults(
            optimizer="sgd",
            learning_rate=0.01,
            momentum=0.9,
            weight_decay=1e-4,
            scheduler="multistep",
            lr_steps=[16, 22],
            gamma=0.1,
            warmup_iters=1000,
            warmup_factor=1e-3,
            batch_size=2,
            epochs=26,
        )

    def __init__(self, args):
        super().__init__(args)
        self.annotations = {}

    def _annotation_file(self, split):
        return os.path.join(self.args.data_root, "annotations", f"instances_{split}.json")

    def _coco(self, split):
        root = os.path.join(self.args.data_root, split)
        ann = self._annotation_file(split)
        for path in (root, ann):
            if not os.path.exists(path):
                raise PipelineError(
                    f"--data-root {self.args.data_root}: {path} does not exist (expected COCO's "
                    "layout: <root>/<split>/*.jpg and <root>/annotations/instances_<split>.json)"
                )
        try:
            return CocoDetection(root, ann)
        except ValueError as e:
            raise PipelineError(str(e)) from None

    def datasets(self):
        a = self.args
        train_coco, eval_coco = self._coco(a.train_split), self._coco(a.eval_split)
        self.image_info = dict(train_coco.imgs)
        self.num_classes = a.num_classes or 1 + max(
            max(train_coco.cats, default=0), max(eval_coco.cats, default=0)
        )
        self.category_names = {k: v.get("name", str(k)) for k, v in eval_coco.cats.items()}
        return (
            CocoDetectionTargets(train_coco, remove_empty=True),
            CocoDetectionTargets(eval_coco, keep_crowd=True),
        )

    def model_config(self):
        a = self.args
        if not hasattr(self, "num_classes"):
            self.datasets()
        return {
            "backbone": a.backbone,
            "num_classes": self.num_classes,
            "min_size": a.min_size,
            "max_size": a.max_size,
            # None: torchvision's 256, so checkpoints from before the option still load
            "fpn_channels": a.fpn_channels if a.fpn_channels != 256 else None,
            # None: torchvision's sizes, as above
            "anchor_sizes": None
            if tuple(a.anchor_sizes) == TORCHVISION_ANCHOR_SIZES
            else list(a.anchor_sizes),
            "head": None if a.head == "v1" else a.head,  # None: as before the option
        }

    def build_model(self):
        a = self.args
        kwargs = dict(
            min_size=a.min_size,
            max_size=a.max_size,
            score_thresh=a.score_thresh,
            detections_per_img=a.detections_per_img,
        )
        if any(v < 1 for v in a.anchor_sizes):
            raise PipelineError(f"--anchor-sizes {a.anchor_sizes}: sizes must be at least 1 pixel")
        if tuple(a.anchor_sizes) != TORCHVISION_ANCHOR_SIZES:
            kwargs["anchor_generator"] = _default_anchorgen(a.anchor_sizes)
        if a.fpn_channels < 1 or (a.backbone == "resnet50" and a.fpn_channels != 256):
            raise PipelineError(
                f"--fpn-channels {a.fpn_channels}: must be at least 1, and resnet50 (torchvision's "
                "retinanet_resnet50_fpn) keeps 256; narrower pyramids are for resnet18/34"
            )
        if a.backbone == "resnet50":
            builder = retinanet_resnet50_fpn_v2 if a.head == "v2" else retinanet_resnet50_fpn
            return builder(
                num_classes=self.num_classes,
                weights_backbone=a.weights_backbone,
                trainable_backbone_layers=a.trainable_backbone_layers
                if a.weights_backbone
                else None,
                **kwargs,
            )
        layers = a.trainable_backbone_layers if a.trainable_backbone_layers is not None else 5
        backbone = resnet_fpn_backbone(
            backbone_name=a.backbone,
            weights=a.weights_backbone,
            # from scratch everything trains, batch norm included (as retinanet_resnet50_fpn)
            norm_layer=FrozenBatchNorm2d if a.weights_backbone else tc.nn.BatchNorm2d,
            trainable_layers=layers if a.weights_backbone else 5,
            returned_layers=[2, 3, 4],
            extra_blocks=LastLevelP6P7(a.fpn_channels, a.fpn_channels),
            out_channels=a.fpn_channels,
        )
        if a.head == "v2":
            kwargs["head"] = self._v2_head(a.fpn_channels, kwargs.get("anchor_generator"))
        return RetinaNet(backbone, self.num_classes, **kwargs)

    def _v2_head(self, channels, anchor_generator):
        if channels % 32:
            raise PipelineError(
                f"--head v2 --fpn-channels {channels}: GroupNorm's 32 groups need a multiple of 32"
            )
        anchors = (anchor_generator or _default_anchorgen()).num_anchors_per_location()[0]
        return _v2_head(channels, anchors, self.num_classes)

    def group_ids(self, dataset):
        imgs = self.image_info
        return aspect_ratio_groups(
            [imgs[i]["width"] / imgs[i]["height"] for i in dataset.ids],
            self.args.aspect_ratio_group_factor,
        )

    def load_train_item(self, dataset, index, rng):
        image, target = dataset[index]
        image = image.float() / 255.0
        if self.args.data_augmentation == "hflip" and rng.random() < 0.5:
            width = image.shape[-1]
            image = image.flip(-1)
            boxes = target["boxes"].clone()
            boxes[:, 0] = width - target["boxes"][:, 2]
            boxes[:, 2] = width - target["boxes"][:, 0]
            target = dict(target, boxes=boxes)
        return image, {
            "boxes": target["boxes"],
            "labels": target["labels"],
            "image_id": target["image_id"],
        }

    def load_eval_item(self, dataset, index, rng):
        image, target = dataset[index]
        return image.float() / 255.0, {"image_id": target["image_id"], "boxes": target["boxes"]}

    def collate(self, items):
        return {"images": [i for i, _ in items], "targets": [t for _, t in items]}

    def loss(self, model, data, device):
        images = [i.to(device) for i in data["images"]]
        targets = [
            {"boxes": t["boxes"].to(device), "labels": t["labels"].to(device)}
            for t in data["targets"]
        ]
        losses = model(images, targets)
        total = losses["classification"] + losses["bbox_regression"]
        return total, {k: float(v) for k, v in losses.items()}

    def evaluate(self, model, batches, device):
        detections, image_ids = [], []
        self.examples = []
        for data in batches:
            outputs = model([i.to(device) for i in data["images"]])
            for image, target, out in zip(data["images"], data["targets"], outputs):
                image_id = int(target["image_id"])
                image_ids.append(image_id)
                boxes = out["boxes"].float().cpu().numpy()
                for (x1, y1, x2, y2), score, label in zip(
                    boxes, out["scores"].float().cpu().numpy(), out["labels"].cpu().numpy()
                ):
                    detections.append({
                        "image_id": image_id,
                        "category_id": int(label),
                        "bbox": [float(x1), float(y1), float(x2 - x1), float(y2 - y1)],
                        "score": float(score),
                    })  # fmt: skip
                if len(self.examples) < 4:
                    self.examples.append(
                        (
                            image.numpy(),
                            boxes,
                            out["scores"].float().cpu().numpy(),
                            out["labels"].cpu().numpy(),
                            target["boxes"].numpy(),
                        )
                    )
        stats, summary = coco_evaluate(
            self._annotation_file(self.args.eval_split), detections, image_ids
        )
        self.summary = summary
        return stats

    def _overlay(self, ax, image, boxes, scores, labels, truth, threshold=0.3):
        """Ground truth dashed cyan, detections scoring >= threshold yellow with class and score."""
        from matplotlib.patches import Rectangle

        ax.imshow(np.transpose(image, (1, 2, 0)))
        for x1, y1, x2, y2 in truth:
            ax.add_patch(
                Rectangle((x1, y1), x2 - x1, y2 - y1, fill=False, color="cyan", lw=0.8, ls="--")
            )
        shown = int((scores >= threshold).sum())
        ax.set_title(f"{shown} detections >= {threshold} (dashed: ground truth)", fontsize=7)
        for (x1, y1, x2, y2), s, l in zip(boxes, scores, labels):
            if s < threshold:
                continue
            ax.add_patch(Rectangle((x1, y1), x2 - x1, y2 - y1, fill=False, color="yellow", lw=1))
            ax.text(
                x1, y1, f"{self.category_names.get(int(l), l)} {s:.2f}", color="yellow", fontsize=6
            )
        ax.axis("off")

    def log_examples(self, board, model, eval_dataset, step, device):
        for k, (image, boxes, scores, labels, _) in enumerate(getattr(self, "examples", [])[:2]):
            keep = scores >= 0.3
            names = [
                f"{self.category_names.get(int(l), l)} {s:.2f}"
                for s, l in zip(scores[keep], labels[keep])
            ]
            board.image_with_boxes(f"detections/{k}", image, boxes[keep], step, labels=names)

    def plot_examples(self, model, eval_dataset, out_dir, device):
        from ..common.report import new_figure, save_figure

        examples = getattr(self, "examples", [])
        if not examples:
            return []
        cols = min(4, len(examples))
        plt, fig, axes = new_figure(1, cols, size=(4 * cols, 4))
        for ax, example in zip(axes[0], examples):
            self._overlay(ax, *example)
        return [save_figure(plt, fig, os.path.join(out_dir, "examples.png"))]
