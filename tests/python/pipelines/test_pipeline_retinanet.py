"""The RetinaNet pipeline end to end on tiny generated COCO: the loss falls, kill-and-resume
equals an uninterrupted run bit for bit, pycocotools' mAP is reported, --test-only evaluates."""

import json

import pytest

import pipeline_testing as pt


def test_retinanet_trains_resumes_and_tests(coco_root, tmp_path):
    pytest.importorskip("pycocotools")
    pt.check_pipeline("retinanet", coco_root, tmp_path, steps=4, stop_at=1)
    straight = tmp_path / "straight"
    metrics = json.loads((straight / "metrics.json").read_text())["final"]
    assert set(metrics) >= {"map", "map_50", "map_75", "ar_100"}
    assert all(0.0 <= metrics[k] <= 1.0 for k in metrics)
    proc = pt.run("retinanet", coco_root, straight, "--test-only")
    assert "map=" in proc.stdout
    tested = json.loads((straight / "metrics.json").read_text())["test"]
    assert tested == metrics  # the same weights give the same detections
