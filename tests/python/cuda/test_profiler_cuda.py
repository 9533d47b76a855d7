"""tc.profiler with ProfilerActivity.CUDA on a GPU: kernels timed with CUDA events, linked to
their ops in the table and the trace, and the CUDA caching allocator's memory records. Skips
without a GPU (tests/python/cuda/conftest.py); tests/python/profiler/test_device_events.py
covers the host-side assembly everywhere."""

import json
import warnings

import pytest

import tensorcore as tc
from tensorcore.profiler import ProfilerActivity, profile, record_function, schedule


def by_name(events, name):
    return [e for e in events if e.name == name]


@pytest.mark.nogpu
def test_cuda_activity_without_gpu_warns_and_records_cpu():
    if tc.cuda.is_available():
        pytest.skip("a GPU is present")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            tc.ones(3) + 1
    assert any("CUDA" in str(x.message) for x in w)
    assert by_name(prof.events(), "aten::add")
    assert prof.events().device_events == []


def test_cuda_supported_when_a_gpu_is_present():
    assert ProfilerActivity.CUDA in tc.profiler.supported_activities()


def _cuda_step():
    a = tc.randn(1024, 1024, device="cuda")
    b = tc.randn(1024, 1024, device="cuda")
    c = tc.matmul(a, b)
    d = tc.nn.functional.relu(c + a)
    return d.sum()


def test_kernels_are_timed_and_attributed():
    _cuda_step()
    tc.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        with record_function("step"):
            _cuda_step()
    ev = prof.events()
    assert ev.device_events, "CUDA kernels recorded"
    for name in ("aten::matmul", "aten::add", "aten::relu"):
        (op,) = by_name(ev, name)
        assert op.self_cuda_time_total > 0, name
        for k in op.kernels:
            assert k.device == 0
            assert k.launch_start_us >= op.start_us - 1 and k.launch_end_us <= op.end_us + 1
    (step,) = by_name(ev, "step")
    assert step.cuda_time_total == pytest.approx(
        sum(k.duration_us for k in ev.device_events), rel=1e-6
    )
    table = ev.key_averages().table(sort_by="cuda_time_total", row_limit=8)
    assert "Self CUDA" in table and "Self CUDA time total" in table


def test_event_times_agree_with_cuda_events_around_the_op():
    a = tc.randn(4096, 4096, device="cuda")
    tc.matmul(a, a)
    tc.cuda.synchronize()
    start, end = tc.cuda.Event(enable_timing=True), tc.cuda.Event(enable_timing=True)
    start.record()
    tc.matmul(a, a)
    end.record()
    end.synchronize()
    outside_ms = start.elapsed_time(end)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        tc.matmul(a, a)
    (mm,) = by_name(prof.events(), "aten::matmul")
    inside_ms = mm.cuda_time_total / 1000.0
    # A 4096^3 matmul takes milliseconds: the two timings agree within 25%.
    assert inside_ms == pytest.approx(outside_ms, rel=0.25)


def test_cuda_memory_records_and_trace(tmp_path):
    pytest.importorskip("pandas")
    tb_data = pytest.importorskip("torch_tb_profiler.profiler.data")
    tb_run = pytest.importorskip("torch_tb_profiler.profiler.run_generator")
    tc.cuda.synchronize()
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=0, warmup=1, active=2, repeat=1),
        profile_memory=True,
        record_shapes=True,
    ) as prof:
        for _ in range(3):
            _cuda_step()
            prof.step()
    ev = prof.events()
    gpu = [m for m in ev.memory if m.device_type == 1]
    assert gpu and all(m.device == 0 for m in gpu)
    assert any(m.bytes >= 4 << 20 for m in gpu)  # the 1024x1024 float tensors
    path = tmp_path / "w0.1.pt.trace.json"
    ev.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    assert trace["deviceProperties"][0]["totalGlobalMem"] > 0
    data = tb_data.RunProfileData.parse("w0", None, str(path), str(tmp_path))
    assert data.has_kernel and data.used_devices == [0]
    ops = {op.name: op for op in data.op_list_groupby_name}
    assert ops["aten::matmul"].device_duration > 0
    run = tb_run.RunGenerator("w0", None, data).generate_run_profile()
    curve = run.get_memory_curve()
    assert "GPU0" in curve["rows"] and max(r[1] for r in curve["rows"]["GPU0"]) > 0


def test_profiler_off_after_cuda_session():
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        _cuda_step()
    assert not tc._C._profiler._is_enabled()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        _cuda_step()
    assert prof.events().device_events
