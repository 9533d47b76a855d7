"""cat/stack/split/chunk/unbind/flip/roll/repeat/tile/movedim/diagonal/diag/tril/triu/unflatten
against NumPy, view semantics, gradients by finite differences, error messages."""

import numpy as np
import pytest

import tensorcore as tc
from finite_diff import numgrad

rng = np.random.default_rng(0)
A = rng.standard_normal((2, 3, 4))
B = rng.standard_normal((2, 5, 4))


def T(a):
    return tc.tensor(a)


def test_cat_stack():
    np.testing.assert_array_equal(tc.cat([T(A), T(B)], 1).numpy(), np.concatenate([A, B], 1))
    np.testing.assert_array_equal(tc.cat((T(A), T(A)), -1).numpy(), np.concatenate([A, A], -1))
    np.testing.assert_array_equal(tc.concat([T(A), T(A)]).numpy(), np.concatenate([A, A]))
    np.testing.assert_array_equal(tc.stack([T(A), T(A)], 1).numpy(), np.stack([A, A], 1))
    np.testing.assert_array_equal(tc.stack([T(A), T(A)], -1).numpy(), np.stack([A, A], -1))
    np.testing.assert_array_equal(tc.hstack([T(A), T(A)]).numpy(), np.hstack([A, A]))
    np.testing.assert_array_equal(
        tc.vstack([T(A[0, 0]), T(A[0, 1])]).numpy(), np.vstack([A[0, 0], A[0, 1]])
    )


def test_cat_promotion_and_empty():
    r = tc.cat([tc.tensor([1, 2]), tc.tensor([0.5], dtype=tc.float64)])
    assert r.dtype == tc.float64
    np.testing.assert_array_equal(r.numpy(), [1, 2, 0.5])
    r = tc.cat([tc.tensor([True]), tc.tensor([3], dtype=tc.int16)])
    assert r.dtype == tc.int16
    e = tc.cat([tc.zeros(0), T(A)], 1)  # legacy: 1-d empty tensors are skipped
    np.testing.assert_array_equal(e.numpy(), A)
    assert tc.cat([tc.zeros(0), tc.zeros(0)]).shape == (0,)


def test_cat_errors():
    with pytest.raises(
        ValueError,
        match="Sizes of tensors must match except in dimension 0. Expected size 3 but got size 5",
    ):
        tc.cat([T(A), T(B)], 0)
    with pytest.raises(ValueError, match="zero-dimensional tensor"):
        tc.cat([tc.scalar_tensor(1.0)])
    with pytest.raises(ValueError, match="stack expects each tensor to be equal size"):
        tc.stack([T(A), T(B)])
    with pytest.raises(ValueError, match="same number of dimensions"):
        tc.cat([T(A), T(A[0])])


def test_split_chunk_unbind_views():
    x = T(np.arange(10.0))
    parts = x.split(3)
    assert isinstance(parts, tuple) and [p.shape[0] for p in parts] == [3, 3, 3, 1]
    parts = tc.split(x, [2, 8])
    np.testing.assert_array_equal(parts[1].numpy(), np.arange(2.0, 10.0))
    parts[0].fill_(-1.0)
    assert x.numpy()[:2].tolist() == [-1.0, -1.0]
    with pytest.raises(
        ValueError, match="split_with_sizes expects split_sizes to sum exactly to 10"
    ):
        x.split([3, 3])
    c = T(A).chunk(2, dim=2)
    assert len(c) == 2
    np.testing.assert_array_equal(c[1].numpy(), A[:, :, 2:])
    assert len(tc.chunk(T(np.arange(5.0)), 3)) == 3  # sizes 2, 2, 1
    assert len(tc.chunk(T(np.arange(6.0)), 4)) == 3  # torch: sizes 2, 2, 2
    u = T(A).unbind(1)
    assert len(u) == 3
    np.testing.assert_array_equal(u[2].numpy(), A[:, 2])


def test_flip_roll():
    np.testing.assert_array_equal(T(A).flip(0).numpy(), np.flip(A, 0))
    np.testing.assert_array_equal(T(A).flip(0, 2).numpy(), np.flip(A, (0, 2)))
    np.testing.assert_array_equal(tc.flip(T(A), (-1,)).numpy(), np.flip(A, -1))
    np.testing.assert_array_equal(tc.fliplr(T(A)).numpy(), np.fliplr(A))
    np.testing.assert_array_equal(tc.flipud(T(A)).numpy(), np.flipud(A))
    np.testing.assert_array_equal(
        T(A).transpose(0, 2).flip(1).numpy(), np.flip(A.transpose(2, 1, 0), 1)
    )
    np.testing.assert_array_equal(T(A).roll(1, 1).numpy(), np.roll(A, 1, 1))
    np.testing.assert_array_equal(T(A).roll(-5, 2).numpy(), np.roll(A, -5, 2))
    np.testing.assert_array_equal(tc.roll(T(A), 7).numpy(), np.roll(A, 7))
    np.testing.assert_array_equal(
        tc.roll(T(A), (1, -2), (0, 2)).numpy(), np.roll(A, (1, -2), (0, 2))
    )


def test_repeat_tile_movedim():
    a = A[:, :, :2]
    np.testing.assert_array_equal(T(a).repeat(2, 1, 3).numpy(), np.tile(a, (2, 1, 3)))
    np.testing.assert_array_equal(T(a).repeat(2, 2, 1, 3).numpy(), np.tile(a, (2, 2, 1, 3)))
    np.testing.assert_array_equal(T(a).tile((2,)).numpy(), np.tile(a, 2))
    np.testing.assert_array_equal(tc.tile(T(a), (2, 1, 1, 1)).numpy(), np.tile(a, (2, 1, 1, 1)))
    with pytest.raises(ValueError, match="Number of dimensions of repeat dims"):
        T(a).repeat(2)
    np.testing.assert_array_equal(T(A).movedim(0, -1).numpy(), np.moveaxis(A, 0, -1))
    np.testing.assert_array_equal(
        tc.moveaxis(T(A), (0, 1), (2, 0)).numpy(), np.moveaxis(A, (0, 1), (2, 0))
    )


@pytest.mark.parametrize(
    "offset,d1,d2", [(0, 0, 1), (1, 0, 1), (-1, 0, 1), (2, 1, 2), (0, -1, 0), (5, 0, 1)]
)
def test_diagonal_view(offset, d1, d2):
    x = T(A)
    d = x.diagonal(offset, d1, d2)
    np.testing.assert_array_equal(d.numpy(), np.diagonal(A, offset, d1, d2))
    if d.numel():
        d.fill_(100.0)
        assert (np.diagonal(x.numpy(), offset, d1, d2) == 100.0).all()


def test_diag_tril_triu_unflatten_squeeze():
    m = rng.standard_normal((4, 5))
    for k in [-2, 0, 1, 7]:
        np.testing.assert_array_equal(T(m).diag(k).numpy(), np.diag(m, k))
        np.testing.assert_array_equal(tc.diag(T(m[0]), k).numpy(), np.diag(m[0], k))
        np.testing.assert_array_equal(T(A).tril(k).numpy(), np.tril(A, k))
        np.testing.assert_array_equal(T(A).triu(k).numpy(), np.triu(A, k))
    x = T(np.array([[np.nan, 1.0], [2.0, 3.0]]))
    assert x.triu().numpy()[1, 0] == 0.0  # not NaN * 0
    for dt in [tc.int32, tc.bool, tc.float16]:
        np.testing.assert_array_equal(
            T(m).to(dt).tril(-1).float().numpy(), np.tril(T(m).to(dt).float().numpy(), -1)
        )
    np.testing.assert_array_equal(T(A).unflatten(2, (2, -1)).numpy(), A.reshape(2, 3, 2, 2))
    y = tc.zeros(1, 3, 1, 2)
    assert y.squeeze((0, 2)).shape == (3, 2)
    assert tc.squeeze(y, (0, 1)).shape == (3, 1, 2)
    assert y.squeeze(2).shape == (1, 3, 2) and y.squeeze().shape == (3, 2)


@pytest.mark.parametrize(
    "name,f,shape",
    [
        ("cat", lambda x: tc.cat([x, x[:, :1] * 2.0], 1), (2, 3)),
        ("stack", lambda x: tc.stack([x, x], 2), (2, 3)),
        ("split", lambda x: x.split([1, 2], 1)[1], (2, 3)),
        ("chunk", lambda x: x.chunk(2, 0)[1], (3, 2)),
        ("unbind", lambda x: x.unbind(1)[2], (2, 3)),
        ("flip", lambda x: x.flip(0, 1), (2, 3)),
        ("roll", lambda x: x.roll((1, 2), (0, 1)), (2, 3)),
        ("roll_flat", lambda x: x.roll(4), (2, 3)),
        ("repeat", lambda x: x.repeat(2, 1, 3), (2, 3)),
        ("tile", lambda x: x.tile((2,)), (2, 3)),
        ("movedim", lambda x: x.movedim(0, 2), (2, 3, 2)),
        ("diagonal", lambda x: x.diagonal(1), (3, 4)),
        ("diag_1d", lambda x: tc.diag(x, -1), (3,)),
        ("diag_2d", lambda x: tc.diag(x, 1), (3, 4)),
        ("tril", lambda x: x.tril(), (3, 4)),
        ("triu", lambda x: x.triu(1), (3, 4)),
        ("unflatten", lambda x: x.unflatten(1, (2, 2)), (2, 4)),
    ],
)
def test_gradients(name, f, shape):
    x0 = rng.standard_normal(shape)
    x = tc.tensor(x0, requires_grad=True)
    out = f(x)
    w = tc.tensor(np.random.default_rng(5).standard_normal(tuple(out.shape)))
    (g,) = tc.autograd.grad((out * w).sum(), [x])
    np.testing.assert_allclose(g.numpy(), numgrad(lambda t: f(t) * w, x0), atol=1e-6)


def test_cat_grad_promoted_inputs():
    a = tc.tensor([1.0, 2.0], dtype=tc.float32, requires_grad=True)
    b = tc.tensor([3.0], dtype=tc.float64, requires_grad=True)
    ga, gb = tc.autograd.grad(
        (tc.cat([a, b]) * tc.tensor([1.0, 2.0, 3.0], dtype=tc.float64)).sum(), [a, b]
    )
    assert ga.dtype == tc.float32 and ga.tolist() == [1.0, 2.0] and gb.tolist() == [3.0]
