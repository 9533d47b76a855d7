"""Worker-process side of DataLoader: the fetch loop, worker info, exception wrapping, and the
transport that moves tensors to the main process (large ones through shared memory)."""

import os
import queue
import random
import sys
import time
import traceback
from dataclasses import dataclass
import mmap
import secrets

import numpy as np

from ... import _C
from ..._C import Tensor

try:
    import _posixshmem  # CPython's shm_open / shm_unlink (what multiprocessing.shared_memory uses)
except ImportError:  # pragma: no cover - not a POSIX CPython
    _posixshmem = None

# Arrays at least this large travel through a shared-memory block instead of the pipe.
_SHM_THRESHOLD = 1 << 16 if _posixshmem is not None else 1 << 62
# Map the pages in one go rather than one fault at a time (Linux; 0 elsewhere).
_POPULATE = getattr(mmap, "MAP_POPULATE", 0)


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


class _Block:
    """The large arrays of one batch in one POSIX shared-memory segment: one segment (and one
    mapping on each side) per batch instead of one per tensor. The segment bypasses
    multiprocessing's resource tracker (two messages to its process per tensor on attach and
    unlink): the receiver unlinks it the moment it maps it, and the main process reads (and so
    unlinks) every batch in flight when it shuts the workers down."""

    _ALIGN = 64

    def __init__(self, arrays):
        offsets, total = [], 0
        for a in arrays:
            total = -(-total // self._ALIGN) * self._ALIGN
            offsets.append(total)
            total += a.nbytes
        self.size = total
        while True:
            name = f"/tc_dl_{os.getpid()}_{secrets.token_hex(6)}"
            try:
                fd = _posixshmem.shm_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, mode=0o600)
                break
            except FileExistsError:
                continue
        try:
            # posix_fallocate reserves the pages now: a full /dev/shm is an OSError here, not a
            # SIGBUS on first touch.
            os.posix_fallocate(fd, 0, total)
            mm = mmap.mmap(fd, total, flags=mmap.MAP_SHARED | _POPULATE)
        except BaseException:
            _posixshmem.shm_unlink(name)
            raise
        finally:
            os.close(fd)
        with mm:
            for a, off in zip(arrays, offsets):
                np.frombuffer(mm, a.dtype, a.size, off).reshape(a.shape)[...] = a
        self.name, self.offsets = name, offsets

    def open(self):
        """Maps the segment and unlinks its name (the mapping lives as long as the arrays that
        view it)."""
        fd = _posixshmem.shm_open(self.name, os.O_RDWR, mode=0o600)
        try:
            _posixshmem.shm_unlink(self.name)
            return mmap.mmap(fd, self.size, flags=mmap.MAP_SHARED | _POPULATE)
        finally:
            os.close(fd)


class _TensorPayload:
    def __init__(self, t, big):
        t = t.detach()
        if t.dtype == _C.bfloat16:
            self.bf16 = True
            t = t.float()
        else:
            self.bf16 = False
        arr = t.contiguous().numpy()
        self.requires_grad = False
        if arr.nbytes >= _SHM_THRESHOLD:
            # goes into the batch's shared-memory block, as its slot-th array
            self.shape, self.dtype, self.slot = arr.shape, arr.dtype.str, len(big)
            big.append(arr)
            self.data = None
        else:
            self.data = arr.copy()

    def restore(self, block, mapping):
        if self.data is None:
            dtype = np.dtype(self.dtype)
            count = int(np.prod(self.shape, dtype=np.int64))
            arr = np.frombuffer(mapping, dtype, count, block.offsets[self.slot])
            arr = arr.reshape(self.shape)
        else:
            arr = self.data
        t = _C.from_numpy(arr)
        return t.to(_C.bfloat16) if self.bf16 else t


class _Packed:
    """A packed batch whose large arrays travel in a shared-memory block."""

    def __init__(self, tree, block):
        self.tree, self.block = tree, block


def _pack(obj, big):
    if isinstance(obj, Tensor):
        return _TensorPayload(obj, big)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_pack(o, big) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_pack(o, big) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _pack(v, big)) for k, v in obj.items())
    return obj


def pack(obj):
    """Replaces tensors inside (nested) containers by picklable payloads; arrays of at least
    _SHM_THRESHOLD bytes go into one shared-memory block for the whole batch."""
    big = []
    tree = _pack(obj, big)
    return _Packed(tree, _Block(big)) if big else tree


def _unpack(obj, block, mapping):
    if isinstance(obj, _TensorPayload):
        return obj.restore(block, mapping)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_unpack(o, block, mapping) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_unpack(o, block, mapping) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _unpack(v, block, mapping)) for k, v in obj.items())
    return obj


def unpack(obj):
    if isinstance(obj, _Packed):
        return _unpack(obj.tree, obj.block, obj.block.open())
    return _unpack(obj, None, None)


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
