"""Clear errors for the Python-level functional APIs (nn.functional, vision, audio).

Those functions are written in Python on top of the native ops and most of them trust their
arguments: given a str or a list where a Tensor belongs they used to fail with
"'str' object has no attribute 'dim'" (AttributeError) or a ZeroDivisionError, naming neither
the op nor the argument (found by tests/python/apifuzz). `harden(namespace, prefix)` wraps each
public Python function of a module namespace so that such an escape becomes a TypeError /
ValueError that names the op and the offending argument; the original is chained as __cause__.
The wrapper costs one extra Python frame and nothing else on the successful path.
"""

import functools
import inspect
import re

_NO_ATTR = re.compile(r"^'([\w.]+)' object has no attribute '(\w+)'")
_TENSOR_ATTRS = {
    "dim",
    "shape",
    "dtype",
    "device",
    "numel",
    "size",
    "ndim",
    "is_complex",
    "is_floating_point",
    "to",
    "contiguous",
    "reshape",
    "view",
    "unsqueeze",
    "squeeze",
    "clone",
    "float",
    "double",
    "detach",
    "requires_grad",
    "flip",
    "permute",
    "transpose",
    "sum",
    "mean",
    "abs",
    "unbind",
    "select",
    "narrow",
    "is_contiguous",
    "stride",
    "type",
    "new_zeros",
    "new_empty",
    "expand",
}
_OP_PREFIX = re.compile(r"^[\w.]+\(\): ")
_ESCAPES = (AttributeError, ZeroDivisionError, OverflowError, KeyError)


def _is_tensor(v):
    from tensorcore import Tensor

    return isinstance(v, Tensor)


def _explain(exc, sig, op, args, kwargs):
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        bound = None
    m = _NO_ATTR.match(str(exc)) if isinstance(exc, AttributeError) else None
    if m and bound is not None:
        bad_type = m.group(1).rsplit(".", 1)[-1]
        for name, value in bound.arguments.items():
            if type(value).__name__ == bad_type and not _is_tensor(value):
                if m.group(2) in _TENSOR_ATTRS:
                    return TypeError(f"{op}: argument '{name}' must be a Tensor, got {bad_type}")
                return TypeError(
                    f"{op}: argument '{name}' has the wrong type {bad_type} "
                    f"(it has no attribute '{m.group(2)}')"
                )
    if isinstance(exc, AttributeError):
        return TypeError(f"{op}: an argument has the wrong type ({exc})")
    if isinstance(exc, ZeroDivisionError):
        return ValueError(
            f"{op}: an argument is zero or empty where a positive size or value is required ({exc})"
        )
    if isinstance(exc, OverflowError):
        return ValueError(f"{op}: an argument is too large or not finite ({exc})")
    return ValueError(f"{op}: invalid argument value ({type(exc).__name__}: {exc})")


def _explain_incompatible(exc, sig, op, args, kwargs):
    """A thin wrapper's binding refused its arguments (pybind11's "incompatible function
    arguments"): name the first argument that should have been a Tensor, or None."""
    text = str(exc)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return None
    for name, value in bound.arguments.items():
        if f"{name}: Tensor" in text and not _is_tensor(value) and value is not None:
            return TypeError(
                f"{op}: argument '{name}' must be a Tensor, got {type(value).__name__}"
            )
    return None


def _wrap(fn, op):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _ESCAPES as exc:
            raise _explain(exc, sig, op, args, kwargs) from exc
        except TypeError as exc:
            better = (
                _explain_incompatible(exc, sig, op, args, kwargs)
                if "incompatible function arguments" in str(exc)
                else None
            )
            if better is None:
                raise
            raise better from exc
        except MemoryError as exc:  # NumPy's "Unable to allocate 32 GiB ..." names no op
            if _OP_PREFIX.match(str(exc)):  # an inner op already named itself
                raise
            raise MemoryError(f"{op}: {exc}") from exc

    checked.__tc_argcheck__ = True
    return checked


def harden(namespace, prefix):
    """Wrap the public plain-Python functions in a module's globals() (called at its end)."""
    for name, value in list(namespace.items()):
        if name.startswith("_") or not inspect.isfunction(value):
            continue
        if getattr(value, "__tc_argcheck__", False) or inspect.isgeneratorfunction(value):
            continue
        namespace[name] = _wrap(value, f"{prefix}.{name}()")
