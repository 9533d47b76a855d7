"""PyTorch-style printing: tensor([[0.1000, 2.0000], ...], dtype=...)."""

import numpy as np

from . import _C
from ._C import Tensor

_DEFAULT_DTYPES = {_C.float32, _C.int64, _C.bool}

# torch.set_printoptions' state; the profiles are torch's.
_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80),
}
_PRINT_OPTS = dict(_PROFILES["default"], sci_mode=None)


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """Sets how tensors print, as torch.set_printoptions.

    Args:
        precision (int): digits after the decimal point of floating values (default 4).
        threshold (int): element count above which a tensor prints summarized (default 1000).
        edgeitems (int): leading and trailing items per dimension in a summary (default 3).
        linewidth (int): characters per line before a row wraps (default 80).
        profile (str): "default", "short" or "full" sets all of the above at once.
        sci_mode (bool or None): force (True) or forbid (False) scientific notation; None lets
            the values decide.

    Example::

        >>> tc.set_printoptions(precision=2)
        >>> tc.tensor([1.23456])
        tensor([1.23])
        >>> tc.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(
                f"set_printoptions: profile must be one of {sorted(_PROFILES)}, got {profile!r}"
            )
        _PRINT_OPTS.update(_PROFILES[profile])
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(
                    f"set_printoptions: {name} must be a non-negative int, got {value!r}"
                )
            _PRINT_OPTS[name] = value
    # As torch, sci_mode is always reset to the given value (None: automatic).
    _PRINT_OPTS["sci_mode"] = sci_mode


def _format_floats(arr):
    finite = arr[np.isfinite(arr)]
    if finite.size == 0:
        return lambda v: _special(v), 0
    absmax = float(np.max(np.abs(finite))) if finite.size else 0.0
    nonzero = np.abs(finite[finite != 0])
    absmin = float(np.min(nonzero)) if nonzero.size else 0.0
    integral = np.all(finite == np.round(finite))
    digits = int(_PRINT_OPTS["precision"])
    sci = _PRINT_OPTS["sci_mode"]
    if sci is None:
        sci = absmax >= 1e8 or (absmin and absmin < 1e-4) or (absmin and absmax / absmin > 1000)
    if integral and absmax < 1e8 and _PRINT_OPTS["sci_mode"] is None:
        fmt = lambda v: _special(v) or f"{v:.0f}."
    elif sci:
        fmt = lambda v: _special(v) or f"{v:.{digits}e}"
    else:
        fmt = lambda v: _special(v) or f"{v:.{digits}f}"
    width = max(len(fmt(float(v))) for v in arr.flat) if arr.size else 0
    return fmt, width


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _formatter(arr):
    if arr.dtype == np.bool_:
        fmt = lambda v: "True" if v else "False"
    elif arr.dtype.kind in "iu":
        fmt = lambda v: str(int(v))
    elif arr.dtype.kind == "c":
        rf, _ = _format_floats(arr.real.astype(np.float64).ravel()) if arr.size else (str, 0)
        imf, _ = (
            _format_floats(np.abs(arr.imag.astype(np.float64)).ravel()) if arr.size else (str, 0)
        )
        fmt = lambda v: f"{rf(float(v.real))}{'-' if v.imag < 0 else '+'}{imf(abs(float(v.imag)))}j"
    else:
        f, _ = _format_floats(arr.astype(np.float64).ravel())
        fmt = lambda v: f(float(v))
    width = max((len(fmt(v)) for v in arr.flat), default=0)
    return lambda v: fmt(v).rjust(width)


def _render(arr, fmt, indent, summarize):
    if arr.ndim == 0:
        return fmt(arr.item() if arr.dtype.kind != "c" else arr[()])
    n = arr.shape[0]
    edge = int(_PRINT_OPTS["edgeitems"])
    idx = (
        list(range(n))
        if not summarize or n <= 2 * edge
        else list(range(edge)) + [None] + list(range(n - edge, n))
    )
    if arr.ndim == 1:
        parts = ["..." if i is None else fmt(arr[i]) for i in idx]
        # Wrap long rows at linewidth, continuation lines aligned after the bracket.
        width = max(len(p) for p in parts) + 2
        per_line = max(1, (int(_PRINT_OPTS["linewidth"]) - indent) // width)
        lines = [", ".join(parts[i : i + per_line]) for i in range(0, len(parts), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    parts = ["..." if i is None else _render(arr[i], fmt, indent + 1, summarize) for i in idx]
    return "[" + sep.join(parts) + "]"


def tensor_repr(self, prefix="tensor("):
    t = self.detach().cpu()
    if t.dtype in (_C.bfloat16,):
        arr = t.float().numpy()
    else:
        arr = t.numpy()
    summarize = arr.size > _PRINT_OPTS["threshold"]
    suffixes = []
    if self.device.type != "cpu":
        suffixes.append(f"device='{self.device}'")
    if arr.size == 0:
        body = "[]"
        if self.dim() != 1:
            suffixes.append(f"size={tuple(self.shape)}")
    else:
        body = _render(arr, _formatter(arr), len(prefix), summarize)
    if self.dtype not in _DEFAULT_DTYPES or (arr.size == 0 and self.dtype != _C.float32):
        suffixes.append(f"dtype={self.dtype}")
    if self.grad_fn is not None:
        suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + body
    # Like torch: a suffix that would overflow the line width starts a new, indented line
    # (torch counts the last line two characters longer than it is; matched for same output).
    line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > _PRINT_OPTS["linewidth"]:
            text += ",\n" + " " * len(prefix) + suffix
            line_len = len(prefix) + len(suffix)
        else:
            text += ", " + suffix
            line_len += len(suffix) + 2
    return text + ")"


Tensor.__repr__ = tensor_repr


def _tensor_format(self, format_spec):
    # As torch: a 0-d tensor formats like its Python number (f"{loss:.4f}"); others like str().
    if self.dim() == 0 and type(self) is Tensor:
        return self.item().__format__(format_spec)
    return object.__format__(self, format_spec)


Tensor.__format__ = _tensor_format
Tensor.__str__ = tensor_repr
