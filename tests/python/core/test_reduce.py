"""Reductions and scans: op table vs NumPy (torch via torch_ref where NumPy differs), gradchecks."""

import math

import numpy as np
import pytest

import tensorcore as tc

RNG = np.random.default_rng(0)
NP_DT = {tc.float32: np.float32, tc.float64: np.float64, tc.int64: np.int64, tc.bool: np.bool_}


def make_np(shape, dtype):
    if dtype == tc.bool:
        return RNG.random(shape) > 0.5
    if dtype == tc.int64:
        return RNG.integers(-3, 4, size=shape).astype(np.int64)
    return RNG.standard_normal(shape).astype(NP_DT[dtype])


def as_tc(a, layout):
    """(tc tensor, numpy array with the same values) in the requested memory layout."""
    if layout == "contig" or a.ndim < 2:
        return tc.from_numpy(np.ascontiguousarray(a)), a
    if layout == "transposed":  # tc-side transpose of a contiguous tensor
        base = np.ascontiguousarray(np.swapaxes(a, 0, -1))
        return tc.from_numpy(base).transpose(0, -1), a
    # numpy strided view (every other element along the last dim)
    big = np.repeat(a, 2, axis=-1)
    view = big[..., ::2]
    assert not view.flags.c_contiguous
    return tc.from_numpy(view), a


def npdims(dim):
    return None if dim is None else dim


def close(t, ref, rtol=1e-5, atol=1e-6):
    got = t.numpy() if isinstance(t, tc.Tensor) else np.asarray(t)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True)


def _lse(a, axis, keepdims):
    m = np.max(a, axis=axis, keepdims=True)
    r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis) if axis is not None else r.reshape(())


FLOATS = [tc.float32, tc.float64]
NUMERIC = [tc.float32, tc.float64, tc.int64]
ALL = [tc.float32, tc.float64, tc.int64, tc.bool]

# name -> (tc fn(t, dim, keepdim), np fn(a, dim, keepdim), dtypes, accepts tuple dims)
VALUE_OPS = {
    "sum": (
        lambda t, d, k: tc.sum(t, d, k),
        lambda a, d, k: np.sum(a, axis=d, keepdims=k),
        ALL,
        True,
    ),
    "mean": (
        lambda t, d, k: tc.mean(t, d, k),
        lambda a, d, k: np.mean(a, axis=d, keepdims=k),
        FLOATS,
        True,
    ),
    "prod": (
        lambda t, d, k: tc.prod(t, d, k) if d is not None else tc.prod(t),
        lambda a, d, k: np.prod(a, axis=d, keepdims=k if d is not None else False),
        NUMERIC,
        False,
    ),
    "amax": (
        lambda t, d, k: tc.amax(t, () if d is None else d, k),
        lambda a, d, k: np.max(a, axis=d, keepdims=k),
        ALL,
        True,
    ),
    "amin": (
        lambda t, d, k: tc.amin(t, () if d is None else d, k),
        lambda a, d, k: np.min(a, axis=d, keepdims=k),
        ALL,
        True,
    ),
    "nansum": (
        lambda t, d, k: tc.nansum(t, d, k),
        lambda a, d, k: np.nansum(a, axis=d, keepdims=k),
        NUMERIC,
        True,
    ),
    "nanmean": (
        lambda t, d, k: tc.nanmean(t, d, k),
        lambda a, d, k: np.nanmean(a, axis=d, keepdims=k),
        FLOATS,
        True,
    ),
    "var": (
        lambda t, d, k: tc.var(t, d, keepdim=k),
        lambda a, d, k: np.var(a, axis=d, keepdims=k, ddof=1),
        FLOATS,
        True,
    ),
    "var_c0": (
        lambda t, d, k: tc.var(t, d, keepdim=k, correction=0),
        lambda a, d, k: np.var(a, axis=d, keepdims=k),
        FLOATS,
        True,
    ),
    "std": (
        lambda t, d, k: tc.std(t, d, keepdim=k),
        lambda a, d, k: np.std(a, axis=d, keepdims=k, ddof=1),
        FLOATS,
        True,
    ),
    "std_unbiased_false": (
        lambda t, d, k: tc.std(t, d, False, k),
        lambda a, d, k: np.std(a, axis=d, keepdims=k),
        FLOATS,
        True,
    ),
    "norm2": (
        lambda t, d, k: tc.norm(t, 2, d, k),
        lambda a, d, k: np.sqrt(np.sum(a * a, axis=d, keepdims=k)),
        FLOATS,
        True,
    ),
    "norm1": (
        lambda t, d, k: tc.norm(t, 1, d, k),
        lambda a, d, k: np.sum(np.abs(a), axis=d, keepdims=k),
        FLOATS,
        True,
    ),
    "norm3": (
        lambda t, d, k: tc.norm(t, 3, d, k),
        lambda a, d, k: np.sum(np.abs(a) ** 3, axis=d, keepdims=k) ** (1 / 3),
        FLOATS,
        True,
    ),
    "norm_inf": (
        lambda t, d, k: tc.norm(t, math.inf, d, k),
        lambda a, d, k: np.max(np.abs(a), axis=d, keepdims=k),
        FLOATS,
        True,
    ),
    "norm_ninf": (
        lambda t, d, k: tc.norm(t, -math.inf, d, k),
        lambda a, d, k: np.min(np.abs(a), axis=d, keepdims=k),
        FLOATS,
        True,
    ),
    "norm0": (
        lambda t, d, k: tc.norm(t, 0, d, k),
        lambda a, d, k: np.sum(a != 0, axis=d, keepdims=k).astype(a.dtype),
        FLOATS,
        True,
    ),
    "logsumexp": (
        lambda t, d, k: tc.logsumexp(t, tuple(range(t.dim())) if d is None else d, k),
        lambda a, d, k: _lse(a, d, k),
        FLOATS,
        True,
    ),
    "all": (
        lambda t, d, k: tc.all(t, d, k),
        lambda a, d, k: np.all(a, axis=d, keepdims=k),
        ALL,
        True,
    ),
    "any": (
        lambda t, d, k: tc.any(t, d, k),
        lambda a, d, k: np.any(a, axis=d, keepdims=k),
        ALL,
        True,
    ),
    "count_nonzero": (
        lambda t, d, k: tc.count_nonzero(t, d),
        lambda a, d, k: np.count_nonzero(a, axis=d),
        ALL,
        True,
    ),
}

SHAPES_DIMS = [
    ((7,), [None, 0, -1]),
    ((3, 4, 5), [None, 0, -1, 1, (0, 2), (-1, 1), (0, 1, 2)]),
]


def _cases():
    for name, (_, _, dtypes, tuples) in VALUE_OPS.items():
        for dt in dtypes:
            for shape, dims in SHAPES_DIMS:
                for dim in dims:
                    if isinstance(dim, tuple) and not tuples:
                        continue
                    for layout in (
                        ["contig", "transposed", "strided"] if len(shape) > 1 else ["contig"]
                    ):
                        yield name, dt, shape, dim, layout


@pytest.mark.parametrize("name,dt,shape,dim,layout", list(_cases()))
@pytest.mark.parametrize("keepdim", [False, True])
def test_value_reduction(name, dt, shape, dim, layout, keepdim):
    tfn, nfn, _, _ = VALUE_OPS[name]
    a = make_np(shape, dt)
    t, a = as_tc(a, layout)
    if name == "count_nonzero" and keepdim:
        pytest.skip("count_nonzero has no keepdim")
    ref = nfn(a, dim, keepdim)
    if name in ("sum", "nansum") and dt in (tc.int64, tc.bool):
        ref = np.asarray(ref).astype(np.int64)
    if name in ("amax", "amin", "prod") and dt == tc.bool:
        ref = np.asarray(ref).astype(np.bool_)
    got = tfn(t, dim, keepdim)
    rtol = 1e-4 if dt == tc.float32 else 1e-10
    close(got, ref, rtol=rtol, atol=1e-5 if dt == tc.float32 else 1e-10)


def test_result_dtypes():
    i = tc.tensor([1, 2, 3])
    assert tc.sum(i).dtype == tc.int64
    assert tc.prod(i).dtype == tc.int64
    assert tc.prod(tc.tensor([True, False])).dtype == tc.int64
    assert tc.amax(i).dtype == tc.int64
    assert tc.cumsum(tc.tensor([True, True]), 0).dtype == tc.int64
    assert tc.cumsum(tc.tensor([True, True]), 0).tolist() == [1, 2]
    assert tc.prod(i, dtype=tc.float64).dtype == tc.float64
    assert tc.all(tc.tensor([1.0, 2.0])).dtype == tc.bool
    assert tc.count_nonzero(tc.tensor([[0, 1], [2, 0]]), 0).dtype == tc.int64
    assert tc.logsumexp(i, 0).dtype == tc.float32
    with pytest.raises(TypeError):
        tc.var(i)
    with pytest.raises(TypeError):
        tc.mean(i)


def test_nan_propagation():
    x = tc.tensor([1.0, float("nan"), 3.0])
    assert math.isnan(tc.amax(x).item()) and math.isnan(tc.amin(x).item())
    assert math.isnan(tc.max(x).item())
    v, i = tc.max(x, 0)
    assert math.isnan(v.item()) and i.item() == 1
    assert tc.argmax(x).item() == 1 and tc.argmin(x).item() == 1
    assert math.isnan(tc.median(x).item())
    assert tc.nanmedian(x).item() == 1.0
    assert tc.nansum(x).item() == 4.0
    assert tc.nanmean(x).item() == 2.0
    assert math.isnan(tc.logsumexp(x, 0).item())
    assert math.isnan(tc.norm(x).item())
    assert math.isnan(tc.var(x).item())
    assert tc.cummax(x, 0).values.numpy()[2] != 3.0  # NaN sticks


def test_logsumexp_infinities():
    assert tc.logsumexp(tc.tensor([-math.inf, -math.inf]), 0).item() == -math.inf
    assert tc.logsumexp(tc.tensor([math.inf, 1.0]), 0).item() == math.inf
    np.testing.assert_allclose(
        tc.logsumexp(tc.tensor([1000.0, 1000.0]), 0).item(), 1000 + math.log(2)
    )


def test_var_mean_std_mean():
    a = make_np((4, 6), tc.float64)
    t = tc.from_numpy(a)
    v, m = tc.var_mean(t, 1)
    close(v, np.var(a, 1, ddof=1), rtol=1e-12)
    close(m, a.mean(1), rtol=1e-12)
    s, m = tc.std_mean(t, (0, 1), correction=0, keepdim=True)
    close(s, np.std(a, keepdims=True), rtol=1e-12)
    s, m = tc.std_mean(t, unbiased=False)
    close(s, np.std(a), rtol=1e-12)
    close(tc.var(t, 0, True), np.var(a, 0, ddof=1), rtol=1e-12)
    close(tc.var(t, correction=2), np.var(a, ddof=2), rtol=1e-12)
    assert math.isnan(tc.var(tc.tensor([1.0])).item())


def test_norm_variants():
    a = make_np((3, 4), tc.float64)
    t = tc.from_numpy(a)
    close(tc.norm(t), np.linalg.norm(a), rtol=1e-12)
    close(t.norm(p="fro", dim=(0, 1)), np.linalg.norm(a), rtol=1e-12)
    close(tc.norm(t, 2.5, 1), np.sum(np.abs(a) ** 2.5, 1) ** (1 / 2.5), rtol=1e-12)
    close(
        tc.norm(t.float(), dtype=tc.float64),
        np.linalg.norm(a.astype(np.float32).astype(np.float64)),
        rtol=1e-6,
    )


# ---------------------------------------------------------------- max/min/arg with dim
@pytest.mark.parametrize("dt", NUMERIC)
@pytest.mark.parametrize("layout", ["contig", "transposed", "strided"])
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_dim(dt, layout, dim, keepdim):
    a = make_np((3, 4, 5), dt)
    if dt == tc.int64:  # no ties, so indices are well defined
        a = RNG.permutation(60).reshape(3, 4, 5).astype(np.int64)
    t, a = as_tc(a, layout)
    for fn, nf, na in ((tc.max, np.max, np.argmax), (tc.min, np.min, np.argmin)):
        r = fn(t, dim, keepdim)
        assert isinstance(r, tuple) and r.values is r[0] and r.indices is r[1]
        close(r.values, nf(a, axis=dim, keepdims=keepdim))
        close(r.indices, na(a, axis=dim, keepdims=keepdim))
        meth = getattr(t, fn.__name__)(dim=dim, keepdim=keepdim)
        close(meth.values, r.values.numpy())
    close(tc.argmax(t, dim, keepdim), np.argmax(a, axis=dim, keepdims=keepdim))
    close(tc.argmin(t, dim, keepdim), np.argmin(a, axis=dim, keepdims=keepdim))
    close(tc.argmax(t), np.argmax(a))
    close(tc.argmin(t, keepdim=True), np.argmin(a).reshape(1, 1, 1))


def test_max_ties_first_index_and_full():
    t = tc.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    assert tc.max(t, 1).indices.tolist() == [1, 0]
    assert tc.argmax(t).item() == 1
    assert tc.max(t).item() == 3.0 and tc.min(t).item() == 0.0
    assert t.max().item() == 3.0


def test_max_binary_form():
    a, b = tc.tensor([1.0, 5.0]), tc.tensor([3.0, 2.0])
    if hasattr(tc, "maximum"):
        assert tc.max(a, b).tolist() == [3.0, 5.0]
        assert tc.min(a, b).tolist() == [1.0, 2.0]
    else:
        with pytest.raises(TypeError):
            tc.max(a, b)


def test_errors():
    t = tc.zeros(2, 3)
    with pytest.raises(IndexError, match="dimension 3"):
        tc.amax(t, 3)
    with pytest.raises(IndexError, match="dimension -3"):
        tc.sum(t, -3)
    with pytest.raises(IndexError, match="dimension 2"):
        tc.max(t, 2)
    with pytest.raises(IndexError, match="dimension 5"):
        tc.cumsum(t, 5)
    with pytest.raises(ValueError, match="numel\\(\\) == 0"):
        tc.max(tc.zeros(0))
    with pytest.raises(ValueError, match="numel\\(\\) == 0"):
        tc.zeros(0, 3).min()
    with pytest.raises(IndexError, match="non-zero size"):
        tc.amax(tc.zeros(0, 3), 0)
    with pytest.raises(IndexError, match="non-zero size"):
        tc.max(tc.zeros(0, 3), 0)
    assert tc.amax(tc.zeros(0, 3), 1).shape == (0,)
    with pytest.raises(ValueError, match="multiple times"):
        tc.var(t, (0, 0))


def test_zero_dim_inputs():
    s = tc.tensor(2.5)
    assert tc.amax(s, 0).item() == 2.5
    assert tc.max(s, 0).values.item() == 2.5 and tc.max(s, -1).indices.item() == 0
    assert tc.cumsum(s, 0).item() == 2.5
    assert tc.sort(s).values.item() == 2.5
    assert tc.prod(s).item() == 2.5


# ---------------------------------------------------------------- median / mode
def _lower_median(a, axis):
    n = a.shape[axis]
    return np.take(np.sort(a, axis=axis), (n - 1) // 2, axis=axis)


@pytest.mark.parametrize("dt", NUMERIC)
@pytest.mark.parametrize("layout", ["contig", "transposed"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_median_dim(dt, layout, dim, keepdim):
    a = make_np((4, 6, 3), dt)
    t, a = as_tc(a, layout)
    r = tc.median(t, dim, keepdim)
    ref = _lower_median(a, dim)
    if keepdim:
        ref = np.expand_dims(ref, dim)
    close(r.values, ref)
    # indices point at the returned values
    idx = r.indices.numpy() if keepdim else np.expand_dims(r.indices.numpy(), dim)
    vals = np.take_along_axis(a, idx, axis=dim)
    close(vals if keepdim else np.squeeze(vals, dim), r.values.numpy())


def test_median_global_and_torch(torch_ref):
    a = make_np((5, 4), tc.float32)
    t = tc.from_numpy(a)
    ta = torch_ref.from_numpy(a)
    assert tc.median(t).item() == ta.median().item()
    r, tr = tc.median(t, 0), ta.median(0)
    close(r.values, tr.values.numpy())
    close(r.indices, tr.indices.numpy())
    x = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 1.0, 1.0, 5.0]], dtype=np.float32)
    for f in ("median", "nanmedian"):
        r, tr = (
            getattr(tc, f)(tc.from_numpy(x), 1),
            getattr(torch_ref, f)(torch_ref.from_numpy(x), 1),
        )
        close(r.values, tr.values.numpy())
        close(r.indices, tr.indices.numpy())


def test_median_global():
    assert tc.median(tc.tensor([4.0, 1.0, 3.0, 2.0])).item() == 2.0  # lower median
    assert tc.median(tc.tensor([[5, 1], [3, 7]])).item() == 3
    assert tc.nanmedian(tc.tensor([float("nan"), 1.0, 3.0, 2.0])).item() == 2.0
    r = tc.nanmedian(tc.tensor([[float("nan"), 1.0, 3.0]]), 1)
    assert r.values.item() == 1.0 and r.indices.item() == 1


def test_mode():
    t = tc.tensor([[1, 2, 2, 3, 3, 1], [5, 5, 4, 4, 4, 5]])
    r = tc.mode(t, 1)
    assert r.values.tolist() == [1, 4]  # ties -> smallest value
    assert r.indices.tolist() == [5, 4]  # last occurrence (torch CPU)
    r = tc.mode(t.t(), 0, keepdim=True)
    assert r.values.tolist() == [[1, 4]]
    assert tc.mode(tc.tensor([2.0, 7.0, 7.0])).values.item() == 7.0


def test_mode_torch(torch_ref):
    a = RNG.integers(0, 4, size=(5, 9))
    r, tr = tc.mode(tc.from_numpy(a), 1), torch_ref.mode(torch_ref.from_numpy(a), 1)
    close(r.values, tr.values.numpy())
    close(r.indices, tr.indices.numpy())


# ---------------------------------------------------------------- scans
def _np_logcumsumexp(a, axis):
    return np.logaddexp.accumulate(a, axis=axis)


SCANS = {
    "cumsum": (tc.cumsum, np.cumsum, NUMERIC + [tc.bool]),
    "cumprod": (tc.cumprod, np.cumprod, NUMERIC),
    "cummax": (
        lambda t, d: tc.cummax(t, d).values,
        lambda a, axis: np.maximum.accumulate(a, axis=axis),
        NUMERIC,
    ),
    "cummin": (
        lambda t, d: tc.cummin(t, d).values,
        lambda a, axis: np.minimum.accumulate(a, axis=axis),
        NUMERIC,
    ),
    "logcumsumexp": (tc.logcumsumexp, _np_logcumsumexp, FLOATS),
}


@pytest.mark.parametrize("name", list(SCANS))
@pytest.mark.parametrize(
    "shape,dim", [((9,), 0), ((9,), -1), ((3, 4, 5), 0), ((3, 4, 5), 1), ((3, 4, 5), -1)]
)
@pytest.mark.parametrize("layout", ["contig", "transposed", "strided"])
def test_scans(name, shape, dim, layout):
    tfn, nfn, dtypes = SCANS[name]
    for dt in dtypes:
        a = make_np(shape, dt)
        if name == "cumprod" and dt != tc.int64:
            a = (a * 0.5 + 1).astype(a.dtype)
        t, a = as_tc(a, layout)
        ref = nfn(a, axis=dim)
        if dt == tc.bool:
            ref = ref.astype(np.int64)
        close(tfn(t, dim), ref, rtol=1e-4 if dt == tc.float32 else 1e-10)


def test_cummax_indices():
    r = tc.cummax(tc.tensor([1.0, 3.0, 2.0, 3.0, 5.0]), 0)
    assert r.indices.tolist() == [0, 1, 1, 3, 4]  # ties move to the later index (torch)
    r = tc.cummin(tc.tensor([[4, 2, 2, 5]]), 1)
    assert r.values.tolist() == [[4, 2, 2, 2]] and r.indices.tolist() == [[0, 1, 2, 2]]


def test_cumsum_dtype_arg():
    t = tc.tensor([1, 2, 3])
    r = tc.cumsum(t, 0, dtype=tc.float64)
    assert r.dtype == tc.float64 and r.tolist() == [1.0, 3.0, 6.0]


# ---------------------------------------------------------------- gradients
def numeric_grad(f, a, eps=1e-6):
    g = np.zeros_like(a)
    flat = a.reshape(-1)
    gf = g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        fp = f(a)
        flat[i] = old - eps
        fm = f(a)
        flat[i] = old
        gf[i] = (fp - fm) / (2 * eps)
    return g


def gradcheck(fn, a, atol=1e-5):
    """fn: tc tensor -> tc tensor. Checks d(sum(fn(x) * w))/dx against finite differences."""
    out0 = fn(tc.from_numpy(a.copy()))
    w = RNG.standard_normal(tuple(out0.shape))

    def scalar(arr):
        return float((fn(tc.from_numpy(arr.copy())).numpy().astype(np.float64) * w).sum())

    x = tc.from_numpy(a.copy()).requires_grad_()
    y = fn(x)
    (g,) = tc.autograd.grad((y * tc.from_numpy(w)).sum(), x)
    np.testing.assert_allclose(g.numpy(), numeric_grad(scalar, a.copy()), atol=atol, rtol=1e-4)


GRAD_OPS = {
    "sum": lambda t: tc.sum(t, (0, 2)),
    "mean": lambda t: tc.mean(t, 1, True),
    "prod": lambda t: tc.prod(t, 1),
    "prod_all": lambda t: tc.prod(t),
    "amax": lambda t: tc.amax(t, (0, 2)),
    "amin": lambda t: tc.amin(t, -1, True),
    "max_full": lambda t: tc.max(t),
    "max_dim": lambda t: tc.max(t, 1).values,
    "min_dim_keep": lambda t: tc.min(t, 0, True).values,
    "var": lambda t: tc.var(t, 1),
    "var_all": lambda t: tc.var(t),
    "std": lambda t: tc.std(t, (0, 2), keepdim=True),
    "std_c0": lambda t: tc.std(t, correction=0),
    "norm2": lambda t: tc.norm(t),
    "norm2_dim": lambda t: tc.norm(t, 2, 1),
    "norm1": lambda t: tc.norm(t, 1, -1),
    "norm3": lambda t: tc.norm(t, 3, (0, 1)),
    "norm1.5": lambda t: tc.norm(t, 1.5),
    "norm_inf": lambda t: tc.norm(t, math.inf, 1),
    "logsumexp": lambda t: tc.logsumexp(t, (1, 2)),
    "nansum": lambda t: tc.nansum(t, 0),
    "nanmean": lambda t: tc.nanmean(t, -1),
    "cumsum": lambda t: tc.cumsum(t, 1),
    "cumprod": lambda t: tc.cumprod(t, -1),
    "cummax": lambda t: tc.cummax(t, 0).values,
    "cummin": lambda t: tc.cummin(t, 2).values,
    "logcumsumexp": lambda t: tc.logcumsumexp(t, 1),
    "median_dim": lambda t: tc.median(t, 1).values,
    "median_all": lambda t: tc.median(t),
    "nanmedian_dim": lambda t: tc.nanmedian(t, 0, True).values,
    "mode": lambda t: tc.mode(t, 2).values,
}


@pytest.mark.parametrize("name", list(GRAD_OPS))
@pytest.mark.parametrize("layout", ["contig", "transposed"])
def test_gradcheck(name, layout):
    a = RNG.standard_normal((3, 4, 5))
    if layout == "transposed":
        fn = GRAD_OPS[name]
        gradcheck(lambda t: fn(t.transpose(0, 2)), np.ascontiguousarray(a.transpose(2, 1, 0)))
    else:
        gradcheck(GRAD_OPS[name], a)


def test_prod_grad_with_zeros():
    a = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 3.0]])
    for fn in (lambda t: tc.prod(t, 1), lambda t: tc.prod(t), lambda t: tc.prod(t, 0, True)):
        gradcheck(fn, a)
    x = tc.from_numpy(a).requires_grad_()
    (g,) = tc.autograd.grad(tc.prod(x, 1).sum(), x)
    np.testing.assert_allclose(g.numpy(), [[0, 6, 0], [0, 0, 0], [6, 3, 2]])


def test_cumprod_grad_with_zeros():
    a = np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 1.5, 4.0, 2.0]])
    gradcheck(lambda t: tc.cumprod(t, 1), a)
    gradcheck(lambda t: tc.cumprod(t, 0), a)


def test_amax_grad_ties_split_evenly():
    x = tc.tensor([1.0, 3.0, 3.0, 2.0], dtype=tc.float64, requires_grad=True)
    for f in (tc.amax, tc.max):
        (g,) = tc.autograd.grad(f(x), x)
        assert g.tolist() == [0.0, 0.5, 0.5, 0.0]
    (g,) = tc.autograd.grad(tc.max(x, 0).values, x)
    assert g.tolist() == [0.0, 1.0, 0.0, 0.0]  # max(dim): only the returned index


def test_norm_grad_at_zero_is_zero():
    x = tc.zeros(3, dtype=tc.float64, requires_grad=True)
    (g,) = tc.autograd.grad(tc.norm(x), x)
    assert g.tolist() == [0.0, 0.0, 0.0]


def test_double_backward_var_and_logsumexp():
    a = RNG.standard_normal(5)
    x = tc.from_numpy(a.copy()).requires_grad_()
    (g,) = tc.autograd.grad(tc.var(x), x, create_graph=True)
    (h,) = tc.autograd.grad((g * g).sum(), x)
    n = a.size
    # g = 2(x - mean)/(n-1); d/dx sum(g^2) = 8/(n-1)^2 (x - mean)
    np.testing.assert_allclose(h.numpy(), 8 / (n - 1) ** 2 * (a - a.mean()), rtol=1e-10)
    (g,) = tc.autograd.grad(tc.logsumexp(x, 0), x, create_graph=True)
    (h,) = tc.autograd.grad(g[0] if hasattr(g, "__getitem__") else g.sum(), x)
    assert h.shape == (5,)


def _complex_with_zeros(shape, zeros):
    a = RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
    for idx in zeros:
        a[idx] = 0
    return a


@pytest.mark.parametrize(
    "zeros",
    [(), ((0, 1),), ((0, 1), (1, 0), (1, 2)), ((0, 0), (0, 3))],
    ids=["none", "one", "spread", "two_in_row"],
)
def test_complex_prod_cumprod_match_torch(torch_ref, zeros):
    # Forward values and conjugate-Wirtinger gradients (torch's convention), zeros included.
    a = _complex_with_zeros((2, 4), zeros)
    g = RNG.standard_normal((2, 4)) + 1j * RNG.standard_normal((2, 4))
    cases = [
        (lambda m, t: m.cumprod(t, 1), g),
        (lambda m, t: m.cumprod(t, 0), g),
        (lambda m, t: m.prod(t, 1), g[:, 0]),
        (lambda m, t: m.prod(t, 0, True), g[:1]),
        (lambda m, t: m.prod(t), g[0, 0]),
    ]
    for fn, gout in cases:
        x = tc.from_numpy(a.copy()).requires_grad_()
        xt = torch_ref.from_numpy(a.copy()).requires_grad_()
        y, yt = fn(tc, x), fn(torch_ref, xt)
        np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
        (gx,) = tc.autograd.grad(y, x, tc.from_numpy(np.asarray(gout).copy()))
        (gt,) = torch_ref.autograd.grad(yt, xt, torch_ref.from_numpy(np.asarray(gout).copy()))
        np.testing.assert_allclose(gx.numpy(), gt.numpy(), rtol=1e-10, atol=1e-12)


def test_complex_prod_cumprod_gradcheck_with_zeros():
    a = _complex_with_zeros((2, 4), ((0, 1), (1, 3)))
    x = tc.from_numpy(a).requires_grad_()
    for fn in (
        lambda t: tc.cumprod(t, 1),
        lambda t: tc.cumprod(t, 0),
        lambda t: tc.prod(t, 1),
        lambda t: tc.prod(t),
    ):
        assert tc.autograd.gradcheck(fn, (x,))


def test_complex64_prod_accumulates_wide():
    # 2000 unit-modulus factors: a complex64 running product drifts ~1e-6; complex128 keeps the
    # result at complex64 rounding (~1e-8).
    ang = RNG.uniform(-np.pi, np.pi, 2000)
    z = np.exp(1j * ang).astype(np.complex64)
    want = np.prod(z.astype(np.complex128))
    got = tc.prod(tc.from_numpy(z)).item()
    assert abs(got - want) < 1e-7
    c = tc.cumprod(tc.from_numpy(z), 0).numpy()
    assert c.dtype == np.complex64 and abs(c[-1] - want) < 1e-7


def test_cumprod_grad_with_zeros_long_row_matches_torch(torch_ref):
    # The zero path is O(n) per row: a long row with zeros stays fast and matches torch.
    a = RNG.standard_normal((3, 20000)) * 0.05 + 1.0
    a[0, 5] = 0
    a[1, 19999] = 0
    a[2, 100] = a[2, 200] = 0
    x = tc.from_numpy(a.copy()).requires_grad_()
    xt = torch_ref.from_numpy(a.copy()).requires_grad_()
    g = RNG.standard_normal(a.shape)
    (gx,) = tc.autograd.grad(tc.cumprod(x, 1), x, tc.from_numpy(g.copy()))
    (gt,) = torch_ref.autograd.grad(torch_ref.cumprod(xt, 1), xt, torch_ref.from_numpy(g.copy()))
    np.testing.assert_allclose(gx.numpy(), gt.numpy(), rtol=1e-7, atol=1e-9)
