"""tensorcore.multiprocessing: tensors shared with other processes through shared memory,
both sharing strategies, fork and spawn, and Hogwild training (issue 25, point 5)."""

import os
import pickle
import sys

import pytest

import tensorcore as tc
import tensorcore.multiprocessing as mp

sys.path.insert(0, os.path.dirname(__file__))
import mp_workers_compat as workers  # noqa: E402


@pytest.fixture(params=["file_descriptor", "file_system"])
def strategy(request):
    old = mp.get_sharing_strategy()
    mp.set_sharing_strategy(request.param)
    yield request.param
    mp.set_sharing_strategy(old)


def test_pickling_dtypes_devices_and_tensors():
    for obj in (tc.float16, tc.int64, tc.device("cpu")):
        assert pickle.loads(pickle.dumps(obj)) == obj
    t = tc.arange(6.0).reshape(2, 3).t()
    back = pickle.loads(pickle.dumps(t))
    assert tc.equal(back, t) and not back.is_shared()
    p = tc.nn.Parameter(tc.ones(2))
    assert isinstance(pickle.loads(pickle.dumps(p)), tc.nn.Parameter)
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(ValueError, match="strategy"):
        mp.set_sharing_strategy("cuda_ipc")


def test_share_memory_in_place_keeps_views(strategy):
    base = tc.arange(10.0)
    view = base[3:7]
    assert not base.is_shared()
    assert base.share_memory_() is base
    assert base.is_shared() and view.is_shared()
    view.mul_(2)  # views still alias the (moved) storage
    assert base.tolist()[3:7] == [6.0, 8.0, 10.0, 12.0]
    model = tc.nn.Sequential(tc.nn.Linear(3, 2), tc.nn.BatchNorm1d(2))
    assert model.share_memory() is model
    assert all(t.is_shared() for t in list(model.parameters()) + list(model.buffers()))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_child_writes_are_seen_by_the_parent(method, strategy):
    if method == "spawn" and strategy == "file_system":
        pytest.skip("spawn is covered once (file_descriptor); each spawn costs an interpreter")
    ctx = mp.get_context(method)
    queue, done = ctx.Queue(), ctx.Queue()
    t = tc.arange(6, dtype=tc.float64).reshape(2, 3)
    proc = ctx.Process(target=workers.add_in_place, args=(queue, done))
    proc.start()
    queue.put(t)
    assert done.get(timeout=60) == (True, True, (2, 3))
    proc.join(timeout=60)
    assert proc.exitcode == 0
    assert t.is_shared() and t.tolist() == [[10.0, 11.0, 12.0], [13.0, 14.0, 15.0]]


def test_tensor_made_in_a_child(strategy):
    ctx = mp.get_context("fork")
    queue, ack = ctx.Queue(), ctx.Queue()
    proc = ctx.Process(target=workers.make_and_send, args=(queue, ack, strategy))
    proc.start()
    t = queue.get(timeout=60)
    ack.put("mapped")  # the creator may let its tensor go now
    assert t.dtype == tc.int32 and t.tolist() == [[1, 2, 3], [5, 6, 7], [9, 10, 11]]
    assert tuple(t.stride()) == (4, 1) and t.is_shared()
    proc.join(timeout=60)
    assert t.tolist()[0] == [1, 2, 3]  # still mapped after the creator exited


def test_non_leaf_requiring_grad_is_refused():
    from multiprocessing.reduction import ForkingPickler

    x = tc.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="non-leaf"):
        ForkingPickler.dumps(x)


def test_hogwild_updates_one_shared_model():
    tc.manual_seed(0)
    model = tc.nn.Linear(4, 1)
    model.share_memory()
    before = model.weight.detach().clone()
    processes = []
    ctx = mp.get_context("fork")  # as PyTorch's Hogwild example on Linux
    for rank in range(2):
        p = ctx.Process(target=workers.hogwild_train, args=(rank, model, 30, 100))
        p.start()
        processes.append(p)
    for p in processes:
        p.join(timeout=120)
        assert p.exitcode == 0
    # Both workers trained the parent's parameters in place: the model fits the target now.
    assert not tc.equal(model.weight.detach(), before)
    x = tc.randn(256, 4)
    y = x @ tc.tensor([[1.0], [-2.0], [0.5], [3.0]]) + 0.25
    with tc.no_grad():
        assert float(((model(x) - y) ** 2).mean()) < 0.5


def test_spawn_helper_reports_the_child_error():
    with pytest.raises(mp.ProcessRaisedException, match="boom from rank 1"):
        mp.spawn(workers.fail, args=("boom from rank 1",), nprocs=2, start_method="fork")
    assert mp.spawn(workers.fail, args=("x",), nprocs=1, start_method="fork") is None
