"""tc.profiler: ops, shapes, memory, stacks, backward links, schedules, traces and errors."""

import gzip
import json
import os
import time
import warnings

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)


def names(events):
    return [e.name for e in events]


def by_name(events, name):
    return [e for e in events if e.name == name]


def test_every_op_is_recorded_with_shapes_and_dtypes():
    x = tc.randn(4, 5)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        y = x + x
        z = tc.matmul(y, y.t())
        z.sum()
        tc.nn.functional.relu(z)
    ev = prof.events()
    assert {"aten::add", "aten::matmul", "aten::t", "aten::sum", "aten::relu"} <= set(names(ev))
    add = by_name(ev, "aten::add")[0]
    assert add.input_shapes == [(4, 5), (4, 5)]
    assert add.input_dtypes == ["float32", "float32"]
    mm = by_name(ev, "aten::matmul")[0]
    assert mm.input_shapes == [(4, 5), (5, 4)]
    # Queries are not ops.
    assert not any(n.endswith("::size") or n.endswith("::dim") for n in names(ev))


def test_profiler_off_records_nothing_and_costs_nothing_visible():
    with profile() as prof:
        tc.ones(3)
    assert not tc._C._profiler._is_enabled()
    n = len(prof.events())
    tc.ones(3) + 1
    assert len(prof.events()) == n  # results of a finished session do not grow


def test_self_and_total_time_nest():
    a = tc.randn(200, 200)
    with profile() as prof:
        with record_function("outer"):
            for _ in range(3):
                tc.mm(a, a)
            time.sleep(0.01)
    ev = prof.events()
    outer = by_name(ev, "outer")[0]
    mms = by_name(ev, "aten::mm")
    assert len(mms) == 3 and all(m.cpu_parent is outer for m in mms)
    assert outer.cpu_time_total >= sum(m.cpu_time_total for m in mms)
    assert outer.self_cpu_time_total == pytest.approx(
        outer.cpu_time_total - sum(m.cpu_time_total for m in mms)
    )
    assert outer.self_cpu_time_total >= 9000  # the sleep is the scope's own time (us)
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::mm"].count == 3
    assert avg["aten::mm"].cpu_time_total == pytest.approx(sum(m.cpu_time_total for m in mms))


def test_backward_nodes_are_linked_to_their_forward_op():
    x = tc.randn(3, 4, requires_grad=True)
    w = tc.randn(4, 2, requires_grad=True)
    with profile() as prof:
        y = tc.mm(x, w).exp().sum()
        y.backward()
    ev = prof.events()
    backward = {e.name: e for e in ev if e.kind == 2}
    assert {"MmBackward0", "ExpBackward0"} <= set(backward)
    assert any(n.startswith("SumBackward") for n in backward)
    assert backward["MmBackward0"].forward.name == "aten::mm"
    assert backward["ExpBackward0"].forward.name == "aten::exp"
    assert backward["MmBackward0"].sequence_nr == by_name(ev, "aten::mm")[0].sequence_nr
    trace = prof.events().chrome_trace()["traceEvents"]
    flows = [t for t in trace if t.get("cat") == "forward_backward"]
    assert {t["ph"] for t in flows} == {"s", "f"}


def test_memory_allocated_and_freed_by_each_op():
    with profile(profile_memory=True) as prof:
        a = tc.empty(1000, dtype=tc.float32)  # 4000 bytes
        with record_function("drop"):
            del a
        b = tc.zeros(250, dtype=tc.float64)  # 2000 bytes
    ev = prof.events()
    empty = by_name(ev, "aten::empty")[0]
    assert empty.self_cpu_memory_usage == 4000
    assert by_name(ev, "drop")[0].self_cpu_memory_usage == -4000
    assert by_name(ev, "aten::zeros")[0].cpu_memory_usage == 2000
    table = prof.key_averages().table(sort_by="self_cpu_memory_usage")
    assert "CPU Mem" in table and "3.91 Kb" in table
    records = prof.events().memory
    assert [r.bytes for r in records if abs(r.bytes) in (4000, 2000)][:3] == [4000, -4000, 2000]
    del b


def test_with_stack_records_the_calling_python_frames(tmp_path):
    def my_layer(t):
        return t * 2

    with profile(with_stack=True) as prof:
        my_layer(tc.ones(3))
    mul = by_name(prof.events(), "aten::mul")[0]
    assert "my_layer" in mul.stack[0] and __file__ in mul.stack[0]
    assert any("test_with_stack_records" in f for f in mul.stack)
    grouped = prof.key_averages(group_by_stack_n=2)
    assert any(g.key == "aten::mul" and "my_layer" in g.stack[0] for g in grouped)
    table = grouped.table(sort_by="self_cpu_time_total")
    assert "Source Location" in table and "my_layer" in table
    path = tmp_path / "stacks.txt"
    prof.export_stacks(path)
    lines = path.read_text().splitlines()
    mul_lines = [ln for ln in lines if ln.split(" ")[0].endswith(";aten::mul")]
    assert mul_lines and int(mul_lines[0].rsplit(" ", 1)[1]) >= 0
    assert "my_layer" in mul_lines[0].split(";")[-2]


def test_group_by_input_shape():
    with profile(record_shapes=True) as prof:
        for n in (2, 2, 3):
            tc.ones(n, 4) + 1
    groups = prof.key_averages(group_by_input_shape=True)
    adds = sorted((g.input_shapes, g.count) for g in groups if g.key == "aten::add")
    assert adds == [([(2, 4), ()], 2), ([(3, 4), ()], 1)]
    assert "Input Shapes" in groups.table()
    with profile() as prof2:
        tc.ones(1)
    with pytest.raises(RuntimeError, match="record_shapes"):
        prof2.key_averages(group_by_input_shape=True)


def test_table_layout_and_sort_keys():
    a = tc.randn(64, 64)
    with profile() as prof:
        for _ in range(5):
            tc.mm(a, a)
        a + a
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=1)
    lines = table.splitlines()
    assert "Self CPU %" in lines[1] and "# of Calls" in lines[1]
    assert lines[3].startswith("aten::mm") and lines[3].split()[-1] == "5"
    assert lines[-1].startswith("Self CPU time total:")
    assert "aten::add" not in table  # row_limit
    with pytest.raises(ValueError, match="sort_by"):
        prof.key_averages().table(sort_by="wall")


def test_flops_for_matmul_and_strided_conv():
    x = tc.randn(2, 3, 16, 16)
    w = tc.randn(8, 3, 3, 3)
    a, b = tc.randn(5, 7), tc.randn(7, 11)
    with profile(with_flops=True) as prof:
        tc.mm(a, b)
        tc.nn.functional.conv2d(x, w, stride=2, padding=1)
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::mm"].flops == 2 * 5 * 7 * 11
    out = tc.nn.functional.conv2d(x, w, stride=2, padding=1)
    assert avg["aten::conv2d"].flops == 2 * 2 * 8 * out.shape[2] * out.shape[3] * 3 * 9
    assert "Total MFLOPs" in prof.key_averages().table()


def test_record_function_as_decorator_and_in_nested_threads():
    import threading

    @record_function("helper")
    def helper():
        return tc.ones(2) * 3

    with profile() as prof:
        helper()
        t = threading.Thread(target=helper)
        t.start()
        t.join()
    helpers = by_name(prof.events(), "helper")
    assert len(helpers) == 2 and len({h.thread for h in helpers}) == 2
    for h in helpers:
        assert [c.name for c in h.cpu_children] == ["aten::ones", "aten::mul"]


def test_schedule_windows_and_step_spans():
    sched = schedule(wait=1, warmup=1, active=2, repeat=2)
    assert [sched(i) for i in range(9)] == [
        ProfilerAction.NONE,
        ProfilerAction.WARMUP,
        ProfilerAction.RECORD,
        ProfilerAction.RECORD_AND_SAVE,
        ProfilerAction.NONE,
        ProfilerAction.WARMUP,
        ProfilerAction.RECORD,
        ProfilerAction.RECORD_AND_SAVE,
        ProfilerAction.NONE,
    ]
    saved = []
    with profile(schedule=sched, on_trace_ready=lambda p: saved.append(p.events())) as prof:
        for step in range(10):
            with record_function(f"work{step}"):
                tc.ones(2)
            prof.step()
    assert len(saved) == 2
    first = names(saved[0])
    assert [n for n in first if n.startswith("ProfilerStep#")] == [
        "ProfilerStep#2",
        "ProfilerStep#3",
    ]
    assert "work2" in first and "work3" in first and "work1" not in first and "work4" not in first
    second = names(saved[1])
    assert [n for n in second if n.startswith("ProfilerStep#")] == [
        "ProfilerStep#6",
        "ProfilerStep#7",
    ]


def test_bad_schedules_and_nested_profilers(tmp_path):
    with pytest.raises(ValueError, match="active"):
        schedule(wait=1, warmup=1, active=0)
    with pytest.raises(ValueError, match="wait"):
        schedule(wait=-1, warmup=1, active=1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        schedule(wait=0, warmup=0, active=1)
    assert any("warmup" in str(x.message) for x in w)
    with profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            with profile():
                pass
        with pytest.raises(RuntimeError, match="already enabled"):
            with tc.autograd.profiler.profile():
                pass
    assert not tc._C._profiler._is_enabled()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(RuntimeError, match="not a folder"):
        tensorboard_trace_handler(blocker)
    with pytest.raises(RuntimeError, match="Can't create directory"):
        tensorboard_trace_handler(blocker / "sub")


def test_an_exception_in_the_region_still_leaves_a_valid_trace(tmp_path):
    handler = tensorboard_trace_handler(tmp_path, worker_name="crash")
    with pytest.raises(ValueError):
        with profile(on_trace_ready=handler):
            tc.ones(2, 3) + 1
            tc.mm(tc.ones(2, 3), tc.ones(2, 3))  # shape mismatch: raises inside the op
    (path,) = list(tmp_path.iterdir())
    assert path.name.startswith("crash.") and path.name.endswith(".pt.trace.json")
    trace = json.loads(path.read_text())
    ops = [e["name"] for e in trace["traceEvents"] if e.get("ph") == "X"]
    assert "aten::add" in ops and "aten::mm" in ops  # the failing op is there too, closed
    assert not tc._C._profiler._is_enabled()


def test_chrome_trace_format(tmp_path):
    x = tc.randn(8, 8, requires_grad=True)
    with profile(record_shapes=True, profile_memory=True, with_stack=True) as prof:
        with record_function("forward"):
            y = (x * 2).sum()
        y.backward()
    path = tmp_path / "trace.json.gz"
    prof.export_chrome_trace(str(path))
    trace = json.loads(gzip.decompress(path.read_bytes()))
    events = trace["traceEvents"]
    spans = [e for e in events if e["ph"] == "X"]
    mul = next(e for e in spans if e["name"] == "aten::mul")
    assert mul["cat"] == "cpu_op" and mul["args"]["Input Dims"] == [[8, 8], []]
    assert "Call stack" in mul["args"] and "Sequence number" in mul["args"]
    fwd = next(e for e in spans if e["name"] == "forward")
    assert fwd["cat"] == "user_annotation"
    assert fwd["ts"] <= mul["ts"] and mul["ts"] + mul["dur"] <= fwd["ts"] + fwd["dur"] + 1e-3
    mem = [e for e in events if e["name"] == "[memory]"]
    assert mem and all(e["ph"] == "i" and "Total Allocated" in e["args"] for e in mem)
    assert all(isinstance(e["tid"], int) and isinstance(e["pid"], int) for e in spans)


def test_optimizer_and_dataloader_spans():
    from tensorcore.utils.data import DataLoader, TensorDataset

    model = tc.nn.Linear(4, 2)
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    data = TensorDataset(tc.randn(8, 4), tc.randn(8, 2))
    with profile() as prof:
        for xb, yb in DataLoader(data, batch_size=4):
            opt.zero_grad()
            tc.nn.functional.mse_loss(model(xb), yb).backward()
            opt.step()
    ev = names(prof.events())
    assert ev.count("Optimizer.step#SGD.step") == 2
    assert ev.count("Optimizer.zero_grad#SGD.zero_grad") == 2
    assert ev.count("enumerate(DataLoader)#_SingleProcessIter.__next__") == 3  # 2 + StopIteration
    step = by_name(prof.events(), "Optimizer.step#SGD.step")[0]
    assert step.cpu_time_total > 0


def test_dataloader_worker_fetches_are_spans_on_their_own_lanes():
    from tensorcore.utils.data import DataLoader, TensorDataset

    data = TensorDataset(tc.arange(16).float())
    with profile() as prof:
        batches = list(DataLoader(data, batch_size=4, num_workers=2))
    assert len(batches) == 4
    fetches = [e for e in prof.events() if e.name.startswith("DataLoader worker")]
    assert len(fetches) == 4
    main_tid = by_name(prof.events(), "enumerate(DataLoader)#_MultiProcessIter.__next__")[0].thread
    lanes = {e.thread for e in fetches}
    assert len(lanes) == 2 and main_tid not in lanes
    # Workers share the monotonic clock: their spans lie inside the session.
    assert all(0 <= e.start_us <= e.end_us for e in fetches)


def test_legacy_autograd_profiler():
    x = tc.randn(16, 16, requires_grad=True)
    with tc.autograd.profiler.profile(profile_memory=True, record_shapes=True) as prof:
        (x @ x).relu().sum().backward()
    avg = {e.key: e for e in prof.key_averages()}
    assert "aten::matmul" in avg and "aten::relu" in avg
    assert any(k.endswith("Backward0") for k in avg)
    assert prof.self_cpu_time_total > 0
    assert "Self CPU time total" in str(prof)
    assert prof.total_average().count == sum(e.count for e in prof.function_events)
    with tc.autograd.profiler.profile(enabled=False) as off:
        x + 1
    with pytest.raises(RuntimeError, match="didn't finish"):
        off.table()


def test_per_op_totals_cover_the_step_wall_time():
    a = tc.randn(300, 300)
    with profile() as prof:
        t0 = time.perf_counter()
        with record_function("step"):
            for _ in range(10):
                tc.mm(a, a)
        wall_us = (time.perf_counter() - t0) * 1e6
    step = by_name(prof.events(), "step")[0]
    ops_us = sum(c.cpu_time_total for c in step.cpu_children)
    assert step.cpu_time_total <= wall_us
    assert ops_us / step.cpu_time_total > 0.95


def test_profiler_results_match_numpy_semantics_unchanged():
    # The hook must not change results (overload resolution, in-place ops, operators).
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = tc.tensor(a)
    with profile(record_shapes=True):
        t2 = t.clone()
        t2 += 1
        r = (t2 * 2 - t) @ t.t()
        s = t[0, 1:]
    np.testing.assert_allclose(r.numpy(), ((a + 1) * 2 - a) @ a.T)
    np.testing.assert_allclose(s.numpy(), a[0, 1:])


def test_tensorboard_trace_handler_writes_loadable_files(tmp_path):
    handler = tensorboard_trace_handler(tmp_path / "log", worker_name="w0", use_gzip=True)
    with profile(schedule=schedule(wait=0, warmup=1, active=1), on_trace_ready=handler) as p:
        for _ in range(2):
            tc.ones(4) * 2
            p.step()
    files = os.listdir(tmp_path / "log")
    assert len(files) == 1 and files[0].startswith("w0.") and files[0].endswith(".pt.trace.json.gz")
    trace = json.loads(gzip.decompress((tmp_path / "log" / files[0]).read_bytes()))
    assert any(e["name"] == "ProfilerStep#1" for e in trace["traceEvents"])
