"""DataLoader: batching, shuffling and parallel loading with worker processes (torch's semantics)."""

import itertools
import multiprocessing
import multiprocessing.connection
import queue
import time

from ... import _C
from ..._C import Tensor
from ..._profiler_spans import add_worker_span, profiled_method
from . import _worker
from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

_POLL_INTERVAL = 1.0


def _cuda_available():
    import tensorcore

    cuda = getattr(tensorcore, "cuda", None)
    return cuda is not None and cuda.is_available()


def _pin(data):
    """pin_memory hook: page-locks tensors when the build supports it (CUDA); a no-op otherwise."""
    if isinstance(data, Tensor):
        pin = getattr(data, "pin_memory", None)
        return pin() if pin is not None else data
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin(d) for d in data)
    if isinstance(data, dict):
        return {k: _pin(v) for k, v in data.items()}
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data


class _InfiniteSampler:
    def __iter__(self):
        while True:
            yield None


class DataLoader:
    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
    ):
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing. Let num_workers > 0 "
                "to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if prefetch_factor is None and num_workers > 0:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 1:
            raise ValueError("prefetch_factor option should be a positive integer")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset, self.num_workers, self.prefetch_factor = dataset, num_workers, prefetch_factor
        if pin_memory and not _cuda_available():
            # As torch: pinning needs a GPU; without one the flag is ignored with a warning.
            import warnings

            warnings.warn("pin_memory=True but no CUDA device is available; batches are not pinned")
            pin_memory = False
        self.pin_memory, self.pin_memory_device, self.timeout = (
            pin_memory,
            pin_memory_device,
            timeout,
        )
        self.worker_init_fn, self.multiprocessing_context = worker_init_fn, multiprocessing_context
        self.persistent_workers = persistent_workers
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                    f"shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                    "drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self._iterator = None

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None:
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessIter(self)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)


class _BaseIter:
    def __init__(self, loader):
        self._loader = loader
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._pin = loader.pin_memory
        self._timeout = loader.timeout
        self._iterable = loader._iterable
        self._sampler_iter = iter(loader._index_sampler)
        self._num_yielded = 0

    def __init_subclass__(cls, **kwargs):
        # Each batch is a profiler span, torch's enumerate(DataLoader)#<iterator>.__next__.
        super().__init_subclass__(**kwargs)
        if "__next__" in cls.__dict__:
            name = f"enumerate(DataLoader)#{cls.__name__}.__next__"
            cls.__next__ = profiled_method(cls.__dict__["__next__"], lambda self: name)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def _next_index(self):
        return next(self._sampler_iter)


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = _worker.create_fetcher(
            self._dataset, self._auto_collation, self._collate_fn, self._drop_last, self._iterable
        )

    def __next__(self):
        index = self._next_index()
        data = self._fetcher.fetch(index)
        self._num_yielded += 1
        return _pin(data) if self._pin else data


class _MultiProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._persistent = loader.persistent_workers
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context("fork")
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        # One base seed per iterator, drawn from the main RNG so tc.manual_seed makes workers
        # reproducible; worker i uses base_seed + i.
        base_seed = int(_C.empty((), dtype=_C.int64).random_().item())
        self._done_event = ctx.Event()
        self._data_queue = ctx.Queue()
        self._index_queues, self._workers = [], []
        for wid in range(self._num_workers):
            iq = ctx.Queue()
            iq.cancel_join_thread()
            w = ctx.Process(
                target=_worker.worker_loop,
                daemon=True,
                args=(
                    self._dataset,
                    iq,
                    self._data_queue,
                    self._done_event,
                    self._auto_collation,
                    self._collate_fn,
                    self._drop_last,
                    base_seed,
                    loader.worker_init_fn,
                    wid,
                    self._num_workers,
                    self._iterable,
                ),
            )
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        self._shutdown = False
        self._reset(loader, first=True)

    def _reset(self, loader, first=False):
        self._sampler_iter = iter(loader._index_sampler)
        self._num_yielded = 0
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}  # idx -> (worker_id,) while pending, (worker_id, data) when arrived
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first:
            for iq in self._index_queues:
                iq.put(_worker._ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                ok, item = self._get_data()
                if isinstance(item[0], _worker._ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            wid = next(self._worker_cycle)
            if self._workers_status[wid]:
                break
        else:
            return
        self._index_queues[wid].put((self._send_idx, index))
        self._task_info[self._send_idx] = (wid,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self):
        """Waits for one item from the workers, honouring the timeout and noticing dead workers."""
        if self._timeout > 0:
            try:
                return True, self._data_queue.get(timeout=self._timeout)
            except queue.Empty:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None
        while True:
            try:
                return True, self._data_queue.get(timeout=_POLL_INTERVAL)
            except queue.Empty:
                dead = [w for w in self._workers if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    self._shutdown_workers()
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                    ) from None

    def __next__(self):
        while True:
            # Skip over tasks of workers whose iterable stream ended.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                if len(info) == 2 or self._workers_status[info[0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(info[1])
            _, item = self._get_data()
            idx, data = item[0], item[1]
            if len(item) > 2:  # the worker's fetch time: a profiler span of its own
                add_worker_span(*item[2])
            self._tasks_outstanding -= 1
            if isinstance(data, _worker._IterableStop):
                self._workers_status[data.worker_id] = False
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process(data)

    def _process(self, data):
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            self._shutdown_workers()
            data.reraise()
        data = _worker.unpack(data)
        self._num_yielded += 1
        return _pin(data) if self._pin else data

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        self._done_event.set()
        for iq in self._index_queues:
            try:
                iq.put(None)
            except Exception:
                pass
        # Read batches still in flight while the workers finish: a worker blocked writing into a
        # full pipe only exits once it is read, and a worker killed mid-write would leave half a
        # message that no later read could complete. Reading also unlinks the batches'
        # shared-memory blocks.
        # Wake on whichever comes first, a batch or a worker's exit, so an epoch's end costs no
        # polling interval (a fixed 50 ms poll made a small epoch 1.45x torch's time).
        deadline = time.monotonic() + 5.0
        reader = self._data_queue._reader
        while True:
            alive = [w for w in self._workers if w.is_alive()]
            left = deadline - time.monotonic()
            if not alive or left <= 0:
                break
            ready = multiprocessing.connection.wait([reader] + [w.sentinel for w in alive], left)
            if reader in ready:
                self._drain_one(timeout=0)
        for w in self._workers:
            if w.is_alive():
                w.terminate()
            w.join(timeout=1.0)
        if not any(w.exitcode is not None and w.exitcode < 0 for w in self._workers):
            # all exited cleanly: their queue feeders flushed, so only whole messages are left
            while self._drain_one(timeout=0):
                pass
        # Batches that arrived ahead of their turn wait in _task_info still packed: unpacking
        # them releases their shared-memory blocks too.
        for info in getattr(self, "_task_info", {}).values():
            if len(info) == 2 and not isinstance(
                info[1], (_worker.ExceptionWrapper, _worker._IterableStop)
            ):
                try:
                    _worker.unpack(info[1])
                except Exception:
                    pass
        self._task_info = {}
        self._data_queue.cancel_join_thread()
        self._data_queue.close()

    def _drain_one(self, timeout):
        """Reads and frees one in-flight batch; False when none came within `timeout`."""
        try:
            data = self._data_queue.get(timeout=timeout)[1]
        except queue.Empty:
            return False
        except Exception:  # a batch that cannot be rebuilt is dropped all the same
            return True
        if not isinstance(data, (_worker.ExceptionWrapper, _worker._IterableStop)):
            try:
                _worker.unpack(data)
            except Exception:
                pass
        return True

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass
