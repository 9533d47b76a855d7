"""Shared helpers of the pipeline tests: run a pipeline as a real subprocess, kill it, compare
checkpoints bit for bit."""

import os
import signal
import subprocess
import sys
import time

import tensorcore as tc

CHECKPOINT = "checkpoint.safetensors"

# Tiny settings per pipeline: a handful of items, minute models, no progress bar.
TINY = {
    "wav2letter": [
        "--hidden-channels", "16", "--wide-channels", "32", "--batch-size", "4",
        "--max-train-items", "4", "--max-eval-items", "2", "--optimizer", "adam",
        "--learning-rate", "3e-3", "--scheduler", "none", "--beam-width", "4",
        "--freq-mask", "2", "--time-mask", "5",
    ],
    "wavernn": [
        "--sample-rate", "8000", "--n-fft", "128", "--win-length", "128", "--hop-length", "16",
        "--upsample-scales", "4", "4", "--n-freq", "20", "--f-min", "0", "--f-max", "4000",
        "--n-rnn", "32", "--n-fc", "32", "--n-res-block", "1", "--n-hidden-resblock", "16",
        "--n-output-melresnet", "16", "--seq-len-factor", "4", "--batch-size", "4",
        "--max-train-items", "4", "--learning-rate", "3e-3", "--max-eval-items", "1",
        "--eval-seconds", "0.1", "--griffin-lim-iters", "4",
    ],
    "convtasnet": [
        "--train-subset", "train-100", "--enc-num-feats", "16", "--msk-num-feats", "8",
        "--msk-num-hidden-feats", "16", "--msk-num-layers", "2", "--msk-num-stacks", "1",
        "--crop-length", "0.25", "--batch-size", "4", "--max-train-items", "4",
        "--max-eval-items", "2", "--learning-rate", "3e-3",
    ],
    "retinanet": [
        "--backbone", "resnet18", "--min-size", "64", "--max-size", "64", "--batch-size", "2",
        "--max-train-items", "2", "--max-eval-items", "2", "--optimizer", "adam",
        "--learning-rate", "1e-3", "--warmup-iters", "2", "--scheduler", "none",
    ],
}  # fmt: skip


def command(pipeline, data_root, output_dir, *extra):
    return [
        sys.executable, "-m", f"tensorcore.pipelines.{pipeline}", "--data-root", str(data_root),
        "--output-dir", str(output_dir), "--no-progress", "--no-tensorboard", "--epochs", "1000",
        "--eval-every", "1000", "--threads", "1", *TINY[pipeline], *[str(e) for e in extra],
    ]  # fmt: skip


def run(pipeline, data_root, output_dir, *extra, check=True, timeout=300):
    proc = subprocess.run(
        command(pipeline, data_root, output_dir, *extra),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{pipeline} exited with {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    return proc


def load(output_dir):
    return tc.load(os.path.join(str(output_dir), CHECKPOINT))


def checkpoint_step(output_dir):
    try:
        return load(output_dir)["train"]["step"]
    except (OSError, RuntimeError, KeyError):
        return -1


def run_and_kill(pipeline, data_root, output_dir, kill_after_step, *extra, timeout=300):
    """Starts a run that checkpoints every step, SIGKILLs it once a checkpoint past
    kill_after_step exists, and returns the step of the checkpoint it left."""
    proc = subprocess.Popen(
        command(pipeline, data_root, output_dir, "--checkpoint-every-steps", 1, *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + timeout
    try:
        while checkpoint_step(output_dir) < kill_after_step:
            if proc.poll() is not None:
                out, err = proc.communicate()
                raise AssertionError(f"the run ended before it was killed:\n{out}\n{err}")
            if time.monotonic() > deadline:
                raise AssertionError("no checkpoint appeared in time")
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    return checkpoint_step(output_dir)


def assert_same_training_state(a, b):
    """Model, optimizer, schedule, loop position and loss history identical, bit for bit."""
    assert a["train"]["step"] == b["train"]["step"]
    assert a["train"]["epoch"] == b["train"]["epoch"]
    assert a["train"]["batch_in_epoch"] == b["train"]["batch_in_epoch"]
    assert a["train"]["history"]["loss"] == b["train"]["history"]["loss"]
    assert sorted(a["model"]) == sorted(b["model"])
    for name in a["model"]:
        assert tc.equal(a["model"][name], b["model"][name]), f"parameter {name} differs"
    _assert_equal_tree(a["optimizer"], b["optimizer"], "optimizer")
    assert a["schedule"] == b["schedule"]
    assert tc.equal(a["rng"]["tensorcore"], b["rng"]["tensorcore"])


def _assert_equal_tree(x, y, path):
    if isinstance(x, tc.Tensor):
        assert tc.equal(x, y), f"{path} differs"
    elif isinstance(x, dict):
        assert sorted(x, key=str) == sorted(y, key=str), f"{path}: keys differ"
        for k in x:
            _assert_equal_tree(x[k], y[k], f"{path}.{k}")
    elif isinstance(x, (list, tuple)):
        assert len(x) == len(y), f"{path}: lengths differ"
        for i, (u, v) in enumerate(zip(x, y)):
            _assert_equal_tree(u, v, f"{path}[{i}]")
    else:
        assert x == y, f"{path}: {x!r} != {y!r}"


def check_pipeline(pipeline, data_root, tmp_path, steps=8, stop_at=3):
    """The test every pipeline gets: a run stopped by --max-steps, resumed, SIGKILLed mid-run
    and resumed again ends bit-identical to an uninterrupted run of as many steps, whose loss
    falls and which leaves its config, metrics and plots."""
    resumed = tmp_path / "resumed"
    run(pipeline, data_root, resumed, "--max-steps", stop_at, "--no-final-eval")
    assert load(resumed)["train"]["step"] == stop_at
    killed_at = run_and_kill(pipeline, data_root, resumed, stop_at + 1, "--resume",
                             "--max-steps", 1000)  # fmt: skip
    assert killed_at >= stop_at + 1
    steps = max(steps, killed_at + 2)  # the kill lands where it lands; compare past it
    run(pipeline, data_root, resumed, "--resume", "--max-steps", steps, "--no-final-eval")

    straight = tmp_path / "straight"
    proc = run(pipeline, data_root, straight, "--max-steps", steps)
    reference = load(straight)
    losses = [v for _, v in reference["train"]["history"]["loss"]]
    assert len(losses) == steps
    assert min(losses[-2:]) < losses[0], f"the loss did not fall: {losses}"
    for name in ("config.json", "metrics.json", "curves.png", "examples.png"):
        assert (straight / name).exists(), name
    assert_same_training_state(reference, load(resumed))
    return proc
