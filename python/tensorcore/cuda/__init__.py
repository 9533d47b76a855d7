"""tensorcore.cuda: devices, streams, events, the caching allocator and CUDA random state,
with torch.cuda's names and semantics. Importable in every build: without CUDA (or without a
GPU) is_available() is False and device_count() is 0."""

from .. import _C

_cuda = _C._cuda

is_compiled = _cuda.is_compiled


class OutOfMemoryError(RuntimeError):
    """Raised when the caching allocator cannot get memory from the driver."""


def is_available():
    return _cuda.is_available()


def device_count():
    return _cuda.device_count()


def _index(device, optional=True):
    """Device index from None / int / 'cuda:1' / tc.device; -1 means the current device."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _C.device(device)
    if hasattr(device, "type"):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return -1 if device.index is None else device.index
    raise TypeError(f"invalid device: {device!r}")


def current_device():
    return _cuda.current_device()


def set_device(device):
    idx = _index(device)
    if idx >= 0:
        _cuda.set_device(idx)


def synchronize(device=None):
    _cuda.synchronize(_index(device))


def get_device_name(device=None):
    return _cuda.get_device_name(_index(device))


def get_device_capability(device=None):
    p = _cuda.get_device_properties(_index(device))
    return (p.major, p.minor)


def get_device_properties(device=None):
    return _cuda.get_device_properties(_index(device))


class device:
    """Context manager that changes the current device (torch.cuda.device)."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = _cuda.current_device()
            if self.prev_idx != self.idx:
                _cuda.set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            _cuda.set_device(self.prev_idx)
        return False


class device_of(device):
    """Device guard for the device of a tensor (no-op for CPU tensors)."""

    def __init__(self, obj):
        super().__init__(obj.device.index if obj.is_cuda else -1)


class Stream:
    """A CUDA stream from the per-device pool (streams are never destroyed, as in PyTorch)."""

    def __init__(self, device=None, priority=0, _stream=None):
        if _stream is not None:
            self._s = _stream
        else:
            with globals()["device"](device):
                self._s = _cuda.new_stream(-1, priority)

    @property
    def device(self):
        return _C.device(f"cuda:{self._s.device_index}")

    @property
    def device_index(self):
        return self._s.device_index

    @property
    def cuda_stream(self):
        return self._s.cuda_stream

    def query(self):
        return self._s.query()

    def synchronize(self):
        self._s.synchronize()

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        _cuda.stream_wait_stream(self._s, stream._s)

    def record_event(self, event=None):
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self._s == other._s

    def __hash__(self):
        return hash(self._s)

    def __repr__(self):
        return f"<tensorcore.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"


class Event:
    """A CUDA event: record on a stream, wait, query, and time with elapsed_time (ms)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self._e = _cuda._Event(enable_timing, blocking, interprocess)

    def record(self, stream=None):
        if stream is None:
            stream = current_stream()
        self._e.record(stream._s)

    def wait(self, stream=None):
        if stream is None:
            stream = current_stream()
        self._e.wait(stream._s)

    def query(self):
        return self._e.query()

    def synchronize(self):
        self._e.synchronize()

    def elapsed_time(self, end_event):
        return self._e.elapsed_time(end_event._e)

    def __repr__(self):
        return f"<tensorcore.cuda.Event recorded={self._e.recorded}>"


def current_stream(device=None):
    return Stream(_stream=_cuda.current_stream(_index(device)))


def default_stream(device=None):
    return Stream(_stream=_cuda.default_stream(_index(device)))


def set_stream(stream):
    if stream is not None:
        _cuda.set_stream(stream._s)


class StreamContext:
    """Makes `stream` current (on its device) for the scope; `None` is a no-op."""

    def __init__(self, stream):
        self.stream = stream
        self._prev = None
        self._dev = None

    def __enter__(self):
        if self.stream is None:
            return None
        self._dev = device(self.stream.device_index)
        self._dev.__enter__()
        self._prev = current_stream()
        set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is None:
            return False
        set_stream(self._prev)
        self._dev.__exit__(*exc)
        return False


def stream(stream):
    return StreamContext(stream)


# ---- memory ----
def memory_allocated(device=None):
    return _cuda.memory_allocated(_index(device))


def max_memory_allocated(device=None):
    return _cuda.max_memory_allocated(_index(device))


def memory_reserved(device=None):
    return _cuda.memory_reserved(_index(device))


def max_memory_reserved(device=None):
    return _cuda.max_memory_reserved(_index(device))


memory_cached = memory_reserved
max_memory_cached = max_memory_reserved


def reset_peak_memory_stats(device=None):
    _cuda.reset_peak_memory_stats(_index(device))


def reset_max_memory_allocated(device=None):
    _cuda.reset_peak_memory_stats(_index(device))


def empty_cache():
    _cuda.empty_cache()


def memory_stats(device=None):
    import collections

    return collections.OrderedDict(sorted(_cuda.memory_stats(_index(device)).items()))


def memory_summary(device=None, abbreviated=False):
    return _cuda.memory_summary(_index(device))


# ---- random ----
def manual_seed(seed):
    _cuda.manual_seed(int(seed))


def manual_seed_all(seed):
    _cuda.manual_seed_all(int(seed))


def seed():
    if is_available():
        return _cuda.default_generator(-1).seed()


def initial_seed():
    return _cuda.default_generator(-1).initial_seed()


def get_rng_state(device="cuda"):
    return _cuda.default_generator(_index(device)).get_state()


def set_rng_state(new_state, device="cuda"):
    _cuda.default_generator(_index(device)).set_state(new_state)


def __getattr__(name):
    if name == "default_generators":
        return tuple(_cuda.default_generator(i) for i in range(device_count()))
    raise AttributeError(f"module 'tensorcore.cuda' has no attribute {name!r}")


# tc.manual_seed seeds every device, as torch.manual_seed does.
import tensorcore as _tc  # noqa: E402

if not getattr(_tc.manual_seed, "_seeds_cuda", False):
    _cpu_manual_seed = _tc.manual_seed

    def _manual_seed_all_devices(seed):
        result = _cpu_manual_seed(seed)
        manual_seed_all(int(seed))
        return result

    _manual_seed_all_devices._seeds_cuda = True
    _manual_seed_all_devices.__doc__ = _cpu_manual_seed.__doc__
    _tc.manual_seed = _manual_seed_all_devices
