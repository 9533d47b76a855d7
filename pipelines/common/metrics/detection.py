"""COCO detection metrics through pycocotools (the reference evaluator)."""

import contextlib
import io

from ..errors import PipelineError

STAT_NAMES = (
    "map", "map_50", "map_75", "map_small", "map_medium", "map_large",
    "ar_1", "ar_10", "ar_100", "ar_small", "ar_medium", "ar_large",
)  # fmt: skip


def coco_evaluate(annotation_file, detections, image_ids):
    """detections: [{"image_id", "category_id", "bbox" (xywh), "score"}]. Returns the 12 COCO
    statistics by name (AP@[.5:.95], AP50, AP75, ..., AR@100) and the printed summary."""
    try:
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval
    except ImportError as e:
        raise PipelineError(
            f"COCO evaluation needs pycocotools ({e}); scripts/setup.sh installs it"
        ) from None
    summary = io.StringIO()
    with contextlib.redirect_stdout(summary):
        gt = COCO(annotation_file)
        if not detections:
            return {name: 0.0 for name in STAT_NAMES}, "no detections"
        dt = gt.loadRes(detections)
        ev = COCOeval(gt, dt, iouType="bbox")
        ev.params.imgIds = sorted(image_ids)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    # pycocotools reports -1 for a size range without ground truth.
    stats = {name: float(max(v, 0.0)) for name, v in zip(STAT_NAMES, ev.stats)}
    return stats, summary.getvalue()
