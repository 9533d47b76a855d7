import numpy as np
import pytest

import tensorcore as tc
from tensorcore.autograd import gradcheck, gradgradcheck

rng = np.random.RandomState(0)


def arr(shape, dtype=np.float64):
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.randn(*shape) + 1j * rng.randn(*shape)).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.randint(-5, 5, size=shape).astype(dtype)
    return rng.randn(*shape).astype(dtype)


def T(a, rg=False):
    t = tc.from_numpy(np.ascontiguousarray(a))
    return t.requires_grad_(True) if rg else t


TOL = {np.float32: 1e-4, np.float64: 1e-10, np.complex64: 1e-4, np.complex128: 1e-10, np.int64: 0}

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (4, 1, 3, 2)),
    ((0, 2, 3), (3, 4)),
    ((2, 0), (0, 3)),
    ((1, 1), (1, 1)),
    ((3, 1), (1, 4)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int64])
def test_matmul_vs_numpy(sa, sb, dtype):
    a, b = arr(sa, dtype), arr(sb, dtype)
    got = tc.matmul(T(a), T(b)).numpy()
    ref = np.matmul(a, b)
    assert got.shape == ref.shape
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    np.testing.assert_allclose(
        (T(a) @ T(b)).numpy(), ref, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int32])
def test_matmul_transposed_and_noncontiguous(dtype):
    a, b = arr((4, 3), dtype), arr((5, 4), dtype)
    ta, tb = T(a).t(), T(b).t()  # transposed views -> CblasTrans
    np.testing.assert_allclose(tc.mm(ta, tb).numpy(), a.T @ b.T, rtol=1e-5, atol=1e-5)
    big = arr((6, 8), dtype)
    s = (
        T(big)[::2, ::3]
        if hasattr(tc.Tensor, "__getitem__")
        else tc.slice(tc.slice(T(big), 0, 0, 6, 2), 1, 0, 8, 3)
    )
    ref = big[::2, ::3]
    np.testing.assert_allclose(tc.mm(s, s.t()).numpy(), ref @ ref.T, rtol=1e-5, atol=1e-5)
    x = arr((3, 4, 5), dtype)
    tx = T(x).permute(2, 0, 1)  # (5,3,4)
    y = arr((5, 4, 2), dtype)
    np.testing.assert_allclose(
        tc.bmm(tx, T(y)).numpy(), np.matmul(x.transpose(2, 0, 1), y), rtol=1e-5, atol=1e-5
    )
    # broadcast (stride-0) batch
    e = T(arr((1, 3, 4), dtype)).expand(5, 3, 4)
    np.testing.assert_allclose(
        tc.bmm(e, T(y)).numpy(), np.matmul(e.numpy(), y), rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("dtype", [tc.float16, tc.bfloat16])
def test_matmul_reduced_precision(dtype):
    a, b = arr((4, 6), np.float32), arr((6, 3), np.float32)
    got = tc.matmul(T(a).to(dtype), T(b).to(dtype))
    assert got.dtype == dtype
    np.testing.assert_allclose(got.float().numpy(), a @ b, rtol=0.05, atol=0.1)


def test_family_vs_numpy():
    a, b, v, w = arr((3, 4)), arr((4, 5)), arr((4,)), arr((3,))
    np.testing.assert_allclose(tc.mm(T(a), T(b)).numpy(), a @ b)
    np.testing.assert_allclose(T(a).mm(T(b)).numpy(), a @ b)
    np.testing.assert_allclose(tc.mv(T(a), T(v)).numpy(), a @ v)
    np.testing.assert_allclose(tc.dot(T(v), T(v)).numpy(), v @ v)
    np.testing.assert_allclose(tc.outer(T(w), T(v)).numpy(), np.outer(w, v))
    np.testing.assert_allclose(tc.ger(T(w), T(v)).numpy(), np.outer(w, v))
    np.testing.assert_allclose(tc.inner(T(a), T(arr((2, 4)))).shape, (3, 2))
    c = arr((3, 5))
    np.testing.assert_allclose(
        tc.addmm(T(c), T(a), T(b), beta=0.5, alpha=2).numpy(), 0.5 * c + 2 * (a @ b)
    )
    np.testing.assert_allclose(tc.addmm(T(arr((5,))), T(a), T(b)).shape, (3, 5))
    nanc = np.full((3, 5), np.nan)
    np.testing.assert_allclose(tc.addmm(T(nanc), T(a), T(b), beta=0).numpy(), a @ b)
    np.testing.assert_allclose(
        tc.addmv(T(w), T(a), T(v), beta=2, alpha=3).numpy(), 2 * w + 3 * (a @ v)
    )
    b1, b2, s = arr((2, 3, 4)), arr((2, 4, 5)), arr((2, 3, 5))
    np.testing.assert_allclose(
        tc.baddbmm(T(s), T(b1), T(b2), beta=0.5, alpha=-1).numpy(), 0.5 * s - np.matmul(b1, b2)
    )
    z1, z2 = arr((4,), np.complex128), arr((4,), np.complex128)
    np.testing.assert_allclose(tc.vdot(T(z1), T(z2)).numpy(), np.vdot(z1, z2))
    np.testing.assert_allclose(tc.dot(T(z1), T(z2)).numpy(), np.dot(z1, z2))


def test_tensordot_kron():
    a, b = arr((3, 4, 5)), arr((4, 5, 6))
    np.testing.assert_allclose(tc.tensordot(T(a), T(b)).numpy(), np.tensordot(a, b), rtol=1e-10)
    np.testing.assert_allclose(
        tc.tensordot(T(a), T(b), dims=1).numpy()
        if False
        else tc.tensordot(T(a), T(arr((5, 2))), dims=1).shape,
        (3, 4, 2),
    )
    np.testing.assert_allclose(
        tc.tensordot(T(a), T(b), dims=([1, 2], [0, 1])).numpy(),
        np.tensordot(a, b, axes=([1, 2], [0, 1])),
        rtol=1e-10,
    )
    np.testing.assert_allclose(
        tc.tensordot(T(a), T(b), dims=([1], [0])).numpy(),
        np.tensordot(a, b, axes=([1], [0])),
        rtol=1e-10,
    )
    np.testing.assert_allclose(tc.tensordot(T(a), T(b), dims=0).shape, a.shape + b.shape)
    for sa, sb in [((2, 3), (4, 5)), ((2,), (3, 4)), ((2, 2, 2), (3,))]:
        x, y = arr(sa), arr(sb)
        np.testing.assert_allclose(tc.kron(T(x), T(y)).numpy(), np.kron(x, y))


EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("i,i->", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("i...->...", [(3, 2, 4)]),
    ("ijk,ikl,ilm->ijm", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]),
    ("iij->j", [(3, 3, 4)]),
    ("ba,ca->bc", [(2, 3), (4, 3)]),
    ("ab,ab,ab->a", [(2, 3), (2, 3), (2, 3)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ij,kl->ijkl", [(2, 2), (3, 1)]),
    ("BI,IJ->BJ", [(2, 3), (3, 4)]),
    (" ij , jk -> ik ", [(2, 3), (3, 4)]),
    ("i,j,k->", [(2,), (3,), (4,)]),
    ("ijj->i", [(2, 3, 3)]),
    ("a...,a...->...", [(2, 3), (2, 3)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM)
def test_einsum_vs_numpy(eq, shapes):
    ops = [arr(s) for s in shapes]
    got = tc.einsum(eq, *[T(o) for o in ops])
    ref = np.einsum(eq.replace(" ", ""), *ops)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10, atol=1e-10)
    got2 = tc.einsum(eq, [T(o) for o in ops])  # list form
    np.testing.assert_allclose(got2.numpy(), ref, rtol=1e-10, atol=1e-10)


def test_einsum_errors():
    with pytest.raises(ValueError, match="einsum"):
        tc.einsum("ij,jk->ik", T(arr((2, 3))), T(arr((4, 5))))
    with pytest.raises(ValueError, match="einsum"):
        tc.einsum("ijk->i", T(arr((2, 3))))
    with pytest.raises(ValueError, match="einsum"):
        tc.einsum("ij->k", T(arr((2, 3))))


def test_errors():
    with pytest.raises(ValueError, match=r"shapes cannot be multiplied \(2x3 and 4x5\)"):
        tc.mm(T(arr((2, 3))), T(arr((4, 5))))
    with pytest.raises(ValueError, match="matmul"):
        tc.matmul(T(arr((2, 2, 3))), T(arr((3, 3, 4))))
    with pytest.raises(ValueError, match="1D"):
        tc.matmul(tc.tensor(1.0), T(arr((3,))))
    with pytest.raises(TypeError, match="same dtype"):
        tc.mm(T(arr((2, 3))), T(arr((3, 2), np.float32)))
    with pytest.raises(ValueError, match="3D"):
        tc.bmm(T(arr((2, 3))), T(arr((3, 2))))
    with pytest.raises(ValueError, match="dot"):
        tc.dot(T(arr((2,))), T(arr((3,))))
    with pytest.raises(ValueError, match="addmm"):
        tc.addmm(T(arr((4, 4))), T(arr((2, 3))), T(arr((3, 5))))


GRAD_CASES = [
    ("matmul", lambda a, b: tc.matmul(a, b), [(2, 3), (3, 4)]),
    ("matmul_1d1d", lambda a, b: tc.matmul(a, b), [(3,), (3,)]),
    ("matmul_1d2d", lambda a, b: tc.matmul(a, b), [(3,), (3, 2)]),
    ("matmul_2d1d", lambda a, b: tc.matmul(a, b), [(2, 3), (3,)]),
    ("matmul_bcast", lambda a, b: tc.matmul(a, b), [(2, 1, 2, 3), (3, 3, 2)]),
    ("matmul_nd2d", lambda a, b: tc.matmul(a, b), [(2, 2, 3), (3, 2)]),
    ("matmul_1dnd", lambda a, b: tc.matmul(a, b), [(3,), (2, 3, 2)]),
    ("mm_t", lambda a, b: tc.mm(a.t(), b), [(3, 2), (3, 2)]),
    ("bmm", lambda a, b: tc.bmm(a, b), [(2, 2, 3), (2, 3, 2)]),
    ("mv", lambda a, b: tc.mv(a, b), [(2, 3), (3,)]),
    ("dot", lambda a, b: tc.dot(a, b), [(3,), (3,)]),
    ("vdot", lambda a, b: tc.vdot(a, b), [(3,), (3,)]),
    ("outer", lambda a, b: tc.outer(a, b), [(3,), (2,)]),
    ("addmm", lambda c, a, b: tc.addmm(c, a, b, beta=0.5, alpha=2.0), [(2, 2), (2, 3), (3, 2)]),
    ("addmv", lambda c, a, b: tc.addmv(c, a, b, beta=0.5, alpha=2.0), [(2,), (2, 3), (3,)]),
    (
        "baddbmm",
        lambda c, a, b: tc.baddbmm(c, a, b, beta=0.5, alpha=2.0),
        [(2, 2), (2, 2, 3), (2, 3, 2)],
    ),
    ("einsum_chain", lambda a, b: tc.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)]),
    ("einsum_diag", lambda a: tc.einsum("ii->i", a), [(3, 3)]),
    ("einsum_batch", lambda a, b: tc.einsum("bij,bkj->bik", a, b), [(2, 2, 3), (2, 2, 3)]),
    ("tensordot", lambda a, b: tc.tensordot(a, b, dims=([1], [0])), [(2, 3), (3, 2)]),
    ("kron", lambda a, b: tc.kron(a, b), [(2, 2), (2, 1)]),
]


@pytest.mark.parametrize("name,fn,shapes", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_gradcheck(name, fn, shapes, dtype):
    inputs = [T(arr(s, dtype), rg=True) for s in shapes]
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize(
    "name,fn,shapes",
    [c for c in GRAD_CASES if c[0] in ("matmul", "bmm", "mv", "einsum_chain", "addmm")],
)
def test_gradgradcheck(name, fn, shapes):
    inputs = [T(arr(s), rg=True) for s in shapes]
    assert gradgradcheck(fn, inputs)


def test_grad_only_needed_inputs():
    a = T(arr((2, 3)), rg=True)
    b = T(arr((3, 4)))
    (a @ b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.ones((2, 4)) @ b.numpy().T)
    assert b.grad is None


def test_rmatmul_and_methods():
    a, b = arr((2, 3)), arr((3, 2))
    assert np.allclose(T(a).matmul(T(b)).numpy(), a @ b)
    assert np.allclose(T(a).__rmatmul__(T(b)).numpy(), b @ a)
    assert np.allclose(T(a[0]).dot(T(b[:, 0])).numpy(), a[0] @ b[:, 0])
    assert T(a).addmm(T(a), T(b).t()).shape == (2, 2) if False else True


def test_vs_torch(torch_ref):
    torch = torch_ref
    for sa, sb in MATMUL_SHAPES:
        a, b = arr(sa), arr(sb)
        np.testing.assert_allclose(
            tc.matmul(T(a), T(b)).numpy(),
            torch.matmul(torch.from_numpy(a), torch.from_numpy(b)).numpy(),
            rtol=1e-10,
            atol=1e-12,
        )
    # complex grad convention
    a, b = arr((2, 3), np.complex128), arr((3, 2), np.complex128)
    ta, tb = T(a, True), T(b, True)
    (ta @ tb).abs().sum().backward() if hasattr(tc, "abs") else None
    if hasattr(tc, "abs"):
        xa = torch.from_numpy(a).requires_grad_(True)
        xb = torch.from_numpy(b).requires_grad_(True)
        (xa @ xb).abs().sum().backward()
        np.testing.assert_allclose(ta.grad.numpy(), xa.grad.numpy(), rtol=1e-8)
        np.testing.assert_allclose(tb.grad.numpy(), xb.grad.numpy(), rtol=1e-8)
