"""torch 1.13's global switches that map onto tensorcore's own: the deterministic debug mode
(over use_deterministic_algorithms), float32 matmul precision (over the CUDA TF32 switch) and
set_default_tensor_type (over set_default_dtype). Installed by tensorcore/__init__.py."""

from . import _C
from ._tensor_str import set_printoptions

_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """Sets the deterministic debug mode: 0/"default" (off), 1/"warn" (ops without a
    deterministic implementation warn) or 2/"error" (they raise); the same switch as
    use_deterministic_algorithms(mode, warn_only=...).

    Example::

        >>> tc.set_deterministic_debug_mode("warn")
        >>> tc.get_deterministic_debug_mode()
        1
        >>> tc.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    elif isinstance(debug_mode, bool) or not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode).__name__}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    _C.use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """The deterministic debug mode as an int: 0 off, 1 warn, 2 error."""
    if not _C.are_deterministic_algorithms_enabled():
        return 0
    return 1 if _C.is_deterministic_algorithms_warn_only_enabled() else 2


_MATMUL_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision):
    """Sets the internal precision of float32 matrix multiplications: "highest" (full float32),
    "high" or "medium" (TF32 tensor cores allowed on CUDA; the CPU always computes in float32).
    The same switch as tensorcore.backends.cuda.matmul.allow_tf32."""
    if precision not in _MATMUL_PRECISIONS:
        raise RuntimeError(
            f"set_float32_matmul_precision: precision must be one of {_MATMUL_PRECISIONS}, "
            f"got {precision!r}"
        )
    from .backends import cuda as _backends_cuda

    _backends_cuda.matmul.allow_tf32 = precision != "highest"
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    """The float32 matmul precision: "highest", "high" or "medium"."""
    from .backends import cuda as _backends_cuda

    # allow_tf32 may also have been set directly.
    if _backends_cuda.matmul.allow_tf32 == (_matmul_precision[0] == "highest"):
        return "high" if _backends_cuda.matmul.allow_tf32 else "highest"
    return _matmul_precision[0]


_TENSOR_TYPE_DTYPES = {
    "FloatTensor": "float32",
    "DoubleTensor": "float64",
    "HalfTensor": "float16",
    "BFloat16Tensor": "bfloat16",
}


def set_default_tensor_type(t):
    """Sets the default floating point tensor type, as torch.set_default_tensor_type:
    tc.FloatTensor / tc.DoubleTensor (or their names "torch.FloatTensor", ...). The default
    dtype follows; CUDA tensor types are refused (tensorcore creates tensors on the CPU unless
    told a device)."""
    name = t if isinstance(t, str) else getattr(t, "__name__", repr(t))
    short = name.rsplit(".", 1)[-1]
    if ".cuda." in name or name.startswith("cuda."):
        raise TypeError(
            f"set_default_tensor_type: {name} is a CUDA tensor type; tensorcore keeps the CPU as "
            "the default device (create tensors with device='cuda')"
        )
    if short not in _TENSOR_TYPE_DTYPES:
        raise TypeError(
            f"set_default_tensor_type: only floating-point types are supported as the default "
            f"type ({', '.join(_TENSOR_TYPE_DTYPES)}), got {name}"
        )
    _C.set_default_dtype(getattr(_C, _TENSOR_TYPE_DTYPES[short]))


_FUNCTIONS = (
    set_printoptions,
    set_deterministic_debug_mode,
    get_deterministic_debug_mode,
    set_float32_matmul_precision,
    get_float32_matmul_precision,
    set_default_tensor_type,
)
