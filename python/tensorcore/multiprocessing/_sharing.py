"""Shared-memory storages for tensors and the reducers multiprocessing's pickler uses."""

import mmap
import os
import secrets
import threading
import weakref
from multiprocessing import reduction
from multiprocessing import util as mp_util

import numpy as np

from .. import _C

_STRATEGIES = ("file_descriptor", "file_system")
_strategy = "file_descriptor"
_lock = threading.Lock()
# data address of a shared storage -> _Block (weakly: it dies with the mapping's last user)
_blocks = {}


def get_all_sharing_strategies():
    return set(_STRATEGIES)


def get_sharing_strategy():
    return _strategy


def set_sharing_strategy(new_strategy):
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise ValueError(
            f"set_sharing_strategy: unknown strategy {new_strategy!r} (known: {sorted(_STRATEGIES)})"
        )
    _strategy = new_strategy


_SHM_DIR = "/dev/shm"  # where POSIX shm_open keeps named blocks on Linux


class _Block:
    """One shared memory block mapped into this process, exposed as a flat uint8 ndarray."""

    def __init__(self, nbytes, strategy, fd=None, name=None):
        self.nbytes, self.strategy, self.fd, self.name = nbytes, strategy, fd, name
        size = max(nbytes, 1)
        owner = False
        if strategy == "file_descriptor":
            if fd is None:
                fd = os.memfd_create("tensorcore-shared", os.MFD_CLOEXEC)
                os.ftruncate(fd, size)
            self.fd = fd
            mapping = mmap.mmap(fd, size)
        else:
            if name is None:
                name = f"tensorcore_{os.getpid()}_{secrets.token_hex(8)}"
                flags, owner = os.O_CREAT | os.O_EXCL | os.O_RDWR, True
            else:
                flags = os.O_RDWR
            path = os.path.join(_SHM_DIR, name)
            try:
                block_fd = os.open(path, flags, 0o600)
            except FileNotFoundError:
                raise RuntimeError(
                    f"shared memory block {name!r} no longer exists: with the 'file_system' "
                    "strategy the sending process must keep its tensor alive until the receiver "
                    "has it"
                ) from None
            try:
                if owner:
                    os.ftruncate(block_fd, size)
                mapping = mmap.mmap(block_fd, size)
            finally:
                os.close(block_fd)
            self.name = name
        # The array holds the mapping; the mapping goes when the last tensor using it dies.
        self.array = np.frombuffer(mapping, dtype=np.uint8, count=nbytes)
        unlink = os.path.join(_SHM_DIR, self.name) if owner else None
        # multiprocessing runs these at exit too (forked children end with os._exit, past atexit).
        mp_util.Finalize(self.array, _Block._release, args=(self.fd, unlink), exitpriority=0)

    @staticmethod
    def _release(fd, unlink_path):
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass
        if unlink_path is not None:
            try:
                os.unlink(unlink_path)
            except FileNotFoundError:
                pass

    def tensor(self):
        t = _C.from_numpy(self.array) if self.nbytes else _C.empty(0, dtype=_C.uint8)
        return t


def _register(block, tensor):
    key = tensor.untyped_storage_ptr()
    with _lock:
        _blocks[key] = weakref.ref(block.array), block
    weakref.finalize(block.array, _forget, key, id(block))


def _forget(key, block_id):
    with _lock:
        entry = _blocks.get(key)
        if entry is not None and id(entry[1]) == block_id:
            del _blocks[key]


def _block_of(t):
    with _lock:
        entry = _blocks.get(t.untyped_storage_ptr())
    if entry is None or entry[0]() is None:
        return None
    return entry[1]


def is_shared(t):
    return t.is_cpu and _block_of(t) is not None


def share_memory_(t):
    """Moves t's storage (with every view of it) into shared memory, in place; returns t."""
    if not t.is_cpu or _block_of(t) is not None:
        return t  # CUDA tensors are shared through CUDA IPC in torch; a no-op here as there
    block = _Block(t._storage_nbytes(), _strategy)
    holder = block.tensor()
    t._move_storage_into(holder)
    # The block's array now backs t's storage (swapped in), and the old memory backs `holder`.
    del holder
    _register(block, t)
    return t


def _rebuild_tensor(handle, dtype_name, size, stride, offset, requires_grad):
    strategy, nbytes, ref = handle
    if strategy == "file_descriptor":
        block = _Block(nbytes, strategy, fd=ref.detach())
    else:
        block = _Block(nbytes, strategy, name=ref)
    base = block.tensor()
    _register(block, base)
    dtype = getattr(_C, dtype_name)
    typed = base.view(dtype) if dtype != _C.uint8 else base
    t = _C.as_strided(typed, tuple(size), tuple(stride), offset)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _rebuild_parameter(data, requires_grad):
    from ..nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def reduce_tensor(t):
    from ..nn.parameter import Parameter

    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries. If you just want to transfer the "
            "data, call detach() on the tensor before serializing."
        )
    if not t.is_cpu:
        raise RuntimeError("tensorcore.multiprocessing: only CPU tensors can be shared")
    if isinstance(t, Parameter):
        data = t.detach()
        return (_rebuild_parameter, (data, t.requires_grad))
    share_memory_(t)
    block = _block_of(t)
    if block.strategy == "file_descriptor":
        ref = reduction.DupFd(block.fd)
    else:
        ref = block.name
    handle = (block.strategy, block.nbytes, ref)
    itemsize = t.element_size()
    if itemsize != 1 and block.nbytes % itemsize:
        raise RuntimeError(
            "tensorcore.multiprocessing: storage size is not a multiple of the dtype"
        )
    return (
        _rebuild_tensor,
        (
            handle,
            _dtype_name(t.dtype),
            tuple(t.shape),
            tuple(t.stride()),
            t.storage_offset(),
            bool(t.requires_grad),
        ),
    )


def _tensor_types():
    from .. import _legacy_tensors
    from ..nn.parameter import Parameter

    types = {_C.Tensor, Parameter}
    for name in dir(_legacy_tensors):
        obj = getattr(_legacy_tensors, name)
        if isinstance(obj, type) and issubclass(obj, _C.Tensor):
            types.add(obj)
    return types


def install():
    for cls in _tensor_types():
        reduction.ForkingPickler.register(cls, reduce_tensor)
