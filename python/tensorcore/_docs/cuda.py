"""Docstrings of tensorcore.cuda and tensorcore.multiprocessing."""

from ._style import doc

TARGET = "tensorcore.cuda"

_DEV = "device (int, str or device, optional): the CUDA device (default: the current one)."
_CUDA = {
    "is_available": doc(
        "is_available() -> bool",
        "True when tensorcore was built with CUDA and a GPU is usable.",
        example=">>> isinstance(tc.cuda.is_available(), bool)\nTrue",
    ),
    "is_compiled": doc(
        "is_compiled() -> bool",
        "True when tensorcore was built with CUDA support (a GPU may still be absent).",
    ),
    "device_count": doc("device_count() -> int", "Number of usable CUDA devices (0 without CUDA)."),
    "current_device": doc("current_device() -> int", "Index of the current CUDA device."),
    "set_device": doc(
        "set_device(device) -> None",
        "Sets the current CUDA device (prefer ``with tensorcore.cuda.device(i):``).",
        ["device (int or device): the device."],
    ),
    "get_device_name": doc(
        "get_device_name(device=None) -> str", "The name of a CUDA device.", [_DEV]
    ),
    "get_device_capability": doc(
        "get_device_capability(device=None) -> (int, int)",
        "The compute capability (major, minor) of a CUDA device.",
        [_DEV],
    ),
    "get_device_properties": doc(
        "get_device_properties(device=None)",
        "Properties of a CUDA device: ``name``, ``major``, ``minor``, ``total_memory``, ``multi_processor_count``.",
        [_DEV],
    ),
    "synchronize": doc(
        "synchronize(device=None) -> None",
        "Waits until all work queued on the device has finished (needed before timing GPU code).",
        [_DEV],
    ),
    "current_stream": doc(
        "current_stream(device=None) -> Stream", "The stream work is currently queued on.", [_DEV]
    ),
    "default_stream": doc(
        "default_stream(device=None) -> Stream", "The device's default stream.", [_DEV]
    ),
    "set_stream": doc(
        "set_stream(stream) -> None",
        "Makes ``stream`` the current stream.",
        ["stream (Stream): the stream."],
    ),
    "stream": doc(
        "stream(stream)",
        "Context manager that makes ``stream`` current inside the block (None: no change).",
        ["stream (Stream or None): the stream."],
    ),
    "empty_cache": doc(
        "empty_cache() -> None",
        "Returns the unused blocks of the caching allocator to the driver (memory other processes can then use).",
    ),
    "memory_allocated": doc(
        "memory_allocated(device=None) -> int",
        "Bytes currently held by tensors on the device.",
        [_DEV],
    ),
    "max_memory_allocated": doc(
        "max_memory_allocated(device=None) -> int",
        "Peak of :func:`memory_allocated` since the start or the last reset.",
        [_DEV],
    ),
    "memory_reserved": doc(
        "memory_reserved(device=None) -> int",
        "Bytes held by the caching allocator (allocated plus cached).",
        [_DEV],
    ),
    "max_memory_reserved": doc(
        "max_memory_reserved(device=None) -> int", "Peak of :func:`memory_reserved`.", [_DEV]
    ),
    "memory_stats": doc(
        "memory_stats(device=None) -> dict",
        "Allocator statistics (``allocated_bytes.all.current``, ``reserved_bytes.all.peak``, ``num_alloc_retries``, ...).",
        [_DEV],
    ),
    "memory_summary": doc(
        "memory_summary(device=None, abbreviated=False) -> str",
        "A readable table of the allocator statistics.",
        [_DEV, "abbreviated (bool): shorter output."],
    ),
    "reset_peak_memory_stats": doc(
        "reset_peak_memory_stats(device=None) -> None",
        "Resets the peak statistics to the current values.",
        [_DEV],
    ),
    "reset_max_memory_allocated": doc(
        "reset_max_memory_allocated(device=None) -> None",
        "Resets :func:`max_memory_allocated`.",
        [_DEV],
    ),
    "manual_seed": doc(
        "manual_seed(seed) -> None",
        "Seeds the current CUDA device's generator.",
        ["seed (int): the seed."],
    ),
    "manual_seed_all": doc(
        "manual_seed_all(seed) -> None",
        "Seeds the generators of all CUDA devices.",
        ["seed (int): the seed."],
    ),
    "seed": doc("seed() -> None", "Seeds the current CUDA device's generator with a random value."),
    "initial_seed": doc(
        "initial_seed() -> int", "The seed of the current CUDA device's generator."
    ),
    "get_rng_state": doc(
        "get_rng_state(device='cuda') -> Tensor",
        "The state of a CUDA device's generator (uint8 tensor).",
        ["device (str or device): the device."],
    ),
    "set_rng_state": doc(
        "set_rng_state(new_state, device='cuda') -> None",
        "Restores a CUDA device's generator from :func:`get_rng_state`.",
        ["new_state (Tensor): the state.", "device (str or device): the device."],
    ),
}

_FN = "fn (callable): called as ``fn(i, *args)`` in each process, ``i`` its index."
_MP = {
    "spawn": doc(
        "spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn')",
        "Starts ``nprocs`` processes running ``fn``; with ``join`` waits for all and re-raises the first failure in the parent (a ProcessRaisedException or ProcessExitedException). Without ``join`` returns a :class:`ProcessContext`.",
        [
            _FN,
            "args (tuple): extra arguments.",
            "nprocs (int): number of processes.",
            "join (bool): wait for them.",
            "daemon (bool): daemonic processes.",
            "start_method (str): ``'spawn'``, ``'fork'`` or ``'forkserver'``.",
        ],
    ),
    "start_processes": doc(
        "start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn')",
        ":func:`spawn` with a choice of start method.",
        [
            _FN,
            "args (tuple): extra arguments.",
            "nprocs (int): number of processes.",
            "join (bool): wait for them.",
            "daemon (bool): daemonic processes.",
            "start_method (str): the multiprocessing start method.",
        ],
    ),
    "ProcessContext": doc(
        "ProcessContext(processes, error_queues)",
        "Handle of processes started by :func:`spawn`: ``join(timeout=None)`` returns True once all have exited and raises if one failed; ``pids()`` lists them.",
    ),
    "ProcessRaisedException": doc(
        "ProcessRaisedException(msg, error_index, pid)",
        "Raised in the parent when a spawned process raised: carries the child's traceback text, ``error_index`` and ``pid``.",
    ),
    "ProcessExitedException": doc(
        "ProcessExitedException(msg, error_index, error_pid, exit_code, signal_name=None)",
        "Raised in the parent when a spawned process exited with a non-zero code or was killed by a signal.",
    ),
    "get_sharing_strategy": doc(
        "get_sharing_strategy() -> str",
        "How CPU tensors are shared with other processes: ``'file_descriptor'`` or ``'file_system'``.",
    ),
    "set_sharing_strategy": doc(
        "set_sharing_strategy(new_strategy) -> None",
        "Sets how CPU tensors are shared between processes.",
        ["new_strategy (str): one of :func:`get_all_sharing_strategies`."],
    ),
    "get_all_sharing_strategies": doc(
        "get_all_sharing_strategies() -> set", "The supported sharing strategies."
    ),
}

TARGETS = {"tensorcore.cuda": _CUDA, "tensorcore.multiprocessing": _MP}
DOCS = _CUDA
