"""tc.autocast: torch.autocast's context manager / decorator over the C++ autocast state."""

import functools
import warnings

from .. import _C

_SUPPORTED = {"cpu": (_C.bfloat16, _C.float16), "cuda": (_C.float16, _C.bfloat16)}


def _cuda_available():
    try:
        from .. import cuda
    except ImportError:
        return False
    return cuda.is_available()


def _cuda_bf16_supported():
    from .. import cuda

    return cuda.is_available() and cuda.get_device_capability()[0] >= 8


class autocast:
    """Regions where listed ops run in lower precision (torch.autocast, PyTorch 1.13 policies)::

        with tc.autocast("cpu"):                 # bfloat16 on the CPU
            loss = loss_fn(model(x), y)
        with tc.autocast("cuda", dtype=tc.bfloat16): ...

    Also usable as a decorator. Nested regions restore the outer state on exit; leaving the
    outermost region clears the cache of casted weights. Unlike torch 1.13, the CPU also accepts
    float16 (computed through float32 kernels).
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in _SUPPORTED:
            raise RuntimeError(
                f"User specified autocast device_type must be 'cuda' or 'cpu', got '{device_type}'"
            )
        self.device = device_type
        self.fast_dtype = _C.get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = (
            _C.is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        )
        enabled = bool(enabled)
        if enabled and device_type == "cuda" and not _cuda_available():
            warnings.warn(
                "User provided device_type of 'cuda', but CUDA is not available. Disabling"
            )
            enabled = False
        if enabled and self.fast_dtype not in _SUPPORTED[device_type]:
            warnings.warn(
                f"In {device_type} autocast, but the target dtype is not supported. "
                "Disabling autocast.\n"
                f"{device_type} Autocast only supports dtypes of "
                f"{', '.join(str(d) for d in _SUPPORTED[device_type])} currently."
            )
            enabled = False
        if (
            enabled
            and device_type == "cuda"
            and self.fast_dtype == _C.bfloat16
            and not _cuda_bf16_supported()
        ):
            raise RuntimeError(
                "Current CUDA Device does not support bfloat16. Please switch dtype to float16."
            )
        self._enabled = enabled
        self._saved = []  # a stack, so one instance can be re-entered (recursive decorated calls)

    def __enter__(self):
        dev = self.device
        self._saved.append(
            (
                _C.is_autocast_enabled(dev),
                _C.get_autocast_dtype(dev),
                _C.is_autocast_cache_enabled(),
            )
        )
        _C.set_autocast_enabled(dev, self._enabled)
        if self.fast_dtype in _SUPPORTED[dev]:
            _C.set_autocast_dtype(dev, self.fast_dtype)
        _C.autocast_increment_nesting()
        _C.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if _C.autocast_decrement_nesting() == 0:
            _C.clear_autocast_cache()
        enabled, dtype, cache = self._saved.pop()
        _C.set_autocast_enabled(self.device, enabled)
        _C.set_autocast_dtype(self.device, dtype)
        _C.set_autocast_cache_enabled(cache)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorate_autocast

    def __repr__(self):
        return (
            f"autocast(device_type={self.device!r}, dtype={self.fast_dtype}, "
            f"enabled={self._enabled}, cache_enabled={self._cache_enabled})"
        )


def _cast(value, dtype):
    """Casts floating tensors (also inside lists, tuples and dicts) to dtype (custom_fwd)."""
    if isinstance(value, _C.Tensor):
        return value.to(dtype) if value.is_floating_point() and value.dtype != _C.float64 else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {k: _cast(v, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, cast_inputs=None, device_type="cuda"):
    """torch.cuda.amp.custom_fwd for autograd.Function.forward: with cast_inputs, the forward runs
    with autocast off on inputs cast to that dtype; without it, backward reuses forward's state."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs, device_type=device_type)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        if cast_inputs is None:
            ctx._fwd_used_autocast = _C.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if _C.is_autocast_enabled(device_type):
            with autocast(device_type, enabled=False):
                return fwd(*_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type="cuda"):
    """torch.cuda.amp.custom_bwd: backward runs with the autocast state forward had."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        used = getattr(args[0], "_fwd_used_autocast", False)
        with autocast(device_type, enabled=used):
            return bwd(*args, **kwargs)

    return decorate_bwd
