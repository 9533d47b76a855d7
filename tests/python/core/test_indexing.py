"""__getitem__/__setitem__ against NumPy, index ops (gather/scatter/index_*/masked_*/nonzero/take),
views sharing storage, gradients by finite differences, error messages."""

import numpy as np
import pytest

import tensorcore as tc
from finite_diff import numgrad

A = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
M1 = np.array([True, False, True])
M34 = (np.arange(12).reshape(3, 4) % 3) == 0

# Index expressions where torch and NumPy agree.
GETITEM_CASES = [
    0,
    -1,
    1,
    (0, 1),
    (1, -1, 2),
    (0, 1, 2, 3),
    (-2, -3, -4, -5),
    slice(None),
    slice(1, None),
    slice(None, 1),
    slice(0, 2, 1),
    slice(-1, None),
    slice(5, 10),
    (slice(None), 1),
    (slice(None), slice(None, None, 2)),
    (slice(None), slice(0, 3, 2), slice(1, 4, 2)),
    (Ellipsis, 0),
    (Ellipsis, slice(1, 3)),
    (0, Ellipsis, 1),
    (Ellipsis,),
    (),
    None,
    (None, 0),
    (0, None, 1),
    (Ellipsis, None),
    (None, Ellipsis, None),
    (slice(None), None, 1),
    [0, 1],
    [1, 0, 1],
    [-1],
    ([0, 1], [2, 0]),
    (slice(None), [0, 2]),
    (slice(None), [[0, 1], [2, 1]]),
    (slice(None), [0, 2], [1, 3]),
    ([0, 1], slice(None), [1, 2]),
    ([1, 0], slice(None), slice(None), [4, 0]),
    (Ellipsis, [0, 1]),
    (Ellipsis, [1, 1], [0, 4]),
    (None, [0, 1]),
    ([0, 1], None),
    (slice(None), M1),
    (0, M1),
    (slice(None), M1, [0, 2]),
    (0, M34),
    (slice(None), M34),
    (
        M1.copy()[None].repeat(2, 0)[:, :, None].repeat(4, 2).repeat(1, 1)
        if False
        else slice(None),
        [True, True, False],
    ),
    ([[0], [1]], [[0, 1, 2]]),
    (np.array([[1, 0]]), slice(1, 3), 2),
    (slice(None), slice(None), slice(None), [0, -1]),
    (0, 1, [0, 3], [1, 4]),
    (np.array([True, False]),),
    (np.array([0, 1]), np.array([1, 2])),
    ([],),
    (slice(None), []),
]


def idx_to_tc(idx):
    def conv(x):
        if isinstance(x, np.ndarray):
            return tc.tensor(x)
        return x

    if isinstance(idx, tuple):
        return tuple(conv(x) for x in idx)
    return conv(idx)


def np_index(idx):
    # NumPy treats an empty list as float: use an explicit int array.
    if isinstance(idx, tuple):
        return tuple(
            np.array([], dtype=np.int64) if isinstance(x, list) and len(x) == 0 else x for x in idx
        )
    return idx


@pytest.mark.parametrize("idx", GETITEM_CASES, ids=[repr(c)[:60] for c in GETITEM_CASES])
def test_getitem_matches_numpy(idx):
    x = tc.tensor(A)
    expected = A[np_index(idx)]
    got = x[idx_to_tc(idx)]
    np.testing.assert_array_equal(np.asarray(got.numpy()), expected)
    assert tuple(got.shape) == expected.shape


@pytest.mark.parametrize("idx", GETITEM_CASES, ids=[repr(c)[:60] for c in GETITEM_CASES])
def test_setitem_matches_numpy(idx):
    ref = A.copy()
    target_shape = ref[np_index(idx)].shape
    rng = np.random.default_rng(0)
    # Unique-position values only matter for duplicates; use a scalar then a full tensor.
    ref[np_index(idx)] = -7.0
    x = tc.tensor(A)
    x[idx_to_tc(idx)] = -7.0
    np.testing.assert_array_equal(x.numpy(), ref)
    val = rng.standard_normal(target_shape)
    ref2 = A.copy()
    ref2[np_index(idx)] = val
    x2 = tc.tensor(A)
    x2[idx_to_tc(idx)] = tc.tensor(val)
    np.testing.assert_array_equal(x2.numpy(), ref2)


def test_setitem_broadcast_value():
    ref = A.copy()
    x = tc.tensor(A)
    ref[:, [0, 2]] = np.arange(5.0)
    x[:, [0, 2]] = tc.arange(5.0)
    np.testing.assert_array_equal(x.numpy(), ref)
    ref[0, :, 1] = np.arange(5.0)
    x[0, :, 1] = tc.arange(5.0)
    np.testing.assert_array_equal(x.numpy(), ref)


def test_torch_int_semantics_nonadjacent():
    # torch applies ints as selects before advanced indexing (NumPy treats them as advanced):
    # x[:, [0, 1], :, 0] keeps the advanced dim in place.
    x = tc.tensor(A)
    r = x[:, [0, 1], :, 0]
    assert tuple(r.shape) == (2, 2, 4)
    np.testing.assert_array_equal(
        r.numpy(),
        A[:, [0, 1], :, 0].transpose(1, 0, 2).transpose(1, 0, 2)
        if False
        else A[:, :, :, 0][:, [0, 1], :],
    )


def test_nonadjacent_advanced_go_first():
    x = tc.tensor(A)
    r = x[[0, 1], :, [1, 2]]
    assert tuple(r.shape) == (2, 3, 5)
    np.testing.assert_array_equal(r.numpy(), A[[0, 1], :, [1, 2]])


def test_python_bool_and_0dim_tensor_index():
    x = tc.tensor(A)
    assert tuple(x[True].shape) == (1, 2, 3, 4, 5)
    assert tuple(x[False].shape) == (0, 2, 3, 4, 5)
    assert tuple(x[0, True].shape) == (1, 3, 4, 5)
    np.testing.assert_array_equal(x[tc.scalar_tensor(1)].numpy(), A[1])
    s = tc.scalar_tensor(3.5)
    assert s[None].shape == (1,) and s[...].item() == 3.5 and s[True].shape == (1,)


def test_basic_indexing_returns_views():
    x = tc.tensor(A)
    for idx in [
        0,
        (slice(None), 1),
        (Ellipsis, slice(1, 3)),
        (None, 0),
        (0, slice(None, None, 2)),
        (),
    ]:
        v = x[idx]
        v.fill_(123.0)
        assert np.all(x[idx].numpy() == 123.0)
    y = tc.tensor(A)
    v = y[1:, ::2]
    assert v.storage_offset() == 60
    w = y[[0, 1]]
    w.fill_(0.0)
    assert np.all(y.numpy() == A)  # advanced indexing copies


def test_negative_step_raises():
    x = tc.tensor(A)
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[0, ::-2]


def test_index_errors():
    x = tc.arange(3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[5]
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[[0, 5]]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        x[tc.tensor([-4])]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match="valid indices"):
        x[1.5]
    with pytest.raises(IndexError, match="tensors used as indices must be long"):
        x[tc.tensor([0.0])]
    with pytest.raises(IndexError, match="The shape of the mask"):
        x[tc.tensor([True, False])]
    with pytest.raises(IndexError, match="shape mismatch"):
        tc.tensor(A)[[0, 1], [0, 1, 2]]
    y = tc.zeros(3, 4)
    with pytest.raises(ValueError, match="shape mismatch: value tensor of shape"):
        y[[0, 1]] = tc.ones(3)
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        tc.scalar_tensor(1.0)[0]


def test_index_put_accumulate():
    x = tc.zeros(5, dtype=tc.float64)
    idx = tc.tensor([0, 1, 1, 4, 1])
    x.index_put_((idx,), tc.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=tc.float64), accumulate=True)
    ref = np.zeros(5)
    np.add.at(ref, [0, 1, 1, 4, 1], [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(x.numpy(), ref)
    y = tc.index_put(tc.zeros(2, 3), (tc.tensor([0, 1]), tc.tensor([2, 0])), tc.tensor(5.0))
    np.testing.assert_array_equal(y.numpy(), [[0, 0, 5], [5, 0, 0]])


def test_setitem_dtype_cast_and_int_tensor():
    x = tc.zeros(4, dtype=tc.int32)
    x[1] = 7.9
    x[[2, 3]] = tc.tensor([1.0, 2.0])
    np.testing.assert_array_equal(x.numpy(), [0, 7, 1, 2])
    assert x.dtype == tc.int32


def test_setitem_self_overlap():
    x = tc.arange(6.0)
    x[1:] = x[:-1]
    np.testing.assert_array_equal(x.numpy(), [0, 0, 1, 2, 3, 4])
    y = tc.arange(6.0)
    y[[1, 2, 3]] = y[[0, 1, 2]]
    np.testing.assert_array_equal(y.numpy(), [0, 0, 1, 2, 4, 5])


@pytest.mark.parametrize(
    "dtype",
    [tc.bool, tc.uint8, tc.int16, tc.int64, tc.float16, tc.bfloat16, tc.float32, tc.complex128],
)
def test_getitem_dtypes(dtype):
    base = np.arange(24).reshape(4, 6) % 5
    x = tc.tensor(base).to(dtype)
    r = x[[0, 2], 1:5:2]
    ref = tc.tensor(base[[0, 2], 1:5:2]).to(dtype)
    assert r.dtype == dtype
    assert r.to(tc.float64).tolist() == ref.to(tc.float64).tolist()


# ---- index ops ----


def test_index_select():
    x = tc.tensor(A)
    idx = tc.tensor([2, 0, 2])
    np.testing.assert_array_equal(tc.index_select(x, 1, idx).numpy(), A[:, [2, 0, 2]])
    np.testing.assert_array_equal(
        x.index_select(-1, tc.tensor([4], dtype=tc.int32)).numpy(), A[..., [4]]
    )
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        x.index_select(1, tc.tensor([3]))


def test_gather_and_take_along_dim():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 5))
    idx = rng.integers(0, 4, size=(3, 2, 5))
    got = tc.gather(tc.tensor(a), 1, tc.tensor(idx))
    np.testing.assert_array_equal(got.numpy(), np.take_along_axis(a, idx, 1))
    np.testing.assert_array_equal(
        tc.take_along_dim(tc.tensor(a), tc.tensor(idx), 1).numpy(), np.take_along_axis(a, idx, 1)
    )
    idx2 = rng.integers(0, 5, size=(1, 4, 2))
    np.testing.assert_array_equal(
        tc.take_along_dim(tc.tensor(a), tc.tensor(idx2), dim=2).numpy(),
        np.take_along_axis(a, np.broadcast_to(idx2, (3, 4, 2)), 2),
    )
    flat = rng.integers(0, 60, size=(7,))
    np.testing.assert_array_equal(
        tc.take_along_dim(tc.tensor(a), tc.tensor(flat)).numpy(), a.reshape(-1)[flat]
    )
    with pytest.raises(IndexError, match="out of bounds for dimension 1 with size 4"):
        tc.gather(tc.tensor(a), 1, tc.tensor(idx + 4))
    with pytest.raises(ValueError, match="same number of dimensions"):
        tc.gather(tc.tensor(a), 1, tc.tensor(idx[0]))


def scatter_ref(self_, idx, src):
    """scatter along dim 0 of 2-D arrays, by its definition: out[idx[i, j], j] = src[i, j]."""
    out = self_.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[idx[i, j], j] = src[i, j]
    return out


def test_scatter_variants():
    rng = np.random.default_rng(2)
    self_ = rng.standard_normal((4, 5))
    idx = np.array([[0, 1, 2, 3, 0], [3, 2, 1, 0, 1]])
    src = rng.standard_normal((2, 5))
    ref = scatter_ref(self_, idx, src)
    np.testing.assert_array_equal(
        tc.tensor(self_).scatter(0, tc.tensor(idx), tc.tensor(src)).numpy(), ref
    )
    ref = self_.copy()
    np.add.at(ref, (idx, np.arange(5)[None].repeat(2, 0)), src)
    np.testing.assert_allclose(
        tc.tensor(self_).scatter_add(0, tc.tensor(idx), tc.tensor(src)).numpy(), ref
    )
    np.testing.assert_allclose(
        tc.tensor(self_).scatter(0, tc.tensor(idx), tc.tensor(src), reduce="add").numpy(), ref
    )
    ref = scatter_ref(self_, idx, np.full((2, 5), 2.5))
    np.testing.assert_array_equal(tc.tensor(self_).scatter(0, tc.tensor(idx), 2.5).numpy(), ref)
    x = tc.tensor(self_)
    x.scatter_(0, tc.tensor(idx), tc.tensor(src), reduce="multiply")
    ref = self_.copy()
    np.multiply.at(ref, (idx, np.arange(5)[None].repeat(2, 0)), src)
    np.testing.assert_allclose(x.numpy(), ref)
    # src larger than index: only the leading part is used.
    big = rng.standard_normal((3, 6))
    ref = scatter_ref(self_, idx, big)
    np.testing.assert_array_equal(
        tc.tensor(self_).scatter(0, tc.tensor(idx), tc.tensor(big)).numpy(), ref
    )


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_scatter_reduce(reduce, include_self, dtype):
    rng = np.random.default_rng(3)
    self_ = rng.integers(-5, 6, size=(4, 3)).astype(dtype)
    src = rng.integers(-5, 6, size=(6, 3)).astype(dtype)
    idx = rng.integers(0, 3, size=(6, 3))  # row 3 untouched
    ref = self_.copy()
    for j in range(3):
        for r in range(4):
            vals = [src[i, j] for i in range(6) if idx[i, j] == r]
            if not vals:
                continue
            if include_self:
                vals.append(self_[r, j])
            if reduce == "sum":
                ref[r, j] = sum(vals)
            elif reduce == "prod":
                ref[r, j] = np.prod(vals)
            elif reduce == "mean":
                ref[r, j] = (
                    (sum(vals) / len(vals)) if dtype == "float64" else (sum(vals) // len(vals))
                )
            elif reduce == "amax":
                ref[r, j] = max(vals)
            else:
                ref[r, j] = min(vals)
    got = tc.tensor(self_).scatter_reduce(
        0, tc.tensor(idx), tc.tensor(src), reduce, include_self=include_self
    )
    np.testing.assert_allclose(got.numpy(), ref)


def test_scatter_reduce_torch(torch_ref):
    rng = np.random.default_rng(4)
    s, src, idx = (
        rng.standard_normal((4, 3)),
        rng.standard_normal((6, 3)),
        rng.integers(0, 4, (6, 3)),
    )
    for red in ["sum", "prod", "mean", "amax", "amin"]:
        for inc in [True, False]:
            e = torch_ref.tensor(s).scatter_reduce(
                0, torch_ref.tensor(idx), torch_ref.tensor(src), red, include_self=inc
            )
            g = tc.tensor(s).scatter_reduce(
                0, tc.tensor(idx), tc.tensor(src), red, include_self=inc
            )
            np.testing.assert_allclose(g.numpy(), e.numpy())


def test_index_add_copy_fill():
    rng = np.random.default_rng(5)
    s = rng.standard_normal((5, 3))
    src = rng.standard_normal((4, 3))
    idx = np.array([0, 4, 0, 2])
    ref = s.copy()
    np.add.at(ref, idx, 2.0 * src)
    np.testing.assert_allclose(
        tc.tensor(s).index_add(0, tc.tensor(idx), tc.tensor(src), alpha=2.0).numpy(), ref
    )
    ref = s.copy()
    ref[[1, 3]] = src[:2]
    np.testing.assert_array_equal(
        tc.tensor(s).index_copy(0, tc.tensor([1, 3]), tc.tensor(src[:2])).numpy(), ref
    )
    ref = s.copy()
    ref[:, [0, 2]] = -1
    np.testing.assert_array_equal(tc.tensor(s).index_fill(1, tc.tensor([0, 2]), -1).numpy(), ref)
    x = tc.tensor(s)
    x.index_add_(1, tc.tensor([1]), tc.ones(5, 1, dtype=tc.float64))
    np.testing.assert_allclose(x.numpy()[:, 1], s[:, 1] + 1)


def test_index_add_torch(torch_ref):
    rng = np.random.default_rng(6)
    s, src, idx = rng.standard_normal((5, 3)), rng.standard_normal((4, 3)), np.array([0, 4, 0, 2])
    e = torch_ref.tensor(s).index_add(0, torch_ref.tensor(idx), torch_ref.tensor(src), alpha=3)
    np.testing.assert_allclose(
        tc.tensor(s).index_add(0, tc.tensor(idx), tc.tensor(src), alpha=3).numpy(), e.numpy()
    )


def test_masked_ops():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 4))
    m = a > 0
    np.testing.assert_array_equal(
        tc.tensor(a).masked_fill(tc.tensor(m), 9.0).numpy(), np.where(m, 9.0, a)
    )
    np.testing.assert_array_equal(
        tc.tensor(a).masked_fill(tc.tensor(m[0]), tc.scalar_tensor(1.5, dtype=tc.float64)).numpy(),
        np.where(m[0], 1.5, a),
    )
    np.testing.assert_array_equal(tc.masked_select(tc.tensor(a), tc.tensor(m)).numpy(), a[m])
    np.testing.assert_array_equal(
        tc.masked_select(tc.tensor(a), tc.tensor(m[1])).numpy(),
        a[:, m[1]].T.reshape(-1) if False else a[np.broadcast_to(m[1], a.shape)],
    )
    src = np.arange(12.0)
    ref = a.copy()
    ref[m] = src[: m.sum()]
    np.testing.assert_array_equal(
        tc.tensor(a).masked_scatter(tc.tensor(m), tc.tensor(src)).numpy(), ref
    )
    x = tc.tensor(a)
    x.masked_fill_(tc.tensor(m), 0.0)
    np.testing.assert_array_equal(x.numpy(), np.where(m, 0.0, a))
    with pytest.raises(TypeError, match="boolean masks"):
        tc.tensor(a).masked_fill(tc.tensor(m.astype(np.int64)), 1.0)
    with pytest.raises(ValueError, match="0-dimensional value tensor"):
        tc.tensor(a).masked_fill(tc.tensor(m), tc.ones(2))


def test_nonzero_argwhere_take():
    a = np.array([[0, 1, 0], [2, 0, 3]])
    np.testing.assert_array_equal(tc.nonzero(tc.tensor(a)).numpy(), np.argwhere(a))
    np.testing.assert_array_equal(tc.argwhere(tc.tensor(a)).numpy(), np.argwhere(a))
    t = tc.tensor(a).nonzero(as_tuple=True)
    assert isinstance(t, tuple) and len(t) == 2
    for g, e in zip(t, np.nonzero(a)):
        np.testing.assert_array_equal(g.numpy(), e)
    assert tc.nonzero(tc.zeros(2, 0)).shape == (0, 2)
    idx = np.array([[0, 5], [-1, 2]])
    np.testing.assert_array_equal(tc.take(tc.tensor(a), tc.tensor(idx)).numpy(), np.take(a, idx))
    with pytest.raises(IndexError, match="index 6 is out of bounds for dimension 0 with size 6"):
        tc.take(tc.tensor(a), tc.tensor([6]))


# ---- gradients ----


def weights(shape):
    return tc.tensor(np.random.default_rng(99).standard_normal(shape))


def check_grad(f, shape, seed=0):
    x0 = np.random.default_rng(seed).standard_normal(shape)
    x = tc.tensor(x0, requires_grad=True)
    out = f(x)
    w = weights(tuple(out.shape))
    (g,) = tc.autograd.grad((out * w).sum(), [x])
    num = numgrad(lambda t: f(t) * w, tc.tensor(x0))
    np.testing.assert_allclose(g.numpy(), num, atol=1e-6)


IDX = tc.tensor([0, 2, 2])


@pytest.mark.parametrize(
    "name,f,shape",
    [
        ("getitem_basic", lambda x: x[1:, None, ::2], (3, 4)),
        ("getitem_int", lambda x: x[1, -1], (3, 4)),
        ("getitem_adv_dup", lambda x: x[[0, 2, 2], 1:], (3, 4)),
        ("getitem_adv_2", lambda x: x[[0, 2], :, [1, 1]], (3, 2, 4)),
        ("getitem_mask", lambda x: x[tc.tensor([True, False, True])], (3, 4)),
        ("index_select", lambda x: x.index_select(1, IDX), (2, 3)),
        ("gather", lambda x: x.gather(1, tc.tensor([[0, 0, 2], [1, 2, 1]])), (2, 3)),
        ("take", lambda x: tc.take(x, tc.tensor([[0, 5], [5, 3]])), (2, 3)),
        ("masked_select", lambda x: x.masked_select(tc.tensor([True, False, True])), (2, 3)),
        ("masked_fill", lambda x: x.masked_fill(tc.tensor([True, False, True]), 2.0), (2, 3)),
        (
            "index_put",
            lambda x: tc.index_put(x, (IDX,), tc.scalar_tensor(1.0, dtype=tc.float64)),
            (3, 2),
        ),
        (
            "index_put_acc",
            lambda x: tc.index_put(
                tc.zeros(4, 2, dtype=tc.float64), (tc.tensor([0, 3, 0]),), x, accumulate=True
            ),
            (3, 2),
        ),
        ("scatter_self", lambda x: x.scatter(0, tc.tensor([[0, 2]]), 0.0), (3, 2)),
        (
            "scatter_add_src",
            lambda x: tc.zeros(3, 2, dtype=tc.float64).scatter_add(
                0, tc.tensor([[0, 2], [0, 0]]), x
            ),
            (2, 2),
        ),
        (
            "scatter_src",
            lambda x: tc.zeros(3, 2, dtype=tc.float64).scatter(0, tc.tensor([[0, 2], [1, 0]]), x),
            (2, 2),
        ),
        (
            "scatter_src_big",
            lambda x: tc.zeros(3, 2, dtype=tc.float64).scatter(0, tc.tensor([[0, 2]]), x),
            (2, 3),
        ),
        (
            "scatter_reduce_sum",
            lambda x: x[:3].scatter_reduce(
                0, tc.tensor([[0, 2], [0, 0]]), x[3:], "sum", include_self=False
            ),
            (5, 2),
        ),
        (
            "scatter_reduce_mean",
            lambda x: x[:3].scatter_reduce(0, tc.tensor([[0, 2], [0, 0]]), x[3:], "mean"),
            (5, 2),
        ),
        ("index_add", lambda x: x[:3].index_add(0, tc.tensor([0, 0]), x[3:], alpha=2.0), (5, 2)),
        ("index_copy", lambda x: x[:3].index_copy(0, tc.tensor([2, 0]), x[3:]), (5, 2)),
        ("index_fill", lambda x: x.index_fill(0, tc.tensor([1]), 3.0), (3, 2)),
        ("take_along_dim", lambda x: tc.take_along_dim(x, tc.tensor([[1], [0]]), dim=1), (2, 3)),
    ],
)
def test_gradients(name, f, shape):
    check_grad(f, shape)


def test_setitem_grad():
    x0 = np.random.default_rng(1).standard_normal((3, 4))
    v0 = np.random.default_rng(2).standard_normal((2, 4))

    def f(x, v):
        y = x * 1.0
        y[[0, 2]] = v
        y[1, 1:3] = v[0, :2] * 2.0
        return y

    x = tc.tensor(x0, requires_grad=True)
    v = tc.tensor(v0, requires_grad=True)
    w = weights((3, 4))
    gx, gv = tc.autograd.grad((f(x, v) * w).sum(), [x, v])
    np.testing.assert_allclose(gx.numpy(), numgrad(lambda t: f(t, tc.tensor(v0)) * w, x))
    np.testing.assert_allclose(gv.numpy(), numgrad(lambda t: f(tc.tensor(x0), t) * w, v), atol=1e-6)


def test_double_backward_getitem():
    x = tc.tensor(np.arange(4.0), requires_grad=True)
    y = (
        (x[[0, 0, 3]] ** 2).sum()
        if hasattr(tc.Tensor, "__pow__")
        else (x[[0, 0, 3]] * x[[0, 0, 3]]).sum()
    )
    (g,) = tc.autograd.grad(y, [x], create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [0, 0, 0, 6])
    (gg,) = tc.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(gg.numpy(), [4, 0, 0, 2])


def test_inplace_leaf_error():
    x = tc.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x[0] = 1.0
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.index_put_((tc.tensor([0]),), tc.tensor(1.0))


import pytest  # noqa: E402
import tensorcore as tc  # noqa: E402


def check_scatter_reduce_backward(torch, self0, src0, idx0, gw, reduce, include_self):
    """scatter_reduce along dim 0 and its gradients (under the output weights gw) equal torch's."""
    grads = []
    for lib in (tc, torch):
        s = lib.tensor(self0, requires_grad=True)
        x = lib.tensor(src0, requires_grad=True)
        out = lib.scatter_reduce(s, 0, lib.tensor(idx0), x, reduce, include_self=include_self)
        (out * lib.tensor(gw)).sum().backward()
        grads.append((out.detach().numpy(), s.grad.numpy(), x.grad.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("include_self", [True])
def test_scatter_reduce_extremum_backward_matches_torch(torch_ref, reduce, include_self):
    # include_self=False differs on purpose: torch 1.13 still counts self's old value as a tie
    # (halving src gradients); here only included values share the gradient (see gradcheck).
    torch = torch_ref
    rng = np.random.default_rng(0)
    self0 = rng.integers(0, 4, (4, 5)).astype(np.float64)  # small integers: plenty of ties
    src0 = rng.integers(0, 4, (5, 5)).astype(np.float64)
    idx0 = rng.integers(0, 4, (5, 5))
    gw = rng.standard_normal((4, 5))
    check_scatter_reduce_backward(torch, self0, src0, idx0, gw, reduce, include_self)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_scatter_reduce_extremum_gradcheck_and_ties(reduce, include_self):
    rng = np.random.default_rng(1)
    s = tc.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    x = tc.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    idx = tc.tensor(rng.integers(0, 3, (5, 4)))
    f = lambda a, b: tc.scatter_reduce(a, 0, idx, b, reduce, include_self=include_self)  # noqa: E731
    assert tc.autograd.gradcheck(f, (s, x))
    # With ties every output's gradient is split among the tied values and sums to it.
    s2 = tc.tensor(np.ones((3, 4)), requires_grad=True)
    x2 = tc.tensor(np.ones((5, 4)), requires_grad=True)
    f(s2, x2).sum().backward()
    assert abs(s2.grad.sum().item() + x2.grad.sum().item() - 12.0) < 1e-12


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_backward_matches_torch_with_zeros(torch_ref, include_self):
    torch = torch_ref
    rng = np.random.default_rng(3)
    self0 = rng.choice([0.0, 0.5, -1.5, 2.0], (4, 5))  # zeros: none, one and several per group
    src0 = rng.choice([0.0, 0.5, -1.5, 2.0, 3.0], (6, 5))
    idx0 = rng.integers(0, 4, (6, 5))
    gw = rng.standard_normal((4, 5))
    check_scatter_reduce_backward(torch, self0, src0, idx0, gw, "prod", include_self)


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_gradcheck(include_self):
    rng = np.random.default_rng(4)
    s = tc.tensor(rng.uniform(0.5, 1.5, (3, 4)), requires_grad=True)
    x = tc.tensor(rng.uniform(0.5, 1.5, (5, 4)), requires_grad=True)
    idx = tc.tensor(rng.integers(0, 3, (5, 4)))
    assert tc.autograd.gradcheck(
        lambda a, b: tc.scatter_reduce(a, 0, idx, b, "prod", include_self=include_self), (s, x)
    )
