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


def retinanet_task(coco_root, *extra):
    import argparse

    from tensorcore.pipelines.retinanet.task import RetinaNetTask

    parser = argparse.ArgumentParser()
    RetinaNetTask.add_arguments(parser)
    args = parser.parse_args(list(extra))
    args.data_root = coco_root  # a run-wide option, not the task's
    task = RetinaNetTask(args)
    task.datasets()
    return task


def test_fpn_channels_narrow_the_pyramid_and_heads(coco_root, tmp_path):
    def task_for(*extra):
        return retinanet_task(coco_root, *extra)

    task = task_for("--backbone", "resnet18", "--fpn-channels", "32")
    model = task.build_model()
    assert model.backbone.out_channels == 32
    assert model.head.classification_head.cls_logits.in_channels == 32
    assert model.head.regression_head.bbox_reg.in_channels == 32
    assert task.model_config()["fpn_channels"] == 32
    assert task_for("--backbone", "resnet18").model_config()["fpn_channels"] is None

    # the narrow model trains through the real program; resuming it at the default width is refused
    pt.run("retinanet", coco_root, tmp_path, "--fpn-channels", 32, "--max-steps", 1,
           "--no-final-eval")  # fmt: skip
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["model_config"]["fpn_channels"] == 32
    proc = pt.run("retinanet", coco_root, tmp_path, "--max-steps", 2, "--no-final-eval",
                  "--resume", check=False)  # fmt: skip
    assert proc.returncode != 0 and "fpn_channels" in proc.stderr, proc.stderr

    proc = pt.run("retinanet", coco_root, tmp_path / "r50", "--backbone", "resnet50",
                  "--fpn-channels", 64, "--max-steps", 1, check=False)  # fmt: skip
    assert proc.returncode != 0 and "--fpn-channels 64" in proc.stderr, proc.stderr


def test_anchor_sizes_set_each_pyramid_level(coco_root):
    from tensorcore.pipelines.common.errors import PipelineError

    default = retinanet_task(coco_root, "--backbone", "resnet18", "--fpn-channels", "16")
    assert default.model_config()["anchor_sizes"] is None  # older checkpoints still match
    sizes = default.build_model().anchor_generator.sizes
    assert [s[0] for s in sizes] == [32, 64, 128, 256, 512]

    task = retinanet_task(coco_root, "--backbone", "resnet18", "--fpn-channels", "16",
                          "--anchor-sizes", "16", "32", "64", "128", "256")  # fmt: skip
    assert task.model_config()["anchor_sizes"] == [16, 32, 64, 128, 256]
    gen = task.build_model().anchor_generator
    assert [s[0] for s in gen.sizes] == [16, 32, 64, 128, 256]
    assert gen.sizes[0] == (16, 20, 25)  # three scales per octave, as torchvision's 32 -> 40, 50
    square = gen.cell_anchors[0][3].tolist()  # ratio 1 (ratio-major order), scale 2^0
    assert square == [-8.0, -8.0, 8.0, 8.0]

    bad = retinanet_task(coco_root, "--backbone", "resnet18",
                         "--anchor-sizes", "0", "32", "64", "128", "256")  # fmt: skip
    with pytest.raises(PipelineError, match="--anchor-sizes"):
        bad.build_model()


def test_head_v2_adds_group_norm_and_giou_loss(coco_root):
    import tensorcore as tc
    from tensorcore.pipelines.common.errors import PipelineError

    v1 = retinanet_task(coco_root, "--backbone", "resnet18", "--fpn-channels", "32")
    assert v1.model_config()["head"] is None  # older checkpoints still match
    v1_head = v1.build_model().head
    assert not any(isinstance(m, tc.nn.GroupNorm) for m in v1_head.modules())
    assert v1_head.regression_head._loss_type == "l1"

    v2 = retinanet_task(coco_root, "--backbone", "resnet18", "--fpn-channels", "32",
                        "--head", "v2", "--anchor-sizes", "16", "32", "64", "128", "256")  # fmt: skip
    assert v2.model_config()["head"] == "v2"
    model = v2.build_model()
    norms = [m for m in model.head.modules() if isinstance(m, tc.nn.GroupNorm)]
    assert len(norms) == 8 and all(m.num_groups == 32 for m in norms)  # 4 per tower, 2 towers
    assert model.head.regression_head._loss_type == "giou"
    assert [s[0] for s in model.anchor_generator.sizes] == [16, 32, 64, 128, 256]

    # the v2 head trains: a step's losses are finite and its gradients reach the norms
    model.train()
    image = tc.rand(3, 64, 80)
    target = {"boxes": tc.tensor([[10.0, 12.0, 40.0, 50.0]]), "labels": tc.tensor([2])}
    losses = model([image], [target])
    assert all(bool(tc.isfinite(v)) for v in losses.values())
    (losses["classification"] + losses["bbox_regression"]).backward()
    assert norms[0].weight.grad is not None and float(norms[0].weight.grad.abs().sum()) > 0

    r50 = retinanet_task(coco_root, "--head", "v2")
    assert r50.build_model().head.regression_head._loss_type == "giou"

    odd = retinanet_task(coco_root, "--backbone", "resnet18", "--fpn-channels", "48",
                         "--head", "v2")  # fmt: skip
    with pytest.raises(PipelineError, match="multiple of 32"):
        odd.build_model()
