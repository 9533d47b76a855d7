"""Op table entries: sort/search, linear algebra, creation and conversion."""

import numpy as np

import tensorcore as tc
from op_db import (
    BOOL,
    CPLX,
    FLOAT,
    GRAD_ALL,
    GRAD_REAL,
    HALF,
    INT,
    Idx,
    OpInfo,
    SampleInput,
    compare_values_indices,
    make_arr,
)


def _arg(pos, name, default):
    def get(p):
        if len(p.sample.args) > pos:
            return p.sample.args[pos]
        return p.kwargs.get(name, default)

    return get


_CMP_SORT = compare_values_indices(_arg(1, "dim", -1))
_CMP_TOPK = compare_values_indices(_arg(2, "dim", -1))
_CMP_KTH = compare_values_indices(_arg(2, "dim", -1), lambda p: p.kwargs.get("keepdim", False))


def _sort(a, dim=-1, descending=False, stable=False):
    if a.ndim == 0:
        return a, np.zeros((), np.int64)
    key = a.astype(np.float64)
    i = np.argsort(-key if descending else key, axis=dim, kind="stable")
    return np.take_along_axis(a, i, axis=dim), i


def _cmp_argsort(got, exp, p, tol, msg):
    # ties make several index orders valid: the gathered values must come out sorted
    a = p.ref_args[0]
    dim = p.kwargs.get("dim", -1)
    idx = got.numpy()
    for row in np.moveaxis(idx, dim, -1).reshape(-1, a.shape[dim]):
        assert sorted(row.tolist()) == list(range(a.shape[dim])), f"{msg}: not a permutation"
    np.testing.assert_array_equal(
        np.take_along_axis(a, idx, axis=dim), np.take_along_axis(a, exp, axis=dim), err_msg=msg
    )


def _topk(a, k, dim=-1, largest=True, sorted=True):
    v, i = _sort(a, dim, descending=largest)
    return np.take(v, range(k), axis=dim), np.take(i, range(k), axis=dim)


def _kthvalue(a, k, dim=-1, keepdim=False):
    v, i = _sort(a, dim)
    v, i = np.take(v, [k - 1], axis=dim), np.take(i, [k - 1], axis=dim)
    return (v, i) if keepdim else (np.squeeze(v, dim), np.squeeze(i, dim))


def _sort_samples(dt, rng):
    return [
        SampleInput(make_arr(rng, (3, 5), dt)),
        SampleInput(make_arr(rng, (3, 5), dt), 0),
        SampleInput(make_arr(rng, (2, 4, 3), dt), dim=1, descending=True),
        SampleInput(make_arr(rng, (6,), dt), stable=True),
        SampleInput(make_arr(rng, (), dt)),
        SampleInput(make_arr(rng, (0, 3), dt)),
    ]


def _unique(a, sorted=True, return_inverse=False, return_counts=False, dim=None):
    r = np.unique(a, return_inverse=return_inverse, return_counts=return_counts)
    if isinstance(r, tuple) and return_inverse:
        r = (r[0], r[1].reshape(a.shape)) + r[2:]
    return r


def _searchsorted(s, v, right=False):
    side = "right" if right else "left"
    if s.ndim == 1:
        return np.searchsorted(s, v, side=side)
    return np.stack([np.searchsorted(s[i], v[i], side=side) for i in range(s.shape[0])])


def _histc(a, bins=100, min=0, max=0):
    lo, hi = (a.min(), a.max()) if min == max else (min, max)
    h, _ = np.histogram(a, bins=bins, range=(lo, hi))
    return h.astype(a.dtype)


def _sorted_arr(rng, shape, dt):
    return np.sort(make_arr(rng, shape, dt), axis=-1)


OPS = [
    OpInfo(
        "sort",
        tc.sort,
        _sort,
        _sort_samples,
        FLOAT + INT + BOOL,
        method="sort",
        grad_dtypes=GRAD_REAL,
        family="sort",
        out=None,
        compare=_CMP_SORT,
    ),
    OpInfo(
        "argsort",
        tc.argsort,
        lambda a, dim=-1, descending=False, stable=False: _sort(a, dim, descending)[1],
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 5), dt)),
            SampleInput(make_arr(rng, (3, 5), dt), dim=0, descending=True),
        ],
        FLOAT + INT,
        method="argsort",
        out="int64",
        family="sort",
        compare=_cmp_argsort,
    ),
    OpInfo(
        "topk",
        tc.topk,
        _topk,
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 5), dt), 2),
            SampleInput(make_arr(rng, (4, 3), dt), 3, dim=0, largest=False),
            SampleInput(make_arr(rng, (6,), dt), 0),
        ],
        FLOAT + INT,
        method="topk",
        grad_dtypes=GRAD_REAL,
        family="sort",
        compare=_CMP_TOPK,
    ),
    OpInfo(
        "kthvalue",
        tc.kthvalue,
        _kthvalue,
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 5), dt), 2),
            SampleInput(make_arr(rng, (4, 3), dt), 4, dim=0, keepdim=True),
        ],
        FLOAT + INT,
        method="kthvalue",
        grad_dtypes=GRAD_REAL,
        family="sort",
        compare=_CMP_KTH,
    ),
    OpInfo(
        "unique",
        tc.unique,
        _unique,
        lambda dt, rng: [
            SampleInput(np.asarray(rng.integers(-2, 3, s)).astype(make_arr(rng, (), dt).dtype), **k)
            for s, k in [
                ((3, 4), {}),
                ((6,), {"return_inverse": True}),
                ((2, 5), {"return_counts": True, "return_inverse": True}),
                ((0,), {}),
            ]
        ],
        FLOAT + INT + BOOL,
        out=None,
        family="sort",
    ),
    OpInfo(
        "searchsorted",
        tc.searchsorted,
        _searchsorted,
        lambda dt, rng: [
            SampleInput(_sorted_arr(rng, (6,), dt), make_arr(rng, (3, 2), dt)),
            SampleInput(_sorted_arr(rng, (2, 5), dt), make_arr(rng, (2, 3), dt), right=True),
        ],
        FLOAT + INT,
        out="int64",
        family="sort",
    ),
    OpInfo(
        "bucketize",
        tc.bucketize,
        lambda v, b, right=False: np.searchsorted(b, v, side="right" if right else "left"),
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 4), dt), _sorted_arr(rng, (5,), dt)),
            SampleInput(make_arr(rng, (5,), dt), _sorted_arr(rng, (4,), dt), right=True),
        ],
        FLOAT + INT,
        out="int64",
        family="sort",
    ),
    OpInfo(
        "histc",
        tc.histc,
        _histc,
        lambda dt, rng: [
            SampleInput(make_arr(rng, (4, 5), dt), bins=6),
            SampleInput(make_arr(rng, (20,), dt), bins=4, min=-1, max=1),
        ],
        FLOAT,
        method="histc",
        family="sort",
    ),
    OpInfo(
        "bincount",
        tc.bincount,
        lambda a, weights=None, minlength=0: np.bincount(a, weights, minlength).astype(
            np.int64 if weights is None else weights.dtype
        ),
        lambda dt, rng: [
            SampleInput(Idx(rng.integers(0, 5, (8,)))),
            SampleInput(Idx(rng.integers(0, 3, (6,))), minlength=5),
            SampleInput(Idx(rng.integers(0, 4, (5,))), weights=make_arr(rng, (5,), dt)),
        ],
        FLOAT,
        out=None,
        family="sort",
    ),
]


# ---------------------------------------------------------------- linear algebra
def _pair(sa, sb):
    return lambda dt, rng: [
        SampleInput(make_arr(rng, a, dt), make_arr(rng, b, dt)) for a, b in zip(sa, sb)
    ]


def _lin(name, op, ref, samples, dtypes=FLOAT + CPLX, method=None, **kw):
    tol = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4)}
    return OpInfo(
        name,
        op,
        ref,
        samples,
        dtypes,
        method=method,
        grad_dtypes=GRAD_ALL,
        family="linalg",
        tol=tol,
        **kw,
    )


def _vdot(a, b):
    return np.vdot(a, b)


OPS += [
    _lin(
        "matmul",
        tc.matmul,
        np.matmul,
        lambda dt, rng: [
            SampleInput(make_arr(rng, a, dt), make_arr(rng, b, dt))
            for a, b in [
                ((3, 4), (4, 2)),
                ((4,), (4, 2)),
                ((3, 4), (4,)),
                ((4,), (4,)),
                ((2, 3, 4), (4, 2)),
                ((2, 1, 3, 4), (3, 4, 2)),
                ((0, 3), (3, 2)),
            ]
        ],
        FLOAT + INT + CPLX,
        method="matmul",
    ),
    _lin("mm", tc.mm, np.matmul, _pair([(3, 4), (2, 0)], [(4, 2), (0, 3)]), method="mm"),
    _lin("bmm", tc.bmm, np.matmul, _pair([(2, 2, 3)], [(2, 3, 2)]), method="bmm"),
    _lin("mv", tc.mv, np.matmul, _pair([(3, 4)], [(4,)]), method="mv"),
    _lin("dot", tc.dot, np.dot, _pair([(5,)], [(5,)]), FLOAT + INT + CPLX, method="dot"),
    _lin("vdot", tc.vdot, _vdot, _pair([(5,)], [(5,)]), method="vdot"),
    _lin("outer", tc.outer, np.outer, _pair([(3,), (0,)], [(4,), (2,)]), method="outer"),
    _lin(
        "addmm",
        tc.addmm,
        lambda c, a, b, beta=1, alpha=1: beta * c + alpha * (a @ b),
        lambda dt, rng: [
            SampleInput(
                make_arr(rng, (3, 2), dt), make_arr(rng, (3, 4), dt), make_arr(rng, (4, 2), dt)
            ),
            SampleInput(
                make_arr(rng, (2,), dt),
                make_arr(rng, (3, 4), dt),
                make_arr(rng, (4, 2), dt),
                beta=0.5,
                alpha=2.0,
            ),
        ],
        method="addmm",
    ),
    _lin(
        "baddbmm",
        tc.baddbmm,
        lambda c, a, b, beta=1, alpha=1: beta * c + alpha * (a @ b),
        lambda dt, rng: [
            SampleInput(
                make_arr(rng, (2, 2, 2), dt),
                make_arr(rng, (2, 2, 3), dt),
                make_arr(rng, (2, 3, 2), dt),
                alpha=0.5,
            )
        ],
        method="baddbmm",
    ),
    _lin(
        "einsum",
        lambda a, b, eq="": tc.einsum(eq, a, b),
        lambda a, b, eq="": np.einsum(eq, a, b),
        lambda dt, rng: [
            SampleInput(make_arr(rng, (2, 3), dt), make_arr(rng, (3, 4), dt), eq="ij,jk->ik"),
            SampleInput(make_arr(rng, (2, 3, 4), dt), make_arr(rng, (2, 4), dt), eq="bij,bj->bi"),
            SampleInput(make_arr(rng, (3, 3), dt), make_arr(rng, (3,), dt), eq="ii,i->"),
        ],
    ),
    _lin(
        "tensordot",
        tc.tensordot,
        lambda a, b, dims=2: np.tensordot(a, b, dims),
        lambda dt, rng: [
            SampleInput(make_arr(rng, (2, 3, 4), dt), make_arr(rng, (3, 4, 2), dt)),
            SampleInput(make_arr(rng, (2, 3), dt), make_arr(rng, (3, 2), dt), dims=([1], [0])),
        ],
    ),
    _lin("kron", tc.kron, np.kron, _pair([(2, 3), (2,)], [(2, 2), (3,)]), method="kron"),
]


# ---------------------------------------------------------------- creation (deterministic)
def _creation(name, op, ref, dtypes=FLOAT + INT, **kw):
    # factory ops take no tensor input: one "sample" with the dtype as keyword
    return OpInfo(
        name,
        lambda dt=None, **k: op(dtype=getattr(tc, dt), **k),
        lambda dt=None, **k: ref(dt, **k),
        lambda dt, rng: [SampleInput(dt=dt)],
        dtypes,
        family="creation",
        layouts=("contiguous",),
        out="same",
    )


def _np_dt(dt):
    if dt == "bfloat16":
        return np.float32
    return np.bool_ if dt == "bool" else getattr(np, dt)


OPS += [
    _creation(
        "zeros",
        lambda dtype: tc.zeros(2, 3, dtype=dtype),
        lambda dt: np.zeros((2, 3), _np_dt(dt)),
        FLOAT + HALF + INT + BOOL + CPLX,
    ),
    _creation(
        "ones",
        lambda dtype: tc.ones((2, 3), dtype=dtype),
        lambda dt: np.ones((2, 3), _np_dt(dt)),
        FLOAT + HALF + INT + BOOL + CPLX,
    ),
    _creation(
        "full",
        lambda dtype: tc.full((2, 3), 7, dtype=dtype),
        lambda dt: np.full((2, 3), 7, _np_dt(dt)),
        FLOAT + INT,
    ),
    _creation(
        "arange",
        lambda dtype: tc.arange(1, 11, 3, dtype=dtype),
        lambda dt: np.arange(1, 11, 3).astype(_np_dt(dt)),
    ),
    _creation(
        "arange_float_step",
        lambda dtype: tc.arange(-1, 1, 0.25, dtype=dtype),
        lambda dt: np.arange(-1, 1, 0.25).astype(_np_dt(dt)),
        FLOAT,
    ),
    _creation(
        "linspace",
        lambda dtype: tc.linspace(-2, 3, 7, dtype=dtype),
        lambda dt: np.linspace(-2, 3, 7).astype(_np_dt(dt)),
        FLOAT,
    ),
    _creation(
        "logspace",
        lambda dtype: tc.logspace(-1, 2, 5, dtype=dtype),
        lambda dt: np.logspace(-1, 2, 5).astype(_np_dt(dt)),
        FLOAT,
    ),
    _creation(
        "logspace_base2",
        lambda dtype: tc.logspace(0, 3, 4, base=2, dtype=dtype),
        lambda dt: np.logspace(0, 3, 4, base=2).astype(_np_dt(dt)),
        FLOAT,
    ),
    _creation(
        "eye",
        lambda dtype: tc.eye(3, 4, dtype=dtype),
        lambda dt: np.eye(3, 4, dtype=_np_dt(dt)),
        FLOAT + INT + BOOL + CPLX,
    ),
    _creation(
        "tensor",
        lambda dtype: tc.tensor([[1, 2], [3, 4]], dtype=dtype),
        lambda dt: np.array([[1, 2], [3, 4]], _np_dt(dt)),
        FLOAT + INT + CPLX,
    ),
    _creation(
        "empty_shape",
        lambda dtype: tc.empty((2, 0, 3), dtype=dtype).shape,
        lambda dt: (2, 0, 3),
        FLOAT + INT,
    ),
]
for _n, _f, _r in [
    ("zeros_like", tc.zeros_like, np.zeros_like),
    ("ones_like", tc.ones_like, np.ones_like),
    ("full_like", lambda t: tc.full_like(t, 3), lambda a: np.full_like(a, 3)),
    ("empty_like_shape", lambda t: tc.empty_like(t).shape, lambda a: a.shape),
]:
    OPS.append(
        OpInfo(
            _n,
            _f,
            _r,
            lambda dt, rng: [SampleInput(make_arr(rng, s, dt)) for s in [(3, 4), (), (0, 2)]],
            FLOAT + INT + BOOL + CPLX,
            family="creation",
        )
    )


# ---------------------------------------------------------------- conversion
def _to(target):
    return lambda t: t.to(getattr(tc, target))


def _astype(target):
    def ref(a):
        if a.dtype.kind in "fc" and np.dtype(_np_dt(target)).kind in "iu":
            a = np.trunc(a.real if a.dtype.kind == "c" else a)
        elif a.dtype.kind == "c" and np.dtype(_np_dt(target)).kind != "c":
            a = a.real
        return a.astype(_np_dt(target))

    return ref


def _conv_samples(dt, rng):
    return [SampleInput(make_arr(rng, s, dt)) for s in [(3, 4), (), (0, 2), (2, 3, 2)]]


for _src, _dst in [
    ("float32", "float64"),
    ("float64", "float32"),
    ("float32", "int64"),
    ("int64", "float32"),
    ("int32", "int64"),
    ("bool", "float32"),
    ("float32", "bool"),
    ("int64", "uint8"),
    ("float32", "float16"),
    ("float32", "bfloat16"),
    ("float64", "complex128"),
    ("complex64", "float32"),
]:
    OPS.append(
        OpInfo(
            f"to_{_src}_{_dst}",
            _to(_dst),
            _astype(_dst),
            _conv_samples,
            (_src,),
            out=(lambda d: lambda _: d)(_dst),
            family="conversion",
            tol={"float32": (1e-2, 1e-2) if _dst in HALF else (2e-5, 2e-5)},
            grad_dtypes=("float64",) if _src == "float64" and _dst != "float32" else (),
        )
    )

OPS += [
    OpInfo(
        "double",
        lambda t: t.double(),
        lambda a: a.astype(np.float64),
        _conv_samples,
        FLOAT + INT + BOOL,
        out=lambda _: "float64",
        family="conversion",
        grad_dtypes=GRAD_REAL,
    ),
    OpInfo(
        "float",
        lambda t: t.float(),
        lambda a: a.astype(np.float32),
        _conv_samples,
        FLOAT + INT + BOOL,
        out=lambda _: "float32",
        family="conversion",
    ),
    OpInfo(
        "long",
        lambda t: t.long(),
        _astype("int64"),
        _conv_samples,
        FLOAT + INT + BOOL,
        out=lambda _: "int64",
        family="conversion",
    ),
    OpInfo(
        "int",
        lambda t: t.int(),
        _astype("int32"),
        _conv_samples,
        FLOAT + INT + BOOL,
        out=lambda _: "int32",
        family="conversion",
    ),
    OpInfo(
        "bool",
        lambda t: t.bool(),
        lambda a: a != 0,
        _conv_samples,
        FLOAT + INT + BOOL + CPLX,
        out=lambda _: "bool",
        family="conversion",
    ),
    OpInfo(
        "clone",
        tc.clone,
        lambda a: a.copy(),
        _conv_samples,
        FLOAT + HALF + INT + BOOL + CPLX,
        method="clone",
        grad_dtypes=GRAD_ALL,
        family="conversion",
    ),
    OpInfo(
        "copy_",
        lambda dst, src: dst.clone().copy_(src),
        lambda d, s: np.broadcast_to(s, d.shape).astype(d.dtype),
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 4), dt), make_arr(rng, (3, 4), dt)),
            SampleInput(make_arr(rng, (3, 4), dt), make_arr(rng, (4,), dt)),
        ],
        FLOAT + INT + BOOL + CPLX,
        grad_dtypes=GRAD_ALL,
        family="conversion",
    ),
    OpInfo(
        "numpy",
        lambda t: t.numpy(),
        lambda a: a,
        _conv_samples,
        FLOAT + INT + BOOL + CPLX,
        out=None,
        family="conversion",
        layouts=("contiguous",),
    ),
    OpInfo(
        "tolist",
        lambda t: np.array(t.tolist()),
        lambda a: a,
        lambda dt, rng: [SampleInput(make_arr(rng, s, dt)) for s in [(3, 4), (2, 3, 2)]],
        FLOAT + INT + BOOL + CPLX,
        out=None,
        family="conversion",
    ),
    OpInfo(
        "item",
        lambda t: np.asarray(t.item()),
        lambda a: a.reshape(()),
        lambda dt, rng: [SampleInput(make_arr(rng, s, dt)) for s in [(), (1,), (1, 1)]],
        FLOAT + INT + BOOL + CPLX,
        out=None,
        family="conversion",
    ),
    OpInfo(
        "from_numpy_roundtrip",
        lambda t: tc.from_numpy(t.numpy()),
        lambda a: a,
        _conv_samples,
        FLOAT + INT + BOOL + CPLX,
        family="conversion",
        layouts=("contiguous",),
    ),
    OpInfo(
        "to_device_cpu",
        lambda t: t.to("cpu:0"),
        lambda a: a,
        _conv_samples,
        FLOAT + INT + BOOL + CPLX,
        family="conversion",
        grad_dtypes=GRAD_ALL,
    ),
    OpInfo(
        "as_tensor",
        lambda t: tc.as_tensor(t.numpy()),
        lambda a: a,
        _conv_samples,
        FLOAT + INT + BOOL,
        family="conversion",
        layouts=("contiguous",),
    ),
]
OPS.append(
    _lin(
        "op_matmul",
        lambda a, b: a @ b,
        lambda a, b: a @ b,
        _pair([(3, 4), (2, 3, 4), (4,)], [(4, 2), (4, 2), (4,)]),
    )
)
