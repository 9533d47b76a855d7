"""Deterministic argument fuzzer for tensorcore's public Python API.

Every public callable (tc.*, tc.nn.functional.*, tc.fft.*, vision transforms.functional and ops,
audio.functional, Tensor methods) is called with hostile arguments: one parameter at a time is
replaced by a value from a catalogue (empty / zero-size / 0-d / rank-9 tensors, every dtype,
non-contiguous and expanded views, NaN/inf, negative / huge / out-of-range ints, None, wrong
Python types, bad strings and devices). The calls run in child processes so that a segfault,
abort or hang is reported with the exact call instead of killing the test run.

A call is a finding when it
  - kills the interpreter (signal / abort / std::terminate)            -> "crash"
  - does not return within the timeout                                 -> "hang"
  - raises MemoryError (an absurd size should be rejected up front)    -> "memory"
  - raises an exception type other than TypeError, ValueError, IndexError, RuntimeError,
    NotImplementedError (and their subclasses)                          -> "exc-type"
  - raises with a message that names nothing useful (std::bad_alloc, vector::_M_range_check,
    basic_string, stoi, internal asserts, ...)                          -> "message"
and a target is a finding when tensorcore's CPU allocator holds more after its calls than
before (garbage collected)                                              -> "leak"

Usage:
  python tests/python/apifuzz/fuzz.py                 # the CI sweep, prints findings
  TC_FUZZ_LONG=1 python tests/python/apifuzz/fuzz.py  # exploration: pairwise + random mutations
  python tests/python/apifuzz/fuzz.py --only tc.sum,F.conv2d -v   # a few targets, verbose
"""

from __future__ import annotations

import gc
import json
import mmap
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import time

ALLOWED_EXC = ("TypeError", "ValueError", "IndexError", "RuntimeError", "NotImplementedError")
BAD_MESSAGE = re.compile(
    r"bad_alloc|_M_range_check|_M_|basic_string|\bstoi\b|\bstol\b|unordered_map::at|"
    r"map::at|Assertion|assert(ion)? failed|std::|vector::|bad_variant|bad_optional|"
    r"Unable to cast Python instance|pybind11::|internal error|__cxa|terminate called",
    re.I,
)
# Not a C++ type leak: pybind's own "incompatible function arguments" lists the signatures,
# which is a clear TypeError naming the op.

# Names whose calls change process-wide state or touch the file system: never fuzzed.
DENY = {
    "save",
    "load",
    "manual_seed",
    "seed",
    "initial_seed",
    "use_deterministic_algorithms",
    "set_deterministic",
    "set_default_dtype",
    "set_default_tensor_type",
    "set_printoptions",
    "set_num_threads",
    "set_num_interop_threads",
    "set_grad_enabled",
    "set_flush_denormal",
    "set_rng_state",
    "get_rng_state",
    "set_anomaly_enabled",
    "compile",
    "from_file",
    "share_memory_",
    "register_hook",
    "autocast_op",
    "set_autocast_enabled",
    "set_warn_always",
    "set_default_device",
    "no_grad",
    "enable_grad",
    "inference_mode",
    "__init__",
    "__new__",
    "__del__",
    "__setstate__",
    "__reduce__",
    "__reduce_ex__",
    "__init_subclass__",
    "__subclasshook__",
    "__class__",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
    "__dir__",
    "__sizeof__",
    "__format__",
}


# ----------------------------------------------------------------------------- targets


def _public(mod):
    import inspect

    out = []
    for n in sorted(dir(mod)):
        if n.startswith("_") or n in DENY:
            continue
        f = getattr(mod, n, None)
        if f is None or inspect.isclass(f) or inspect.ismodule(f) or not callable(f):
            continue
        out.append(n)
    return out


def target_modules():
    import tensorcore as tc

    mods = {"tc": tc}
    import tensorcore.nn.functional as F

    mods["F"] = F
    mods["fft"] = tc.fft
    try:
        import tensorcore.linalg as linalg  # noqa: F401

        mods["linalg"] = tc.linalg
    except Exception:
        pass
    import tensorcore.vision.transforms.functional as VF
    import tensorcore.vision.ops as VO
    import tensorcore.audio.functional as AF

    mods.update(VF=VF, VO=VO, AF=AF)
    return mods


TENSOR_DUNDERS = [
    "__add__",
    "__sub__",
    "__mul__",
    "__truediv__",
    "__floordiv__",
    "__mod__",
    "__pow__",
    "__matmul__",
    "__and__",
    "__or__",
    "__xor__",
    "__lshift__",
    "__rshift__",
    "__lt__",
    "__le__",
    "__eq__",
    "__ne__",
    "__gt__",
    "__ge__",
    "__neg__",
    "__abs__",
    "__invert__",
    "__getitem__",
    "__setitem__",
    "__len__",
    "__iter__",
    "__bool__",
    "__float__",
    "__int__",
    "__index__",
    "__repr__",
    "__contains__",
    "__iadd__",
    "__imul__",
    "__itruediv__",
    "__rsub__",
    "__rtruediv__",
    "__rpow__",
    "__rmatmul__",
    "__array__",
    "__dlpack__",
    "__deepcopy__",
    "__hash__",
    "__complex__",
]


def all_targets():
    """Sorted list of target ids: 'tc.sum', 'F.conv2d', 'Tensor.view', ..."""
    import tensorcore as tc

    ids = []
    for key, mod in target_modules().items():
        ids += [f"{key}.{n}" for n in _public(mod)]
    meth = [n for n in sorted(dir(tc.Tensor)) if not n.startswith("_") and n not in DENY]
    meth = [n for n in meth if callable(getattr(tc.Tensor, n, None))]
    ids += [f"Tensor.{n}" for n in meth + TENSOR_DUNDERS if hasattr(tc.Tensor, n)]
    return ids


def resolve(tid):
    if tid.startswith("py:"):  # "py:module:function", used by the harness's own self-test
        import importlib

        _, mod, name = tid.split(":")
        return getattr(importlib.import_module(mod), name)
    key, name = tid.split(".", 1)
    if key == "Tensor":
        return None  # a method: called on the first tensor argument
    return getattr(target_modules()[key], name)


# ----------------------------------------------------------------------------- signatures

_DOC_SIG = re.compile(r"^\s*[\w.]+\((.*)\)\s*(->.*)?$")


def _split_params(text):
    """Split 'a: int, b: List[int] = [1, 2], *, c: str' at top-level commas."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def signature(func, name, is_method):
    """[(name, type-text, has_default, default-text)] for the callable, self excluded."""
    import inspect

    params = []
    try:
        sig = inspect.signature(func)
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                params.append((p.name, "*", True, None))
                continue
            ann = "" if p.annotation is p.empty else str(p.annotation)
            has_def = p.default is not p.empty
            params.append((p.name, ann, has_def, repr(p.default) if has_def else None))
        if is_method and params and params[0][0] == "self":
            params = params[1:]
        return params
    except (TypeError, ValueError):
        pass
    import tensorcore as tc

    # pybind11's records give the typed signatures (__doc__ holds the written docstring).
    if tc._C._is_bound_function(func):
        doc = tc._C._overload_signatures(func)
    else:
        doc = (getattr(func, "__doc__", None) or "").strip().splitlines()
    for line in doc[:6]:
        m = _DOC_SIG.match(line)
        if not m:
            continue
        for part in _split_params(m.group(1)):
            if part in ("*", "/") or part.startswith("**"):
                continue
            if part.startswith("*"):
                params.append((part.lstrip("*").split(":")[0].strip(), "*", True, None))
                continue
            default = None
            if "=" in part:
                part, default = part.split("=", 1)
            pname, _, ptype = part.partition(":")
            params.append(
                (
                    pname.strip(),
                    ptype.strip(),
                    default is not None,
                    default.strip() if default else None,
                )
            )
        break
    if is_method and params and params[0][0] == "self":
        params = params[1:]
    # tc functions wrapped to take out= (python/src/out_args.cpp) show the inner signature
    if type(func).__name__ == "builtin_function_with_out" and not any(
        p[0] == "out" for p in params
    ):
        params.append(("out", "Tensor", True, "None"))
    return params


# ----------------------------------------------------------------------------- catalogue


def tensor_catalogue():
    import tensorcore as tc

    g = tc.Generator().manual_seed(0) if hasattr(tc, "Generator") else None

    def rn(*s):
        return tc.randn(*s, generator=g) if g is not None else tc.randn(*s)

    cat = {
        "f32[2,3]": rn(2, 3),
        "f32[]": tc.tensor(1.5),
        "f32[0]": tc.empty(0),
        "f32[2,0,3]": tc.empty(2, 0, 3),
        "f32[0,3,8,8]": tc.empty(0, 3, 8, 8),
        "f32[2,3,0,8]": tc.empty(2, 3, 0, 8),
        "f32[rank9]": rn(1, 2, 1, 2, 1, 1, 2, 1, 1),
        # many real (size 2) dims, permuted so that kernels cannot coalesce them away
        "f32[rank14,perm]": rn(*([2] * 14)).permute(*reversed(range(14))),
        "f32[rank40]": rn(*([1] * 38 + [2, 3])),
        "f32[nan]": tc.full((2, 3), float("nan")),
        "f32[inf]": tc.tensor([float("inf"), -float("inf"), float("nan"), 1.0]),
        "f32[noncontig]": rn(4, 3).t(),
        "f32[expanded]": rn(1, 3).expand(4, 3),
        "f32[5]": rn(5),
        "f32[3,8,8]": tc.rand(3, 8, 8, generator=g) if g is not None else tc.rand(3, 8, 8),
        "f32[2,3,8,8]": rn(2, 3, 8, 8),
        "u8[3,8,8]": tc.randint(0, 255, (3, 8, 8), dtype=tc.uint8),
        "i64[oob]": tc.tensor([0, 100, -100]),
        # right shape for a (2, 3) input, wrong values: indices far outside every dim
        "i64[2,3,oob]": tc.tensor([[2**40, 0, -(2**40)], [5, 0, -7]]),
        "i64[huge]": tc.tensor([2**62, -(2**63), 0]),
        "i32[2,oob]": tc.tensor([2**31 - 1, -(2**31)], dtype=tc.int32),
        "f32[grad]": rn(2, 3).requires_grad_(),
        "f32[1,1]": rn(1, 1),
    }
    for dt in (
        "bool",
        "uint8",
        "int8",
        "int16",
        "int32",
        "int64",
        "float16",
        "bfloat16",
        "float64",
        "complex64",
        "complex128",
        "uint16",
    ):
        if hasattr(tc, dt):
            cat[f"{dt}[2,3]"] = (rn(2, 3) * 3).to(getattr(tc, dt))
    return cat


INTS = [0, -1, -7, 100, 2**31, 2**62, -(2**62), 2**63 - 1, 2**64]
FLOATS = [float("nan"), float("inf"), -float("inf"), -1.5, 0.0, 1e308]
WRONG = [None, "abc", [], object(), (1.5, "x"), True]
INT_LISTS = [[-1, -1], [0], [2**40, 2**40], [2**62], [1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 0], [1, 100]]
STRINGS = ["bogus", "", "cuda", "cuda:7", "cpu:5", "tpu"]

DIM_NAMES = re.compile(
    r"^(dim\d?|dims|axis|axes|start_dim|end_dim|source|destination|"
    r"dim[01]|offset|diagonal)$"
)
SIZE_NAMES = re.compile(
    r"size|shape|^n$|^k$|steps|num|kernel|stride|padding|dilation|groups|"
    r"chunks|split|repeats|bins|minlength|sections|n_fft|hop|win_length|"
    r"length|channels|upscale|downscale|^s$|^p$|max_size|out_|ratio|"
    r"top|nfft|n_mels|n_iter|shifts|batch|dilat|crop|sample_rate|freq"
)
TENSOR_NAMES = re.compile(
    r"^(input\d?|x\d?|y|other|tensor\d?|img|image|waveform|specgram|boxes\d?|"
    r"scores|idxs|weight|bias|target|a|b|mat\d?|vec\d?|t|self|end|start|"
    r"mask|src|source|index|indices|offsets|labels|log_probs|targets|"
    r"input_lengths|target_lengths|query|key|value|rois|grid|theta|"
    r"anchor|positive|negative|x1|x2|input1|input2|exponent|values|"
    r"mean|std|var|running_mean|running_var|condition|elements|"
    r"test_elements|sorted_sequence|boundaries|tensors|inputs|"
    r"complex_specgrams|b_coeffs|a_coeffs|waveforms|spectrogram|offset|"
    r"matrix|mat1|mat2|batch1|batch2|vec1|vec2|tau|lengths|probs)$"
)


def param_kind(name, ptype, default):
    t = (ptype or "").lower()
    if name in ("dtype",) or "dtype" in t and "tensor" not in t:
        return "dtype"
    if name in ("device",):
        return "device"
    if name in ("generator",):
        return "generator"
    if name in ("out",):
        return "out"
    if name in ("tensors", "inputs", "seq") or "list[tensor" in t or "sequence[tensor" in t:
        return "tensor_list"
    if "tensor" in t and "list" not in t:
        return "tensor"
    if (
        t == "str"
        or (default or "").startswith(("'", '"'))
        or name
        in (
            "mode",
            "reduction",
            "padding_mode",
            "fmt",
            "in_fmt",
            "out_fmt",
            "norm",
            "equation",
            "interpolation",
            "nonlinearity",
            "approximate",
            "rounding_mode",
            "side",
            "memory_format",
            "window",
            "scale",
        )
    ):
        return "str"
    if DIM_NAMES.match(name):
        return "dim"
    if t in ("bool",) or (default in ("True", "False")):
        return "bool"
    if t in ("float", "double") or (default and re.fullmatch(r"-?\d+\.\d*(e-?\d+)?", default)):
        return "float"
    if "list[int]" in t or "sequence[int]" in t or "tuple" in t:
        return "size"
    if SIZE_NAMES.search(name) or t == "int":
        return "size"
    if TENSOR_NAMES.match(name) or "tensor" in t:
        return "tensor"
    if t.startswith("object") or t == "":
        if default and re.fullmatch(r"-?\d+", default):
            return "size"
        return "tensor" if default in (None, "None") and not t else "any"
    return "any"


def hostile_values(kind, tcat):
    import tensorcore as tc

    vals = []
    tens = [k for k in tcat]
    if kind in ("tensor", "any"):
        vals += [("T", k) for k in tens]
        vals += [("V", v) for v in (None, 1.5, "abc", [1.0, 2.0])]
    if kind == "tensor_list":
        vals += [
            ("V", []),
            ("V", None),
            ("TL", ("f32[2,3]", "f32[5]")),
            ("TL", ("f32[2,3]", "int64[2,3]")),
            ("TL", ("f32[]",)),
            ("TL", ("f32[0]",)),
            ("TL", ("f32[2,3]", "complex64[2,3]")),
            ("V", [1, 2]),
            ("TL", ("f32[rank9]",)),
            ("V", [None]),
            ("TL", ("u8[3,8,8]", "f32[3,8,8]")),
        ]
    if kind in ("dim", "size", "any"):
        vals += [("V", v) for v in INTS]
        vals += [("V", v) for v in INT_LISTS]
    if kind in ("float", "any", "size"):
        vals += [("V", v) for v in FLOATS]
    if kind in ("str", "any", "device"):
        vals += [("V", v) for v in STRINGS]
    if kind == "dtype":
        vals += [("V", v) for v in (tc.bool, tc.complex64, tc.uint8, "float", 1)]
    if kind == "bool":
        vals += [("V", v) for v in (2, "yes")]
    if kind == "generator":
        vals += [("V", 3)]
    if kind == "out":
        vals += [("T", "int64[2,3]"), ("T", "f32[noncontig]"), ("T", "f32[expanded]"), ("V", 3)]
    vals += [("V", v) for v in WRONG if ("V", v) not in vals]
    return vals


def sane_value(kind, name, default_text, base):
    """A plausible argument so that mutating another parameter reaches deeper checks."""
    if kind == "tensor":
        if re.search(r"index|indices|target|labels|idxs|lengths", name):
            return ("T", "i64[idx]")
        return ("T", base)
    if kind == "tensor_list":
        return ("TL", (base, base))
    if kind == "dim":
        return ("V", 0)
    if kind == "size":
        return ("V", 2)
    if kind == "float":
        return ("V", 0.5)
    if kind == "bool":
        return ("V", False)
    if kind == "str":
        return ("V", "mean" if name == "reduction" else "constant")
    return ("V", 1)


# ----------------------------------------------------------------------------- call plans

BASES = ["f32[2,3]", "f32[2,3,8,8]", "f32[5]", "f32[3,8,8]"]


def describe(tok):
    kind, v = tok
    if kind == "T":
        return f"<{v}>"
    if kind == "G":
        return f"<{v},f64,requires_grad>"
    if kind == "TL":
        return "[" + ", ".join(f"<{x}>" for x in v) + "]"
    if isinstance(v, object) and type(v) is object:
        return "object()"
    return repr(v)


def materialize(tok, tcat):
    kind, v = tok
    if kind == "T":
        if v == "i64[idx]":
            import tensorcore as tc

            return tc.tensor([0, 1])
        t = tcat[v]
        if t.requires_grad:
            return t  # never written in place by a test value; keep the leaf
        return (
            t.clone()
            if t.is_contiguous()
            else t.clone().t()
            if v.endswith("noncontig]")
            else t.clone()
            if not v.endswith("expanded]")
            else t.clone()[:1].expand(t.shape)
        )
    if kind == "G":  # a fresh float64 leaf that requires grad (backward is run on the result)
        return materialize(("T", v), tcat).detach().double().requires_grad_()
    if kind == "TL":
        return [materialize(("T", x), tcat) for x in v]
    return v


def plans(tid, params, tcat, long_mode, rng, base="f32[2,3]"):
    """Yield (label, self_tok, [(pname, tok, as_kw)]) for one target, deterministically."""
    is_method = tid.startswith("Tensor.")
    kinds = [
        (n, param_kind(n, t, d), d) for n, t, d_has, d in [(p[0], p[1], p[2], p[3]) for p in params]
    ]
    required = [(n, k, d) for (n, k, d), p in zip(kinds, params) if not p[2] and p[1] != "*"]
    varargs = any(p[1] == "*" for p in params)
    self_choices = list(tcat) if is_method else [None]

    def call_with(base, override=None, n_args=None):
        args = []
        for n, k, d in required[: n_args if n_args is not None else len(required)]:
            tok = sane_value(k, n, d, base)
            if override and override[0] == n:
                tok = override[1]
            args.append((n, tok, False))
        return args

    seen = set()

    def emit(label, self_tok, args):
        key = (self_tok, tuple((a[0], describe(a[1]), a[2]) for a in args))
        if key in seen:
            return None
        seen.add(key)
        return (label, self_tok, args)

    out = []
    # 1. the whole tensor catalogue as the self / first argument, others sane
    if is_method:
        for k in self_choices:
            p = emit("self", ("T", k), call_with(base))
            if p:
                out.append(p)
    elif required:
        n0 = required[0][0]
        for tok in hostile_values(required[0][1], tcat):
            p = emit("arg0", None, call_with(base, (n0, tok)))
            if p:
                out.append(p)
    # 2. each further parameter (required or optional, positional or keyword) mutated alone
    for i, (n, k, d) in enumerate(kinds):
        if params[i][1] == "*":
            continue
        is_req = any(r[0] == n for r in required)
        if is_req and not is_method and required and n == required[0][0]:
            continue
        vals = hostile_values(k, tcat)
        for tok in vals:
            args = call_with(base)
            if is_req:
                args = [(a[0], tok if a[0] == n else a[1], False) for a in args]
            else:
                args.append((n, tok, True))
            p = emit(f"mut:{n}", ("T", base) if is_method else None, args)
            if p:
                out.append(p)
    # 3. varargs (view(*shape), permute(*dims), ...)
    if varargs:
        for v in INTS + [-2, 3]:
            for extra in ([v], [2, v], [v, v, v]):
                p = emit(
                    "varargs",
                    ("T", base) if is_method else None,
                    ([("_", ("T", base), False)] if not is_method else [])
                    + [("_", ("V", x), False) for x in extra],
                )
                if p:
                    out.append(p)
        if is_method:
            for v in INT_LISTS + [None, "abc", 1.5]:
                p = emit("varargs", ("T", base), [("_", ("V", v), False)])
                if p:
                    out.append(p)
    # 4. mismatched tensor pairs for binary-looking ops
    tensor_req = [r for r in required if r[1] == "tensor"]
    if (is_method and tensor_req) or len(tensor_req) >= 2:
        pairs = [
            ("f32[2,3]", "f32[5]"),
            ("f32[0]", "f32[2,3]"),
            ("f32[2,3]", "complex64[2,3]"),
            ("bool[2,3]", "bool[2,3]"),
            ("f32[]", "f32[rank9]"),
            ("int64[2,3]", "uint8[2,3]"),
            ("f32[2,0,3]", "f32[2,3]"),
            ("float16[2,3]", "f32[2,3]"),
        ]
        for a, b in pairs:
            if is_method:
                args = call_with(base, (tensor_req[0][0], ("T", b)))
                p = emit("pair", ("T", a), args)
            else:
                args = call_with(base)
                args = [
                    (
                        x[0],
                        ("T", a)
                        if x[0] == tensor_req[0][0]
                        else ("T", b)
                        if x[0] == tensor_req[1][0]
                        else x[1],
                        False,
                    )
                    for x in args
                ]
                p = emit("pair", None, args)
            if p:
                out.append(p)
    # 5. gradients: the plain call with float64 leaves that require grad (on the accepted base
    #    and on 0-d / empty / zero-size ones), then backward through the result
    for gbase in (base, "f32[]", "f32[0]", "f32[2,0,3]", "f32[0,3,8,8]", "f32[2,3,0,8]"):
        args = [
            (a[0], ("G", a[1][1]) if a[1][0] == "T" and a[1][1] != "i64[idx]" else a[1], a[2])
            for a in call_with(gbase)
        ]
        p = emit("grad", ("G", gbase) if is_method else None, args)
        if p:
            out.append(p)
    # 6. too few / too many positional arguments
    out.append(("arity", ("T", base) if is_method else None, []))
    out.append(
        (
            "arity",
            ("T", base) if is_method else None,
            call_with(base) + [("_", ("V", 1), False)] * 12,
        )
    )
    # 7. exploration: random multi-parameter mutations
    if long_mode:
        names = [p for p in kinds if params[kinds.index(p)][1] != "*"]
        for _ in range(60):
            args = call_with(rng.choice(BASES))
            extra = []
            for n, k, d in names:
                if rng.random() < 0.5:
                    tok = rng.choice(hostile_values(k, tcat))
                    if any(a[0] == n for a in args):
                        args = [(a[0], tok if a[0] == n else a[1], False) for a in args]
                    else:
                        extra.append((n, tok, True))
            self_tok = ("T", rng.choice(self_choices)) if is_method else None
            p = emit("random", self_tok, args + extra)
            if p:
                out.append(p)
    return [p for p in out if p]


def probe_plans(tid, params):
    """The plain call with each base tensor; the first that succeeds is the base the mutations
    start from, so that they get past the op's first shape check."""
    is_method = tid.startswith("Tensor.")
    out = []
    for base in BASES:
        args = []
        for n, t, has_def, d in params:
            if has_def or t == "*":
                continue
            k = param_kind(n, t, d)
            args.append((n, sane_value(k, n, d, base), False))
        out.append((base, ("T", base) if is_method else None, args))
    return out


def call_text(tid, self_tok, args):
    parts = [describe(t) if not kw else f"{n}={describe(t)}" for n, t, kw in args]
    if tid.startswith("Tensor."):
        return f"{describe(self_tok)}.{tid.split('.', 1)[1]}({', '.join(parts)})"
    return f"{tid}({', '.join(parts)})"


# ----------------------------------------------------------------------------- child

LEAK_BYTES = 0  # exact today: every target returns to its starting allocation
SLOT = 8192  # progress record: 4 ints + the call text


def _write_progress(mm, ti, ci, text):
    b = text.encode("utf-8", "replace")[: SLOT - 24]
    mm[0:SLOT] = struct.pack("<qqq", ti, ci, len(b)) + b + b"\0" * (SLOT - 24 - len(b))


def read_progress(mm):
    ti, ci, n = struct.unpack("<qqq", mm[0:24])
    return ti, ci, mm[24 : 24 + n].decode("utf-8", "replace")


def classify(exc):
    name = type(exc).__name__
    msg = str(exc)
    mro = [c.__name__ for c in type(exc).__mro__]
    if isinstance(exc, MemoryError):
        return "memory"
    if not any(a in mro for a in ALLOWED_EXC):
        return "exc-type"
    if "incompatible function arguments" in msg or "takes" in msg and "positional" in msg:
        return None  # pybind / Python arity messages list the accepted signatures
    if BAD_MESSAGE.search(msg):
        return "message"
    if len(msg.strip()) == 0:
        return "message"
    if name == "RuntimeError" and msg.startswith("Unable to convert"):
        return "message"
    return None


def _invoke(tid, func, self_tok, args, tcat):
    pos = [materialize(t, tcat) for n, t, kw in args if not kw]
    kws = {n: materialize(t, tcat) for n, t, kw in args if kw}
    if func is None:
        obj = materialize(self_tok, tcat)
        r = getattr(obj, tid.split(".", 1)[1])(*pos, **kws)
    else:
        r = func(*pos, **kws)
    if hasattr(r, "__next__"):  # drain generators (e.g. __iter__)
        for _ in zip(range(100), r):
            pass
    if any(t[0] == "G" for t in [self_tok or ("", "")] + [a[1] for a in args]):
        _backward(r)


def _backward(r):
    import tensorcore as tc

    outs = r if isinstance(r, (tuple, list)) else [r]
    outs = [o for o in outs if isinstance(o, tc.Tensor) and o.requires_grad]
    if not outs:
        return
    total = None
    for o in outs:
        o = o.abs() if o.is_complex() else o
        if not o.is_floating_point():
            continue
        s = o.sum()
        total = s if total is None else total + s
    if total is not None:
        total.backward()


def child_main(
    progress_path, targets, start_ti, start_ci, skip_json, results_path, long_mode, max_calls=-1
):
    import faulthandler
    import resource
    import warnings

    warnings.simplefilter("ignore")
    faulthandler.enable()
    limit = int(os.environ.get("TC_FUZZ_MEM_GB", "6")) << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import tensorcore as tc

    tc.set_num_threads(1)
    tcat = tensor_catalogue()
    skip = set(map(tuple, json.loads(skip_json)))
    fd = os.open(progress_path, os.O_RDWR)
    mm = mmap.mmap(fd, SLOT)
    res = open(results_path, "a", buffering=1)

    def report(exc, text, tid):
        kind = classify(exc)
        if kind:
            res.write(
                json.dumps(
                    {
                        "kind": kind,
                        "call": text,
                        "target": tid,
                        "exc": type(exc).__name__,
                        "msg": str(exc)[:300],
                    }
                )
                + "\n"
            )

    for ti in range(start_ti, len(targets)):
        tid = targets[ti]
        try:
            func = resolve(tid)
            meth = getattr(tc.Tensor, tid.split(".", 1)[1]) if func is None else None
            params = signature(func if func is not None else meth, tid, func is None)
        except Exception as e:  # pragma: no cover - resolution failure is itself reported
            res.write(
                json.dumps({"kind": "resolve", "call": tid, "target": tid, "msg": repr(e)}) + "\n"
            )
            continue
        gc.collect()
        mem_before = tc._C._cpu_memory_allocated()
        rng = random.Random(sum(map(ord, tid)))
        base = BASES[0]
        for k, (pbase, self_tok, args) in enumerate(
            probe_plans(tid, params) if max_calls < 0 else []
        ):
            ci = -(k + 1)  # probes are numbered below zero so a crashing one can be skipped
            if (ti, ci) in skip:
                continue
            text = call_text(tid, self_tok, args)
            _write_progress(mm, ti, ci, text)
            try:
                _invoke(tid, func, self_tok, args, tcat)
                base = pbase
                break
            except BaseException as e:  # noqa: BLE001
                if isinstance(e, (KeyboardInterrupt, SystemExit)):
                    raise
                report(e, text, tid)
        for ci, (label, self_tok, args) in enumerate(
            plans(tid, params, tcat, long_mode, rng, base)
        ):
            if ti == start_ti and ci < start_ci:
                continue
            if 0 <= max_calls <= ci:
                break
            if (ti, ci) in skip:
                continue
            text = call_text(tid, self_tok, args)
            _write_progress(mm, ti, ci, text)
            try:
                _invoke(tid, func, self_tok, args, tcat)
            except BaseException as e:  # noqa: BLE001 - classify every escape
                if isinstance(e, (KeyboardInterrupt, SystemExit)):
                    raise
                report(e, text, tid)
        # Leak check: what the calls of this target allocated (tensorcore's CPU allocator) must
        # be freed once their results and exceptions are gone.
        gc.collect()
        grown = tc._C._cpu_memory_allocated() - mem_before
        if grown > LEAK_BYTES:
            res.write(
                json.dumps(
                    {
                        "kind": "leak",
                        "call": tid,
                        "target": tid,
                        "msg": f"{grown} bytes still allocated",
                    }
                )
                + "\n"
            )
    _write_progress(mm, len(targets), 0, "done")
    res.close()


# ----------------------------------------------------------------------------- parent


def _spawn(progress_path, targets_path, ti, ci, skip, results_path, long_mode, err_path, max_calls):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    here = os.path.dirname(os.path.abspath(__file__))
    cmd = [
        sys.executable,
        os.path.join(here, "fuzz.py"),
        "--child",
        progress_path,
        targets_path,
        str(ti),
        str(ci),
        json.dumps(sorted(skip)),
        results_path,
        "1" if long_mode else "0",
        str(max_calls),
    ]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=open(err_path, "wb"))


def run_shard(targets, long_mode=False, timeout=20.0, verbose=False, max_calls=-1):
    """Run the targets in one supervised child (restarted after crashes and hangs); max_calls
    >= 0 runs only that many calls per target (and no probes)."""
    findings = []
    with tempfile.TemporaryDirectory(prefix="tcfuzz") as d:
        progress_path = os.path.join(d, "progress")
        with open(progress_path, "wb") as f:
            f.write(b"\0" * SLOT)
        targets_path = os.path.join(d, "targets.json")
        with open(targets_path, "w") as f:
            json.dump(targets, f)
        results_path = os.path.join(d, "results.jsonl")
        err_path = os.path.join(d, "stderr")
        fd = os.open(progress_path, os.O_RDWR)
        mm = mmap.mmap(fd, SLOT)
        skip = set()
        ti, ci = 0, 0
        restarts = 0
        while True:
            _write_progress(mm, -1, -1, "")
            proc = _spawn(
                progress_path,
                targets_path,
                ti,
                ci,
                skip,
                results_path,
                long_mode,
                err_path,
                max_calls,
            )
            last, since = None, time.monotonic()
            while True:
                rc = proc.poll()
                cur = read_progress(mm)
                if cur[:2] != last:
                    last, since = cur[:2], time.monotonic()
                    if verbose and cur[0] >= 0 and cur[0] < len(targets) and cur[1] == 0:
                        print("  ", targets[cur[0]], flush=True)
                if rc is not None:
                    break
                if cur[0] >= 0 and time.monotonic() - since > timeout:
                    proc.kill()
                    proc.wait()
                    rc = "hang"
                    break
                time.sleep(0.02)
            cti, cci, text = read_progress(mm)
            if rc == 0 and cti == len(targets):
                break
            if cti < 0:  # died before the first call: import / set-up failure
                with open(err_path, "rb") as f:
                    tail = f.read()[-2000:].decode("utf-8", "replace")
                findings.append({"kind": "setup", "call": "<child start>", "msg": tail})
                break
            with open(err_path, "rb") as f:
                tail = f.read()[-1500:].decode("utf-8", "replace")
            findings.append(
                {
                    "kind": "hang" if rc == "hang" else "crash",
                    "call": text,
                    "target": targets[cti] if 0 <= cti < len(targets) else "?",
                    "exc": f"exit {rc}",
                    "msg": tail,
                }
            )
            skip.add((cti, cci))
            ti, ci = cti, 0  # earlier calls of this target run again (cheap), skip list grows
            restarts += 1
            if restarts > 200:
                findings.append({"kind": "setup", "call": "<too many restarts>", "msg": ""})
                break
        with open(results_path) as f:
            seen = set()
            for line in f:
                r = json.loads(line)
                key = (r["kind"], r["call"])
                if key not in seen:
                    seen.add(key)
                    findings.append(r)
    return findings


def run(targets=None, long_mode=None, workers=2, timeout=20.0, verbose=False):
    if long_mode is None:
        long_mode = os.environ.get("TC_FUZZ_LONG", "") not in ("", "0")
    if targets is None:
        targets = all_targets()
    shards = [targets[i::workers] for i in range(workers)]
    if workers == 1:
        return run_shard(shards[0], long_mode, timeout, verbose)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as ex:
        parts = list(ex.map(lambda s: run_shard(s, long_mode, timeout, verbose), shards))
    return [f for p in parts for f in p]


def format_findings(findings):
    lines = []
    for r in sorted(findings, key=lambda r: (r["kind"], r["call"])):
        msg = r.get("msg", "").strip().splitlines()
        lines.append(
            f"[{r['kind']}] {r['call']}  -> {r.get('exc', '')}: "
            f"{msg[-1] if r['kind'] in ('crash', 'hang') and msg else ' '.join(msg)[:200]}"
        )
    return "\n".join(lines)


def main(argv):
    if len(argv) > 1 and argv[1] == "--child":
        _, _, progress_path, targets_path, ti, ci, skip_json, results_path, lm, mc = argv
        with open(targets_path) as f:
            targets = json.load(f)
        child_main(
            progress_path, targets, int(ti), int(ci), skip_json, results_path, lm == "1", int(mc)
        )
        return 0
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--long", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument(
        "--write-known",
        action="store_true",
        help="record the current unclear-error findings in known_findings.json",
    )
    a = ap.parse_args(argv[1:])
    targets = None
    if a.only:
        pats = a.only.split(",")
        targets = [
            t for t in all_targets() if any(re.fullmatch(p.replace("*", ".*"), t) for p in pats)
        ]
    t0 = time.time()
    findings = run(targets, True if a.long else None, a.workers, a.timeout, a.verbose)
    print(format_findings(findings))
    if a.write_known:
        known = {}
        for r in findings:
            if r["kind"] not in ("crash", "hang", "setup", "resolve", "leak"):
                known.setdefault(r.get("target", "?"), set()).add(r["kind"])
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_findings.json")
        with open(path, "w") as f:
            json.dump({k: sorted(v) for k, v in sorted(known.items())}, f, indent=0)
            f.write("\n")
        print(f"wrote {len(known)} targets to {path}", file=sys.stderr)
    print(f"{len(findings)} findings in {time.time() - t0:.1f} s", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
