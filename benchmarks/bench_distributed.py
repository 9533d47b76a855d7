"""tensorcore.distributed vs torch.distributed 1.13, both over Gloo on localhost, in the same
worker processes, interleaved:
  * all_reduce of 1 MB and 64 MB float32: bus bandwidth (size * 2(n-1)/n / time), median;
  * DDP ResNet-18 training step (1 thread per process): tc DDP vs torch DDP, and tc DDP vs the
    same tc step without communication (how much of the all-reduce the backward pass hides).

Run: .venv/bin/python benchmarks/bench_distributed.py [--world-sizes 2 4] [--runs 10]
     [--ddp-batch 4 --ddp-image 112] [--skip-ddp]
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
from datetime import timedelta

from _common import median_time

HERE = os.path.dirname(os.path.abspath(__file__))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, ws, tc_port, torch_port, args):
    import torch
    import torch.distributed as tdist

    import tensorcore as tc
    import tensorcore.distributed as dist

    tc.set_num_threads(1)
    torch.set_num_threads(1)
    timeout = timedelta(seconds=120)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{tc_port}", rank=rank,
                            world_size=ws, timeout=timeout)  # fmt: skip
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{torch_port}", rank=rank,
                             world_size=ws, timeout=timeout)  # fmt: skip
    lines = []
    for mb in (1, 64):
        n = mb * 1024 * 1024 // 4
        a, b = tc.ones(n), torch.ones(n)
        runs = args.runs if mb == 1 else max(3, args.runs // 3)
        tc_t, torch_t = [], []
        for _ in range(3):  # interleave blocks so both see the same machine load
            tc_t.append(median_time(lambda: dist.all_reduce(a), runs))
            torch_t.append(median_time(lambda: tdist.all_reduce(b), runs))
        factor = 2 * (ws - 1) / ws * mb * 1024 * 1024 / 1e9
        tc_bw, torch_bw = factor / statistics.median(tc_t), factor / statistics.median(torch_t)
        lines.append(
            f"all_reduce {mb:3d} MB ws={ws}: tc {tc_bw:6.2f} GB/s  torch {torch_bw:6.2f} GB/s  "
            f"ratio tc/torch {tc_bw / torch_bw:.2f}x (bus bandwidth, higher is better)"
        )
    if not args.skip_ddp and ws == 2:
        sys.path.insert(0, HERE)
        from bench_resnet18_step import build_resnet18

        import numpy as np

        torch.manual_seed(0)
        tmodel = build_resnet18(torch.nn, 10)
        cmodel = build_resnet18(tc.nn, 10)
        cmodel.load_state_dict({k: tc.from_numpy(v.detach().numpy().copy())
                                for k, v in tmodel.state_dict().items()})  # fmt: skip
        tddp = torch.nn.parallel.DistributedDataParallel(tmodel)
        cddp = tc.nn.parallel.DistributedDataParallel(cmodel)
        rng = np.random.default_rng(rank)
        x = rng.standard_normal(
            (args.ddp_batch, 3, args.ddp_image, args.ddp_image), dtype=np.float32
        )
        y = rng.integers(0, 10, args.ddp_batch)
        cx, cy = tc.from_numpy(x), tc.from_numpy(y)
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)
        copt = tc.optim.SGD(cddp.parameters(), lr=0.01)
        topt = torch.optim.SGD(tddp.parameters(), lr=0.01)

        def tc_step(model):
            copt.zero_grad()
            tc.nn.functional.cross_entropy(model(cx), cy).backward()
            copt.step()

        def torch_step(model=tddp):
            topt.zero_grad()
            torch.nn.functional.cross_entropy(model(tx), ty).backward()
            topt.step()

        runs = max(3, args.runs // 2)
        t_tc, t_torch, t_local, t_torch_local = [], [], [], []
        for _ in range(3):
            t_tc.append(median_time(lambda: tc_step(cddp), runs))
            t_torch.append(median_time(torch_step, runs))
            # Same model and step without DDP: the compute-only time (both ranks run it).
            t_local.append(median_time(lambda: tc_step(cmodel), runs))
            t_torch_local.append(median_time(lambda: torch_step(tmodel), runs))
        a, b = statistics.median(t_tc), statistics.median(t_torch)
        c, d = statistics.median(t_local), statistics.median(t_torch_local)
        lines.append(
            f"DDP ResNet-18 step ws=2 batch {args.ddp_batch}x3x{args.ddp_image}^2, 1 thread: "
            f"tc {a * 1e3:.0f} ms  torch {b * 1e3:.0f} ms  ratio tc/torch {a / b:.2f}x (lower is "
            f"better)\n  without communication: tc {c * 1e3:.0f} ms, torch {d * 1e3:.0f} ms -> "
            f"DDP/no-comm: tc {a / c:.2f}x, torch {b / d:.2f}x"
        )
    if rank == 0:
        print("\n".join(lines), flush=True)
    tdist.destroy_process_group()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--world-sizes", type=int, nargs="+", default=[2, 4])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--ddp-batch", type=int, default=4)
    p.add_argument("--ddp-image", type=int, default=112)
    p.add_argument("--skip-ddp", action="store_true")
    p.add_argument("--worker", type=int, nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        rank, ws, tc_port, torch_port = args.worker
        worker(rank, ws, tc_port, torch_port, args)
        return
    try:
        import torch.distributed as tdist

        assert tdist.is_gloo_available()
    except Exception:
        print("torch.distributed with Gloo is not available: nothing to compare with")
        return
    for ws in args.world_sizes:
        ports = [str(_free_port()), str(_free_port())]
        extra = [a for a in sys.argv[1:]]
        env = dict(os.environ, OMP_NUM_THREADS="1")
        procs = [
            subprocess.Popen(
                [sys.executable, __file__, *extra, "--worker", str(r), str(ws), *ports], env=env
            )  # fmt: skip
            for r in range(ws)
        ]
        codes = [p.wait() for p in procs]
        if any(codes):
            sys.exit(f"a worker failed: exit codes {codes}")


if __name__ == "__main__":
    main()
