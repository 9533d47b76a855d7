"""Worker bodies for the multi-process distributed tests (run by dist_harness in fresh
interpreters). Each asserts its own results against closed forms; a failure exits non-zero."""

import functools
import math
import operator
import os
import time
from datetime import timedelta


import tensorcore as tc
import tensorcore.distributed as dist

ALL_DTYPES = [
    tc.bool, tc.uint8, tc.int8, tc.int16, tc.uint16, tc.int32, tc.int64,
    tc.float16, tc.bfloat16, tc.float32, tc.float64, tc.complex64, tc.complex128,
]  # fmt: skip
INTS = {tc.uint8, tc.int8, tc.int16, tc.uint16, tc.int32, tc.int64}
FLOATS = {tc.float16, tc.bfloat16, tc.float32, tc.float64}
COMPLEX = {tc.complex64, tc.complex128}


def init(rank, world_size, init_method, timeout=30, backend="gloo", **kw):
    dist.init_process_group(
        backend, init_method=init_method, rank=rank, world_size=world_size,
        timeout=timedelta(seconds=timeout), **kw,
    )  # fmt: skip


def values(t):
    if t.dtype in COMPLEX:
        return [complex(v) for v in t.reshape(-1).tolist()]
    return [float(v) for v in t.to(tc.float64).reshape(-1).tolist()]


def check(t, expected, what):
    got = values(t)
    exp = [complex(v) if t.dtype in COMPLEX else float(v) for v in expected]
    assert len(got) == len(exp), f"{what}: {len(got)} values, expected {len(exp)}"
    for g, e in zip(got, exp):
        assert abs(g - e) <= 1e-6 * max(1.0, abs(e)), (
            f"{what} ({t.dtype}): got {got}, expected {exp}"
        )


def _rank_values(dt, r):
    """The 3 values rank r contributes (exactly representable in every dtype)."""
    if dt == tc.bool:
        return [r % 2 == 0, True, False]
    if dt in COMPLEX:
        return [complex(r + 1, r), complex(1, 0), complex(0, r + 1)]
    return [r, r + 1, 2]


def _reduce(dt, op, ws):
    vals = [_rank_values(dt, r) for r in range(ws)]
    cols = list(zip(*vals))
    if dt == tc.bool:
        fn = {
            "SUM": any, "MAX": any, "BOR": any, "PRODUCT": all, "MIN": all, "BAND": all,
            "BXOR": lambda c: functools.reduce(operator.xor, c),
        }[op]  # fmt: skip
        return [fn(c) for c in cols]
    fn = {
        "SUM": sum, "AVG": lambda c: sum(c) / ws, "PRODUCT": lambda c: functools.reduce(operator.mul, c),
        "MIN": min, "MAX": max, "BAND": lambda c: functools.reduce(operator.and_, c),
        "BOR": lambda c: functools.reduce(operator.or_, c),
        "BXOR": lambda c: functools.reduce(operator.xor, c),
    }[op]  # fmt: skip
    out = [fn(c) for c in cols]
    if op == "AVG" and dt in INTS:
        out = [math.trunc(v) for v in out]
    return out


def _ops_for(dt):
    if dt == tc.bool:
        return ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
    if dt in COMPLEX:
        return ["SUM", "AVG", "PRODUCT"]
    if dt in FLOATS:
        return ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]
    return ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]


def collectives(rank, ws, init_method):
    init(rank, ws, init_method)
    assert dist.get_rank() == rank and dist.get_world_size() == ws
    assert dist.get_backend() == "gloo"
    for dt in ALL_DTYPES:
        mine = lambda r=rank: tc.tensor(_rank_values(dt, r), dtype=dt)  # noqa: E731
        for op in _ops_for(dt):
            t = mine()
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            check(t, _reduce(dt, op, ws), f"all_reduce {op}")
            t = mine()
            dist.reduce(t, dst=ws - 1, op=getattr(dist.ReduceOp, op))
            if rank == ws - 1:
                check(t, _reduce(dt, op, ws), f"reduce {op}")
        unsupported = "BAND" if dt in FLOATS else ("MIN" if dt in COMPLEX else None)
        if unsupported:
            try:
                dist.all_reduce(mine(), op=getattr(dist.ReduceOp, unsupported))
                raise AssertionError(f"all_reduce {unsupported} on {dt} should raise")
            except ValueError as e:
                assert unsupported in str(e), e
        for src in range(ws):
            t = mine()
            dist.broadcast(t, src=src)
            check(t, _rank_values(dt, src), f"broadcast from {src}")
        # all_gather / into_tensor / gather / scatter
        outs = [tc.zeros(3, dtype=dt) for _ in range(ws)]
        dist.all_gather(outs, mine())
        for r in range(ws):
            check(outs[r], _rank_values(dt, r), "all_gather")
        flat = tc.zeros(3 * ws, dtype=dt)
        dist.all_gather_into_tensor(flat, mine())
        check(flat, sum((_rank_values(dt, r) for r in range(ws)), []), "all_gather_into_tensor")
        gl = [tc.zeros(3, dtype=dt) for _ in range(ws)] if rank == 0 else None
        dist.gather(mine(), gl, dst=0)
        if rank == 0:
            for r in range(ws):
                check(gl[r], _rank_values(dt, r), "gather")
        out = tc.zeros(3, dtype=dt)
        sl = (
            [tc.tensor(_rank_values(dt, r + 7), dtype=dt) for r in range(ws)] if rank == 1 else None
        )
        dist.scatter(out, sl, src=1)
        check(out, _rank_values(dt, rank + 7), "scatter")
        if dt != tc.bool:
            ins = [tc.tensor(_rank_values(dt, rank + j), dtype=dt) for j in range(ws)]
            out = tc.zeros(3, dtype=dt)
            dist.reduce_scatter(out, ins)
            check(out, [sum(c) for c in zip(*[_rank_values(dt, r + rank) for r in range(ws)])],
                  "reduce_scatter")  # fmt: skip
            out = tc.zeros(3, dtype=dt)
            dist.reduce_scatter_tensor(out, tc.cat(ins))
            check(out, [sum(c) for c in zip(*[_rank_values(dt, r + rank) for r in range(ws)])],
                  "reduce_scatter_tensor")  # fmt: skip
        # all_to_all: rank r sends block j (values of r*10+j) to rank j
        ins = [tc.tensor(_rank_values(dt, rank * 10 + j), dtype=dt) for j in range(ws)]
        outs = [tc.zeros(3, dtype=dt) for _ in range(ws)]
        dist.all_to_all(outs, ins)
        for j in range(ws):
            check(outs[j], _rank_values(dt, j * 10 + rank), "all_to_all")
    # all_to_all_single with uneven splits: rank r sends (j+1) rows to rank j, each row r*100+j
    in_splits = [j + 1 for j in range(ws)]
    rows = sum(([rank * 100 + j] * (j + 1) for j in range(ws)), [])
    inp = tc.tensor(rows, dtype=tc.float32).reshape(-1, 1).repeat(1, 2)
    out_splits = [rank + 1] * ws
    out = tc.zeros(sum(out_splits), 2)
    dist.all_to_all_single(out, inp, out_splits, in_splits)
    expected = sum(([j * 100 + rank] * (rank + 1) for j in range(ws)), [])
    check(out[:, 0], expected, "all_to_all_single (uneven)")
    # async handles
    t = tc.full((1000,), float(rank))
    work = dist.all_reduce(t, async_op=True)
    work.wait()
    assert work.is_completed() and work.is_success()
    check(t[:1], [ws * (ws - 1) / 2], "async all_reduce")
    fut = dist.all_reduce(tc.ones(2), async_op=True).get_future().then(lambda f: f.value()[0] * 2)
    check(fut.wait(), [2 * ws, 2 * ws], "future.then")
    dist.barrier()
    # point to point: a ring
    send_t = tc.tensor([float(rank)] * 4)
    recv_t = tc.zeros(4)
    nxt, prv = (rank + 1) % ws, (rank - 1) % ws
    if rank % 2 == 0:
        dist.send(send_t, nxt)
        dist.recv(recv_t, prv)
    else:
        dist.recv(recv_t, prv)
        dist.send(send_t, nxt)
    check(recv_t, [prv] * 4, "send/recv ring")
    reqs = [dist.isend(send_t * 2, nxt, tag=3), dist.irecv(recv_t, prv, tag=3)]
    for r in reqs:
        r.wait()
    check(recv_t, [2 * prv] * 4, "isend/irecv")
    if rank == 0:
        for _ in range(ws - 1):
            buf = tc.zeros(1)
            sender = dist.recv(buf)  # any source
            assert int(buf.item()) == sender * 5, (sender, buf)
    else:
        dist.send(tc.tensor([rank * 5.0]), 0)
    # objects
    objs = [None] * ws
    dist.all_gather_object(objs, {"rank": rank})
    assert objs == [{"rank": r} for r in range(ws)], objs
    lst = [rank, "x"] if rank == 0 else [None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [0, "x"], lst
    # subgroup of even ranks
    evens = list(range(0, ws, 2))
    g = dist.new_group(evens)
    if rank in evens:
        t = tc.tensor([float(rank)])
        dist.all_reduce(t, group=g)
        check(t, [sum(evens)], "all_reduce on new_group")
        assert dist.get_rank(g) == evens.index(rank)
        t = tc.tensor([float(rank)])
        dist.broadcast(t, src=evens[-1], group=g)
        check(t, [evens[-1]], "broadcast on new_group (global src rank)")
    else:
        assert g is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1
    dist.barrier()
    dist.destroy_process_group()
    print("ok", rank)


# ---------------------------------------------------------------------------------------------
# DistributedDataParallel


class _Net(tc.nn.Module):
    def __init__(self, unused_branch=False):
        super().__init__()
        self.fc1 = tc.nn.Linear(8, 16)
        self.fc2 = tc.nn.Linear(16, 4)
        self.skipped = tc.nn.Linear(4, 4) if unused_branch else None

    def forward(self, x):
        return self.fc2(tc.relu(self.fc1(x)))


def _make_net(seed, unused_branch=False):
    tc.manual_seed(seed)
    return _Net(unused_branch)


def _data(step, ws, per_rank=4):
    g = tc.Generator()
    g.manual_seed(1000 + step)
    x = tc.randn(ws * per_rank, 8, generator=g)
    y = tc.randn(ws * per_rank, 4, generator=g)
    return x, y


def _train_step(model, opt, step, rank, ws):
    """One SGD step of this rank on its 4-sample share of step's batch (MSE loss)."""
    x, y = _data(step, ws)
    opt.zero_grad()
    local = slice(rank * 4, rank * 4 + 4)
    tc.nn.functional.mse_loss(model(x[local]), y[local]).backward()
    opt.step()


def _assert_params_close(model, ref, tol, what):
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        diff = (p.detach() - q.detach()).abs().max().item()
        assert diff <= tol, f"{what}: parameter {name} differs from the reference by {diff}"


def ddp(rank, ws, init_method, *variants):
    init(rank, ws, init_method)
    for variant in variants:
        _ddp_variant(rank, ws, variant)
    dist.destroy_process_group()
    print("ok")


def _ddp_variant(rank, ws, variant):
    unused = variant in ("find_unused", "static_graph", "unused_error")
    net = _make_net(rank, unused)  # different on each rank: DDP broadcasts rank 0's
    ref = _make_net(0, unused)
    kwargs = {}
    if variant in ("find_unused",):
        kwargs["find_unused_parameters"] = True
    if variant == "static_graph":
        kwargs["static_graph"] = True
    if variant == "bucket_view":
        kwargs["gradient_as_bucket_view"] = True
    if variant == "small_buckets":
        kwargs["bucket_cap_mb"] = 0.0002  # about 50 floats: several buckets
    model = tc.nn.parallel.DistributedDataParallel(net, **kwargs)
    _assert_params_close(model.module, ref, 0, "after construction")
    if variant == "small_buckets":
        buckets = model.reducer.bucket_indices()
        assert len(buckets) > 2, buckets
        assert buckets[0][0] == 3, f"the first bucket starts at the last parameter: {buckets}"
    from tensorcore.distributed.algorithms.ddp_comm_hooks import default_hooks

    tol = 1e-5
    if variant == "hook_allreduce":
        model.register_comm_hook(None, default_hooks.allreduce_hook)
    if variant == "hook_python":
        model.register_comm_hook(None, lambda s, b: default_hooks.allreduce_hook(s, b))
    if variant == "hook_fp16":
        model.register_comm_hook(None, default_hooks.fp16_compress_hook)
        tol = 2e-3
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = tc.optim.SGD(ref.parameters(), lr=0.1)
    steps = 4
    for step in range(steps):
        micro = 3 if variant == "no_sync" else 1
        opt.zero_grad()
        ref_opt.zero_grad()
        for k in range(micro):
            x, y = _data(step * 10 + k, ws)
            local = slice(rank * 4, rank * 4 + 4)
            ctx = model.no_sync() if k < micro - 1 else _nullcontext()
            with ctx:
                loss = tc.nn.functional.mse_loss(model(x[local]), y[local])
                loss.backward()
            tc.nn.functional.mse_loss(ref(x), y).backward()
        if variant in ("find_unused", "static_graph"):
            assert model.module.skipped.weight.grad is None, "an unused parameter got a gradient"
            assert "skipped.weight" in model._get_unused_parameters()
        opt.step()
        ref_opt.step()
        _assert_params_close(model.module, ref, tol, f"{variant}: step {step}")


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def ddp_unused_error(rank, ws, init_method):
    init(rank, ws, init_method)
    model = tc.nn.parallel.DistributedDataParallel(_make_net(0, unused_branch=True))
    x, y = _data(0, ws)
    tc.nn.functional.mse_loss(model(x[:4]), y[:4]).backward()
    try:
        model(x[:4])
    except RuntimeError as e:
        msg = str(e)
        assert "find_unused_parameters=True" in msg and "skipped.weight" in msg, msg
        assert "skipped.bias" in msg and "fc1.weight" not in msg, msg
    else:
        raise AssertionError("the next forward should name the parameters without a gradient")
    dist.destroy_process_group()
    print("ok")


def ddp_powersgd(rank, ws, init_method):
    """PowerSGD (rank 1, error feedback) converges on a linear regression like plain DDP."""
    from tensorcore.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as psgd

    init(rank, ws, init_method)
    g = tc.Generator()
    g.manual_seed(7)
    true_w = tc.randn(6, 10, generator=g)
    x = tc.randn(64 * ws, 10, generator=g)
    y = x.matmul(true_w.t())
    losses = {}
    for use_hook in (False, True):
        tc.manual_seed(0)
        model = tc.nn.parallel.DistributedDataParallel(tc.nn.Linear(10, 6))
        if use_hook:
            state = psgd.PowerSGDState(None, matrix_approximation_rank=1, start_powerSGD_iter=2)
            model.register_comm_hook(state, psgd.powerSGD_hook)
        opt = tc.optim.SGD(model.parameters(), lr=0.2)
        local = slice(rank * 64, rank * 64 + 64)
        for _ in range(100):
            opt.zero_grad()
            loss = tc.nn.functional.mse_loss(model(x[local]), y[local])
            loss.backward()
            opt.step()
        full = tc.nn.functional.mse_loss(model.module(x), y).item()
        losses[use_hook] = full
    start = tc.nn.functional.mse_loss(x.matmul(tc.zeros(10, 6)), y).item()
    assert losses[True] < 0.05 * start, f"PowerSGD did not converge: {losses} (start {start})"
    assert losses[False] < 0.05 * start, losses
    # the replicas agree after compressed training
    w = model.module.weight.detach().clone()
    dist.broadcast(w, 0)
    assert (w - model.module.weight.detach()).abs().max().item() < 1e-5
    dist.destroy_process_group()
    print("ok", losses)


def ddp_join(rank, ws, init_method):
    """Rank r trains on r + 2 batches; join() lets the others finish. The result equals one
    process applying, per step, (sum of the active ranks' gradients) / world_size."""
    init(rank, ws, init_method)
    model = tc.nn.parallel.DistributedDataParallel(_make_net(0))
    ref = _make_net(0)
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = tc.optim.SGD(ref.parameters(), lr=0.1)
    n_batches = [r + 2 for r in range(ws)]
    with model.join():
        for step in range(n_batches[rank]):
            _train_step(model, opt, step, rank, ws)
    for step in range(max(n_batches)):
        x, y = _data(step, ws)
        ref_opt.zero_grad()
        active = [r for r in range(ws) if step < n_batches[r]]
        loss = sum(
            tc.nn.functional.mse_loss(ref(x[r * 4 : r * 4 + 4]), y[r * 4 : r * 4 + 4]) for r in active
        ) / ws  # fmt: skip
        loss.backward()
        ref_opt.step()
        if step + 1 == n_batches[rank]:
            _assert_params_close(model.module, ref, 1e-5, f"rank {rank} when it joined")
    dist.destroy_process_group()
    print("ok")


# ---------------------------------------------------------------------------------------------
# Launcher scripts (run by `python -m tensorcore.distributed.run`)


def launched_train(out_dir):
    """A training script: DDP on env:// with a checkpoint per step; in the first attempt
    (TORCHELASTIC_RESTART_COUNT=0) rank 1 crashes after step 1, so the relaunch resumes."""
    import json

    rank, ws = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    restart = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    dist.init_process_group("gloo", timeout=timedelta(seconds=20))
    assert dist.get_rank() == rank and dist.get_world_size() == ws
    model = tc.nn.parallel.DistributedDataParallel(_make_net(rank))
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    ckpt = os.path.join(out_dir, "ckpt.pt")
    start = 0
    if os.path.exists(ckpt):
        state = tc.load(ckpt)
        model.module.load_state_dict(state["model"])
        start = state["step"] + 1
    for step in range(start, 4):
        _train_step(model, opt, step, rank, ws)
        dist.barrier()
        if rank == 0:
            tmp = ckpt + ".tmp"
            tc.save({"model": model.module.state_dict(), "step": step}, tmp)
            os.replace(tmp, ckpt)  # atomic: a crash never leaves half a checkpoint
        dist.barrier()
        if restart == 0 and step == 1 and rank == ws - 1:
            raise RuntimeError("injected failure on the last rank")
    with open(os.path.join(out_dir, f"done_rank{rank}.json"), "w") as f:
        json.dump({"restart": restart, "start": start, "env": {k: os.environ[k] for k in (
            "LOCAL_RANK", "GROUP_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR")}}, f)  # fmt: skip
    dist.destroy_process_group()


# ---------------------------------------------------------------------------------------------
# Reliability


def dead_rank(rank, ws, init_method):
    """The last rank dies (SIGKILL) before collective #3; the others must raise quickly, naming
    the op and the dead rank, although the group timeout is 60 s."""
    import signal

    init(rank, ws, init_method, timeout=60)
    t = tc.ones(1000)
    for _ in range(2):
        dist.all_reduce(t)
    if rank == ws - 1:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.3)  # let the kernel close the dead rank's sockets
    t0 = time.monotonic()
    try:
        dist.all_reduce(t)
    except RuntimeError as e:
        msg = str(e)
        took = time.monotonic() - t0
        assert took < 15, f"took {took:.1f}s"
        assert "all_reduce" in msg and f"rank {rank}" in msg, msg
        assert f"rank {ws - 1} (pid" in msg, msg
    else:
        raise AssertionError("all_reduce with a dead peer should raise")
    # The group stays failed: later ops raise at once with the same cause.
    t0 = time.monotonic()
    try:
        dist.barrier()
    except RuntimeError as e:
        assert "all_reduce" in str(e) and time.monotonic() - t0 < 2, e
    else:
        raise AssertionError("a failed group should keep raising")
    if rank == 0:
        time.sleep(1)  # rank 0 hosts the store the others read their diagnosis from
    print("ok")
    os._exit(0)  # skip interpreter teardown with a broken group


def hung_rank(rank, ws, init_method):
    """The last rank hangs (sleeps) instead of joining a collective: the others raise after the
    group's 2 s timeout and name it."""
    init(rank, ws, init_method, timeout=2)
    dist.all_reduce(tc.ones(4))
    if rank == ws - 1:
        time.sleep(7)
        os._exit(0)
    t0 = time.monotonic()
    try:
        dist.all_reduce(tc.ones(4))
    except RuntimeError as e:
        msg, took = str(e), time.monotonic() - t0
        assert took < 10, f"took {took:.1f}s"
        assert "all_reduce" in msg and "Timed out" in msg, msg
        assert f"did not reach this collective (hung or busy elsewhere): [{ws - 1}]" in msg, msg
    else:
        raise AssertionError("all_reduce with a hung peer should raise")
    if rank == 0:
        time.sleep(2)  # rank 0 hosts the store the others read their diagnosis from
    print("ok")
    os._exit(0)


def mismatch(rank, ws, init_method):
    """TORCH_DISTRIBUTED_DEBUG=DETAIL: ranks calling different shapes get an error naming both."""
    init(rank, ws, init_method, timeout=10)
    dist.all_reduce(tc.ones(3))  # matching: fine
    try:
        dist.all_reduce(tc.ones(3 + rank))
    except RuntimeError as e:
        msg = str(e)
        assert "Detected mismatch" in msg and "float32[3]" in msg and "float32[4]" in msg, msg
    else:
        raise AssertionError("mismatched collectives should raise in debug mode")
    try:
        if rank == 0:
            dist.broadcast(tc.ones(2), src=0)
        else:
            dist.all_reduce(tc.ones(2))
    except RuntimeError as e:
        assert "broadcast" in str(e) and "all_reduce" in str(e), e
    else:
        raise AssertionError("different collectives should raise in debug mode")
    print("ok")
    os._exit(0)


# ---------------------------------------------------------------------------------------------
# SyncBatchNorm, ZeroRedundancyOptimizer


def sync_bn(rank, ws, init_method):
    """DDP + SyncBatchNorm over ws ranks equals BatchNorm on the whole batch in one process."""
    init(rank, ws, init_method)

    def make():
        tc.manual_seed(3)
        return tc.nn.Sequential(
            tc.nn.Conv2d(2, 3, 3, padding=1), tc.nn.BatchNorm2d(3), tc.nn.ReLU(),
            tc.nn.Flatten(), tc.nn.Linear(3 * 4 * 4, 2),
        )  # fmt: skip

    ref = make()
    model = tc.nn.parallel.DistributedDataParallel(
        tc.nn.SyncBatchNorm.convert_sync_batchnorm(make())
    )
    assert isinstance(model.module[1], tc.nn.SyncBatchNorm)
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = tc.optim.SGD(ref.parameters(), lr=0.1)
    for step in range(3):
        g = tc.Generator()
        g.manual_seed(step)
        x = tc.randn(ws * 3, 2, 4, 4, generator=g) * 2 + 1
        y = tc.randn(ws * 3, 2, generator=g)
        opt.zero_grad()
        ref_opt.zero_grad()
        out = model(x[rank * 3 : rank * 3 + 3])
        ref_out = ref(x)
        diff = (out - ref_out[rank * 3 : rank * 3 + 3]).abs().max().item()
        assert diff < 1e-4, f"SyncBatchNorm output differs by {diff}"
        tc.nn.functional.mse_loss(out, y[rank * 3 : rank * 3 + 3]).backward()
        tc.nn.functional.mse_loss(ref_out, y).backward()
        opt.step()
        ref_opt.step()
    for (name, p), q in zip(model.module.state_dict().items(), ref.state_dict().values()):
        diff = (p.double() - q.double()).abs().max().item()
        assert diff < 1e-4, f"{name} differs by {diff}"
    model.eval()
    ref.eval()
    x = tc.randn(2, 2, 4, 4)
    assert (model(x) - ref(x)).abs().max().item() < 1e-4
    dist.destroy_process_group()
    print("ok")


def zero(rank, ws, init_method):
    """ZeroRedundancyOptimizer(Adam) + DDP gives the parameters of plain Adam + DDP, with each
    rank holding only its shard of the state."""
    from tensorcore.distributed.optim import ZeroRedundancyOptimizer

    init(rank, ws, init_method)
    a = tc.nn.parallel.DistributedDataParallel(_make_net(0))
    b = tc.nn.parallel.DistributedDataParallel(_make_net(0))
    opt_a = ZeroRedundancyOptimizer(a.parameters(), tc.optim.Adam, lr=0.01)
    opt_b = tc.optim.Adam(b.parameters(), lr=0.01)
    owned = opt_a.partition_parameters()
    assert sum(len(p) for p in owned) == 4 and all(len(p) > 0 for p in owned)
    assert len(opt_a.optim.param_groups[0]["params"]) == len(owned[rank])
    for step in range(4):
        x, y = _data(step, ws)
        for model, opt in ((a, opt_a), (b, opt_b)):
            opt.zero_grad()
            tc.nn.functional.mse_loss(
                model(x[rank * 4 : rank * 4 + 4]), y[rank * 4 : rank * 4 + 4]
            ).backward()
            opt.step()
        _assert_params_close(a.module, b.module, 1e-6, f"ZeRO step {step}")
    assert len(opt_a.optim.state) == len(owned[rank])  # only this rank's shard
    opt_a.consolidate_state_dict(to=0)
    if rank == 0:
        sd = opt_a.state_dict()
        assert sorted(sd["state"]) == [0, 1, 2, 3], sd["state"].keys()
        ref_sd = opt_b.state_dict()
        for i in range(4):
            d = (sd["state"][i]["exp_avg"] - ref_sd["state"][i]["exp_avg"]).abs().max().item()
            assert d < 1e-6, (i, d)
    dist.destroy_process_group()
    print("ok")


def nccl_collectives(rank, ws, init_method):
    """The nccl backend on CUDA tensors (one device per rank) against closed forms."""
    init(rank, ws, init_method, backend="nccl")
    tc.cuda.set_device(rank)
    dev = f"cuda:{rank}"
    for dt in (tc.float32, tc.float16, tc.int64, tc.float64):
        t = tc.tensor([rank + 1.0, 2.0], device=dev).to(dt)
        dist.all_reduce(t)
        check(t.cpu(), [ws * (ws + 1) / 2, 2.0 * ws], f"nccl all_reduce {dt}")
        t = tc.tensor([float(rank)], device=dev).to(dt)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        check(t.cpu(), [ws - 1], "nccl all_reduce MAX")
        t = tc.tensor([float(rank)], device=dev).to(dt)
        dist.broadcast(t, src=ws - 1)
        check(t.cpu(), [ws - 1], "nccl broadcast")
        outs = [tc.zeros(1, device=dev).to(dt) for _ in range(ws)]
        dist.all_gather(outs, tc.tensor([rank * 3.0], device=dev).to(dt))
        for r in range(ws):
            check(outs[r].cpu(), [3 * r], "nccl all_gather")
    t = tc.ones(1 << 20, device=dev)
    work = dist.all_reduce(t, async_op=True)
    work.wait()
    check(t[:1].cpu(), [ws], "nccl async all_reduce")
    dist.barrier()
    dist.destroy_process_group()
    print("ok")


def scheduler_env(rank, ws, init_method, flavour):
    """init_process_group() with env:// under Slurm or mpirun: the rank and world size come from
    the scheduler's variables (RANK/WORLD_SIZE unset)."""
    host, port = init_method[len("tcp://") :].rsplit(":", 1)
    for k in ("RANK", "WORLD_SIZE"):
        os.environ.pop(k, None)
    os.environ.update(MASTER_ADDR=host, MASTER_PORT=port)
    if flavour == "slurm":
        os.environ.update(SLURM_PROCID=str(rank), SLURM_NTASKS=str(ws), SLURM_LOCALID=str(rank))
    else:
        os.environ.update(OMPI_COMM_WORLD_RANK=str(rank), OMPI_COMM_WORLD_SIZE=str(ws))
    dist.init_process_group("gloo", timeout=timedelta(seconds=20))
    assert dist.get_rank() == rank and dist.get_world_size() == ws
    t = tc.tensor([float(rank)])
    dist.all_reduce(t)
    check(t, [ws * (ws - 1) / 2], f"all_reduce under {flavour}")
    dist.destroy_process_group()
    print("ok")
