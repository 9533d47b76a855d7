"""torch.distributed's process-group API over tensorcore's C++ process groups (Gloo for CPU
tensors, NCCL for CUDA tensors). Ranks given to collectives are global ranks, as in torch."""

import io
import os
import pickle
from datetime import timedelta

from .. import _C
from ._future import Future
from .rendezvous import rendezvous

_D = _C._distributed
ReduceOp = _D.ReduceOp
Store, TCPStore, FileStore, PrefixStore = _D.Store, _D.TCPStore, _D.FileStore, _D.PrefixStore
ProcessGroup, Work = _D.ProcessGroup, _D.Work

default_pg_timeout = timedelta(minutes=30)


def _work_get_future(self):
    return Future(work=self)


Work.get_future = _work_get_future


class Backend(str):
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name}")
        value = name.lower()
        if value not in ("gloo", "nccl", "mpi"):
            raise ValueError(f"Invalid backend: '{name}' (expected 'gloo' or 'nccl')")
        return str.__new__(cls, value)


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = object()


class _Group:
    """What tensorcore knows about one process group: the C++ object and its global ranks."""

    def __init__(self, pg, ranks, backend, store):
        self.pg, self.ranks, self.backend, self.store = pg, list(ranks), backend, store
        self.group_rank = {g: i for i, g in enumerate(self.ranks)}


_world = None  # the default group (_Group)
_world_rank = -1
_groups = {}  # ProcessGroup -> _Group
_group_count = 0
_default_store = None
_default_timeout = default_pg_timeout
_master_addr = None


def is_available():
    return True


def is_gloo_available():
    return _D.is_gloo_available()


def is_nccl_available():
    return _D.is_nccl_available()


def is_mpi_available():
    return False


def is_initialized():
    return _world is not None


def is_torchelastic_launched():
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def _require_init():
    if _world is None:
        raise RuntimeError(
            "Default process group has not been initialized, please make sure to call "
            "init_process_group."
        )


def _debug_detail():
    level = os.environ.get("TC_DISTRIBUTED_DEBUG", os.environ.get("TORCH_DISTRIBUTED_DEBUG", ""))
    return level.upper() == "DETAIL"


def _gloo_host(master_addr):
    if os.environ.get("TC_GLOO_HOSTNAME"):
        return os.environ["TC_GLOO_HOSTNAME"]
    if master_addr in ("localhost", "127.0.0.1", "::1") or (master_addr or "").startswith("127."):
        return "127.0.0.1"  # a single-machine job: stay on loopback
    return ""  # the machine's host name


def _make_pg(backend, store, rank, size, timeout):
    if backend == Backend.GLOO:
        if not _D.is_gloo_available():
            raise RuntimeError("Distributed package doesn't have Gloo built in")
        return _D.make_process_group_gloo(
            store,
            rank,
            size,
            timeout,
            _gloo_host(_master_addr),
            os.environ.get("GLOO_SOCKET_IFNAME", ""),
            _debug_detail(),
        )
    if backend == Backend.NCCL:
        return _D.make_process_group_nccl(store, rank, size, timeout)
    raise RuntimeError(f"Distributed package doesn't have {backend} built in")


def init_process_group(
    backend,
    init_method=None,
    timeout=default_pg_timeout,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
):
    """Joins this process to the default group. Every rank must call it; it returns once all
    world_size ranks have connected (or raises after `timeout`)."""
    global _world, _world_rank, _default_store, _group_count, _default_timeout, _master_addr
    if _world is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    if not isinstance(timeout, timedelta):
        raise TypeError(
            f"Expected timeout argument to be of type datetime.timedelta, got {timeout}"
        )
    backend = Backend(backend)
    if store is not None:
        if init_method is not None:
            raise ValueError("Cannot specify both init_method and store.")
        if world_size <= 0 or rank < 0:
            raise ValueError("world_size and rank must be given with store")
        if rank >= world_size:
            raise ValueError(f"rank {rank} is out of range for world_size {world_size}")
        _master_addr = None
    else:
        if init_method is None:
            init_method = "env://"
        store, rank, world_size, _master_addr = rendezvous(init_method, rank, world_size, timeout)
    _default_store = store
    _default_timeout = timeout
    _group_count = 1
    pg = _make_pg(backend, PrefixStore("default_pg", store), rank, world_size, timeout)
    _world = _Group(pg, range(world_size), backend, store)
    _world_rank = rank
    _groups[pg] = _world
    GroupMember.WORLD = pg


def destroy_process_group(group=None):
    global _world, _world_rank, _default_store
    if group is None or group is GroupMember.WORLD:
        _groups.clear()
        _world, _world_rank, _default_store = None, -1, None
        GroupMember.WORLD = None
    elif group in _groups:
        del _groups[group]


def _resolve(group):
    _require_init()
    if group is None or group is GroupMember.WORLD:
        return _world
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    info = _groups.get(group)
    if info is None:
        raise ValueError("Invalid process group specified (it was destroyed or never created)")
    return info


def new_group(ranks=None, timeout=None, backend=None, pg_options=None):
    """Creates a group over `ranks` (global ranks). Every rank of the world must call it, in the
    same order, members or not; non-members get GroupMember.NON_GROUP_MEMBER."""
    global _group_count
    _require_init()
    world_size = len(_world.ranks)
    ranks = sorted(range(world_size) if ranks is None else ranks)
    for r in ranks:
        if r < 0 or r >= world_size:
            raise ValueError(
                f"new_group: rank {r} is out of range for the world of size {world_size}"
            )
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: duplicate ranks in {ranks}")
    backend = Backend(backend) if backend else _world.backend
    timeout = timeout or _default_timeout
    prefix = str(_group_count)
    _group_count += 1
    if _world_rank not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    store = PrefixStore(prefix, _default_store)
    pg = _make_pg(backend, store, ranks.index(_world_rank), len(ranks), timeout)
    _groups[pg] = _Group(pg, ranks, backend, _default_store)
    return pg


def get_rank(group=None):
    info = _resolve(group)
    if info is None:
        return -1
    return info.group_rank[_world_rank]


def get_world_size(group=None):
    info = _resolve(group)
    return -1 if info is None else len(info.ranks)


def get_backend(group=None):
    info = _resolve(group)
    if info is None:
        raise RuntimeError("Invalid process group specified")
    return info.backend


def get_process_group_ranks(group):
    return list(_resolve(group).ranks)


def _get_default_group():
    _require_init()
    return _world.pg


def _get_default_store():
    _require_init()
    return _default_store


def _group_rank(info, global_rank, what):
    if global_rank not in info.group_rank:
        raise ValueError(
            f"{what} rank {global_rank} is not part of the group (its global ranks are "
            f"{info.ranks})"
        )
    return info.group_rank[global_rank]


def _finish(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


def _check_tensor(t, name, op):
    from .._tensor import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")


def _check_list(ts, name, op):
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"{op}: {name} must be a list of Tensors, got {type(ts).__name__}")
    for t in ts:
        _check_tensor(t, name, op)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(tensor, "tensor", "all_reduce")
    info = _resolve(group)
    if info is None:
        return None
    return _finish(info.pg.allreduce([tensor], op), async_op)


def broadcast(tensor, src, group=None, async_op=False):
    _check_tensor(tensor, "tensor", "broadcast")
    info = _resolve(group)
    if info is None:
        return None
    return _finish(info.pg.broadcast([tensor], _group_rank(info, src, "broadcast: src")), async_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(tensor, "tensor", "reduce")
    info = _resolve(group)
    if info is None:
        return None
    return _finish(info.pg.reduce([tensor], _group_rank(info, dst, "reduce: dst"), op), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _check_list(tensor_list, "tensor_list", "all_gather")
    _check_tensor(tensor, "tensor", "all_gather")
    info = _resolve(group)
    if info is None:
        return None
    return _finish(info.pg.allgather(list(tensor_list), tensor), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    _check_tensor(output_tensor, "output_tensor", "all_gather_into_tensor")
    _check_tensor(input_tensor, "input_tensor", "all_gather_into_tensor")
    info = _resolve(group)
    if info is None:
        return None
    return _finish(info.pg.allgather_into_tensor(output_tensor, input_tensor), async_op)


_all_gather_base = all_gather_into_tensor


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    _check_tensor(tensor, "tensor", "gather")
    info = _resolve(group)
    if info is None:
        return None
    root = _group_rank(info, dst, "gather: dst")
    outs = list(gather_list) if gather_list is not None else []
    if root != info.group_rank[_world_rank]:
        if outs:
            raise ValueError("gather: gather_list must be None (or empty) on non-destination ranks")
    elif gather_list is None:
        raise ValueError("gather: the destination rank must pass gather_list")
    return _finish(info.pg.gather(outs, tensor, root), async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    _check_tensor(tensor, "tensor", "scatter")
    info = _resolve(group)
    if info is None:
        return None
    root = _group_rank(info, src, "scatter: src")
    ins = list(scatter_list) if scatter_list is not None else []
    if root != info.group_rank[_world_rank]:
        if ins:
            raise ValueError("scatter: scatter_list must be None (or empty) on non-source ranks")
    elif scatter_list is None:
        raise ValueError("scatter: the source rank must pass scatter_list")
    return _finish(info.pg.scatter(tensor, ins, root), async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "output", "reduce_scatter")
    _check_list(input_list, "input_list", "reduce_scatter")
    info = _resolve(group)
    if info is None:
        return None
    return _finish(info.pg.reduce_scatter(output, list(input_list), op), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "output", "reduce_scatter_tensor")
    _check_tensor(input, "input", "reduce_scatter_tensor")
    info = _resolve(group)
    if info is None:
        return None
    return _finish(info.pg.reduce_scatter_tensor(output, input, op), async_op)


_reduce_scatter_base = reduce_scatter_tensor


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    _check_list(output_tensor_list, "output_tensor_list", "all_to_all")
    _check_list(input_tensor_list, "input_tensor_list", "all_to_all")
    info = _resolve(group)
    if info is None:
        return None
    return _finish(info.pg.alltoall(list(output_tensor_list), list(input_tensor_list)), async_op)


def all_to_all_single(
    output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False
):
    _check_tensor(output, "output", "all_to_all_single")
    _check_tensor(input, "input", "all_to_all_single")
    info = _resolve(group)
    if info is None:
        return None
    work = info.pg.alltoall_single(
        output, input, list(output_split_sizes or []), list(input_split_sizes or [])
    )
    return _finish(work, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    info = _resolve(group)
    if info is None:
        return None
    return _finish(info.pg.barrier(), async_op)


def isend(tensor, dst, group=None, tag=0):
    _check_tensor(tensor, "tensor", "isend")
    info = _resolve(group)
    if info is None:
        return None
    return info.pg.send(tensor, _group_rank(info, dst, "isend: dst"), tag)


def irecv(tensor, src=None, group=None, tag=0):
    _check_tensor(tensor, "tensor", "irecv")
    info = _resolve(group)
    if info is None:
        return None
    if src is None:
        return info.pg.recv_anysource(tensor, tag)
    return info.pg.recv(tensor, _group_rank(info, src, "irecv: src"), tag)


def send(tensor, dst, group=None, tag=0):
    work = isend(tensor, dst, group, tag)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receives into `tensor`; returns the sender's global rank."""
    info = _resolve(group)
    work = irecv(tensor, src, group, tag)
    if work is None:
        return -1
    work.wait()
    if src is not None:
        return src
    return info.ranks[int(work.result()[1].item())]


# ---- Python objects (pickled into uint8 tensors) ----


def _object_to_tensor(obj):
    import numpy as np

    from .. import from_numpy

    buf = io.BytesIO()
    pickle.Pickler(buf).dump(obj)
    data = np.frombuffer(buf.getvalue(), dtype=np.uint8).copy()
    return from_numpy(data), len(data)


def _tensor_to_object(t, size):
    return pickle.loads(t.numpy()[:size].tobytes())


def all_gather_object(object_list, obj, group=None):
    from .. import int64, tensor, zeros, uint8

    info = _resolve(group)
    if info is None:
        return
    data, size = _object_to_tensor(obj)
    n = len(info.ranks)
    sizes = [zeros(1, dtype=int64) for _ in range(n)]
    all_gather(sizes, tensor([size], dtype=int64), group)
    max_size = max(int(s.item()) for s in sizes)
    padded = zeros(max_size, dtype=uint8)
    padded[:size] = data
    outs = [zeros(max_size, dtype=uint8) for _ in range(n)]
    all_gather(outs, padded, group)
    for i in range(n):
        object_list[i] = _tensor_to_object(outs[i], int(sizes[i].item()))


def broadcast_object_list(object_list, src=0, group=None, device=None):
    from .. import int64, zeros, uint8

    info = _resolve(group)
    if info is None:
        return
    me = _world_rank == src
    sizes = zeros(len(object_list), dtype=int64)
    tensors = []
    if me:
        for i, obj in enumerate(object_list):
            t, size = _object_to_tensor(obj)
            tensors.append(t)
            sizes[i] = size
    broadcast(sizes, src, group)
    total = int(sizes.sum().item())
    flat = zeros(total, dtype=uint8)
    if me and tensors:
        from .. import cat

        flat = cat(tensors)
    broadcast(flat, src, group)
    offset = 0
    for i in range(len(object_list)):
        size = int(sizes[i].item())
        object_list[i] = _tensor_to_object(flat[offset : offset + size], size)
        offset += size
