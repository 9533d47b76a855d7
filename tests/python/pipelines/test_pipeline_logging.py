"""What a run shows and leaves: the progress bar (loss, rate), TensorBoard event files read back
with TensorBoard's own EventAccumulator (scalars, learning rate, audio, images), the resolved
config, metrics.json and PNG plots; --resume continues the same event log."""

import json
import subprocess

import pytest

import pipeline_testing as pt


def _events(folder):
    accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator"
    ).EventAccumulator(str(folder), size_guidance={"scalars": 0, "audio": 0, "images": 0})
    accumulator.Reload()
    return accumulator


def test_progress_bar_tensorboard_config_and_plots(librimix_root, tmp_path):
    pytest.importorskip("tensorcore.utils.tensorboard")
    out = tmp_path / "out"
    cmd = [
        c
        for c in pt.command("convtasnet", librimix_root, out)
        if c not in ("--no-progress", "--no-tensorboard")
    ]
    cmd += ["--epochs", "2", "--eval-every", "1", "--log-every", "1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "epoch 2/2" in proc.stderr and "loss=" in proc.stderr and "batch/s" in proc.stderr
    assert "epoch 1: si_snr=" in proc.stdout

    events = _events(out / "tensorboard")
    tags = events.Tags()
    assert {"train/loss", "train/lr", "eval/si_snri", "eval/sdri"} <= set(tags["scalars"])
    losses = events.Scalars("train/loss")
    history = pt.load(out)["train"]["history"]["loss"]
    assert [e.step for e in losses] == [s for s, _ in history]
    assert [e.value for e in losses] == pytest.approx([v for _, v in history], rel=1e-6)
    assert [e.step for e in events.Scalars("eval/si_snri")] == [1, 2]
    assert {"example/mixture", "example/estimate1", "example/source2"} <= set(tags["audio"])

    config = json.loads((out / "config.json").read_text())
    assert config["pipeline"] == "convtasnet" and config["learning_rate"] == 3e-3
    assert config["model_config"]["msk_num_layers"] == 2 and config["train_items"] == 4
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["stop_reason"] == "finished" and metrics["epochs_completed"] == 2
    assert len(pt.load(out)["train"]["history"]["eval"]) == 2
    for png in ("curves.png", "examples.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # One more epoch on --resume: the event log continues at the checkpoint's step.
    proc = subprocess.run(
        cmd + ["--epochs", "3", "--resume"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    steps = [e.step for e in _events(out / "tensorboard").Scalars("eval/si_snri")]
    assert steps == [1, 2, 3]


def test_image_and_text_examples_of_wav2letter(librispeech_root, tmp_path):
    pytest.importorskip("tensorcore.utils.tensorboard")
    out = tmp_path / "out"
    cmd = [c for c in pt.command("wav2letter", librispeech_root, out) if c != "--no-tensorboard"]
    cmd += ["--epochs", "1", "--eval-every", "1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    tags = _events(out / "tensorboard").Tags()
    assert {"example/posteriors", "example/features"} <= set(tags["images"])
    assert "train/loss" in tags["scalars"] and "eval/cer" in tags["scalars"]
