"""Starts real worker processes on localhost for the distributed tests: each runs
`dist_workers.<name>(rank, world_size, init_method, *args)` in a fresh interpreter."""

import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker_env(extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([HERE] + sys.path)
    env["OMP_NUM_THREADS"] = "1"
    env.update(extra or {})
    return env


def start_workers(name, world_size, args=(), init_method=None, env=None, tmp_path=None):
    if init_method is None:
        init_method = f"tcp://127.0.0.1:{free_port()}"
    code = (
        "import sys, dist_workers; "
        f"dist_workers.{name}(int(sys.argv[1]), {world_size}, {init_method!r}, *{tuple(args)!r})"
    )
    procs = []
    for rank in range(world_size):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", code, str(rank)],
                env=worker_env(env),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    return procs


def collect(procs, timeout=60):
    deadline = time.monotonic() + timeout
    results = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            out, err = p.communicate()
            err += "\n[harness] worker timed out"
        results.append((p.returncode, out, err))
    return results


def run_workers(name, world_size, args=(), timeout=60, **kw):
    """Runs the workers and fails with every rank's stderr when one of them fails."""
    results = collect(start_workers(name, world_size, args, **kw), timeout)
    bad = [(r, res) for r, res in enumerate(results) if res[0] != 0]
    if bad:
        msg = "\n".join(f"--- rank {r} (exit {res[0]}):\n{res[2][-3000:]}" for r, res in bad)
        raise AssertionError(f"{len(bad)} of {world_size} workers failed:\n{msg}")
    return [res[1] for res in results]
