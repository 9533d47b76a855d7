"""Worker bodies for the multi-process distributed tests (run by dist_harness in fresh
interpreters). Each asserts its own results against closed forms; a failure exits non-zero."""

import functools
import math
import operator
import os
import time
from datetime import timedelta

import numpy as np

import tensorcore as tc
import tensorcore.distributed as dist

ALL_DTYPES = [
    tc.bool, tc.uint8, tc.int8, tc.int16, tc.uint16, tc.int32, tc.int64,
    tc.float16, tc.bfloat16, tc.float32, tc.float64, tc.complex64, tc.complex128,
]  # fmt: skip
INTS = {tc.uint8, tc.int8, tc.int16, tc.uint16, tc.int32, tc.int64}
FLOATS = {tc.float16, tc.bfloat16, tc.float32, tc.float64}
COMPLEX = {tc.complex64, tc.complex128}


def init(rank, world_size, init_method, timeout=30, **kw):
    dist.init_process_group(
        "gloo", init_method=init_method, rank=rank, world_size=world_size,
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
        assert abs(g - e) <= 1e-6 * max(1.0, abs(e)), f"{what} ({t.dtype}): got {got}, expected {exp}"


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
        sl = [tc.tensor(_rank_values(dt, r + 7), dtype=dt) for r in range(ws)] if rank == 1 else None
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
