"""Sorting and searching vs NumPy (torch via torch_ref where NumPy differs), with gradchecks."""

import numpy as np
import pytest

import tensorcore as tc
from test_reduce import as_tc, close, gradcheck, make_np, RNG

NUMERIC = [tc.float32, tc.float64, tc.int64]


@pytest.mark.parametrize("dt", NUMERIC)
@pytest.mark.parametrize(
    "shape,dim", [((9,), 0), ((9,), -1), ((3, 4, 5), 0), ((3, 4, 5), 1), ((3, 4, 5), -1)]
)
@pytest.mark.parametrize("layout", ["contig", "transposed", "strided"])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort(dt, shape, dim, layout, descending):
    a = make_np(shape, dt)  # int64 has many ties: checks stability
    t, a = as_tc(a, layout)
    r = tc.sort(t, dim, descending)
    key = -a if descending else a
    ref_idx = np.argsort(key, axis=dim, kind="stable")
    close(r.indices, ref_idx)
    close(r.values, np.take_along_axis(a, ref_idx, axis=dim))
    close(tc.argsort(t, dim, descending, stable=True), ref_idx)
    close(t.sort(dim=dim, descending=descending, stable=True).values, r.values.numpy())


def test_sort_nan_largest():
    x = tc.tensor([2.0, float("nan"), 1.0, 3.0])
    assert tc.sort(x).indices.tolist() == [2, 0, 3, 1]
    assert tc.sort(x, descending=True).indices.tolist() == [1, 3, 0, 2]


@pytest.mark.parametrize("dt", NUMERIC)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("layout", ["contig", "transposed"])
def test_topk(dt, dim, largest, layout):
    a = make_np((4, 6, 5), dt) if dt != tc.int64 else RNG.permutation(120).reshape(4, 6, 5)
    t, a = as_tc(a, layout)
    k = 3
    r = tc.topk(t, k, dim, largest)
    s = np.sort(a, axis=dim)
    ref = (
        np.flip(np.take(s, range(a.shape[dim] - k, a.shape[dim]), axis=dim), dim)
        if largest
        else np.take(s, range(k), axis=dim)
    )
    close(r.values, ref)
    close(np.take_along_axis(a, r.indices.numpy(), axis=dim), ref)
    assert tc.topk(t, 0, dim).values.shape[dim if dim >= 0 else 3 + dim] == 0


def test_topk_errors():
    with pytest.raises(IndexError, match="out of range"):
        tc.topk(tc.zeros(3), 4)
    with pytest.raises(IndexError, match="dimension 2"):
        tc.topk(tc.zeros(3, 3), 1, 2)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("k", [1, 2, 4])
def test_kthvalue(dim, keepdim, k):
    a = make_np((4, 6, 5), tc.float64)
    t = tc.from_numpy(a)
    r = tc.kthvalue(t, k, dim, keepdim)
    ref = np.take(np.sort(a, axis=dim), k - 1, axis=dim)
    if keepdim:
        ref = np.expand_dims(ref, dim)
    close(r.values, ref)
    idx = r.indices.numpy() if keepdim else np.expand_dims(r.indices.numpy(), dim)
    close(np.take_along_axis(a, idx, axis=dim), ref if keepdim else np.expand_dims(ref, dim))
    with pytest.raises(IndexError):
        tc.kthvalue(t, 7, 1)


@pytest.mark.parametrize("dt", [tc.float32, tc.float64, tc.int64, tc.bool])
def test_unique(dt):
    a = make_np((4, 5), dt)
    t = tc.from_numpy(a)
    vals, inv, cnt = np.unique(a, return_inverse=True, return_counts=True)
    close(tc.unique(t), vals)
    u, i = tc.unique(t, return_inverse=True)
    close(u, vals)
    close(i, inv.reshape(a.shape))
    u, c = tc.unique(t, return_counts=True)
    close(c, cnt)
    u, i, c = t.unique(sorted=True, return_inverse=True, return_counts=True)
    assert i.shape == (4, 5)
    assert tc.unique(t.t()).shape == (len(vals),)


def test_unique_torch(torch_ref):
    a = RNG.integers(0, 5, size=(3, 4))
    for kw in (
        {},
        {"return_inverse": True},
        {"return_counts": True},
        {"return_inverse": True, "return_counts": True},
    ):
        r, tr = tc.unique(tc.from_numpy(a), **kw), torch_ref.unique(torch_ref.from_numpy(a), **kw)
        if not kw:
            r, tr = (r,), (tr,)
        for x, y in zip(r, tr):
            close(x, y.numpy())


def test_unique_consecutive():
    t = tc.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    u, i, c = tc.unique_consecutive(t, return_inverse=True, return_counts=True)
    assert u.tolist() == [1, 2, 3, 1, 2]
    assert i.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert c.tolist() == [2, 2, 1, 2, 1]


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("dt", [tc.float64, tc.int64])
def test_searchsorted_1d(right, dt):
    seq = np.sort(make_np((10,), dt))
    vals = make_np((3, 4), dt)
    side = "right" if right else "left"
    r = tc.searchsorted(tc.from_numpy(seq), tc.from_numpy(vals), right=right)
    close(r, np.searchsorted(seq, vals, side=side))
    r = tc.searchsorted(tc.from_numpy(seq), tc.from_numpy(vals), side=side, out_int32=True)
    assert r.dtype == tc.int32
    close(r, np.searchsorted(seq, vals, side=side).astype(np.int32))
    # sorter
    perm = RNG.permutation(10)
    unsorted = seq[perm]
    sorter = np.argsort(unsorted, kind="stable")
    r = tc.searchsorted(
        tc.from_numpy(unsorted), tc.from_numpy(vals), side=side, sorter=tc.from_numpy(sorter)
    )
    close(r, np.searchsorted(unsorted, vals, side=side, sorter=sorter))
    # bucketize == searchsorted (right=False -> side left)
    close(
        tc.bucketize(tc.from_numpy(vals), tc.from_numpy(seq), right=right),
        np.searchsorted(seq, vals, side=side),
    )
    assert tc.searchsorted(tc.from_numpy(seq), 0.5 if dt == tc.float64 else 0).shape == ()


def test_searchsorted_nd():
    seq = np.sort(make_np((3, 6), tc.float64), axis=1)
    vals = make_np((3, 4), tc.float64)
    r = tc.searchsorted(tc.from_numpy(seq), tc.from_numpy(vals))
    ref = np.stack([np.searchsorted(seq[i], vals[i]) for i in range(3)])
    close(r, ref)
    with pytest.raises(ValueError, match="boundaries"):
        tc.searchsorted(tc.from_numpy(seq), tc.zeros(2, 4, dtype=tc.float64))


def test_histc():
    a = make_np((100,), tc.float32)
    r = tc.histc(tc.from_numpy(a), bins=10, min=-2, max=2)
    ref, _ = np.histogram(a[(a >= -2) & (a <= 2)], bins=10, range=(-2, 2))
    close(r, ref.astype(np.float32))
    assert r.dtype == tc.float32
    r = tc.histc(tc.from_numpy(a), bins=7)  # min == max: use data range
    ref, _ = np.histogram(a, bins=7)
    close(r, ref.astype(np.float32))
    assert tc.histc(tc.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist() == [
        0.0,
        2.0,
        1.0,
        0.0,
    ]


def test_bincount():
    x = RNG.integers(0, 6, size=20)
    close(tc.bincount(tc.from_numpy(x)), np.bincount(x))
    close(tc.bincount(tc.from_numpy(x), minlength=10), np.bincount(x, minlength=10))
    w = RNG.standard_normal(20)
    r = tc.bincount(tc.from_numpy(x), tc.from_numpy(w))
    assert r.dtype == tc.float64
    close(r, np.bincount(x, w), rtol=1e-12)
    r = tc.bincount(tc.from_numpy(x), weights=tc.from_numpy(w.astype(np.float32)))
    assert r.dtype == tc.float32
    assert tc.bincount(tc.tensor([], dtype=tc.int64), minlength=3).tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="non-negative"):
        tc.bincount(tc.tensor([1, -1]))


GRAD_OPS = {
    "sort": lambda t: tc.sort(t, 1).values,
    "sort_desc": lambda t: tc.sort(t, 0, descending=True).values,
    "topk": lambda t: tc.topk(t, 2, -1).values,
    "topk_smallest": lambda t: tc.topk(t, 3, 1, largest=False).values,
    "kthvalue": lambda t: tc.kthvalue(t, 2, 1).values,
    "kthvalue_keep": lambda t: tc.kthvalue(t, 3, 0, True).values,
}


@pytest.mark.parametrize("name", list(GRAD_OPS))
def test_gradcheck(name):
    gradcheck(GRAD_OPS[name], RNG.standard_normal((3, 4, 5)))


UNIQUE_DIM_INPUTS = {
    "rows_int": (np.array([[1, 2], [1, 2], [0, 5], [1, 2], [0, 5], [0, 4]]), (0, 1, -1)),
    "cube_float": (np.round(RNG.standard_normal((4, 3, 5)) * 0.7).astype(np.float32), (0, 1, 2)),
    "bool": (np.array([[True, False, True], [True, False, True], [False, False, True]]), (0, 1)),
    "nan_rows": (np.array([[np.nan, 1.0], [np.nan, 1.0], [-0.0, 2.0], [0.0, 2.0]]), (0,)),
    "empty_dim": (np.zeros((0, 3), np.float32), (0,)),
    "uint8_transposed": (np.array([[3, 3, 1], [2, 2, 9], [3, 3, 1]], np.uint8).T, (0, 1)),
}


@pytest.mark.parametrize("name", list(UNIQUE_DIM_INPUTS))
@pytest.mark.parametrize("consecutive", [False, True])
def test_unique_dim_matches_torch(torch_ref, name, consecutive):
    a, dims = UNIQUE_DIM_INPUTS[name]
    for dim in dims:
        t, tt = tc.from_numpy(a), torch_ref.from_numpy(a)
        if name == "uint8_transposed":  # a non-contiguous view of the same values
            t = tc.from_numpy(np.ascontiguousarray(a.T)).t()
        kw = dict(dim=dim, return_inverse=True, return_counts=True)
        f = "unique_consecutive" if consecutive else "unique"
        got, want = getattr(tc, f)(t, **kw), getattr(torch_ref, f)(tt, **kw)
        for g, w in zip(got, want):
            assert tuple(g.shape) == tuple(w.shape) and str(g.dtype) == str(w.dtype).replace(
                "torch", "tensorcore"
            )
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        # The method and the plain forms agree.
        assert np.array_equal(getattr(t, f)(dim=dim).numpy(), got[0].numpy(), equal_nan=True)


def test_unique_dim_reconstructs_the_input():
    a = RNG.integers(0, 3, size=(50, 4))
    t = tc.from_numpy(a)
    u, inv, cnt = tc.unique(t, dim=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(u.numpy()[inv.numpy()], a)
    assert int(cnt.sum()) == 50 and u.shape[0] == len({tuple(r) for r in a.tolist()})
    rows = [tuple(r) for r in u.tolist()]
    assert rows == sorted(rows)


def test_unique_dim_errors():
    with pytest.raises(IndexError, match="no dimensions"):
        tc.unique(tc.tensor(1), dim=0)
    with pytest.raises(IndexError):
        tc.unique(tc.ones(2, 2), dim=2)
    with pytest.raises(RuntimeError, match="0 sized dimensions"):
        tc.unique(tc.ones(3, 0), dim=0)
    with pytest.raises(TypeError, match="complex"):
        tc.unique(tc.ones(2, 2, dtype=tc.complex64), dim=0)
