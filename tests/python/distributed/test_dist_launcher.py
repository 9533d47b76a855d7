"""python -m tensorcore.distributed.run: a worker failure restarts the group (which resumes from
its checkpoint), the final failure report names the rank and its error, and two launcher
invocations with --nnodes=2 form one job on localhost."""

import json
import os
import subprocess
import sys
import time

import pytest
from dist_harness import HERE, free_port, worker_env

import tensorcore.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without Gloo")

SCRIPT = os.path.join(HERE, "launch_script.py")


def _launcher(*flags, out_dir, mode):
    cmd = [sys.executable, "-m", "tensorcore.distributed.run", *flags, SCRIPT, str(out_dir), mode]
    return subprocess.Popen(
        cmd, env=worker_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _done(out_dir, rank):
    with open(os.path.join(out_dir, f"done_rank{rank}.json")) as f:
        return json.load(f)


def test_restart_resumes_from_checkpoint(tmp_path):
    p = _launcher("--standalone", "--nproc_per_node", "2", "--max_restarts", "1",
                  "--log_dir", str(tmp_path / "logs"), out_dir=tmp_path, mode="train")  # fmt: skip
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err[-3000:]
    assert "injected failure" in err and "restarting (1 restart(s) left)" in err, err[-3000:]
    for rank in (0, 1):
        info = _done(tmp_path, rank)
        assert info["restart"] == 1 and info["start"] == 2, info  # resumed after step 1
        assert info["env"]["LOCAL_RANK"] == str(rank) and info["env"]["LOCAL_WORLD_SIZE"] == "2"


def test_failure_report_names_rank_and_error(tmp_path):
    t0 = time.monotonic()
    p = _launcher("--standalone", "--nproc_per_node", "2", "--log_dir", str(tmp_path / "logs"),
                  out_dir=tmp_path, mode="fail")  # fmt: skip
    out, err = p.communicate(timeout=60)
    assert p.returncode == 1, err[-3000:]
    assert time.monotonic() - t0 < 25, "the surviving worker was not stopped"
    assert "launch_script.py FAILED" in err and "Root Cause" in err, err[-3000:]
    assert "rank      : 1 (local_rank: 1)" in err, err[-3000:]
    assert "ValueError: rank 1 always fails" in err, err[-3000:]


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_workers_stop_when_the_launcher_is_killed(tmp_path, how):
    # SIGTERM/SIGHUP: the launcher stops its workers; SIGKILL: the kernel signals them
    # (PR_SET_PDEATHSIG), since they live in their own sessions and would otherwise run on.
    import signal

    p = _launcher("--standalone", "--nproc_per_node", "2", out_dir=tmp_path, mode="wait")
    deadline = time.monotonic() + 60
    while not all(os.path.exists(tmp_path / f"up_rank{r}") for r in (0, 1)):
        assert p.poll() is None and time.monotonic() < deadline, p.communicate()[1][-3000:]
        time.sleep(0.1)
    p.send_signal(getattr(signal, how))
    p.communicate(timeout=30)
    deadline = time.monotonic() + 15
    while not all(os.path.exists(tmp_path / f"term_rank{r}") for r in (0, 1)):
        assert time.monotonic() < deadline, f"workers still running after the launcher's {how}"
        time.sleep(0.1)


def test_two_nodes_on_localhost(tmp_path):
    port = free_port()
    common = ["--nnodes", "2", "--nproc_per_node", "1", "--master_addr", "127.0.0.1",
              "--master_port", str(port), "--max_restarts", "1", "--rdzv_id", "job2"]  # fmt: skip
    nodes = [
        _launcher(
            *common,
            "--node_rank",
            str(n),
            "--log_dir",
            str(tmp_path / f"logs{n}"),
            out_dir=tmp_path,
            mode="train",
        )  # fmt: skip
        for n in (0, 1)
    ]
    results = [p.communicate(timeout=120) for p in nodes]
    for p, (out, err) in zip(nodes, results):
        assert p.returncode == 0, err[-3000:]
    for rank in (0, 1):
        info = _done(tmp_path, rank)
        assert info["env"]["GROUP_RANK"] == str(rank) and info["restart"] == 1, info


def test_bad_flags():
    r = subprocess.run(
        [sys.executable, "-m", "tensorcore.distributed.run", "--nnodes", "1:4", SCRIPT],
        env=worker_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2 and "elastic node ranges" in r.stderr, r.stderr
