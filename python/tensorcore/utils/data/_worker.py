"""Worker-process side of DataLoader: the fetch loop, worker info, exception wrapping, and the
transport that moves tensors to the main process (large ones through shared memory)."""

import os
import queue
import random
import sys
import time
import traceback
from dataclasses import dataclass
from multiprocessing import shared_memory

import numpy as np

from ... import _C
from ..._C import Tensor

# Arrays at least this large travel through a shared-memory block instead of the pipe.
_SHM_THRESHOLD = 1 << 16


@dataclass
class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: object


_worker_info = None


def get_worker_info():
    """Inside a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset); else None."""
    return _worker_info


class ExceptionWrapper:
    """Carries an exception raised in a worker to the main process with the worker's traceback."""

    def __init__(self, exc_info, where):
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        try:
            exc = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exc


class _IterableStop:
    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    pass


class _SharedArray:
    """A numpy array in a named shared-memory block; the receiver maps it without copying."""

    def __init__(self, arr):
        self.shape, self.dtype = arr.shape, arr.dtype.str
        shm = shared_memory.SharedMemory(create=True, size=max(arr.nbytes, 1))
        np.ndarray(arr.shape, arr.dtype, buffer=shm.buf)[...] = arr
        self.name = shm.name
        shm.close()
        # Ownership passes to the receiver, which unlinks the block as soon as it maps it; the
        # worker's resource tracker must not try to clean it up again at exit.
        from multiprocessing import resource_tracker

        resource_tracker.unregister(shm._name, "shared_memory")

    def open(self):
        shm = shared_memory.SharedMemory(name=self.name)
        # Unlink now: the mapping stays valid while the array (and so `shm`) is alive.
        shm.unlink()
        arr = np.ndarray(self.shape, np.dtype(self.dtype), buffer=shm.buf)
        return _KeepAlive.wrap(arr, shm)


class _KeepAlive:
    """Ties a SharedMemory object's lifetime to the array viewing it."""

    @staticmethod
    def wrap(arr, shm):
        holder = np.ndarray.__new__(_ShmArray, arr.shape, arr.dtype, buffer=shm.buf)
        holder._shm = shm
        return holder


class _ShmArray(np.ndarray):
    pass


class _TensorPayload:
    def __init__(self, t):
        t = t.detach()
        if t.dtype == _C.bfloat16:
            self.bf16 = True
            t = t.float()
        else:
            self.bf16 = False
        arr = t.contiguous().numpy()
        self.requires_grad = False
        self.data = _SharedArray(arr) if arr.nbytes >= _SHM_THRESHOLD else arr.copy()

    def restore(self):
        arr = self.data.open() if isinstance(self.data, _SharedArray) else self.data
        t = _C.from_numpy(arr)
        return t.to(_C.bfloat16) if self.bf16 else t


def pack(obj):
    """Replaces tensors inside (nested) containers by picklable payloads."""
    if isinstance(obj, Tensor):
        return _TensorPayload(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(pack(o) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(pack(o) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, pack(v)) for k, v in obj.items())
    return obj


def unpack(obj):
    if isinstance(obj, _TensorPayload):
        return obj.restore()
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(unpack(o) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(unpack(o) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, unpack(v)) for k, v in obj.items())
    return obj


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if self.auto_collation:
            return self.collate_fn([self.dataset[i] for i in index])
        return self.collate_fn(self.dataset[index])


class _IterFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(index)):
                raise StopIteration
            return self.collate_fn(data)
        return self.collate_fn(next(self.dataset_iter))


def create_fetcher(dataset, auto_collation, collate_fn, drop_last, iterable):
    cls = _IterFetcher if iterable else _MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


def worker_loop(
    dataset,
    index_queue,
    data_queue,
    done_event,
    auto_collation,
    collate_fn,
    drop_last,
    base_seed,
    init_fn,
    worker_id,
    num_workers,
    iterable,
):
    global _worker_info
    try:
        # Forked children must not use the parent's OpenMP pool; one thread per worker is also
        # what keeps N workers from oversubscribing the cores.
        _C.set_num_threads(1)
        seed = base_seed + worker_id
        random.seed(seed)
        _C.manual_seed(seed)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(dataset, auto_collation, collate_fn, drop_last, iterable)
        except Exception:
            init_exception = ExceptionWrapper(
                sys.exc_info(), f"in DataLoader worker process {worker_id}"
            )
        iteration_end = False
        while True:
            try:
                task = index_queue.get(timeout=5.0)
            except queue.Empty:
                if done_event.is_set():
                    break
                continue
            if isinstance(task, _ResumeIteration):
                data_queue.put((task, None))
                iteration_end = False
                fetcher = create_fetcher(dataset, auto_collation, collate_fn, drop_last, iterable)
                continue
            if task is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = task
            fetch_start = time.monotonic_ns()
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = pack(fetcher.fetch(index))
                except StopIteration:
                    if iterable:
                        data = _IterableStop(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(
                            sys.exc_info(), f"in DataLoader worker process {worker_id}"
                        )
                except Exception:
                    data = ExceptionWrapper(
                        sys.exc_info(), f"in DataLoader worker process {worker_id}"
                    )
            # The fetch's start and end go along for tc.profiler (a span on the worker's lane).
            timing = (worker_id, os.getpid(), fetch_start, time.monotonic_ns())
            try:
                data_queue.put((idx, data, timing))
            except Exception:
                data_queue.put(
                    (
                        idx,
                        ExceptionWrapper(
                            sys.exc_info(),
                            f"sending a batch from DataLoader worker process {worker_id}",
                        ),
                    )
                )
    except KeyboardInterrupt:
        pass
    # Batches already handed to the queue's feeder thread are written out whole before the
    # process exits (the main process reads them while it shuts the workers down): leaving on
    # cancel_join_thread() could cut a message in half, and the next read would never return.
    data_queue.close()
