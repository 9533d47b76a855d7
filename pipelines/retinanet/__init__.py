"""RetinaNet object detection on COCO-layout data (python -m tensorcore.pipelines.retinanet)."""

from .task import RetinaNetTask  # noqa: F401
