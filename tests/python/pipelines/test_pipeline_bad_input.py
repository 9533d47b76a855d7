"""Bad input to the pipelines: a broken corpus file mid-epoch, a truncated checkpoint, a
checkpoint of another pipeline or model configuration, an unwritable output folder, a
non-finite loss. Each gives one clear line and exit status 2; no checkpoint is ever replaced by
a partial one."""

import json
import os
import subprocess
import sys
import threading

import pytest

import pipeline_testing as pt
import tensorcore as tc


def test_broken_file_stops_the_run_naming_it(broken_corpus, tmp_path):
    root, name = broken_corpus
    proc = pt.run("wav2letter", root, tmp_path / "out", "--max-steps", 4, check=False)
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: item 1 of the corpus could not be read")
    assert name in last and "--on-bad-file skip" in last


def test_broken_file_is_skipped_and_counted(broken_corpus, tmp_path):
    root, name = broken_corpus
    out = tmp_path / "out"
    proc = pt.run("wav2letter", root, out, "--max-steps", 2, "--on-bad-file", "skip")
    assert "skipped item 1" in proc.stderr and name in proc.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["skipped_items"] == 1
    assert pt.load(out)["train"]["skipped_items"] == 1


def test_truncated_checkpoint_is_refused(librimix_root, tmp_path):
    out = tmp_path / "out"
    pt.run("convtasnet", librimix_root, out, "--max-steps", 1, "--no-final-eval")
    path = out / pt.CHECKPOINT
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    proc = pt.run("convtasnet", librimix_root, out, "--resume", "--max-steps", 2, check=False)
    assert proc.returncode == 2
    assert "not a readable checkpoint (truncated or corrupt file" in proc.stderr
    assert str(path) in proc.stderr
    assert path.read_bytes() == data[: len(data) // 2]  # left as it was for the user to inspect


def test_checkpoint_of_another_pipeline_or_model_is_refused(librimix_root, tmp_path):
    out = tmp_path / "out"
    pt.run("convtasnet", librimix_root, out, "--max-steps", 1, "--no-final-eval")
    before = (out / pt.CHECKPOINT).read_bytes()
    proc = pt.run("wav2letter", librimix_root, out, "--resume", check=False)
    # wav2letter fails on the corpus first (LibriMix has no LibriSpeech layout) or on the
    # checkpoint; either way the message is one clear line and the checkpoint stays.
    assert proc.returncode == 2
    proc = pt.run("convtasnet", librimix_root, out, "--resume", "--msk-num-layers", 3, check=False)
    assert proc.returncode == 2
    assert (
        "checkpoint of another model configuration (msk_num_layers: checkpoint 2 vs now 3)"
        in proc.stderr
    )
    assert (out / pt.CHECKPOINT).read_bytes() == before


def test_checkpoint_of_another_pipeline_names_it(librispeech_root, librimix_root, tmp_path):
    out = tmp_path / "out"
    pt.run("convtasnet", librimix_root, out, "--max-steps", 1, "--no-final-eval")
    proc = pt.run("wav2letter", librispeech_root, out, "--resume", check=False)
    assert proc.returncode == 2
    assert (
        "checkpoint of the 'convtasnet' pipeline, but this is the 'wav2letter' pipeline"
        in proc.stderr
    )


def test_unwritable_output_dir(librimix_root, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    proc = pt.run("convtasnet", librimix_root, blocker / "out", check=False)
    assert proc.returncode == 2
    assert f"--output-dir {blocker / 'out'}: cannot write there" in proc.stderr

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    cmd = pt.command("convtasnet", librimix_root, locked / "out")
    kwargs = {}
    if os.geteuid() == 0:  # root writes anywhere: run as nobody
        kwargs["user"] = 65534
        os.chmod(tmp_path, 0o755)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kwargs)
    assert proc.returncode == 2, proc.stderr
    assert "cannot write there (Permission denied)" in proc.stderr
    assert not (locked / "out").exists()


def test_non_finite_loss_stops_with_a_clear_message(librimix_root, tmp_path):
    out = tmp_path / "out"
    pt.run("convtasnet", librimix_root, out, "--max-steps", 1, "--no-final-eval")
    ckpt = pt.load(out)
    name = "encoder.weight"
    ckpt["model"][name] = tc.full_like(ckpt["model"][name], float("nan"))
    tc.save(ckpt, str(out / pt.CHECKPOINT))
    proc = pt.run("convtasnet", librimix_root, out, "--resume", "--max-steps", 3, check=False)
    assert proc.returncode == 2
    assert "error: the training loss is nan at epoch 2, step 2; stopping" in proc.stderr
    assert "The last checkpoint" in proc.stderr and "step 1) is kept" in proc.stderr
    assert pt.load(out)["train"]["step"] == 1  # nothing past the last finite step was saved


def test_failed_checkpoint_write_keeps_the_previous_one(tmp_path):
    sys.path.insert(0, os.path.dirname(__file__))
    from tensorcore.pipelines.common import checkpoint
    from tensorcore.pipelines.common.errors import PipelineError

    path = str(tmp_path / "ckpt.safetensors")
    checkpoint.save({"format": checkpoint.FORMAT, "x": tc.ones(3)}, path)
    before = open(path, "rb").read()
    with pytest.raises(TypeError):  # fails while serializing: nothing is written
        checkpoint.save({"x": threading.Lock()}, path)
    os.chmod(tmp_path, 0o555)
    try:
        if os.geteuid() != 0:
            with pytest.raises(PipelineError, match="cannot write"):
                checkpoint.save({"x": tc.zeros(3)}, path)
    finally:
        os.chmod(tmp_path, 0o755)
    assert open(path, "rb").read() == before
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]  # no temporary file left


def test_init_weights_load_and_weights_of_another_model_are_refused(librimix_root, tmp_path):
    first = tmp_path / "first"
    pt.run("convtasnet", librimix_root, first, "--max-steps", 1, "--no-final-eval")
    trained = pt.load(first)["model"]
    second = tmp_path / "second"
    pt.run("convtasnet", librimix_root, second, "--max-steps", 1, "--no-final-eval",
           "--learning-rate", 1e-30, "--optimizer", "sgd", "--init-weights", first / pt.CHECKPOINT)  # fmt: skip
    started = pt.load(second)["model"]  # one step at lr 1e-30 leaves the loaded weights
    assert all(tc.allclose(started[k].float(), trained[k].float(), atol=1e-20) for k in trained)

    proc = pt.run("convtasnet", librimix_root, tmp_path / "third", "--msk-num-feats", 12,
                  "--init-weights", first / pt.CHECKPOINT, check=False)  # fmt: skip
    assert proc.returncode == 2
    assert "weights of another model (shape mismatch" in proc.stderr
