"""Multi-process training through the launcher (python -m tensorcore.distributed.run) with real
worker processes on localhost: two ranks of batch B step like one process of batch 2B, only rank 0
writes, a stop that only one rank sees ends every rank (no hang), and --resume works."""

import json
import os
import signal
import subprocess
import sys
import time

import pipeline_testing as pt
import pytest

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore.pipelines.common.data import EpochBatchSampler

HERE = os.path.dirname(os.path.abspath(__file__))
# ConvTasNet: GroupNorm, no BatchNorm, so the 2 x B run equals the 1 x 2B run; 8 items, 2 steps
# per epoch at the global batch of 4 (the runs cross an epoch boundary)
ARGS = ("--max-train-items", 8, "--max-eval-items", 2)

needs_gloo = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without Gloo")


def _batch_args(cmd, batch):
    cmd = list(cmd)
    cmd[cmd.index("--batch-size") + 1] = str(batch)  # TINY's value comes first: replace it
    return cmd


def launch(data_root, out, *extra, batch=2, script=None, env=None):
    """Popen of the launcher running convtasnet on 2 processes, --batch-size per process."""
    args = _batch_args(pt.command("convtasnet", data_root, out, *ARGS, *extra), batch)[3:]
    target = ["-m", "tensorcore.pipelines.convtasnet"] if script is None else [script, "convtasnet"]
    cmd = [sys.executable, "-m", "tensorcore.distributed.run", "--standalone",
           "--nproc_per_node", "2", *target, *args]  # fmt: skip
    return subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def finish(proc, timeout=120):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)  # the launcher stops its workers on SIGINT
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        raise AssertionError(f"the launcher hung:\n{out}\n{err[-4000:]}") from None
    return proc.returncode, out, err


def _model_close(a, b):
    assert sorted(a) == sorted(b)
    for name in a:
        assert tc.allclose(a[name], b[name], rtol=1e-4, atol=1e-6), f"parameter {name} differs"


def test_sampler_shards_like_distributed_sampler_and_keeps_ranks_in_step():
    # 10 items over 3 ranks: padded to 12 by repeating the order's first items, rank r takes
    # order[r::3]; the ranks' first batches of 2 together are the first 6 items of the order
    order = EpochBatchSampler(10, 10, seed=4).batches(0)[0]
    padded = order + order[:2]
    shards = [EpochBatchSampler(10, 2, seed=4, rank=r, world_size=3) for r in range(3)]
    for r, s in enumerate(shards):
        assert [i for b in s.batches(0) for i in b] == padded[r::3]
    assert sorted(i for s in shards for i in s.batches(0)[0]) == sorted(order[:6])
    # grouping per rank can give ranks different batch counts: the shorter ones repeat batches
    groups = [0, 1] * 8
    counts = []
    for r in range(2):
        s = EpochBatchSampler(16, 3, seed=1, group_ids=groups, rank=r, world_size=2)
        for b in s.batches(0):
            assert len({groups[i] for i in b}) == 1
        counts.append([len(s.batches(e)) for e in range(6)])
    assert counts[0] == counts[1]
    with pytest.raises(Exception, match="out of range"):
        EpochBatchSampler(10, 2, seed=0, rank=2, world_size=2)


@needs_gloo
def test_two_processes_step_like_one_process_of_twice_the_batch(librimix_root, tmp_path):
    steps = 5  # 2 steps per epoch: crosses two epoch boundaries, ends mid-epoch
    single = tmp_path / "single"
    pt.run("convtasnet", librimix_root, single, *ARGS, "--max-steps", steps,
           "--batch-size", 4, "--no-final-eval")  # fmt: skip
    code, out, err = finish(
        launch(librimix_root, tmp_path / "ddp", "--max-steps", steps, "--no-final-eval")
    )
    assert code == 0, err[-4000:]
    a, b = pt.load(single), pt.load(tmp_path / "ddp")
    assert a["train"]["step"] == b["train"]["step"] == steps
    assert a["train"]["epoch"] == b["train"]["epoch"] == 2
    assert a["train"]["batch_in_epoch"] == b["train"]["batch_in_epoch"] == 1
    _model_close(a["model"], b["model"])
    # the logged loss is the mean over ranks: the loss of the global batch
    la = [v for _, v in a["train"]["history"]["loss"]]
    lb = [v for _, v in b["train"]["history"]["loss"]]
    assert lb == pytest.approx(la, rel=1e-4)
    assert b["world_size"] == 2 and len(b["rng_ranks"]) == 2
    config = json.loads((tmp_path / "ddp" / "config.json").read_text())
    assert config["world_size"] == 2 and config["global_batch_size"] == 4
    assert config["dist_backend"] == "gloo" and config["batches_per_epoch"] == 2


@needs_gloo
def test_only_rank_0_writes_and_resume_continues_on_every_rank(librimix_root, tmp_path):
    audit = tmp_path / "audit"
    audit.mkdir()
    script = os.path.join(HERE, "audited_pipeline.py")
    out = tmp_path / "run"
    env = {"AUDIT_DIR": str(audit)}
    code, stdout, err = finish(launch(librimix_root, out, "--max-steps", 2,
                                      "--checkpoint-every-steps", 1, "--no-final-eval",
                                      script=script, env=env))  # fmt: skip
    assert code == 0, err[-4000:]
    first = json.loads((audit / "rank0.json").read_text())
    assert json.loads((audit / "rank1.json").read_text()) == []
    assert any("checkpoint.safetensors" in w for w in first) and any(
        "config.json" in w for w in first
    ), first
    # --resume: both ranks load the checkpoint and go on from its step; with a final
    # evaluation (rank 0 evaluates, rank 1 waits) and TensorBoard, still only rank 0 writes
    code, stdout, err = finish(launch(librimix_root, out, "--max-steps", 3, "--resume",
                                      script=script, env=env))  # fmt: skip
    assert code == 0, err[-4000:]
    assert json.loads((audit / "rank1.json").read_text()) == []
    writes = json.loads((audit / "rank0.json").read_text())
    assert any("metrics.json" in w for w in writes) and any("examples.png" in w for w in writes)
    assert pt.load(out)["train"]["step"] == 3
    assert json.loads((out / "metrics.json").read_text())["steps"] == 3
    assert stdout.count("si_snri=") == 1  # the metrics are printed once, by rank 0

    # the same 3 steps without the stop and resume
    straight = tmp_path / "straight"
    code, _, err = finish(launch(librimix_root, straight, "--max-steps", 3, "--no-final-eval"))
    assert code == 0, err[-4000:]
    pt.assert_same_training_state(pt.load(straight), pt.load(out))


@needs_gloo
def test_a_signal_to_one_rank_stops_both_at_the_same_step(librimix_root, tmp_path):
    audit = tmp_path / "audit"
    audit.mkdir()
    out = tmp_path / "run"
    proc = launch(librimix_root, out, "--max-steps", 1000, "--checkpoint-every-steps", 1,
                  script=os.path.join(HERE, "audited_pipeline.py"),
                  env={"AUDIT_DIR": str(audit)})  # fmt: skip
    deadline = time.monotonic() + 60
    while pt.checkpoint_step(out) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1][-4000:]
    os.kill(int((audit / "pid1").read_text()), signal.SIGTERM)  # rank 1 only
    t0 = time.monotonic()
    code, stdout, err = finish(proc, timeout=60)
    assert time.monotonic() - t0 < 30
    # both ranks exit 130 (interrupted); to the launcher that is a failed worker
    assert code != 0
    assert "exited with code 130" in err, err[-4000:]
    step = pt.load(out)["train"]["step"]
    assert f"interrupted at step {step}; resume with --resume" in stdout, stdout
    # the agreed stop left a consistent checkpoint: resuming on both ranks continues from it
    code, _, err = finish(launch(librimix_root, out, "--resume", "--max-steps", step + 1,
                                 "--no-final-eval"))  # fmt: skip
    assert code == 0, err[-4000:]
    assert pt.load(out)["train"]["step"] == step + 1


@needs_gloo
def test_resume_with_another_world_size_mid_epoch_is_refused(librimix_root, tmp_path):
    out = tmp_path / "run"
    code, _, err = finish(launch(librimix_root, out, "--max-steps", 1, "--no-final-eval"))
    assert code == 0, err[-4000:]
    proc = pt.run("convtasnet", librimix_root, out, *ARGS, "--resume", "--max-steps", 2,
                  check=False)  # fmt: skip
    assert proc.returncode == 2
    assert "written mid-epoch by a run of 2 process(es)" in proc.stderr, proc.stderr


@needs_gloo
def test_a_batch_of_unreadable_files_on_one_rank_skips_the_step_on_both(broken_corpus, tmp_path):
    # batch 1 per rank: the rank that draws the broken item has nothing to train on, so
    # neither rank steps (the other would wait in DDP's all-reduce)
    root, name = broken_corpus
    args = _batch_args(pt.command("wav2letter", root, tmp_path / "out", "--max-steps", 3,
                                  "--on-bad-file", "skip", "--no-final-eval"), 1)[3:]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "tensorcore.distributed.run", "--standalone", "--nproc_per_node",
         "2", "-m", "tensorcore.pipelines.wav2letter", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    code, _, err = finish(proc)
    assert code == 0, err[-4000:]
    assert "skipped item 1" in err and name in err
    ckpt = pt.load(tmp_path / "out")
    assert ckpt["train"]["step"] == 3
    # 4 items, 2 batch positions per epoch, item 1 in one of them each epoch
    positions = 2 * ckpt["train"]["epoch"] + ckpt["train"]["batch_in_epoch"]
    assert ckpt["train"]["skipped_items"] == positions - 3 >= 1


def test_distributed_setup_errors_are_one_clear_line(librimix_root, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "MASTER_PORT")}
    cmd = pt.command("convtasnet", librimix_root, tmp_path / "out", "--max-steps", 1)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                          env={**env, "WORLD_SIZE": "2", "RANK": "0"})  # fmt: skip
    assert proc.returncode == 2
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: WORLD_SIZE=2: cannot join the process group") and (
        "MASTER_ADDR" in last
    ), proc.stderr
    for extra, message in [
        (("--dist-backend", "nccl", "--device", "cpu"), "--dist-backend nccl needs CUDA"),
        (("--dist-timeout", "0"), "--dist-timeout must be positive"),
    ]:
        proc = subprocess.run(cmd + list(extra), capture_output=True, text=True, timeout=60,
                              env={**env, "WORLD_SIZE": "2", "RANK": "0"})  # fmt: skip
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
