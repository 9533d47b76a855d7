"""tensorcore: tensors, autograd and kernels with PyTorch's names and semantics."""

import numpy as _np  # noqa: F401  (NumPy interop: loaded with the package, as before)

from . import _C
from ._C import (  # noqa: F401
    Tensor,
    dtype,
    device,
    from_numpy,
    get_default_dtype,
    set_default_dtype,
    promote_types,
    can_cast,
    get_num_threads,
    set_num_threads,
    DecodeError,
    TensorcoreError,
)

# Every op bound in C++ (tc.add, tc.sum, ...) is re-exported here.
for _name in dir(_C):
    if not _name.startswith("_") and _name not in globals():
        globals()[_name] = getattr(_C, _name)

# out= for the common functions (python/tensorcore/_out.py).
from . import _out  # noqa: E402

_out.install(globals())

from ._tensor import tensor, as_tensor  # noqa: E402,F401
from . import _tensor_str  # noqa: E402,F401
from .autograd.grad_mode import (  # noqa: E402,F401
    no_grad,
    enable_grad,
    set_grad_enabled,
    inference_mode,
    is_grad_enabled,
)
from . import autograd  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from . import serialization  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from ._size import Size  # noqa: E402,F401
from . import random  # noqa: E402,F401
from ._legacy_tensors import (  # noqa: E402,F401
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)

# Domain subpackages import eagerly, as torch.nn / torch.fft do; each is present once its area
# lands (a missing folder is skipped, but an import error inside one is never hidden).
import os as _os  # noqa: E402
import importlib as _importlib  # noqa: E402

# A subpackage whose area was left out of the build (-DTC_SKIP_AREAS) is not imported.
_NEEDS_BINDING = {"audio": "_audio"}
for _sub in (
    "fft",
    "linalg",
    "cuda",
    "nn",
    "optim",
    "backends",
    "amp",
    "distributed",
    "audio",
    "vision",
    "multiprocessing",
    "profiler",
    "jit",
    "onnx",
):
    if _sub in _NEEDS_BINDING and not hasattr(_C, _NEEDS_BINDING[_sub]):
        continue
    if _os.path.isdir(_os.path.join(_os.path.dirname(__file__), _sub)):
        globals()[_sub] = _importlib.import_module("." + _sub, __name__)

# torch functions and Tensor methods composed from the native ops (python/tensorcore/_extra_ops.py).
from . import _extra_ops  # noqa: E402

_extra_ops.install(globals())
if "linalg" in globals():
    globals()["linalg"]._legacy.install(globals())
if "nn" in globals():
    from . import _toplevel_aliases  # noqa: E402

    _toplevel_aliases.install(globals())
from . import _more_ops  # noqa: E402

_more_ops.install(globals())
# Further torch 1.13 names composed from the native ops, one module per concept.
from . import _api_install  # noqa: E402
from . import _creation_more, _indexing_more, _math_more, _runtime_flags, _sampling_more  # noqa: E402
from . import _views_inplace  # noqa: E402

for _module in (
    _creation_more,
    _indexing_more,
    _math_more,
    _runtime_flags,
    _sampling_more,
    _views_inplace,
):
    _api_install.install(globals(), _module)
del _module

from . import fx  # noqa: E402,F401  (symbolic tracing, docs/fx.md)

__version__ = "0.1.0"


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' must be a Tensor, got {type(input).__name__}")
    return input.numel()


# Docstrings of the public API (python/tensorcore/_docs), attached once everything is bound.
from . import _docs  # noqa: E402

_docs.attach(_importlib.import_module(__name__))
