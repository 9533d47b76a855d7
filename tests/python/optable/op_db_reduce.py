"""Op table entries: reductions (dim int/tuple, keepdim) and scans."""

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
    OpInfo,
    SampleInput,
    assert_close,
    compare_values_indices,
    make_arr,
    to_numpy,
)


def _dim_of(p):
    return p.sample.args[1] if len(p.sample.args) > 1 else p.kwargs.get("dim")


_CMP_RED = compare_values_indices(_dim_of, lambda p: p.kwargs.get("keepdim", False))
_CMP_SCAN = compare_values_indices(_dim_of)

RED_SHAPE = (3, 4, 2)


def red_samples(domain="any", full=True, tuple_dims=True, empty=True, zero_d=True):
    def gen(dtype, rng):
        a = lambda s=RED_SHAPE: make_arr(rng, s, dtype, domain)  # noqa: E731
        out = []
        if full:
            out.append(SampleInput(a()))
        out += [SampleInput(a(), dim=1), SampleInput(a(), dim=-1, keepdim=True)]
        if tuple_dims:
            out += [SampleInput(a(), dim=(0, 2)), SampleInput(a(), dim=(-1, 0), keepdim=True)]
        if zero_d:
            out.append(SampleInput(a(()), dim=0))
        if empty:
            out.append(SampleInput(a((0, 3)), dim=0))
        return out

    return gen


def _np_red(f, **extra):
    def ref(a, dim=None, keepdim=False):
        if a.ndim == 0 and dim is not None:
            return f(a.reshape(1), axis=0, keepdims=False, **extra).reshape(())
        return f(a, axis=dim, keepdims=keepdim, **extra)

    return ref


def _red(name, f, dtypes, out="same", grad=GRAD_REAL, sample_kw=None, **kw):
    return OpInfo(
        name,
        getattr(tc, name),
        f,
        red_samples(**(sample_kw or {})),
        dtypes,
        method=name,
        grad_dtypes=grad,
        out=out,
        family="reduction",
        **kw,
    )


def _var(ddof):
    def f(a, axis=None, keepdims=False):
        return np.var(a, axis=axis, keepdims=keepdims, ddof=ddof)

    return f


def _std(ddof):
    def f(a, axis=None, keepdims=False):
        return np.std(a, axis=axis, keepdims=keepdims, ddof=ddof)

    return f


def _logsumexp(a, axis=None, keepdims=False):
    m = np.max(a, axis=axis, keepdims=True)
    r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis)


def _median_lower(a, axis=None, keepdims=False):
    # torch's median is the lower of the two middle values (NumPy averages them)
    if axis is None:
        a, axis = a.reshape(-1), 0
    s = np.sort(a, axis=axis)
    k = (s.shape[axis] - 1) // 2
    r = np.take(s, [k], axis=axis)
    return r if keepdims else np.squeeze(r, axis=axis)


def _values_indices(fval, farg):
    def ref(a, dim, keepdim=False):
        if a.ndim == 0:
            return a, np.zeros((), np.int64)
        v = fval(a, axis=dim, keepdims=keepdim)
        i = farg(a, axis=dim)
        if keepdim:
            i = np.expand_dims(i, dim)
        return v, i

    return ref


def _median_dim(a, dim, keepdim=False):
    if a.ndim == 0:
        return a, np.zeros((), np.int64)
    idx = np.argsort(a, axis=dim, kind="stable")
    k = (a.shape[dim] - 1) // 2
    i = np.take(idx, [k], axis=dim)
    v = np.take_along_axis(a, i, axis=dim)
    return (v, i) if keepdim else (np.squeeze(v, dim), np.squeeze(i, dim))


def dim_samples(domain="any", keep=True):
    def gen(dtype, rng):
        a = lambda s=RED_SHAPE: make_arr(rng, s, dtype, domain)  # noqa: E731
        out = [SampleInput(a(), 1), SampleInput(a(), dim=-1)]
        if keep:
            out.append(SampleInput(a(), 0, keepdim=True))
        out.append(SampleInput(a(()), 0))
        return out

    return gen


def _mode_ref(a, dim, keepdim=False):
    # smallest of the most frequent values; torch returns an index of some occurrence
    def one(v):
        vals, counts = np.unique(v, return_counts=True)
        return vals[np.argmax(counts)]

    v = np.apply_along_axis(one, dim, a) if a.ndim else a
    return (np.expand_dims(v, dim) if keepdim and a.ndim else v), None


def _compare_mode(got, exp, p, tol, msg):
    vals, idx = got
    assert_close(vals, exp[0], tol, msg)
    a = p.ref_args[0]
    dim = p.sample.args[1] if len(p.sample.args) > 1 else p.kwargs.get("dim")
    if a.ndim:
        i = to_numpy(idx)
        if not p.kwargs.get("keepdim"):
            i = np.expand_dims(i, dim)
        picked = np.take_along_axis(a, i, axis=dim)
        v = to_numpy(vals)
        np.testing.assert_array_equal(picked.reshape(v.shape), v, err_msg=msg + " (indices)")


def _scan_samples(dtype, rng, domain="any"):
    return [
        SampleInput(make_arr(rng, (3, 4), dtype, domain), 1),
        SampleInput(make_arr(rng, (3, 4), dtype, domain), dim=0),
        SampleInput(make_arr(rng, (2, 3, 2), dtype, domain), -1),
        SampleInput(make_arr(rng, (), dtype, domain), 0),
        SampleInput(make_arr(rng, (0, 3), dtype, domain), 1),
    ]


def _scan(name, ref, dtypes, out="same", grad=GRAD_REAL, domain="any", **kw):
    return OpInfo(
        name,
        getattr(tc, name),
        ref,
        lambda dt, rng: _scan_samples(dt, rng, domain),
        dtypes,
        method=name,
        grad_dtypes=grad,
        out=out,
        family="scan",
        **kw,
    )


def _np_scan(f):
    def ref(a, dim):
        return a.copy() if a.ndim == 0 else f(a, axis=dim)

    return ref


def _cumext(f):
    def ref(a, dim):
        if a.ndim == 0:
            return a, np.zeros((), np.int64)
        v = f.accumulate(a, axis=dim)
        n = a.shape[dim]
        # index of the last element reaching the running extreme (torch keeps the latest on ties)
        idx = np.zeros(a.shape, np.int64)
        am = np.moveaxis(a, dim, -1)
        vm = np.moveaxis(v, dim, -1)
        im = np.moveaxis(idx, dim, -1)
        for j in range(n):
            hit = am[..., j] == vm[..., j]
            im[..., j] = np.where(hit, j, im[..., j - 1] if j else 0)
        return v, idx

    return ref


def _logcumsumexp(a, dim):
    if a.ndim == 0:
        return a.copy()
    return np.log(np.cumsum(np.exp(a), axis=dim))


F = FLOAT


OPS = [
    _red(
        "sum",
        _np_red(np.sum),
        F + HALF + INT + BOOL + CPLX,
        out="sum",
        grad=GRAD_ALL,
        tol={"float16": (1e-2, 1e-2), "bfloat16": (3e-2, 3e-2)},
    ),
    _red("mean", _np_red(np.mean), F + CPLX, grad=GRAD_ALL),
    _red(
        "prod",
        _np_red(np.prod),
        F + INT + CPLX,
        out="sum",
        grad=GRAD_ALL,
        sample_kw=dict(tuple_dims=False, domain="small"),
    ),
    _red("amax", _np_red(np.amax), F + INT + BOOL, sample_kw=dict(empty=False)),
    _red("amin", _np_red(np.amin), F + INT + BOOL, sample_kw=dict(empty=False)),
    _red("nansum", _np_red(np.nansum), F),
    _red(
        "var",
        _np_red(_var(1)),
        F + CPLX,
        out="real",
        grad=GRAD_ALL,
        sample_kw=dict(empty=False, zero_d=False),
    ),
    _red(
        "std",
        _np_red(_std(1)),
        F + CPLX,
        out="real",
        grad=GRAD_ALL,
        sample_kw=dict(empty=False, zero_d=False),
    ),
    OpInfo(
        "var_correction0",
        lambda a, **k: tc.var(a, correction=0, **k),
        _np_red(_var(0)),
        red_samples(empty=False),
        F + CPLX,
        method=None,
        grad_dtypes=GRAD_ALL,
        out="real",
        family="reduction",
    ),
    OpInfo(
        "std_unbiased_false",
        lambda a, **k: tc.std(a, unbiased=False, **k),
        _np_red(_std(0)),
        red_samples(empty=False, full=False),
        F,
        grad_dtypes=GRAD_REAL,
        family="reduction",
    ),
    OpInfo(
        "var_mean",
        tc.var_mean,
        lambda a, dim=None, keepdim=False: (
            _np_red(_var(1))(a, dim, keepdim),
            _np_red(np.mean)(a, dim, keepdim),
        ),
        red_samples(empty=False, zero_d=False),
        F + CPLX,
        grad_dtypes=GRAD_ALL,
        out="real",
        family="reduction",
    ),
    OpInfo(
        "std_mean",
        tc.std_mean,
        lambda a, dim=None, keepdim=False: (
            _np_red(_std(1))(a, dim, keepdim),
            _np_red(np.mean)(a, dim, keepdim),
        ),
        red_samples(empty=False, zero_d=False),
        F + CPLX,
        grad_dtypes=GRAD_ALL,
        out="real",
        family="reduction",
    ),
    _red("logsumexp", _np_red(_logsumexp), F, sample_kw=dict(full=False, empty=False)),
    OpInfo(
        "norm",
        tc.norm,
        lambda a, dim=None, keepdim=False: _np_red(
            lambda x, axis=None, keepdims=False: np.sqrt(
                np.sum(np.abs(x) ** 2, axis=axis, keepdims=keepdims)
            )
        )(a, dim, keepdim),
        red_samples(zero_d=False),
        F + CPLX,
        method="norm",
        out="real",
        grad_dtypes=GRAD_ALL,
        family="reduction",
    ),
    OpInfo(
        "norm_p1",
        lambda a, **k: tc.norm(a, p=1, **k),
        _np_red(
            lambda x, axis=None, keepdims=False: np.sum(np.abs(x), axis=axis, keepdims=keepdims)
        ),
        red_samples(zero_d=False, empty=False),
        F,
        grad_dtypes=GRAD_REAL,
        family="reduction",
    ),
    OpInfo(
        "norm_inf",
        lambda a, **k: tc.norm(a, p=float("inf"), **k),
        _np_red(
            lambda x, axis=None, keepdims=False: np.max(np.abs(x), axis=axis, keepdims=keepdims)
        ),
        red_samples(zero_d=False, empty=False),
        F,
        grad_dtypes=GRAD_REAL,
        family="reduction",
    ),
    _red("all", _np_red(np.all), F + INT + BOOL, out="bool", grad=()),
    _red("any", _np_red(np.any), F + INT + BOOL, out="bool", grad=()),
    OpInfo(
        "count_nonzero",
        tc.count_nonzero,
        lambda a, dim=None: np.count_nonzero(a, axis=dim) if a.ndim else np.int64(a != 0),
        lambda dt, rng: [
            SampleInput(
                np.where(rng.random((3, 4)) > 0.5, make_arr(rng, (3, 4), dt), 0).astype(
                    make_arr(rng, (), dt).dtype
                ),
                **k,
            )
            for k in ({}, {"dim": 1}, {"dim": (0, 1)})
        ],
        F + INT + BOOL,
        method="count_nonzero",
        out="int64",
        family="reduction",
    ),
    OpInfo(
        "median",
        tc.median,
        _np_red(_median_lower),
        lambda dt, rng: [SampleInput(make_arr(rng, s, dt)) for s in [(4,), (3, 4), (5,), ()]],
        F + INT,
        method="median",
        grad_dtypes=GRAD_REAL,
        family="reduction",
    ),
    OpInfo(
        "median_dim",
        tc.median,
        _median_dim,
        dim_samples(),
        F + INT,
        method="median",
        grad_dtypes=GRAD_REAL,
        family="reduction",
        compare=_CMP_RED,
    ),
    OpInfo(
        "max_dim",
        tc.max,
        _values_indices(np.max, np.argmax),
        dim_samples(),
        F + INT,
        method="max",
        grad_dtypes=GRAD_REAL,
        family="reduction",
        compare=_CMP_RED,
    ),
    OpInfo(
        "min_dim",
        tc.min,
        _values_indices(np.min, np.argmin),
        dim_samples(),
        F + INT,
        method="min",
        grad_dtypes=GRAD_REAL,
        family="reduction",
        compare=_CMP_RED,
    ),
    OpInfo(
        "max",
        tc.max,
        lambda a: np.max(a),
        lambda dt, rng: [SampleInput(make_arr(rng, s, dt)) for s in [(3, 4), (), (2, 3, 2)]],
        F + INT + BOOL,
        method="max",
        grad_dtypes=GRAD_REAL,
        family="reduction",
    ),
    OpInfo(
        "min",
        tc.min,
        lambda a: np.min(a),
        lambda dt, rng: [SampleInput(make_arr(rng, s, dt)) for s in [(3, 4), (), (2, 3, 2)]],
        F + INT + BOOL,
        method="min",
        grad_dtypes=GRAD_REAL,
        family="reduction",
    ),
    OpInfo(
        "maximum_binary_max",
        lambda a, b: tc.max(a, b),
        np.maximum,
        lambda dt, rng: [SampleInput(make_arr(rng, (3, 4), dt), make_arr(rng, (4,), dt))],
        F + INT,
        grad_dtypes=GRAD_REAL,
        family="reduction",
    ),
    OpInfo(
        "argmax",
        tc.argmax,
        lambda a, dim=None, keepdim=False: _values_indices(np.max, np.argmax)(
            a.reshape(-1) if dim is None else a, 0 if dim is None else dim, keepdim
        )[1],
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 4, 2), dt)),
            SampleInput(make_arr(rng, (3, 4, 2), dt), dim=1),
            SampleInput(make_arr(rng, (3, 4, 2), dt), dim=-1, keepdim=True),
        ],
        F + INT,
        method="argmax",
        out="int64",
        family="reduction",
    ),
    OpInfo(
        "argmin",
        tc.argmin,
        lambda a, dim=None, keepdim=False: _values_indices(np.min, np.argmin)(
            a.reshape(-1) if dim is None else a, 0 if dim is None else dim, keepdim
        )[1],
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 4, 2), dt)),
            SampleInput(make_arr(rng, (3, 4, 2), dt), dim=0),
        ],
        F + INT,
        method="argmin",
        out="int64",
        family="reduction",
    ),
    OpInfo(
        "mode",
        tc.mode,
        _mode_ref,
        lambda dt, rng: [
            SampleInput(
                np.asarray(rng.integers(0, 3, (3, 5))).astype(make_arr(rng, (), dt).dtype), 1
            ),
            SampleInput(
                np.asarray(rng.integers(0, 3, (4, 3))).astype(make_arr(rng, (), dt).dtype),
                dim=0,
                keepdim=True,
            ),
        ],
        F + INT,
        method="mode",
        family="reduction",
        compare=_compare_mode,
    ),
    # scans
    _scan(
        "cumsum",
        _np_scan(np.cumsum),
        F + INT + CPLX,
        grad=GRAD_ALL,
        out=lambda d: "int64" if d in INT + BOOL else d,
    ),
    _scan(
        "cumprod",
        _np_scan(np.cumprod),
        F + INT + CPLX,
        grad=GRAD_ALL,
        domain="small",
        out=lambda d: "int64" if d in INT + BOOL else d,
    ),
    _scan("cummax", _cumext(np.maximum), F + INT, compare=_CMP_SCAN),
    _scan("cummin", _cumext(np.minimum), F + INT, compare=_CMP_SCAN),
    _scan("logcumsumexp", _logcumsumexp, F),
]
