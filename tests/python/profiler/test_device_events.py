"""Op spans for calls without a binding (the kernel hook of core/dispatch.h) and the assembly of
device-side results (CUDA kernel intervals, CUDA allocator records) into FunctionEvents, the
key_averages table, the Chrome trace and torch-tb-profiler's parser.

No GPU here: the device intervals go through the recorder's own assembly
(_C._profiler._assemble_device_events, what stop() does with the CUDA timer's read-back event
times) from known times, attached to the spans of a real session. tests/python/cuda/
test_profiler_cuda.py runs the same paths with a GPU's own events."""

import json

import pytest

import tensorcore as tc
from tensorcore.profiler import record_function
from tensorcore.profiler._events import build_events

_native = tc._C._profiler


def by_name(events, name):
    return [e for e in events if e.name == name]


def test_ops_called_from_python_are_one_span_each():
    x, y = tc.randn(8, 8), tc.randn(8, 8)
    with tc.profiler.profile() as prof:
        tc.add(x, y)
        tc.nn.functional.softmax(x, dim=1)  # a composite of several kernels
    ev = prof.events()
    (add,) = by_name(ev, "aten::add")
    assert add.cpu_children == []
    (softmax,) = by_name(ev, "aten::softmax")
    assert softmax.cpu_children == [], "the kernels inside a bound op add no spans"
    assert [e.name for e in ev if e.cpu_parent is None] == ["aten::add", "aten::softmax"]


def test_ops_inside_backward_nodes_become_spans():
    x = tc.randn(16, requires_grad=True)
    y = (x.exp() * x).sum()
    with tc.profiler.profile() as prof:
        y.backward()
    ev = prof.events()
    (node,) = by_name(ev, "ExpBackward0")
    assert node.cpu_children, "the vjp's ops are recorded under their node"
    assert all(c.name.startswith("aten::") for c in node.cpu_children)
    assert node.self_cpu_time_total <= node.cpu_time_total


def _session_with_ops():
    """A real CPU session: a step span holding mm and add, as raw native results."""
    x = tc.randn(64, 64)
    _native._start(True, True, False, False)
    step = _native._begin("ProfilerStep#1", 1)
    with record_function("block"):
        y = tc.mm(x, x)
        tc.add(y, y)
    _native._end(step)
    return _native._stop()


def _kernel_for(raw_event, name, corr, dev_start_after_ns, dev_dur_ns, ref_ns, mark):
    """A kernel launched in the middle of `raw_event`'s span and run on the device
    `dev_start_after_ns` after the launch began: its pending entry and read-back mark."""
    _name, s, e, tid, eid = raw_event[:5]
    launch_s = s + (e - s) // 4
    launch_e = s + (e - s) // 2
    dev_s = launch_s + dev_start_after_ns
    pending = (name, eid, corr, tid, launch_s, launch_e, mark)
    read = (0, 0, ref_ns, (dev_s - ref_ns) / 1e6, (dev_s + dev_dur_ns - ref_ns) / 1e6, True)
    return pending, read


def _with_device_results(raw):
    events, memory = raw[0], list(raw[1])
    mm = next(e for e in events if e[0] == "aten::mm")
    add = next(e for e in events if e[0] == "aten::add")
    ref = raw[2]  # the device's reference event completed at the session start
    p1, m1 = _kernel_for(mm, "bmm_kernel", 9001, 3_000, 40_000, ref, 0)
    p2, m2 = _kernel_for(add, "add_kernel", 9002, 2_000, 6_000, ref, 1)
    device = _native._assemble_device_events([p1, p2], [m1, m2])
    # CUDA caching allocator records (device type 1, cuda:0) inside mm: 1 MiB allocated, held
    # until after the step, on top of 2 MiB already allocated; 20 MiB reserved.
    ts = (mm[1] + mm[2]) // 2
    memory.append((ts, 1 << 20, 3 << 20, 0x7F0000000000, mm[3], mm[4], 1, 0, 20 << 20))
    memory.append((raw[3] - 1, -(1 << 20), 2 << 20, 0x7F0000000000, mm[3], -1, 1, 0, 20 << 20))
    return (events, memory, raw[2], raw[3], device)


def test_device_intervals_fill_the_cuda_columns():
    raw = _with_device_results(_session_with_ops())
    ev = build_events(raw, profile_memory=True)
    (mm,) = by_name(ev, "aten::mm")
    (add,) = by_name(ev, "aten::add")
    (block,) = by_name(ev, "block")
    assert [k.name for k in mm.kernels] == ["bmm_kernel"]
    assert mm.self_cuda_time_total == pytest.approx(40.0)  # us
    assert add.cuda_time_total == pytest.approx(6.0)
    # A span's CUDA total includes what the spans inside it launched; its self time only its own.
    assert block.cuda_time_total == pytest.approx(46.0)
    assert block.self_cuda_time_total == 0
    # The device ran mm's kernel after its launch, on the CPU clock of the spans.
    (k,) = mm.kernels
    assert k.start_us == pytest.approx(k.launch_start_us + 3.0)
    assert mm.start_us < k.launch_start_us < k.launch_end_us < mm.end_us
    # CUDA memory goes to the CUDA columns, not the CPU ones.
    assert mm.self_cuda_memory_usage == 1 << 20
    assert block.cuda_memory_usage == 1 << 20
    assert all(m.device_type in (0, 1) for m in ev.memory)

    avg = {a.key: a for a in ev.key_averages()}
    assert avg["aten::mm"].self_cuda_time_total == pytest.approx(40.0)
    assert avg["block"].cuda_time_total == pytest.approx(46.0)
    table = ev.key_averages().table(sort_by="self_cuda_time_total", row_limit=5)
    header = table.splitlines()[1]
    for col in ("Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg", "Self CUDA Mem"):
        assert col in header
    first = table.splitlines()[3]
    assert first.startswith("aten::mm") and "40.000us" in first and "86.96%" in first
    assert "Self CUDA time total: 46.000us" in table


def test_trace_has_kineto_shaped_gpu_kernels(tmp_path):
    raw = _with_device_results(_session_with_ops())
    ev = build_events(raw, profile_memory=True)
    path = tmp_path / "t.pt.trace.json"
    ev.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    kernels = [e for e in trace if e.get("cat") == "Kernel"]
    runtime = [e for e in trace if e.get("cat") == "Runtime"]
    flows = [e for e in trace if e.get("cat") == "ac2g"]
    assert sorted(k["name"] for k in kernels) == ["add_kernel", "bmm_kernel"]
    mm = next(e for e in trace if e.get("name") == "aten::mm" and e["ph"] == "X")
    bmm = next(k for k in kernels if k["name"] == "bmm_kernel")
    assert bmm["pid"] == 0 and bmm["tid"] == 7  # device 0, the default stream's lane
    assert bmm["args"]["external id"] == mm["args"]["External id"]
    assert bmm["dur"] == pytest.approx(40.0)
    (launch,) = [r for r in runtime if r["args"]["correlation"] == bmm["args"]["correlation"]]
    assert launch["pid"] == mm["pid"] and launch["tid"] == mm["tid"]
    assert mm["ts"] <= launch["ts"] and launch["ts"] + launch["dur"] <= mm["ts"] + mm["dur"]
    assert {(f["ph"], f["id"]) for f in flows} >= {("s", 9001), ("f", 9001)}
    gpu_mem = [e for e in trace if e.get("name") == "[memory]" and e["args"]["Device Type"] == 1]
    assert [m["args"]["Bytes"] for m in gpu_mem] == [1 << 20, -(1 << 20)]
    assert gpu_mem[0]["args"]["Total Reserved"] == 20 << 20
    assert {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}} in (
        trace
    )


def test_torch_tb_profiler_attributes_kernels_and_draws_gpu_memory(tmp_path):
    pytest.importorskip("pandas")
    tb_data = pytest.importorskip("torch_tb_profiler.profiler.data")
    tb_run = pytest.importorskip("torch_tb_profiler.profiler.run_generator")
    raw = _with_device_results(_session_with_ops())
    ev = build_events(raw, profile_memory=True)
    (tmp_path / "run").mkdir()
    path = tmp_path / "run" / "w0.1.pt.trace.json"
    ev.export_chrome_trace(str(path))
    data = tb_data.RunProfileData.parse("w0", None, str(path), str(tmp_path))
    assert data.has_kernel
    assert data.used_devices == [0]
    ops = {op.name: op for op in data.op_list_groupby_name}
    assert ops["aten::mm"].device_duration == pytest.approx(40.0)
    assert ops["aten::add"].device_duration == pytest.approx(6.0)
    kernels = {(k.name, k.op_name) for k in data.kernel_list_groupby_name_op}
    assert kernels == {("bmm_kernel", "aten::mm"), ("add_kernel", "aten::add")}
    run = tb_run.RunGenerator("w0", None, data).generate_run_profile()
    curve = run.get_memory_curve(memory_metric="MB")
    assert "GPU0" in curve["rows"] and "CPU" in curve["rows"]
    gpu = curve["rows"]["GPU0"]
    assert max(row[1] for row in gpu) == pytest.approx(3.0)  # MB allocated at the peak
    assert max(row[2] for row in gpu) == pytest.approx(20.0)  # MB reserved
