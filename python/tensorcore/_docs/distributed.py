"""Docstrings of tensorcore.distributed."""

from ._style import doc

TARGET = "tensorcore.distributed"

_G = "group (ProcessGroup, optional): the group (default: the world)."
_A = "async_op (bool): return a :class:`Work` handle instead of waiting."
_OP = "op (ReduceOp): the reduction (SUM, PRODUCT, MIN, MAX, AVG, BAND, BOR, BXOR)."
_RET = "A :class:`Work` handle with ``async_op``, else None."


def _coll(sig, text, args):
    return doc(sig, text, list(args) + [_G, _A], returns=_RET)


DOCS = {
    "all_reduce": _coll(
        "all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False)",
        "Reduces ``tensor`` across all ranks in place: afterwards every rank holds the result.",
        ["tensor (Tensor): input and output.", _OP],
    ),
    "reduce": _coll(
        "reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False)",
        "Reduces ``tensor`` across ranks into rank ``dst``'s tensor.",
        ["tensor (Tensor): input (and output on ``dst``).", "dst (int): destination rank.", _OP],
    ),
    "broadcast": _coll(
        "broadcast(tensor, src, group=None, async_op=False)",
        "Copies rank ``src``'s ``tensor`` into ``tensor`` on every rank.",
        ["tensor (Tensor): data on ``src``, output elsewhere.", "src (int): source rank."],
    ),
    "all_gather": _coll(
        "all_gather(tensor_list, tensor, group=None, async_op=False)",
        "Gathers every rank's ``tensor`` into ``tensor_list`` on every rank (entry i from rank i).",
        [
            "tensor_list (list of Tensors): one output per rank.",
            "tensor (Tensor): this rank's contribution.",
        ],
    ),
    "all_gather_into_tensor": _coll(
        "all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False)",
        "Gathers every rank's ``input_tensor`` into one ``output_tensor`` (concatenated or stacked along dim 0).",
        [
            "output_tensor (Tensor): world_size times the input.",
            "input_tensor (Tensor): this rank's contribution.",
        ],
    ),
    "gather": _coll(
        "gather(tensor, gather_list=None, dst=0, group=None, async_op=False)",
        "Gathers every rank's ``tensor`` into ``gather_list`` on rank ``dst``.",
        [
            "tensor (Tensor): this rank's contribution.",
            "gather_list (list of Tensors, optional): outputs, on ``dst`` only.",
            "dst (int): destination rank.",
        ],
    ),
    "scatter": _coll(
        "scatter(tensor, scatter_list=None, src=0, group=None, async_op=False)",
        "Sends ``scatter_list[i]`` from rank ``src`` to rank i's ``tensor``.",
        [
            "tensor (Tensor): output.",
            "scatter_list (list of Tensors, optional): inputs, on ``src`` only.",
            "src (int): source rank.",
        ],
    ),
    "reduce_scatter": _coll(
        "reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False)",
        "Reduces ``input_list[i]`` across ranks and leaves the result in rank i's ``output``.",
        [
            "output (Tensor): this rank's result.",
            "input_list (list of Tensors): one input per rank.",
            _OP,
        ],
    ),
    "reduce_scatter_tensor": _coll(
        "reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False)",
        "Reduce-scatter with one input tensor split along dim 0 into world_size parts.",
        [
            "output (Tensor): this rank's part of the result.",
            "input (Tensor): world_size parts.",
            _OP,
        ],
    ),
    "all_to_all": _coll(
        "all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False)",
        "Rank i sends ``input_tensor_list[j]`` to rank j, which receives it in ``output_tensor_list[i]``.",
        [
            "output_tensor_list (list of Tensors): received data.",
            "input_tensor_list (list of Tensors): sent data.",
        ],
    ),
    "all_to_all_single": _coll(
        "all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False)",
        "All-to-all on single tensors split along dim 0 (equally, or by the given sizes).",
        [
            "output (Tensor): received data.",
            "input (Tensor): sent data.",
            "output_split_sizes (list, optional): rows received from each rank.",
            "input_split_sizes (list, optional): rows sent to each rank.",
        ],
    ),
    "barrier": doc(
        "barrier(group=None, async_op=False, device_ids=None)",
        "Blocks until every rank of the group has reached the barrier.",
        [_G, _A, "device_ids (list, optional): accepted for torch compatibility."],
    ),
    "send": doc(
        "send(tensor, dst, group=None, tag=0) -> None",
        "Sends ``tensor`` to rank ``dst`` (blocking).",
        [
            "tensor (Tensor): the data.",
            "dst (int): destination rank.",
            _G,
            "tag (int): matches a recv with the same tag.",
        ],
    ),
    "isend": doc(
        "isend(tensor, dst, group=None, tag=0) -> Work",
        "Non-blocking :func:`send`; ``wait()`` the returned handle before reusing ``tensor``.",
        [
            "tensor (Tensor): the data.",
            "dst (int): destination rank.",
            _G,
            "tag (int): message tag.",
        ],
    ),
    "irecv": doc(
        "irecv(tensor, src=None, group=None, tag=0) -> Work",
        "Non-blocking receive into ``tensor`` from ``src`` (any rank when None).",
        [
            "tensor (Tensor): the buffer.",
            "src (int, optional): source rank.",
            _G,
            "tag (int): message tag.",
        ],
    ),
    "broadcast_object_list": doc(
        "broadcast_object_list(object_list, src=0, group=None, device=None) -> None",
        "Broadcasts picklable Python objects from rank ``src`` into ``object_list`` in place on every rank.",
        [
            "object_list (list): objects on ``src``, same-length list elsewhere.",
            "src (int): source rank.",
            _G,
            "device (optional): accepted for torch compatibility.",
        ],
    ),
    "all_gather_object": doc(
        "all_gather_object(object_list, obj, group=None) -> None",
        "Gathers a picklable object from every rank into ``object_list``.",
        ["object_list (list): world_size slots.", "obj (object): this rank's object.", _G],
    ),
    "get_rank": doc(
        "get_rank(group=None) -> int",
        "This process's rank in the group (-1 if not a member).",
        [_G],
    ),
    "get_world_size": doc(
        "get_world_size(group=None) -> int", "Number of processes in the group.", [_G]
    ),
    "get_backend": doc(
        "get_backend(group=None) -> str",
        "The group's backend name (``'gloo'`` or ``'nccl'``).",
        [_G],
    ),
    "get_process_group_ranks": doc(
        "get_process_group_ranks(group) -> list",
        "The global ranks of a group's members.",
        ["group (ProcessGroup): the group."],
    ),
    "destroy_process_group": doc(
        "destroy_process_group(group=None) -> None",
        "Shuts down a group (the world and every group when None).",
        [_G],
    ),
    "is_available": doc("is_available() -> bool", "True when the distributed package is built."),
    "is_initialized": doc(
        "is_initialized() -> bool", "True once :func:`init_process_group` has run."
    ),
    "is_gloo_available": doc(
        "is_gloo_available() -> bool", "True when the Gloo (CPU) backend is built."
    ),
    "is_nccl_available": doc(
        "is_nccl_available() -> bool", "True when the NCCL (CUDA) backend is built."
    ),
    "is_mpi_available": doc(
        "is_mpi_available() -> bool", "True when an MPI backend is built (never, here)."
    ),
    "is_torchelastic_launched": doc(
        "is_torchelastic_launched() -> bool",
        "True when the process was started by the elastic launcher (``TORCHELASTIC_RUN_ID`` is set).",
    ),
    "Backend": "Backend names: ``Backend.GLOO``, ``Backend.NCCL``; ``Backend(name)`` normalizes a string.",
    "ProcessGroup": "A set of ranks with a backend, created by :func:`init_process_group` (the world) or :func:`new_group`; its collectives are issued in order on a worker thread per group.",
    "Work": "Handle of an asynchronous collective: ``wait()`` blocks until it is done (and raises its error), ``is_completed()`` polls, ``get_future()`` gives a future.",
    "Store": "Key-value store shared by the ranks for rendezvous: ``set``, ``get`` (waits for the key), ``add`` (atomic counter), ``wait``, ``delete_key``, ``num_keys``.",
    "TCPStore": "A :class:`Store` served over TCP by one rank: ``TCPStore(host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300), wait_for_workers=True)``.",
    "FileStore": "A :class:`Store` in a shared file: ``FileStore(file_name, world_size=-1)``.",
    "PrefixStore": "A view of another :class:`Store` that prefixes every key: ``PrefixStore(prefix, store)``.",
    "GroupMember": "Constants of group membership: ``GroupMember.WORLD`` (the default group) and ``GroupMember.NON_GROUP_MEMBER``.",
}
