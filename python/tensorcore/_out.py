"""The `out=` keyword of torch's functions, added to the common ones by one wrapper.

`tc.add(a, b, out=o)` computes the result as usual, then writes it into `o` as torch does: the
result dtype must be castable to `o`'s dtype (a RuntimeError otherwise), `o` must be on the same
device, a tensor of another shape is resized (with a warning when it held elements), and `o` is
returned. Ops returning (values, indices) take a tuple of two tensors. Autograd does not flow
through `out=` (torch raises when an argument requires grad, and so does this). The wrapper is C code
(_C._with_out, python/src/out_args.cpp): a call without `out` goes straight to the op's pybind11
function, with no Python frame in between; only a call with `out` comes here.
"""

import warnings

from . import _C

# The traits of a function's out= path (bits of its OUT_OPS row):
# DIRECT: the result comes from one TensorIter, which writes straight into `out` when out has the
#   result's shape and dtype, is contiguous and shares no memory with the inputs
#   (_C._call_into_out); otherwise the result is computed and copied.
# DTYPE_FROM_OUT: without dtype=, the result takes out's dtype (torch's factories and the
#   accumulating reductions) instead of requiring the default result to cast.
# OVERLAP_OK: torch 1.13 lets it write into an internally overlapping (expanded) `out` (measured
#   op by op: the reductions and kernels that skip its overlap check, and the fills, where every
#   alias gets the same value). Every other op raises, as torch, instead of writing once per
#   aliasing element.
DIRECT, DTYPE_FROM_OUT, OVERLAP_OK = 1, 2, 4

# Every function with torch's out= keyword, declared once with its traits: elementwise,
# reductions, scans, linear algebra, joining/indexing ops and factories. install() wraps them,
# the lists below and the .pyi stubs (scripts/gen_stubs.py, through the wrapper) follow from it,
# and tests/python/docs/test_docstrings.py checks that their docstrings show out=None.
OUT_OPS = {
    "add": DIRECT,
    "sub": DIRECT,
    "subtract": DIRECT,
    "mul": DIRECT,
    "multiply": DIRECT,
    "div": DIRECT,
    "divide": DIRECT,
    "true_divide": DIRECT,
    "floor_divide": 0,
    "remainder": DIRECT,
    "fmod": DIRECT,
    "pow": DIRECT,
    "float_power": 0,
    "atan2": DIRECT,
    "arctan2": DIRECT,
    "hypot": DIRECT,
    "maximum": DIRECT,
    "minimum": DIRECT,
    "fmax": 0,
    "fmin": 0,
    "lerp": 0,
    "clamp": 0,
    "clip": 0,
    "copysign": DIRECT,
    "xlogy": 0,
    "abs": DIRECT,
    "absolute": DIRECT,
    "neg": DIRECT,
    "negative": DIRECT,
    "exp": DIRECT,
    "exp2": DIRECT,
    "expm1": DIRECT,
    "log": DIRECT,
    "log2": DIRECT,
    "log10": DIRECT,
    "log1p": DIRECT,
    "sqrt": DIRECT,
    "rsqrt": DIRECT,
    "sin": DIRECT,
    "cos": DIRECT,
    "tan": DIRECT,
    "asin": DIRECT,
    "acos": DIRECT,
    "atan": DIRECT,
    "arcsin": DIRECT,
    "arccos": DIRECT,
    "arctan": DIRECT,
    "sinh": DIRECT,
    "cosh": DIRECT,
    "tanh": DIRECT,
    "asinh": DIRECT,
    "acosh": DIRECT,
    "atanh": DIRECT,
    "sigmoid": DIRECT,
    "erf": DIRECT,
    "erfc": DIRECT,
    "erfinv": DIRECT,
    "lgamma": DIRECT,
    "digamma": DIRECT,
    "floor": DIRECT,
    "ceil": DIRECT,
    "round": 0,
    "trunc": DIRECT,
    "fix": DIRECT,
    "frac": DIRECT,
    "sign": DIRECT,
    "sgn": DIRECT,
    "reciprocal": DIRECT,
    "square": DIRECT,
    "nan_to_num": 0,
    "logit": 0,
    "angle": 0,
    "conj_physical": 0,
    "eq": 0,
    "ne": 0,
    "lt": 0,
    "le": 0,
    "gt": 0,
    "ge": 0,
    "greater": 0,
    "greater_equal": 0,
    "less": 0,
    "less_equal": 0,
    "not_equal": 0,
    "isclose": 0,
    "logical_and": 0,
    "logical_or": 0,
    "logical_xor": 0,
    "logical_not": 0,
    "bitwise_and": 0,
    "bitwise_or": 0,
    "bitwise_xor": 0,
    "bitwise_not": 0,
    "bitwise_left_shift": 0,
    "bitwise_right_shift": 0,
    "where": 0,
    "sum": DTYPE_FROM_OUT | OVERLAP_OK,
    "nansum": DTYPE_FROM_OUT | OVERLAP_OK,
    "mean": 0,
    "nanmean": 0,
    "prod": DTYPE_FROM_OUT | OVERLAP_OK,
    "amax": OVERLAP_OK,
    "amin": OVERLAP_OK,
    "max": 0,
    "min": 0,
    "argmax": OVERLAP_OK,
    "argmin": OVERLAP_OK,
    "var": OVERLAP_OK,
    "std": OVERLAP_OK,
    "norm": 0,
    "logsumexp": 0,
    "all": OVERLAP_OK,
    "any": OVERLAP_OK,
    "count_nonzero": 0,
    "median": 0,
    "nanmedian": 0,
    "mode": 0,
    "cumsum": DTYPE_FROM_OUT,
    "cumprod": DTYPE_FROM_OUT,
    "cummax": OVERLAP_OK,
    "cummin": OVERLAP_OK,
    "logcumsumexp": 0,
    "sort": 0,
    "argsort": 0,
    "topk": 0,
    "kthvalue": 0,
    "searchsorted": 0,
    "bucketize": 0,
    "histc": OVERLAP_OK,
    "matmul": 0,
    "mm": 0,
    "bmm": OVERLAP_OK,
    "mv": OVERLAP_OK,
    "dot": 0,
    "vdot": 0,
    "outer": 0,
    "ger": 0,
    "addmm": 0,
    "baddbmm": 0,
    "addmv": 0,
    "kron": 0,
    "tensordot": 0,
    "cat": 0,
    "concat": 0,
    "stack": 0,
    "hstack": 0,
    "vstack": 0,
    "index_select": 0,
    "gather": 0,
    "masked_select": 0,
    "take": 0,
    "nonzero": 0,
    "tril": OVERLAP_OK,
    "triu": OVERLAP_OK,
    "flip": 0,
    "roll": 0,
    "zeros": DTYPE_FROM_OUT | OVERLAP_OK,
    "ones": DTYPE_FROM_OUT | OVERLAP_OK,
    "empty": DTYPE_FROM_OUT | OVERLAP_OK,
    "full": DTYPE_FROM_OUT | OVERLAP_OK,
    "arange": DTYPE_FROM_OUT,
    "linspace": DTYPE_FROM_OUT,
    "logspace": DTYPE_FROM_OUT,
    "eye": DTYPE_FROM_OUT | OVERLAP_OK,
    "rand": DTYPE_FROM_OUT,
    "randn": DTYPE_FROM_OUT,
    "randint": DTYPE_FROM_OUT,
    "randperm": DTYPE_FROM_OUT | OVERLAP_OK,
}

_OUT_FUNCS = tuple(OUT_OPS)
_DIRECT = frozenset(name for name, traits in OUT_OPS.items() if traits & DIRECT)
_DTYPE_FROM_OUT = frozenset(name for name, traits in OUT_OPS.items() if traits & DTYPE_FROM_OUT)
_OVERLAP_ALLOWED = frozenset(name for name, traits in OUT_OPS.items() if traits & OVERLAP_OK)


def _tensors_in(values):
    for v in values:
        if isinstance(v, _C.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors_in(v)


def _write_out(name, fn, args, kwargs, out):
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, _C.Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(o).__name__}")
    if _C._autograd.is_grad_enabled() and any(
        t.requires_grad for t in _tensors_in((args, tuple(kwargs.values()), outs))
    ):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    if name in _DTYPE_FROM_OUT and kwargs.get("dtype") is None and len(outs) == 1:
        kwargs = dict(kwargs, dtype=outs[0].dtype)
    if name in _DIRECT and len(outs) == 1 and out is outs[0]:
        result, direct = _C._call_into_out(fn, args, kwargs, out)
        if direct:
            return out
    else:
        result = fn(*args, **kwargs)
    return _finish_out(name, result, out, stacklevel=3)


def _finish_out(name, result, out, stacklevel=2):
    """Checks the computed result against `out` (dtype, device, shape: resized with torch's
    warning) and copies it in; returns out. Called from C (the direct path, when the result did
    not land in out) or from _write_out; stacklevel points the warning at the user's call."""
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    results = tuple(result) if isinstance(result, tuple) else (result,)
    if len(results) != len(outs):
        raise TypeError(
            f"{name}(): expected out to be a tuple of {len(results)} tensors, got {len(outs)}"
        )
    # Every out is checked before any is written.
    for r, o in zip(results, outs):
        if (
            name not in _OVERLAP_ALLOWED
            and tuple(o.shape) == tuple(r.shape)
            and _C._has_internal_overlap(o)
        ):
            raise RuntimeError(f"{name}(): {_C._INTERNAL_OVERLAP_MESSAGE}")
    for r, o in zip(results, outs):
        if not _C.can_cast(r.dtype, o.dtype):
            raise RuntimeError(
                f"{name}(): result type {r.dtype} can't be cast to the desired "
                f"output type {o.dtype}"
            )
        if r.device != o.device:
            raise RuntimeError(
                f"{name}(): expected out tensor to have device {r.device}, but "
                f"got {o.device} instead"
            )
        if tuple(o.shape) != tuple(r.shape):
            if o.numel() != 0:
                warnings.warn(
                    f"{name}(): an output with one or more elements was resized since it had "
                    f"shape {list(o.shape)}, which does not match the required output shape "
                    f"{list(r.shape)}. This behavior is deprecated (torch); resize the output "
                    "to 0 elements with t.resize_(0) first.",
                    UserWarning,
                    stacklevel=stacklevel,
                )
            o.resize_(r.shape)
        _C._copy_out(o, r)
    if not isinstance(out, (tuple, list)):
        return out
    return type(result)(*outs) if hasattr(result, "_fields") else tuple(outs)


def install(namespace):
    """Wraps each function of _OUT_FUNCS present in `namespace` (the tensorcore module dict)."""
    for name in _OUT_FUNCS:
        fn = namespace.get(name)
        if fn is not None and not getattr(fn, "_tc_out", False):
            namespace[name] = _C._with_out(
                name, fn, _write_out, _finish_out if name in _DIRECT else None
            )
