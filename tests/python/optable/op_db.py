"""The generic op table: one OpInfo per op drives forward checks against NumPy, gradcheck in
float64/complex128 and method-vs-function checks over contiguous, non-contiguous and expanded
inputs (tests/python/optable/test_optable.py), and the same table on CUDA against the CPU result
(tests/python/cuda/test_cuda_optable.py, via run_on_device).

An op entry holds: the tc callable, a NumPy reference taking the same arguments as NumPy arrays
(torch-vs-NumPy semantic differences are handled inside the reference), a sample generator,
the dtypes it supports, which dtypes are differentiable, per-dtype tolerances, the result dtype
rule and the layouts that make sense for it. Samples name their tensor arguments as NumPy
arrays; `layout_input` turns each into a tc tensor of the requested layout *through views of a
base tensor*, so gradcheck differentiates through the transposes/slices/expands as well."""

import numpy as np

import tensorcore as tc

LAYOUTS = ("contiguous", "noncontiguous", "expanded")

FLOAT = ("float32", "float64")
HALF = ("float16", "bfloat16")
INT = ("int64", "int32")
SMALLINT = ("uint8", "int8", "int16")
CPLX = ("complex64", "complex128")
BOOL = ("bool",)
GRAD_REAL = ("float64",)
GRAD_ALL = ("float64", "complex128")

# rtol/atol per dtype; an op may override entries.
DEFAULT_TOL = {
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
    "float32": (2e-5, 2e-5),
    "float64": (1e-9, 1e-9),
    "complex64": (2e-5, 2e-5),
    "complex128": (1e-9, 1e-9),
}

_NP = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": np.float32,
    "float32": np.float32,
    "float64": np.float64,
    "complex64": np.complex64,
    "complex128": np.complex128,
}


def tc_dtype(name):
    return getattr(tc, name)


def dtype_name(dt):
    return str(dt).split(".")[-1]


def is_float(name):
    return name in FLOAT or name in HALF


def is_int(name):
    return name in INT or name in SMALLINT or name == "uint16"


def is_complex(name):
    return name in CPLX


def real_of(name):
    return {"complex64": "float32", "complex128": "float64"}.get(name, name)


def complex_of(name):
    return {"float32": "complex64", "float64": "complex128"}.get(name, name)


# ---------------------------------------------------------------- sample inputs
class Idx:
    """An integer/bool argument that keeps its dtype and layout (indices, masks)."""

    def __init__(self, arr):
        self.arr = np.asarray(arr)


class SampleInput:
    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def __repr__(self):
        parts = [
            f"array{a.shape}:{a.dtype}"
            if isinstance(a, np.ndarray)
            else (f"idx{a.arr.shape}" if isinstance(a, Idx) else repr(a))
            for a in self.args
        ]
        parts += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return "SampleInput(" + ", ".join(parts) + ")"


def make_arr(rng, shape, dtype, domain="any"):
    """Random values of `dtype` (NumPy stand-in: bfloat16 values are float32 rounded to bf16)."""
    shape = tuple(shape)
    if dtype == "bool":
        return np.asarray(rng.random(shape) > 0.5)
    if is_int(dtype):
        lo, hi = {
            "any": (-5, 6),
            "pos": (1, 6),
            "unit": (0, 1),
            "ge1": (1, 6),
            "small": (0, 4),
            "nonzero": (1, 6),
        }.get(domain, (-5, 6))
        if dtype == "uint8":
            lo = max(lo, 0)
        a = rng.integers(lo, hi, shape)
        if domain == "nonzero":
            a = a * rng.choice([-1, 1], shape) if dtype != "uint8" else a
        return a.astype(_NP[dtype])
    if domain == "pos":
        a = rng.uniform(0.25, 3.0, shape)
    elif domain == "unit":
        a = rng.uniform(-0.9, 0.9, shape)
    elif domain == "ge1":
        a = rng.uniform(1.1, 3.0, shape)
    elif domain == "small":
        a = rng.uniform(0.25, 2.0, shape)
    elif domain == "nonzero":
        a = rng.uniform(0.3, 3.0, shape) * rng.choice([-1.0, 1.0], shape)
    else:  # "any": kept 0.05 away from multiples of 0.5 so kinks (abs, floor, round) are not hit
        a = rng.standard_normal(shape) * 2
        frac = a * 2 - np.round(a * 2)
        a = np.where(np.abs(frac) < 0.1, a + 0.05 * np.sign(frac + 1e-9), a)
    if is_complex(dtype):
        b = (
            rng.uniform(0.2, 0.8, shape)
            if domain in ("unit", "pos", "small", "ge1")
            else rng.standard_normal(shape)
        )
        if domain == "unit":
            a = a * 0.6
        a = a + 1j * b
    a = np.asarray(a).astype(_NP[dtype])
    if dtype == "bfloat16":
        a = tc.from_numpy(np.array(a, order="C")).to(tc.bfloat16).float().numpy()
    return a


def to_tensor(arr, dtype):
    t = tc.from_numpy(np.array(arr, order="C"))
    if dtype == "bfloat16":
        t = t.to(tc.bfloat16)
    return t


def layout_input(arr, layout):
    """(base array, view function, reference array) for one array argument.
    The tc tensor is view_fn(tensor(base)); it holds exactly the values of the reference array."""
    arr = np.asarray(arr)
    if layout == "noncontiguous" and arr.ndim >= 1 and arr.size > 1:
        if arr.ndim == 1:
            base = np.zeros((arr.shape[0] * 2,), arr.dtype)
            base[::2] = arr
            return base, (lambda t: t[::2]), arr
        # stored with the last two dims swapped, and (3-d+) every other slice along dim 0
        sw = np.ascontiguousarray(np.swapaxes(arr, -1, -2))
        if arr.ndim >= 3:
            base = np.zeros((sw.shape[0] * 2,) + sw.shape[1:], arr.dtype)
            base[::2] = sw
            return base, (lambda t: t[::2].transpose(-1, -2)), arr
        return sw, (lambda t: t.transpose(-1, -2)), arr
    if layout == "expanded" and arr.ndim >= 1:
        dims = [d for d in range(arr.ndim) if arr.shape[d] > 1]
        if dims:
            d = dims[0]
            base = np.take(arr, [0], axis=d)
            ref = np.ascontiguousarray(np.broadcast_to(base, arr.shape))
            shape = arr.shape
            return base, (lambda t: t.expand(*shape)), ref
    return arr, (lambda t: t), arr


class Prepared:
    """One sample materialised for a dtype/layout/device: tc args, reference args, leaves."""

    def __init__(self, sample, dtype, layout, device="cpu"):
        self.sample = sample
        self.ref_args = []
        self.bases = []  # (position, base tc tensor, view fn) for the data arguments
        self.fixed = {}  # position -> tc tensor (indices, masks) or plain value
        for i, a in enumerate(sample.args):
            if isinstance(a, np.ndarray):
                base, fn, ref = layout_input(a, layout)
                t = to_tensor(base, dtype if a.dtype != np.bool_ or dtype == "bool" else "bool")
                if device != "cpu":
                    t = t.to(device)
                self.bases.append((i, t, fn))
                self.ref_args.append(ref)
            elif isinstance(a, Idx):
                t = tc.from_numpy(np.array(a.arr, order="C"))
                self.fixed[i] = t.to(device) if device != "cpu" else t
                self.ref_args.append(a.arr)
            else:
                self.fixed[i] = a
                self.ref_args.append(a)
        self.n = len(sample.args)
        # keyword tensors (weights=..., etc.) are passed contiguous in the sample's dtype
        self.kwargs = {}
        self.ref_kwargs = {}
        for k, v in sample.kwargs.items():
            if isinstance(v, (np.ndarray, Idx)):
                arr = v.arr if isinstance(v, Idx) else v
                t = to_tensor(arr, dtype) if isinstance(v, np.ndarray) else tc.from_numpy(arr)
                self.kwargs[k] = t.to(device) if device != "cpu" else t
                self.ref_kwargs[k] = arr
            else:
                self.kwargs[k] = self.ref_kwargs[k] = v

    def build(self, leaves=None):
        """The tc arguments; `leaves` replaces the base tensors (for gradcheck)."""
        args = [None] * self.n
        for k, (i, t, fn) in enumerate(self.bases):
            args[i] = fn(leaves[k] if leaves is not None else t)
        for i, v in self.fixed.items():
            args[i] = v
        return args


# ---------------------------------------------------------------- op info
class OpInfo:
    def __init__(
        self,
        name,
        op,
        ref,
        samples,
        dtypes,
        *,
        method=None,
        grad_dtypes=(),
        out="same",
        tol=None,
        layouts=LAYOUTS,
        ref_upcast=None,
        xfail=None,
        compare=None,
        grad_max_numel=64,
        family="",
        skip=None,
    ):
        self.name = name
        self.op = op
        self.ref = ref
        self.samples = samples  # (dtype, rng) -> list[SampleInput]
        self.dtypes = tuple(dtypes)
        self.method = method  # Tensor method name, or None
        self.grad_dtypes = tuple(d for d in grad_dtypes)
        self.out = out  # result dtype rule: same/float/bool/real/int64/complex/None
        self.tol = dict(DEFAULT_TOL, **(tol or {}))
        self.layouts = tuple(layouts)
        # reference computes in float64 for int inputs of float-valued ops, float32->f64 for halves
        self.ref_upcast = (out == "float") if ref_upcast is None else ref_upcast
        self.xfail = xfail or {}  # (dtype or "*", check) -> reason
        self.compare = compare  # custom (got, expected, prepared, tol) comparison
        self.grad_max_numel = grad_max_numel
        self.family = family
        self.skip = skip or {}

    def __repr__(self):
        return f"OpInfo({self.name})"

    def out_dtype(self, dtype):
        rule = self.out
        if rule is None:
            return None
        if callable(rule):
            return rule(dtype)
        return {
            "same": dtype,
            "float": dtype if (is_float(dtype) or is_complex(dtype)) else "float32",
            "bool": "bool",
            "real": real_of(dtype),
            "int64": "int64",
            "complex": complex_of(dtype),
            "sum": "int64" if (is_int(dtype) or dtype == "bool") else dtype,
        }[rule]

    def result_tol(self, dtype):
        """Tolerance of the result: int inputs of float-valued ops use the result's dtype."""
        out = self.out_dtype(dtype) if self.out is not None else None
        if dtype in self.tol:
            return self.tol[dtype]
        return self.tol.get(out, (0, 0)) if out else (0, 0)

    def reference(self, prepared, dtype):
        args = list(prepared.ref_args)
        if dtype in HALF or (self.ref_upcast and (is_int(dtype) or dtype == "bool")):
            args = [
                a.astype(np.float64)
                if isinstance(a, np.ndarray)
                and a.dtype.kind in "fiub"
                and i in {p for p, _, _ in prepared.bases}
                else a
                for i, a in enumerate(args)
            ]
        # bool/int samples hit the domain edges (log(0) = -inf, as in torch): no NumPy warnings
        import warnings

        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.ref(*args, **prepared.ref_kwargs)


def _leaves(x):
    if isinstance(x, (tuple, list)):
        out = []
        for v in x:
            out.extend(_leaves(v))
        return out
    return [x]


def to_numpy(t):
    if isinstance(t, tc.Tensor):
        t = t.detach()
        if str(t.device) != "cpu":
            t = t.to("cpu")
        if t.dtype == tc.bfloat16:
            t = t.float()
        return t.contiguous().numpy()
    return np.asarray(t)


def assert_close(got, expected, tol, msg=""):
    g_leaves, e_leaves = _leaves(got), _leaves(expected)
    assert len(g_leaves) == len(e_leaves), (
        f"{msg}: {len(g_leaves)} outputs, expected {len(e_leaves)}"
    )
    for k, (g, e) in enumerate(zip(g_leaves, e_leaves)):
        gn, en = to_numpy(g), np.asarray(e)
        assert gn.shape == en.shape, f"{msg} output {k}: shape {gn.shape}, expected {en.shape}"
        if gn.dtype == np.bool_ or gn.dtype.kind in "iu":
            np.testing.assert_array_equal(gn, en.astype(gn.dtype), err_msg=f"{msg} output {k}")
        else:
            rtol, atol = tol
            np.testing.assert_allclose(
                gn.astype(np.complex128 if gn.dtype.kind == "c" else np.float64),
                en,
                rtol=rtol,
                atol=atol,
                equal_nan=True,
                err_msg=f"{msg} output {k}",
            )


def compare_values_indices(dim_of, keep_of=lambda p: True):
    """(values, indices) results: values must match the reference exactly-ish, and indices must
    point at those values in the input (ties make the reference's indices one valid choice)."""

    def compare(got, exp, p, tol, msg):
        vals, idx = got[0], got[1]
        assert_close(vals, exp[0], tol, msg)
        a = p.ref_args[0]
        i = to_numpy(idx)
        v = to_numpy(vals)
        assert i.shape == v.shape, f"{msg}: indices shape {i.shape} != values shape {v.shape}"
        if a.ndim == 0:
            np.testing.assert_array_equal(i, 0, err_msg=msg)
            return
        dim = dim_of(p)
        if not keep_of(p):
            i = np.expand_dims(i, dim)
        picked = np.take_along_axis(a, i.astype(np.int64), axis=dim)
        np.testing.assert_array_equal(
            picked.reshape(v.shape).astype(v.dtype),
            v,
            err_msg=msg + " (values at the returned indices)",
        )

    return compare


def first_tensor(x):
    for v in _leaves(x):
        if isinstance(v, tc.Tensor):
            return v
    return None


def check_forward(op, dtype, layout, seed=0):
    """Runs every sample through op and the NumPy reference; checks values and result dtype."""
    rng = np.random.default_rng(seed)
    tol = op.result_tol(dtype)
    for s in op.samples(dtype, rng):
        p = Prepared(s, dtype, layout)
        got = op.op(*p.build(), **p.kwargs)
        exp = op.reference(p, dtype)
        msg = f"{op.name} {dtype} {layout} {s}"
        want = op.out_dtype(dtype)
        t = first_tensor(got)
        if want is not None and t is not None:
            assert dtype_name(t.dtype) == want, f"{msg}: result dtype {t.dtype}, expected {want}"
        if op.compare is not None:
            op.compare(got, exp, p, tol, msg)
        else:
            assert_close(got, exp, tol, msg)


def check_method(op, dtype, layout, seed=0):
    """The Tensor method form gives exactly the function form's result."""
    rng = np.random.default_rng(seed)
    for s in op.samples(dtype, rng):
        p = Prepared(s, dtype, layout)
        args = p.build()
        a = op.op(*args, **p.kwargs)
        b = getattr(args[0], op.method)(*args[1:], **p.kwargs)
        assert_close(
            b,
            [to_numpy(v) if isinstance(v, tc.Tensor) else v for v in _leaves(a)],
            (0, 0),
            f"{op.name}.{op.method} {dtype} {layout} {s}",
        )


def check_grad(op, dtype, layout, seed=0):
    """tc.autograd.gradcheck through the layout views, for every small sample."""
    rng = np.random.default_rng(seed)
    ran = 0
    for s in op.samples(dtype, rng):
        p = Prepared(s, dtype, layout)
        leaves = []
        for _, t, _ in p.bases:
            if t.is_floating_point() or t.is_complex():
                t = t.detach().clone().requires_grad_(True)
            leaves.append(t)
        if not any(t.requires_grad for t in leaves):
            continue
        if sum(t.numel() for t in leaves if t.requires_grad) > op.grad_max_numel:
            continue
        if any(t.numel() == 0 for t in leaves):
            continue

        def fn(*ls):
            out = op.op(*p.build(list(ls)), **p.kwargs)
            outs = [
                o
                for o in _leaves(out)
                if isinstance(o, tc.Tensor) and (o.is_floating_point() or o.is_complex())
            ]
            return tuple(outs)

        tc.autograd.gradcheck(fn, tuple(leaves), eps=1e-6, atol=1e-5, rtol=1e-4)
        ran += 1
    return ran


def _to_cpu(v):
    if isinstance(v, tc.Tensor):
        return v.cpu()
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return type(v)(*(_to_cpu(x) for x in v))
    if isinstance(v, (list, tuple)):
        return type(v)(_to_cpu(x) for x in v)
    return v


def run_on_device(op, dtype, layout, device, seed=0):
    """Runs every sample on `device` and on the CPU; results must agree (CUDA reuse)."""
    rng = np.random.default_rng(seed)
    tol = op.result_tol(dtype)
    for s in op.samples(dtype, rng):
        cpu = Prepared(s, dtype, layout)
        dev = Prepared(s, dtype, layout, device=device)
        want = op.op(*cpu.build(), **cpu.kwargs)
        got = op.op(*dev.build(), **dev.kwargs)
        t = first_tensor(got)
        if t is not None:
            assert str(t.device).startswith(device.split(":")[0]), (
                f"{op.name}: result on {t.device}"
            )
        msg = f"{op.name} {dtype} {layout} {s} on {device}"
        if op.compare is not None:
            # Custom comparators read results through NumPy: bring device results home first.
            got = _to_cpu(got)
            op.compare(got, op.reference(cpu, dtype), dev, tol, msg)
        else:
            assert_close(
                got,
                [to_numpy(v) if isinstance(v, tc.Tensor) else v for v in _leaves(want)],
                tol,
                msg,
            )


def cases(ops, check):
    """pytest params (op, dtype, layout) for `check` in forward/method/grad."""
    out = []
    for op in ops:
        if check == "method" and op.method is None:
            continue
        dts = op.grad_dtypes if check == "grad" else op.dtypes
        lays = op.layouts if check != "method" else op.layouts[:2]
        for dt in dts:
            for lay in lays:
                out.append((op, dt, lay))
    return out


PROBE_DTYPES = ("float16", "bfloat16", "uint8", "int8", "int16", "bool")


def _all_ops():
    from op_db_elementwise import OPS as E
    from op_db_reduce import OPS as R
    from op_db_shape import OPS as S
    from op_db_misc import OPS as M
    from op_db_linalg import OPS as LA
    from op_db_dtypes import EXTRA_DTYPES

    ops = E + R + S + M + LA
    for op in ops:
        op.dtypes += tuple(d for d in EXTRA_DTYPES.get(op.name, ()) if d not in op.dtypes)
    return ops


OP_DB = _all_ops()


def probe_dtypes():
    """Prints the op_db_dtypes.py table: PROBE_DTYPES an op handles correctly on every layout."""
    import warnings

    warnings.simplefilter("ignore")
    print("EXTRA_DTYPES = {")
    for op in OP_DB:
        if op.family == "creation" or op.name.startswith("to_"):
            continue
        ok = []
        for dt in PROBE_DTYPES:
            try:
                for lay in op.layouts:
                    check_forward(op, dt, lay)
                ok.append(dt)
            except Exception:
                pass
        if ok:
            print(f'    "{op.name}": {tuple(ok)!r},')
    print("}")


if __name__ == "__main__":
    import sys

    if "--probe-dtypes" in sys.argv:
        probe_dtypes()
