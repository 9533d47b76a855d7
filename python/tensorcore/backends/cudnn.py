"""tensorcore.backends.cudnn: cuDNN switches with torch.backends.cudnn's names::

    tc.backends.cudnn.benchmark = True       # time the algorithms once per conv geometry
    tc.backends.cudnn.deterministic = True   # only bitwise-reproducible algorithms
    tc.backends.cudnn.allow_tf32 = False     # float32 convolutions without TF32
    with tc.backends.cudnn.flags(enabled=True, benchmark=False, deterministic=True):
        ...

The attributes are read on every convolution (a changed setting applies to the next one);
``tc.use_deterministic_algorithms(True)`` also restricts cuDNN to deterministic algorithms.
"""

import contextlib
import sys
import types

from .. import _C

_FLAGS = ("enabled", "benchmark", "deterministic", "allow_tf32")


def is_available():
    """True when tensorcore was built with cuDNN and a CUDA device is present."""
    return _C._cudnn.is_available()


def is_built():
    return _C._cudnn.is_compiled()


def version():
    """cuDNN's version as an int (e.g. 91900 for 9.19.0), or None without cuDNN."""
    return _C._cudnn.version() if _C._cudnn.is_compiled() else None


def is_acceptable(tensor):
    """Whether cuDNN can run on this tensor (a float CUDA tensor, cuDNN compiled and enabled)."""
    import tensorcore as tc

    return bool(
        _C._cudnn.enabled()
        and tensor.is_cuda
        and is_available()
        and tensor.dtype in (tc.float16, tc.bfloat16, tc.float32, tc.float64)
    )


def clear_algorithm_cache():
    """Forgets the cached algorithm choices (they are re-chosen on the next convolution)."""
    _C._cudnn.clear_algorithm_cache()


def algorithm_cache_size():
    return _C._cudnn.algorithm_cache_size()


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True):
    """Sets the four switches for the block and restores them afterwards (torch's signature)."""
    module = sys.modules[__name__]
    saved = {name: getattr(module, name) for name in _FLAGS}
    try:
        module.enabled, module.benchmark = enabled, benchmark
        module.deterministic, module.allow_tf32 = deterministic, allow_tf32
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


def _flag(name):
    getter = getattr(_C._cudnn, name)
    setter = getattr(_C._cudnn, "set_" + name)
    return property(lambda self: getter(), lambda self, value: setter(bool(value)))


class _CudnnModule(types.ModuleType):
    enabled = _flag("enabled")
    benchmark = _flag("benchmark")
    deterministic = _flag("deterministic")
    allow_tf32 = _flag("allow_tf32")


sys.modules[__name__].__class__ = _CudnnModule
