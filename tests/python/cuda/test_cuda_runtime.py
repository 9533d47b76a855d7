"""tc.cuda runtime: devices, streams, events, allocator statistics, pinned memory, copies."""

import numpy as np
import pytest

import tensorcore as tc


@pytest.mark.nogpu
def test_api_present_without_gpu():
    assert isinstance(tc.cuda.is_available(), bool)
    if not tc.cuda.is_available():
        assert tc.cuda.device_count() == 0
        assert tc.cuda.memory_allocated() == 0
        with pytest.raises((RuntimeError, NotImplementedError, ValueError)) as e:
            tc.zeros(3, device="cuda")
        assert "cuda" in str(e.value).lower()
    tc.backends.cuda.matmul.allow_tf32 = True
    assert tc.backends.cuda.matmul.allow_tf32
    tc.backends.cuda.matmul.allow_tf32 = False


def test_device_queries():
    assert tc.cuda.device_count() >= 1
    assert tc.cuda.current_device() == 0
    name = tc.cuda.get_device_name(0)
    assert isinstance(name, str) and name
    props = tc.cuda.get_device_properties(0)
    assert props.total_memory > 2**30 and props.multi_processor_count > 0
    assert tc.cuda.get_device_capability() >= (7, 0)
    with tc.cuda.device(0):
        assert tc.cuda.current_device() == 0


def test_to_cuda_and_back_all_dtypes():
    for dt in [
        tc.bool,
        tc.uint8,
        tc.int8,
        tc.int16,
        tc.int32,
        tc.int64,
        tc.float16,
        tc.bfloat16,
        tc.float32,
        tc.float64,
        tc.complex64,
        tc.complex128,
    ]:
        x = tc.arange(24).reshape(2, 3, 4).to(dt)
        g = x.cuda()
        assert g.is_cuda and g.device == tc.device("cuda:0") and g.dtype == dt
        assert tc.equal(g.cpu(), x)
        assert tc.equal(x.to("cuda").to("cpu"), x)
        assert g.to("cuda") is g and g.cuda() is g  # already there: no copy
        # non-contiguous device->device and device->host copies
        t = g.transpose(0, 2)
        assert tc.equal(t.contiguous().cpu(), x.transpose(0, 2))
        assert tc.equal(t.cpu(), x.transpose(0, 2))


def test_factories_with_device():
    assert tc.zeros(2, 3, device="cuda").is_cuda
    assert tc.ones(4, device="cuda", dtype=tc.float16).cpu().tolist() == [1, 1, 1, 1]
    assert tc.full((2,), 7, device="cuda").cpu().tolist() == [7, 7]
    assert tc.arange(5, device="cuda").cpu().tolist() == [0, 1, 2, 3, 4]
    assert tc.eye(3, device="cuda").cpu().tolist() == tc.eye(3).tolist()
    x = tc.empty(5, device="cuda")
    assert tc.zeros_like(x).is_cuda


def test_copy_across_devices_and_casts():
    src = tc.randn(5, 7)
    dst = tc.empty(5, 7, device="cuda", dtype=tc.float64)
    dst.copy_(src)
    assert np.allclose(dst.cpu().numpy(), src.numpy().astype(np.float64))
    back = tc.empty(5, 7, dtype=tc.float16)
    back.copy_(dst)
    assert np.allclose(back.float().numpy(), src.numpy(), atol=1e-2)
    g16 = src.cuda().half()
    assert g16.dtype == tc.float16 and np.allclose(
        g16.float().cpu().numpy(), src.numpy(), atol=1e-2
    )


def test_mixing_devices_raises_naming_both():
    a = tc.ones(3)
    b = tc.ones(3, device="cuda")
    with pytest.raises(Exception) as e:
        a + b
    msg = str(e.value)
    assert "cpu" in msg and "cuda:0" in msg
    # Python numbers and 0-dim CPU tensors join CUDA tensors.
    assert (b + 1).cpu().tolist() == [2, 2, 2]
    assert (b * tc.tensor(3.0)).cpu().tolist() == [3, 3, 3]


def test_caching_allocator_stats():
    tc.cuda.synchronize()
    tc.cuda.empty_cache()
    tc.cuda.reset_peak_memory_stats()
    base = tc.cuda.memory_allocated()
    x = tc.empty(1 << 20, device="cuda")  # 4 MiB
    assert tc.cuda.memory_allocated() - base == 4 << 20
    reserved = tc.cuda.memory_reserved()
    assert reserved >= 4 << 20
    del x
    assert tc.cuda.memory_allocated() == base
    assert tc.cuda.memory_reserved() == reserved  # cached, not freed
    y = tc.empty(1 << 20, device="cuda")
    assert tc.cuda.memory_reserved() == reserved  # reused
    assert tc.cuda.max_memory_allocated() >= base + (4 << 20)
    small = [tc.empty(100, device="cuda") for _ in range(50)]  # split from one 2 MiB segment
    stats = tc.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == tc.cuda.memory_allocated()
    assert stats["segment.all.current"] >= 2
    del y, small
    tc.cuda.empty_cache()
    assert tc.cuda.memory_reserved() < reserved + (2 << 20)
    assert "allocated" in tc.cuda.memory_summary()


def test_out_of_memory_is_a_clear_error():
    with pytest.raises(Exception) as e:
        tc.empty(1 << 45, dtype=tc.uint8, device="cuda")
    assert "out of memory" in str(e.value)
    x = tc.ones(10, device="cuda")  # still usable afterwards
    assert x.sum().item() == 10


def test_streams_and_events():
    s = tc.cuda.Stream()
    assert s != tc.cuda.default_stream()
    a = tc.randn(1000, 1000, device="cuda")
    s.wait_stream(tc.cuda.current_stream())  # `a` was written on the default stream
    with tc.cuda.stream(s):
        assert tc.cuda.current_stream() == s
        start, end = tc.cuda.Event(enable_timing=True), tc.cuda.Event(enable_timing=True)
        start.record()
        b = a @ a
        end.record()
    assert tc.cuda.current_stream() == tc.cuda.default_stream()
    end.synchronize()
    assert end.query() and s.query()
    assert start.elapsed_time(end) > 0
    tc.cuda.current_stream().wait_stream(s)
    assert np.allclose(b.cpu().numpy(), a.cpu().numpy() @ a.cpu().numpy(), rtol=1e-3, atol=1e-2)
    b.record_stream(s)
    del b
    tc.cuda.synchronize()


def test_pinned_memory():
    x = tc.randn(1000)
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.is_pinned() and tc.equal(p, x)
    assert tc.equal(p.cuda().cpu(), x)


def test_manual_seed_reproducible_and_matches_cpu():
    tc.cuda.manual_seed(123)
    a = tc.rand(1000, device="cuda")
    tc.cuda.manual_seed(123)
    b = tc.rand(1000, device="cuda")
    assert tc.equal(a, b)
    tc.manual_seed(123)  # seeds CPU and CUDA alike
    c = tc.rand(1000)
    d = tc.rand(1000, device="cuda")
    # Same Philox stream and transform on both devices.
    assert tc.equal(c, d.cpu())
    assert 0 <= a.min().item() and a.max().item() < 1
