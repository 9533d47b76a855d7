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

# Elementwise, reductions, scans, linear algebra, joining/indexing ops with torch's out=.
_OUT_FUNCS = (
    "add",
    "sub",
    "subtract",
    "mul",
    "multiply",
    "div",
    "divide",
    "true_divide",
    "floor_divide",
    "remainder",
    "fmod",
    "pow",
    "float_power",
    "atan2",
    "arctan2",
    "hypot",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "lerp",
    "clamp",
    "clip",
    "copysign",
    "xlogy",
    "abs",
    "absolute",
    "neg",
    "negative",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "sigmoid",
    "erf",
    "erfc",
    "erfinv",
    "lgamma",
    "digamma",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fix",
    "frac",
    "sign",
    "sgn",
    "reciprocal",
    "square",
    "nan_to_num",
    "logit",
    "angle",
    "conj_physical",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
    "isclose",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "where",
    "sum",
    "nansum",
    "mean",
    "nanmean",
    "prod",
    "amax",
    "amin",
    "max",
    "min",
    "argmax",
    "argmin",
    "var",
    "std",
    "norm",
    "logsumexp",
    "all",
    "any",
    "count_nonzero",
    "median",
    "nanmedian",
    "mode",
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "logcumsumexp",
    "sort",
    "argsort",
    "topk",
    "kthvalue",
    "searchsorted",
    "bucketize",
    "histc",
    "matmul",
    "mm",
    "bmm",
    "mv",
    "dot",
    "vdot",
    "outer",
    "ger",
    "addmm",
    "baddbmm",
    "addmv",
    "kron",
    "tensordot",
    "cat",
    "concat",
    "stack",
    "hstack",
    "vstack",
    "index_select",
    "gather",
    "masked_select",
    "take",
    "nonzero",
    "tril",
    "triu",
    "flip",
    "roll",
    "zeros",
    "ones",
    "empty",
    "full",
    "arange",
    "linspace",
    "logspace",
    "eye",
    "rand",
    "randn",
    "randint",
    "randperm",
)

# These take their dtype from `out` when no dtype is given (torch's factories and the
# accumulating reductions), instead of requiring the default result to cast.
_DTYPE_FROM_OUT = frozenset(
    (
        "sum",
        "nansum",
        "prod",
        "cumsum",
        "cumprod",
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "rand",
        "randn",
        "randint",
        "randperm",
    )
)


# Elementwise ops whose result comes from one TensorIter: with out=, that iterator writes
# straight into `out` when out has the result's shape and dtype, is contiguous and shares no
# memory with the inputs (_C._call_into_out); otherwise the result is computed and copied.
_DIRECT = frozenset(
    (
        "add",
        "sub",
        "subtract",
        "mul",
        "multiply",
        "div",
        "divide",
        "true_divide",
        "atan2",
        "arctan2",
        "hypot",
        "maximum",
        "minimum",
        "pow",
        "remainder",
        "fmod",
        "copysign",
        "abs",
        "absolute",
        "neg",
        "negative",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "sqrt",
        "rsqrt",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "arcsin",
        "arccos",
        "arctan",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "sigmoid",
        "erf",
        "erfc",
        "erfinv",
        "lgamma",
        "digamma",
        "floor",
        "ceil",
        "trunc",
        "fix",
        "frac",
        "sign",
        "sgn",
        "reciprocal",
        "square",
    )
)

# out= ops that torch 1.13 lets write into an internally overlapping (expanded) `out` (measured
# op by op: the reductions and kernels that skip its overlap check, and the fills, where every
# alias gets the same value). Every other op raises, as torch, instead of writing once per
# aliasing element.
_OVERLAP_ALLOWED = frozenset(
    (
        "sum",
        "nansum",
        "prod",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "var",
        "std",
        "all",
        "any",
        "cummax",
        "cummin",
        "histc",
        "tril",
        "triu",
        "bmm",
        "mv",
        "zeros",
        "ones",
        "empty",
        "full",
        "eye",
        "randperm",
    )
)


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
