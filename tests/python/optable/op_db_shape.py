"""Op table entries: shape/view ops and indexing."""

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
    make_arr,
)

ALL = FLOAT + HALF + INT + BOOL + CPLX
STD = FLOAT + INT + BOOL + CPLX


def one(shape, **kw):
    """Samples: a single data tensor of `shape` plus extra positional args / kwargs."""
    args = kw.pop("args", ())
    return lambda dt, rng: [SampleInput(make_arr(rng, shape, dt), *args, **kw)]


def many(*specs):
    def gen(dt, rng):
        return [SampleInput(make_arr(rng, shape, dt), *args, **kw) for shape, args, kw in specs]

    return gen


def _shape_op(name, op, ref, samples, dtypes=STD, method=None, grad=GRAD_ALL, **kw):
    return OpInfo(
        name, op, ref, samples, dtypes, method=method, grad_dtypes=grad, family="shape", **kw
    )


def _m(name):
    return lambda t, *a, **k: getattr(t, name)(*a, **k)


def _tril(a, diagonal=0):
    return np.tril(a, diagonal)


def _triu(a, diagonal=0):
    return np.triu(a, diagonal)


def _movedim(a, s, d):
    return np.moveaxis(a, s, d)


def _unflatten(a, dim, sizes):
    shape = list(a.shape)
    return a.reshape(shape[:dim] + list(sizes) + shape[dim + 1 :])


def _split_sizes(a, sizes, dim=0):
    idx = (
        np.cumsum(sizes)[:-1]
        if not isinstance(sizes, int)
        else list(range(sizes, a.shape[dim], sizes))
    )
    return tuple(np.split(a, idx, axis=dim))


def _chunk(a, chunks, dim=0):
    size = -(-a.shape[dim] // chunks)
    return _split_sizes(a, size, dim)


def _narrow(a, dim, start, length):
    return np.take(a, range(start, start + length), axis=dim)


def _repeat(a, *reps):
    a = a.reshape((1,) * (len(reps) - a.ndim) + a.shape)
    return np.tile(a, reps)


OPS = [
    _shape_op(
        "reshape",
        tc.reshape,
        lambda a, s: a.reshape(s),
        many(
            ((3, 4), ((2, 6),), {}),
            ((2, 3, 2), ((-1,),), {}),
            ((), ((1, 1),), {}),
            ((0, 3), ((3, 0),), {}),
        ),
        ALL,
        method="reshape",
    ),
    _shape_op(
        "view",
        lambda t, *s: t.view(*s),
        lambda a, *s: a.reshape(s),
        many(((3, 4), (2, 6), {}), ((2, 3, 2), (6, -1), {})),
        layouts=("contiguous",),
    ),
    _shape_op(
        "flatten",
        tc.flatten,
        lambda a, start_dim=0, end_dim=-1: (
            a.reshape(a.shape[:start_dim] + (-1,) + a.shape[end_dim % a.ndim + 1 :])
            if a.ndim
            else a.reshape(1)
        ),
        many(((2, 3, 2), (), {}), ((2, 3, 2), (), {"start_dim": 1}), ((), (), {})),
        method="flatten",
    ),
    _shape_op(
        "unflatten", tc.unflatten, _unflatten, many(((3, 4), (1, (2, 2)), {})), method="unflatten"
    ),
    _shape_op(
        "permute",
        tc.permute,
        lambda a, dims: np.transpose(a, dims),
        many(((2, 3, 2), ((2, 0, 1),), {}), ((3, 4), ((1, 0),), {})),
    ),
    _shape_op(
        "transpose",
        tc.transpose,
        lambda a, d0, d1: np.swapaxes(a, d0, d1),
        many(((2, 3, 2), (0, 2), {}), ((3, 4), (-1, 0), {})),
        ALL,
        method="transpose",
    ),
    _shape_op(
        "t", tc.t, lambda a: a.T, many(((3, 4), (), {}), ((5,), (), {}), ((), (), {})), method="t"
    ),
    _shape_op(
        "mT",
        lambda t: t.mT,
        lambda a: np.swapaxes(a, -1, -2),
        many(((2, 3, 4), (), {}), ((3, 2), (), {})),
    ),
    _shape_op(
        "contiguous",
        lambda t: t.contiguous(),
        lambda a: a,
        many(((3, 4), (), {}), ((2, 3, 2), (), {})),
    ),
    _shape_op(
        "expand",
        lambda t, *s: t.expand(*s),
        lambda a, *s: np.broadcast_to(
            a, tuple(x if x != -1 else a.shape[i - len(s) + a.ndim] for i, x in enumerate(s))
        ),
        many(((3, 1), (3, 4), {}), ((4,), (2, 3, 4), {}), ((), (2,), {}), ((3, 1), (-1, 2), {})),
    ),
    _shape_op(
        "squeeze",
        tc.squeeze,
        lambda a, dim=None: np.squeeze(a, dim) if (dim is None or a.shape[dim] == 1) else a,
        many(((3, 1, 2), (), {}), ((3, 1, 2), (1,), {}), ((3, 1, 2), (0,), {}), ((1,), (), {})),
        method="squeeze",
    ),
    _shape_op(
        "unsqueeze",
        tc.unsqueeze,
        np.expand_dims,
        many(((3, 4), (0,), {}), ((3, 4), (-1,), {}), ((), (0,), {})),
        ALL,
        method="unsqueeze",
    ),
    _shape_op(
        "narrow",
        tc.narrow,
        _narrow,
        many(((4, 5), (1, 1, 3), {}), ((4, 5), (0, 0, 0), {})),
        method="narrow",
    ),
    _shape_op(
        "select",
        tc.select,
        lambda a, d, i: np.take(a, i, axis=d),
        many(((4, 5), (1, 2), {}), ((4, 5), (0, -1), {})),
        method="select",
    ),
    _shape_op(
        "split", tc.split, _split_sizes, many(((5, 3), (2,), {}), ((5, 3), ([1, 2],), {"dim": 1}))
    ),
    _shape_op(
        "chunk",
        tc.chunk,
        _chunk,
        many(((5, 3), (2,), {}), ((4, 6), (3,), {"dim": 1})),
        method="chunk",
    ),
    _shape_op(
        "unbind",
        tc.unbind,
        lambda a, dim=0: tuple(np.moveaxis(a, dim, 0)),
        many(((3, 4), (), {}), ((3, 4), (1,), {})),
        method="unbind",
    ),
    _shape_op(
        "flip",
        tc.flip,
        lambda a, dims: np.flip(a, dims),
        many(((3, 4), ((0,),), {}), ((2, 3, 2), ((0, 2),), {})),
    ),
    _shape_op(
        "roll",
        tc.roll,
        lambda a, shifts, dims=None: np.roll(a, shifts, dims),
        many(
            ((3, 4), (1,), {"dims": 1}), ((3, 4), (2,), {}), ((3, 4), ((1, -1),), {"dims": (0, 1)})
        ),
    ),
    _shape_op(
        "repeat",
        lambda t, *r: t.repeat(*r),
        _repeat,
        many(((2, 3), (2, 1), {}), ((3,), (2, 2), {})),
    ),
    _shape_op(
        "tile",
        tc.tile,
        lambda a, r: np.tile(a, r),
        many(((2, 3), ((2, 1),), {}), ((3,), ((2,),), {})),
    ),
    _shape_op(
        "movedim",
        tc.movedim,
        _movedim,
        many(((2, 3, 4), (0, -1), {}), ((2, 3, 4), ((0, 1), (2, 0)), {})),
    ),
    _shape_op(
        "diagonal",
        tc.diagonal,
        lambda a, offset=0, dim1=0, dim2=1: np.diagonal(a, offset, dim1, dim2).copy(),
        many(
            ((3, 4), (), {}), ((3, 4), (), {"offset": 1}), ((2, 3, 3), (), {"dim1": 1, "dim2": 2})
        ),
    ),
    _shape_op(
        "tril",
        tc.tril,
        _tril,
        many(((3, 4), (), {}), ((4, 3), (-1,), {}), ((2, 3, 3), (1,), {})),
        method="tril",
    ),
    _shape_op("triu", tc.triu, _triu, many(((3, 4), (), {}), ((4, 3), (1,), {})), method="triu"),
    OpInfo(
        "cat",
        lambda a, b, dim=0: tc.cat([a, b], dim),
        lambda a, b, dim=0: np.concatenate([a, b], dim),
        lambda dt, rng: [
            SampleInput(make_arr(rng, (2, 3), dt), make_arr(rng, (4, 3), dt)),
            SampleInput(make_arr(rng, (2, 3), dt), make_arr(rng, (2, 1), dt), dim=1),
            SampleInput(make_arr(rng, (0, 3), dt), make_arr(rng, (2, 3), dt)),
        ],
        STD,
        grad_dtypes=GRAD_ALL,
        family="shape",
    ),
    OpInfo(
        "stack",
        lambda a, b, dim=0: tc.stack([a, b], dim),
        lambda a, b, dim=0: np.stack([a, b], dim),
        lambda dt, rng: [
            SampleInput(make_arr(rng, (2, 3), dt), make_arr(rng, (2, 3), dt)),
            SampleInput(make_arr(rng, (2, 3), dt), make_arr(rng, (2, 3), dt), dim=-1),
        ],
        STD,
        grad_dtypes=GRAD_ALL,
        family="shape",
    ),
]


# ---------------------------------------------------------------- indexing
def _gather(a, dim, idx):
    return np.take_along_axis(a, idx, axis=dim)


def _scatter(a, dim, idx, src, reduce_fn=None):
    out = a.copy()
    for pos in np.ndindex(idx.shape):
        tgt = list(pos)
        tgt[dim] = idx[pos]
        s = src[pos] if isinstance(src, np.ndarray) else src
        out[tuple(tgt)] = s if reduce_fn is None else reduce_fn(out[tuple(tgt)], s)
    return out


def _scatter_reduce(a, dim, idx, src, reduce, include_self=True):
    out = a.copy()
    groups = {}
    for pos in np.ndindex(idx.shape):
        tgt = list(pos)
        tgt[dim] = idx[pos]
        groups.setdefault(tuple(tgt), []).append(src[pos])
    f = {"sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min, "mean": np.mean}[reduce]
    for tgt, vals in groups.items():
        vals = ([a[tgt]] if include_self else []) + vals
        out[tgt] = (
            f(np.array(vals))
            if reduce != "mean" or out.dtype.kind != "i"
            else np.floor_divide(np.sum(vals), len(vals))
        )
    return out


def _index_add(a, dim, idx, src, alpha=1):
    out = a.copy()
    om, sm = np.moveaxis(out, dim, 0), np.moveaxis(src, dim, 0)
    for k, i in enumerate(idx):
        om[i] += alpha * sm[k]
    return out


def _uniq_idx(rng, n, k):
    return rng.permutation(n)[:k].astype(np.int64)


def _index_samples(dt, rng):
    return [
        SampleInput(make_arr(rng, (4, 3), dt), 0, Idx(np.array([2, 0, 2, 1]))),
        SampleInput(make_arr(rng, (4, 3), dt), 1, Idx(np.array([], np.int64))),
        SampleInput(make_arr(rng, (), dt), 0, Idx(np.array([0, 0]))),
    ]


def _getitem(key):
    def op(t):
        return t[key]

    return op


def _setitem(key):
    def op(t, v):
        out = t.clone()
        out[key] = v
        return out

    def ref(a, v):
        out = a.copy()
        out[key] = v
        return out

    return op, ref


GETITEM_KEYS = [
    ("int", 1),
    ("slice_step", (slice(None, None, 2), slice(1, None))),
    ("neg_step_free", (-1, 1)),
    ("none_ellipsis", (None, Ellipsis, 0)),
    ("int_tensor", np.array([2, 0, 2])),
    ("bool_mask_row", np.array([True, False, True, False])),
    ("adv_pair", (np.array([0, 3]), np.array([1, 2]))),
    ("mixed", (slice(1, 3), np.array([2, 0]))),
]


def _tc_key(k):
    if isinstance(k, tuple):
        return tuple(_tc_key(x) for x in k)
    if isinstance(k, np.ndarray):
        return tc.from_numpy(k)
    return k


for _n, _k in GETITEM_KEYS:
    OPS.append(
        OpInfo(
            f"getitem_{_n}",
            _getitem(_tc_key(_k)),
            (lambda k: lambda a: a[k])(_k),
            one((4, 3)),
            STD,
            grad_dtypes=GRAD_ALL,
            family="indexing",
        )
    )

for _n, _k, _vs in [
    ("slice", (slice(None, None, 2), 1), (2,)),
    ("int_tensor", np.array([3, 0]), (3,)),
    ("mask", np.array([True, False, False, True]), ()),
    ("ellipsis", (Ellipsis, 0), (4,)),
]:
    _op, _ref = _setitem(_tc_key(_k))
    OPS.append(
        OpInfo(
            f"setitem_{_n}",
            _op,
            _ref,
            (
                lambda vs: (
                    lambda dt, rng: [SampleInput(make_arr(rng, (4, 3), dt), make_arr(rng, vs, dt))]
                )
            )(_vs),
            STD,
            grad_dtypes=GRAD_ALL,
            family="indexing",
        )
    )

OPS += [
    OpInfo(
        "index_select",
        tc.index_select,
        lambda a, d, i: np.take(a, i, axis=d) if a.ndim else np.take(a.reshape(1), i),
        _index_samples,
        STD,
        method="index_select",
        grad_dtypes=GRAD_ALL,
        family="indexing",
    ),
    OpInfo(
        "gather",
        tc.gather,
        _gather,
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 4), dt), 1, Idx(rng.integers(0, 4, (3, 5)))),
            SampleInput(make_arr(rng, (3, 4), dt), 0, Idx(rng.integers(0, 3, (2, 4)))),
        ],
        STD,
        method="gather",
        grad_dtypes=GRAD_ALL,
        family="indexing",
    ),
    OpInfo(
        "take",
        tc.take,
        lambda a, i: np.take(a, i),
        lambda dt, rng: [SampleInput(make_arr(rng, (3, 4), dt), Idx(np.array([[0, 11], [5, -1]])))],
        STD,
        method="take",
        grad_dtypes=GRAD_ALL,
        family="indexing",
    ),
    OpInfo(
        "scatter",
        tc.scatter,
        _scatter,
        lambda dt, rng: [
            SampleInput(
                make_arr(rng, (3, 5), dt),
                1,
                Idx(np.stack([_uniq_idx(rng, 5, 3) for _ in range(2)])),
                make_arr(rng, (2, 3), dt),
            )
        ],
        STD,
        method="scatter",
        grad_dtypes=GRAD_ALL,
        family="indexing",
        layouts=("contiguous", "noncontiguous"),
    ),
    OpInfo(
        "scatter_value",
        lambda a, d, i: tc.scatter(a, d, i, 2.5),
        lambda a, d, i: _scatter(a, d, i, 2.5),
        lambda dt, rng: [
            SampleInput(
                make_arr(rng, (3, 5), dt),
                1,
                Idx(np.stack([_uniq_idx(rng, 5, 3) for _ in range(3)])),
            )
        ],
        FLOAT,
        grad_dtypes=GRAD_REAL,
        family="indexing",
    ),
    OpInfo(
        "scatter_add",
        tc.scatter_add,
        lambda a, d, i, s: _scatter(a, d, i, s, np.add),
        lambda dt, rng: [
            SampleInput(
                make_arr(rng, (3, 5), dt),
                1,
                Idx(rng.integers(0, 5, (3, 4))),
                make_arr(rng, (3, 4), dt),
            )
        ],
        FLOAT + INT + CPLX,
        method="scatter_add",
        grad_dtypes=GRAD_ALL,
        family="indexing",
    ),
    *[
        OpInfo(
            f"scatter_reduce_{r}",
            (lambda r: lambda a, d, i, s, **k: tc.scatter_reduce(a, d, i, s, r, **k))(r),
            (lambda r: lambda a, d, i, s, **k: _scatter_reduce(a, d, i, s, r, **k))(r),
            (
                lambda r: (
                    lambda dt, rng: [
                        SampleInput(
                            make_arr(rng, (3, 5), dt, "small" if r == "prod" else "any"),
                            1,
                            Idx(rng.integers(0, 5, (3, 4))),
                            make_arr(rng, (3, 4), dt, "small" if r == "prod" else "any"),
                        ),
                        SampleInput(
                            make_arr(rng, (4, 2), dt),
                            0,
                            Idx(rng.integers(0, 4, (3, 2))),
                            make_arr(rng, (3, 2), dt),
                            include_self=False,
                        ),
                    ]
                )
            )(r),
            FLOAT + INT,
            grad_dtypes=GRAD_REAL if r in ("sum", "mean") else (),
            family="indexing",
        )
        for r in ("sum", "prod", "amax", "amin", "mean")
    ],
    OpInfo(
        "index_add",
        tc.index_add,
        _index_add,
        lambda dt, rng: [
            SampleInput(
                make_arr(rng, (4, 3), dt), 0, Idx(np.array([1, 3, 1])), make_arr(rng, (3, 3), dt)
            ),
            SampleInput(
                make_arr(rng, (4, 3), dt),
                1,
                Idx(np.array([2, 0])),
                make_arr(rng, (4, 2), dt),
                alpha=2,
            ),
        ],
        FLOAT + INT + CPLX,
        method="index_add",
        grad_dtypes=GRAD_ALL,
        family="indexing",
    ),
    OpInfo(
        "index_put",
        lambda a, i, v, **k: tc.index_put(a, (i,), v, **k),
        lambda a, i, v, accumulate=False: (
            lambda o: (np.add.at(o, i, v) if accumulate else o.__setitem__(i, v), o)[1]
        )(a.copy()),
        lambda dt, rng: [
            SampleInput(
                make_arr(rng, (5, 2), dt), Idx(np.array([4, 0])), make_arr(rng, (2, 2), dt)
            ),
            SampleInput(
                make_arr(rng, (5, 2), dt),
                Idx(np.array([1, 3, 1])),
                make_arr(rng, (2,), dt),
                accumulate=True,
            ),
        ],
        FLOAT + INT,
        grad_dtypes=GRAD_REAL,
        family="indexing",
    ),
    OpInfo(
        "masked_fill",
        lambda a, m, **k: tc.masked_fill(a, m, -1.5 if a.is_floating_point() else -1),
        lambda a, m: np.where(m, np.asarray(-1.5 if a.dtype.kind == "f" else -1, a.dtype), a),
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 4), dt), Idx(rng.random((3, 4)) > 0.5)),
            SampleInput(make_arr(rng, (3, 4), dt), Idx(rng.random((4,)) > 0.5)),
        ],
        FLOAT + INT,
        grad_dtypes=GRAD_REAL,
        family="indexing",
    ),
    OpInfo(
        "masked_select",
        tc.masked_select,
        lambda a, m: np.broadcast_to(a, np.broadcast(a, m).shape)[
            np.broadcast_to(m, np.broadcast(a, m).shape)
        ],
        lambda dt, rng: [
            SampleInput(make_arr(rng, (3, 4), dt), Idx(rng.random((3, 4)) > 0.5)),
            SampleInput(make_arr(rng, (3, 4), dt), Idx(rng.random((4,)) > 0.5)),
        ],
        STD,
        method="masked_select",
        grad_dtypes=GRAD_ALL,
        family="indexing",
    ),
    OpInfo(
        "nonzero",
        tc.nonzero,
        lambda a: np.stack(np.nonzero(a), 1) if a.ndim else np.zeros((int(a != 0), 0), np.int64),
        lambda dt, rng: [
            SampleInput(
                np.where(rng.random(s) > 0.5, make_arr(rng, s, dt), 0).astype(
                    make_arr(rng, (), dt).dtype
                )
            )
            for s in [(3, 4), (5,), (2, 3, 2), (0, 2)]
        ],
        FLOAT + INT + BOOL,
        method="nonzero",
        out="int64",
        family="indexing",
    ),
]
