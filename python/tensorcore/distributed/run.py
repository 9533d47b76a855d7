"""`python -m tensorcore.distributed.run` (torchrun): starts --nproc_per_node workers on each of
--nnodes machines with torch's environment (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, ...),
restarts the whole worker group when a worker fails (up to --max_restarts), and reports which
rank failed and why. The agents of the nodes meet in a TCPStore at --rdzv_endpoint (or
--master_addr:--master_port); node 0 hosts it."""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from datetime import datetime, timedelta

from .. import _C

_D = _C._distributed


def get_args_parser():
    p = argparse.ArgumentParser(
        prog="python -m tensorcore.distributed.run",
        description="Distributed training launcher (torchrun's flags)",
    )
    p.add_argument("--nnodes", type=str, default=None, help="number of nodes, or MIN:MAX")
    p.add_argument("--nproc_per_node", "--nproc-per-node", type=str, default="1")
    p.add_argument("--node_rank", "--node-rank", type=int, default=None)
    p.add_argument("--master_addr", "--master-addr", type=str, default=None)
    p.add_argument("--master_port", "--master-port", type=int, default=None)
    p.add_argument("--rdzv_endpoint", "--rdzv-endpoint", type=str, default="")
    p.add_argument("--rdzv_backend", "--rdzv-backend", type=str, default="static")
    p.add_argument("--rdzv_id", "--rdzv-id", type=str, default="none")
    p.add_argument("--rdzv_conf", "--rdzv-conf", type=str, default="")
    p.add_argument("--standalone", action="store_true", help="single node, free local port")
    p.add_argument("--max_restarts", "--max-restarts", type=int, default=0)
    p.add_argument("--monitor_interval", "--monitor-interval", type=float, default=0.1)
    p.add_argument("--start_method", "--start-method", type=str, default="spawn")
    p.add_argument("--role", type=str, default="default")
    p.add_argument("--log_dir", "--log-dir", type=str, default=None)
    p.add_argument("--redirects", "-r", type=str, default="0")
    p.add_argument("--tee", "-t", type=str, default="0")
    p.add_argument("--module", "-m", action="store_true", help="run the script as a module")
    p.add_argument("--no_python", "--no-python", action="store_true")
    p.add_argument("--rdzv_timeout", type=float, default=300.0, help="seconds to wait for nodes")
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _parse_nnodes(value):
    if value is None:
        return int(os.environ.get("SLURM_NNODES", "1"))
    lo, _, hi = value.partition(":")
    if hi and int(lo) != int(hi):
        raise ValueError(
            f"--nnodes={value}: elastic node ranges are not supported; give a fixed count (N or N:N)"
        )
    n = int(lo)
    if n < 1:
        raise ValueError(f"--nnodes must be at least 1, got {value}")
    return n


def _parse_nproc(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    if value == "gpu":
        from .. import cuda

        return max(cuda.device_count(), 1)
    n = int(value)
    if n < 1:
        raise ValueError(f"--nproc_per_node must be at least 1, got {value}")
    return n


class _Config:
    def __init__(self, args):
        self.args = args
        self.nnodes = _parse_nnodes(args.nnodes)
        self.nproc = _parse_nproc(args.nproc_per_node)
        node_rank = args.node_rank
        if node_rank is None:
            # Under Slurm (srun starts one launcher per node) the node index comes from Slurm.
            node_rank = int(os.environ.get("SLURM_NODEID", os.environ.get("GROUP_RANK", 0)))
        if not 0 <= node_rank < self.nnodes:
            raise ValueError(f"--node_rank {node_rank} is out of range for --nnodes {self.nnodes}")
        self.node_rank = node_rank
        if args.standalone:
            host, port = "127.0.0.1", _free_port()
        elif args.rdzv_endpoint:
            host, _, port = args.rdzv_endpoint.rpartition(":")
            if not host:
                host, port = args.rdzv_endpoint, "29400"
            port = int(port)
        else:
            host = args.master_addr or os.environ.get("MASTER_ADDR", "127.0.0.1")
            port = args.master_port or int(os.environ.get("MASTER_PORT", 29500))
        self.rdzv_host, self.rdzv_port = host, port
        self.master_addr = args.master_addr or host
        self.run_id = args.rdzv_id if args.rdzv_id != "none" else uuid.uuid4().hex[:8]


class _Failure:
    def __init__(self, rank, local_rank, pid, exitcode, error_file):
        self.rank, self.local_rank, self.pid, self.exitcode = rank, local_rank, pid, exitcode
        self.host = socket.gethostname()
        self.time = datetime.now().strftime("%Y-%m-%d_%H:%M:%S")
        self.message = ""
        self.traceback = ""
        if error_file and os.path.exists(error_file):
            try:
                with open(error_file) as f:
                    data = json.load(f)["message"]
                self.message = data.get("message", "")
                self.traceback = data.get("extraInfo", {}).get("py_callstack", "")
            except (OSError, ValueError, KeyError):
                pass
        self.error_file = error_file

    def exit_description(self):
        if self.exitcode < 0:
            try:
                name = signal.Signals(-self.exitcode).name
            except ValueError:
                name = f"signal {-self.exitcode}"
            return f"{self.exitcode} (pid: {self.pid}) [killed by {name}]"
        return f"{self.exitcode} (pid: {self.pid})"

    def encode(self):
        return json.dumps(self.__dict__)

    @classmethod
    def decode(cls, text):
        f = cls.__new__(cls)
        f.__dict__.update(json.loads(text))
        return f


def _report(script, failures):
    bar = "=" * 60
    lines = [bar, f"{script} FAILED", "-" * 60, "Failures:"]
    if len(failures) > 1:
        for i, f in enumerate(failures[1:], 1):
            lines += [f"[{i}]:", f"  rank      : {f.rank} (local_rank: {f.local_rank})",
                      f"  exitcode  : {f.exit_description()}"]  # fmt: skip
    else:
        lines.append("  <NO_OTHER_FAILURES>")
    root = failures[0]
    lines += [
        "-" * 60,
        "Root Cause (first observed failure):",
        "[0]:",
        f"  time      : {root.time}",
        f"  host      : {root.host}",
        f"  rank      : {root.rank} (local_rank: {root.local_rank})",
        f"  exitcode  : {root.exit_description()}",
        f"  error_file: {root.error_file or '<N/A>'}",
        f"  error     : {root.message or '<N/A> (see the worker output above)'}",
    ]
    if root.traceback:
        lines.append("  traceback :")
        lines += ["    " + t for t in root.traceback.rstrip().splitlines()]
    lines.append(bar)
    print("\n".join(lines), file=sys.stderr, flush=True)


class _Agent:
    def __init__(self, cfg):
        self.cfg = cfg
        self.store = None
        self.workers = []
        self.error_dir = os.path.join(
            cfg.args.log_dir or os.path.join("/tmp", "tensorcore_elastic"), cfg.run_id,
            f"node{cfg.node_rank}",
        )  # fmt: skip
        os.makedirs(self.error_dir, exist_ok=True)

    def _connect(self):
        cfg = self.cfg
        timeout = timedelta(seconds=cfg.args.rdzv_timeout)
        self.store = _D.PrefixStore(
            f"tc_agent/{cfg.run_id}",
            _D.TCPStore(
                cfg.rdzv_host, cfg.rdzv_port, cfg.nnodes, cfg.node_rank == 0, timeout, False
            ),
        )

    def _meet(self, round_no):
        """All nodes join round `round_no`; node 0 picks the workers' master port."""
        s, cfg = self.store, self.cfg
        if s.add(f"r{round_no}/joined", 1) == cfg.nnodes:
            s.set(f"r{round_no}/all_joined", "1")
        s.wait([f"r{round_no}/all_joined"])
        if cfg.node_rank == 0:
            s.set(f"r{round_no}/master", f"{cfg.master_addr}:{_free_port()}")
        addr, _, port = s.get(f"r{round_no}/master").decode().rpartition(":")
        return addr, int(port)

    def _start(self, round_no, master_addr, master_port):
        cfg, args = self.cfg, self.cfg.args
        world = cfg.nnodes * cfg.nproc
        self.workers = []
        die_with_launcher = _die_with(os.getpid())
        for local_rank in range(cfg.nproc):
            rank = cfg.node_rank * cfg.nproc + local_rank
            error_file = os.path.join(self.error_dir, f"r{round_no}_rank{rank}.json")
            if os.path.exists(error_file):
                os.remove(error_file)
            env = dict(os.environ)
            env.update(
                RANK=str(rank), LOCAL_RANK=str(local_rank), WORLD_SIZE=str(world),
                LOCAL_WORLD_SIZE=str(cfg.nproc), GROUP_RANK=str(cfg.node_rank),
                GROUP_WORLD_SIZE=str(cfg.nnodes), ROLE_RANK=str(rank), ROLE_WORLD_SIZE=str(world),
                ROLE_NAME=args.role, MASTER_ADDR=master_addr, MASTER_PORT=str(master_port),
                TORCHELASTIC_RESTART_COUNT=str(round_no),
                TORCHELASTIC_MAX_RESTARTS=str(args.max_restarts),
                TORCHELASTIC_RUN_ID=cfg.run_id, TORCHELASTIC_ERROR_FILE=error_file,
            )  # fmt: skip
            if cfg.nproc > 1 and "OMP_NUM_THREADS" not in os.environ:
                env["OMP_NUM_THREADS"] = "1"  # torchrun's default: workers share the cores
            if args.no_python:
                cmd = [args.training_script] + args.training_script_args
            else:
                entry = [sys.executable, "-u", "-m", "tensorcore.distributed._worker_entry"]
                cmd = entry + (["-m"] if args.module else []) + [args.training_script]
                cmd += args.training_script_args
            # Own sessions: a Ctrl-C reaches the launcher alone, which stops them in order.
            proc = subprocess.Popen(
                cmd, env=env, start_new_session=True, preexec_fn=die_with_launcher
            )
            self.workers.append((rank, local_rank, proc, error_file))

    def _stop_workers(self):
        for _, _, p, _ in self.workers:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 5
        for _, _, p, _ in self.workers:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()

    def _leave(self, round_no):
        # Node 0 hosts the store: it stays until every agent has seen the outcome.
        s = self.store
        if s.add(f"r{round_no}/left", 1) == self.cfg.nnodes:
            s.set(f"r{round_no}/all_left", "1")
        if self.cfg.node_rank == 0:
            try:
                s.wait([f"r{round_no}/all_left"], timedelta(seconds=30))
            except RuntimeError:
                pass

    def _monitor(self, round_no):
        """Returns (True, []) when every node's workers succeeded, else (False, failures)."""
        s, cfg = self.store, self.cfg
        reported_done = False
        while True:
            local_failures = []
            running = 0
            for rank, local_rank, p, error_file in self.workers:
                code = p.poll()
                if code is None:
                    running += 1
                elif code != 0:
                    local_failures.append(_Failure(rank, local_rank, p.pid, code, error_file))
            if local_failures:
                local_failures.sort(key=lambda f: os.path.getmtime(f.error_file)
                                    if f.error_file and os.path.exists(f.error_file) else 0)  # fmt: skip
                s.compare_set(f"r{round_no}/failed", "", local_failures[0].encode())
                self._stop_workers()
                root = _Failure.decode(s.get(f"r{round_no}/failed").decode())
                return False, [root] + [f for f in local_failures if f.rank != root.rank]
            if s.check([f"r{round_no}/failed"]):
                self._stop_workers()
                return False, [_Failure.decode(s.get(f"r{round_no}/failed").decode())]
            if running == 0 and not reported_done:
                reported_done = True
                if s.add(f"r{round_no}/done", 1) == cfg.nnodes:
                    s.set(f"r{round_no}/all_done", "1")
            if reported_done and s.check([f"r{round_no}/all_done"]):
                self._leave(round_no)
                return True, []
            time.sleep(cfg.args.monitor_interval)

    def run(self):
        cfg = self.cfg
        self._connect()
        script = os.path.basename(cfg.args.training_script)
        for round_no in range(cfg.args.max_restarts + 1):
            addr, port = self._meet(round_no)
            self._start(round_no, addr, port)
            try:
                ok, failures = self._monitor(round_no)
            except BaseException:
                self._stop_workers()
                raise
            if ok:
                return 0
            root = failures[0]
            left = cfg.args.max_restarts - round_no
            print(
                f"[tensorcore.distributed.run] worker group failed: rank {root.rank} exited with "
                f"code {root.exit_description()}; "
                + (f"restarting ({left} restart(s) left)" if left > 0 else "no restarts left"),
                file=sys.stderr,
                flush=True,
            )
            if left == 0:
                self._leave(round_no)
                _report(script, failures)
                return 1
        return 1


def _die_with(launcher_pid):
    """A worker setup (run between fork and exec) that has Linux send the worker SIGTERM when the
    launcher dies without stopping it (SIGKILL, the OOM killer): workers live in their own
    sessions, so nothing else would reach them and they would run on as orphans."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def setup():
        prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != launcher_pid:  # the launcher died before prctl took effect
            os._exit(128 + signal.SIGTERM)

    return setup


def run(args):
    cfg = _Config(args)
    agent = _Agent(cfg)

    def on_signal(signum, frame):
        agent._stop_workers()
        sys.exit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):  # kill, or the terminal closing
        signal.signal(signum, on_signal)
    return agent.run()


def main(argv=None):
    args = get_args_parser().parse_args(argv)
    try:
        code = run(args)
    except (ValueError, RuntimeError) as e:
        print(f"tensorcore.distributed.run: error: {e}", file=sys.stderr)
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
