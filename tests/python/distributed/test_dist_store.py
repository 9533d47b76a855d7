"""TCPStore, FileStore, PrefixStore: set/get/add/compare_set/wait/check/delete, timeouts and bad
input (real sockets and files)."""

import socket
import threading
import time
from datetime import timedelta

import pytest
from dist_harness import free_port

import tensorcore.distributed as dist


def _exercise(store, other):
    store.set("a", "1")
    assert other.get("a") == b"1"
    store.set("b", b"\x00\xffbin")
    assert other.get("b") == b"\x00\xffbin"
    assert store.add("n", 5) == 5
    assert other.add("n", -2) == 3
    assert store.get("n") == b"3"
    assert store.compare_set("c", "", "first") == b"first"  # unset + empty expected: sets
    assert other.compare_set("c", "wrong", "x") == b"first"  # mismatch: unchanged
    assert other.compare_set("c", "first", "second") == b"second"
    assert store.check(["a", "b"]) and not store.check(["a", "missing"])
    keys_before = other.num_keys()
    assert store.delete_key("a") and not store.delete_key("a")
    assert other.num_keys() == keys_before - 1

    # wait() returns as soon as another thread sets the key
    def later():
        time.sleep(0.2)
        other.set("late", "v")

    th = threading.Thread(target=later)
    th.start()
    t0 = time.monotonic()
    store.wait(["late"], timedelta(seconds=5))
    assert time.monotonic() - t0 < 4
    th.join()
    assert store.get("late") == b"v"
    # a key never set: an error naming it within the timeout, and the store still works after
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="never_set"):
        store.wait(["never_set"], timedelta(milliseconds=300))
    assert time.monotonic() - t0 < 3
    store.set_timeout(timedelta(milliseconds=300))
    with pytest.raises(RuntimeError, match="never_set2"):
        store.get("never_set2")
    store.set("after", "ok")
    assert other.get("after") == b"ok"


def test_tcp_store():
    master = dist.TCPStore("127.0.0.1", 0, 2, True, timedelta(seconds=10), False)
    assert master.port > 0
    client = dist.TCPStore("127.0.0.1", master.port, 2, False, timedelta(seconds=10), False)
    _exercise(master, client)


def test_file_store(tmp_path):
    path = str(tmp_path / "store")
    a = dist.FileStore(path, 2)
    b = dist.FileStore(path, 2)
    _exercise(a, b)
    del a, b
    import os

    assert not os.path.exists(path), "the last FileStore user removes the file"


def test_prefix_store():
    master = dist.TCPStore("127.0.0.1", 0, 1, True, timedelta(seconds=10), False)
    p1, p2 = dist.PrefixStore("one", master), dist.PrefixStore("two", master)
    p1.set("k", "1")
    p2.set("k", "2")
    assert p1.get("k") == b"1" and p2.get("k") == b"2"
    assert master.get("one/k") == b"1"
    assert p1.add("cnt", 2) == 2 and p2.add("cnt", 1) == 1
    assert p1.check(["k"]) and not p1.check(["zzz"])


def test_port_in_use_is_reported():
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"port {port}.*in use"):
            dist.TCPStore("127.0.0.1", port, 1, True, timedelta(seconds=2), False)


def test_unreachable_master_fails_within_timeout():
    port = free_port()  # nothing listens there
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=f"could not connect.*{port}"):
        dist.TCPStore("127.0.0.1", port, 2, False, timedelta(milliseconds=500), False)
    assert time.monotonic() - t0 < 5


def test_bad_values():
    master = dist.TCPStore("127.0.0.1", 0, 1, True, timedelta(seconds=5), False)
    with pytest.raises(TypeError, match="str or bytes"):
        master.set("k", 3)
    with pytest.raises(ValueError, match="port"):
        dist.TCPStore("127.0.0.1", 70000, 1, True, timedelta(seconds=1), False)


def test_init_process_group_bad_input(monkeypatch):
    with pytest.raises(ValueError, match="rank 3 is out of range for world_size 2"):
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:1", rank=3, world_size=2)
    with pytest.raises(ValueError, match="Invalid backend"):
        dist.init_process_group("mpix", init_method="tcp://127.0.0.1:1", rank=0, world_size=1)
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    with pytest.raises(ValueError, match="MASTER_ADDR"):
        dist.init_process_group("gloo")
    with pytest.raises(RuntimeError, match="has not been initialized"):
        dist.all_reduce(__import__("tensorcore").ones(1))
    assert not dist.is_initialized()


def test_single_process_group_and_wrong_device():
    import tensorcore as tc

    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1
    )
    try:
        t = tc.arange(4.0)
        dist.all_reduce(t)
        assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
        with pytest.raises(ValueError, match="contiguous"):
            dist.all_reduce(tc.ones(4, 4).t())
        with pytest.raises(ValueError, match="src rank 1 is not part of the group"):
            dist.broadcast(t, src=1)
        with pytest.raises(TypeError, match="must be a Tensor"):
            dist.all_reduce([1, 2])
        if tc.cuda.is_available():
            with pytest.raises(ValueError, match="CPU tensors"):
                dist.all_reduce(tc.ones(2, device="cuda"))
        with pytest.raises(RuntimeError, match="twice"):
            dist.init_process_group("gloo", init_method="tcp://127.0.0.1:1", rank=0, world_size=1)
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize("flavour", ["slurm", "mpirun"])
def test_env_init_under_slurm_and_mpirun(flavour):
    from dist_harness import run_workers

    run_workers("scheduler_env", 2, args=(flavour,))
