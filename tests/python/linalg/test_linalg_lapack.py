"""tensorcore.linalg against torch 1.13 and NumPy: values, batching, layouts, empty and
ill-conditioned inputs, error messages and info codes, double backward, gauge checks, and the
legacy torch.* forms. (Single-sample forward/gradcheck per function lives in the op table.)"""

import numpy as np
import pytest

import tensorcore as tc

LA = tc.linalg
DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if "complex" in dtype:
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def pd(a):
    return a @ np.swapaxes(a, -1, -2).conj() + a.shape[-1] * np.eye(a.shape[-1], dtype=a.dtype)


def T(a):
    return tc.from_numpy(np.ascontiguousarray(a))


def close(got, exp, dtype, scale=1.0):
    got = got.numpy() if isinstance(got, tc.Tensor) else got
    np.testing.assert_allclose(got, exp, rtol=TOL[dtype] * scale, atol=TOL[dtype] * scale)


# ---------------------------------------------------------------- against torch 1.13
@pytest.mark.parametrize("dtype", DTYPES)
def test_factorizations_match_torch(torch_ref, dtype):
    torch = torch_ref
    a = rand((3, 5, 5), dtype)
    h = pd(a)
    b = rand((3, 5, 2), dtype, 1)
    ta, th, tb = torch.from_numpy(a), torch.from_numpy(h), torch.from_numpy(b)
    A, H, B = T(a), T(h), T(b)
    close(LA.cholesky(H), torch.linalg.cholesky(th).numpy(), dtype)
    close(LA.cholesky(H, upper=True), torch.linalg.cholesky(th, upper=True).numpy(), dtype)
    close(LA.inv(A), torch.linalg.inv(ta).numpy(), dtype, 10)
    close(LA.solve(A, B), torch.linalg.solve(ta, tb).numpy(), dtype, 10)
    close(LA.det(A), torch.linalg.det(ta).numpy(), dtype, 10)
    s, l = LA.slogdet(A)
    ts, tl = torch.linalg.slogdet(ta)
    close(s, ts.numpy(), dtype)
    close(l, tl.numpy(), dtype)
    LU, piv = LA.lu_factor(A)
    tLU, tpiv = torch.linalg.lu_factor(ta)
    close(LU, tLU.numpy(), dtype, 10)
    np.testing.assert_array_equal(piv.numpy(), tpiv.numpy())
    for got, exp in zip(LA.lu(A), torch.linalg.lu(ta)):
        close(got, exp.numpy(), dtype, 10)
    close(LA.lu_solve(LU, piv, B), torch.linalg.lu_solve(tLU, tpiv, tb).numpy(), dtype, 10)
    for mode in ("reduced", "complete", "r"):
        for got, exp in zip(LA.qr(A[..., :3], mode), torch.linalg.qr(ta[..., :3], mode)):
            close(got, exp.numpy(), dtype, 10)
    w, V = LA.eigh(H)
    tw, tV = torch.linalg.eigh(th)
    close(w, tw.numpy(), dtype, 10)
    # vectors agree up to a phase per column: compare |V^H V_torch| = I
    ov = np.abs(np.swapaxes(V.numpy(), -1, -2).conj() @ tV.numpy())
    close(ov, np.broadcast_to(np.eye(5), ov.shape), dtype, 100)
    U, S, Vh = LA.svd(A[..., :4], full_matrices=False)
    tU, tS, tVh = torch.linalg.svd(ta[..., :4], full_matrices=False)
    close(S, tS.numpy(), dtype, 10)
    close((U * S.unsqueeze(-2).to(U.dtype)) @ Vh, a[..., :4], dtype, 100)
    close(LA.svdvals(A), torch.linalg.svdvals(ta).numpy(), dtype, 10)
    ev = LA.eigvals(A).numpy()
    tev = torch.linalg.eigvals(ta).numpy()
    close(np.sort_complex(ev.reshape(-1)), np.sort_complex(tev.reshape(-1)), dtype, 100)
    close(LA.pinv(A[..., :3]), torch.linalg.pinv(ta[..., :3]).numpy(), dtype, 100)
    close(LA.matrix_exp(A * 0.3), torch.linalg.matrix_exp(ta * 0.3).numpy(), dtype, 100)
    close(
        LA.householder_product(*tc.geqrf(A)),
        torch.linalg.householder_product(*torch.geqrf(ta)).numpy(),
        dtype,
        10,
    )
    np.testing.assert_array_equal(LA.matrix_rank(A).numpy(), torch.linalg.matrix_rank(ta).numpy())
    for ordv in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
        close(LA.matrix_norm(A, ordv), torch.linalg.matrix_norm(ta, ordv).numpy(), dtype, 10)
        close(LA.cond(A, ordv), torch.linalg.cond(ta, ordv).numpy(), dtype, 1e3)
    for ordv in (2, 1, 0, 3.5, float("inf"), float("-inf")):
        close(
            LA.vector_norm(A, ordv, dim=(-1,)),
            torch.linalg.vector_norm(ta, ordv, dim=-1).numpy(),
            dtype,
            10,
        )
    close(LA.norm(A), torch.linalg.norm(ta).numpy(), dtype, 10)


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_drivers_match_torch(torch_ref, driver):
    torch = torch_ref
    a, b = rand((2, 6, 3), "float64"), rand((2, 6, 2), "float64", 1)
    got = LA.lstsq(T(a), T(b), driver=driver)
    exp = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver=driver)
    close(got.solution, exp.solution.numpy(), "float64", 100)
    for name in ("residuals", "rank", "singular_values"):
        g, e = getattr(got, name), getattr(exp, name)
        assert tuple(g.shape) == tuple(e.shape), name
        if e.numel():
            close(g.double(), e.double().numpy(), "float64", 100)


def test_legacy_forms_match_torch(torch_ref):
    torch = torch_ref
    a = rand((2, 4, 4), "float64")
    h = pd(a)
    b = rand((2, 4, 3), "float64", 1)
    ta, th, tb = torch.from_numpy(a), torch.from_numpy(h), torch.from_numpy(b)
    A, H, B = T(a), T(h), T(b)
    for got, exp in zip(tc.svd(A), torch.svd(ta)):
        close(got.abs(), exp.abs().numpy(), "float64", 100)
    for got, exp in zip(tc.svd(A, compute_uv=False), torch.svd(ta, compute_uv=False)):
        close(got, exp.numpy(), "float64", 100)
    for got, exp in zip(tc.qr(A, some=False), torch.qr(ta, some=False)):
        close(got, exp.numpy(), "float64", 10)
    close(A.det(), ta.det().numpy(), "float64", 10)
    close(A.inverse(), ta.inverse().numpy(), "float64", 10)
    close(tc.logdet(H), torch.logdet(th).numpy(), "float64", 10)
    assert np.isnan(tc.logdet(T(-np.eye(3)[None].repeat(1, 0) * np.array([1, 1, 1.0]))).item())
    L = H.cholesky()
    close(L, th.cholesky().numpy(), "float64")
    close(tc.cholesky_solve(B, L), torch.cholesky_solve(tb, th.cholesky()).numpy(), "float64", 10)
    close(
        tc.cholesky_inverse(L[0]), torch.cholesky_inverse(th[0].cholesky()).numpy(), "float64", 10
    )
    LU, piv = tc.lu(A)
    tLU, tpiv = torch.lu(ta)
    close(tc.lu_solve(B, LU, piv), torch.lu_solve(tb, tLU, tpiv).numpy(), "float64", 10)
    for got, exp in zip(tc.lu_unpack(LU, piv), torch.lu_unpack(tLU, tpiv)):
        close(got, exp.numpy(), "float64", 10)
    _, _, info = tc.lu(A, get_infos=True)
    assert info.tolist() == [0, 0]
    for upper in (True, False):
        for transpose in (True, False):
            got = tc.triangular_solve(B, H, upper=upper, transpose=transpose)
            exp = torch.triangular_solve(tb, th, upper=upper, transpose=transpose)
            close(got.solution, exp.solution.numpy(), "float64", 100)
    w, V = tc.symeig(H, eigenvectors=True)
    close(w, torch.linalg.eigvalsh(th, UPLO="U").numpy(), "float64", 10)
    assert tc.symeig(H).eigenvectors.numel() == 0
    qa, tau = tc.geqrf(A)
    for left in (True, False):
        for tr in (True, False):
            close(
                tc.ormqr(qa, tau, B if left else B.transpose(-2, -1), left=left, transpose=tr),
                torch.ormqr(
                    *torch.geqrf(ta), tb if left else tb.transpose(-2, -1), left=left, transpose=tr
                ).numpy(),
                "float64",
                10,
            )
    close(tc.orgqr(qa, tau), torch.orgqr(*torch.geqrf(ta)).numpy(), "float64", 10)
    close(tc.pinverse(A), torch.pinverse(ta).numpy(), "float64", 100)
    close(A.matrix_power(3), ta.matrix_power(3).numpy(), "float64", 100)
    close(A.matrix_exp(), ta.matrix_exp().numpy(), "float64", 100)
    m = [A[0], A[1], A[0]]
    close(tc.chain_matmul(*m), torch.chain_matmul(ta[0], ta[1], ta[0]).numpy(), "float64", 10)
    x = T(np.array([1.0, 2.0, 3.0]))
    close(
        tc.vander(x),
        torch.vander(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).numpy(),
        "float64",
    )
    close(
        tc.vander(x, 4, True),
        torch.vander(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), 4, True).numpy(),
        "float64",
    )
    for name in ("eig", "lstsq", "matrix_rank"):
        with pytest.raises(RuntimeError, match="deprecated since version 1.9"):
            getattr(tc, name)(A[0], A[0]) if name == "lstsq" else getattr(tc, name)(A[0])


# ---------------------------------------------------------------- errors and info
def test_errors_match_torch(torch_ref):
    torch = torch_ref
    sing = np.stack([np.eye(3), np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])])
    with pytest.raises(LA.LinAlgError) as e:
        LA.inv(T(sing))
    with pytest.raises(torch.linalg.LinAlgError) as te:
        torch.linalg.inv(torch.from_numpy(sing))
    assert str(e.value) == str(te.value)
    assert isinstance(e.value, RuntimeError)
    notpd = np.stack([np.eye(3), -np.eye(3)])
    with pytest.raises(LA.LinAlgError) as e:
        LA.cholesky(T(notpd))
    with pytest.raises(torch.linalg.LinAlgError) as te:
        torch.linalg.cholesky(torch.from_numpy(notpd))
    assert str(e.value) == str(te.value)
    assert "(Batch element 1)" in str(e.value)
    with pytest.raises(LA.LinAlgError, match="leading minor of order 1"):
        LA.cholesky(T(-np.eye(2)))
    # _ex variants report torch's info codes instead of raising
    L, info = LA.cholesky_ex(T(notpd))
    assert info.tolist() == torch.linalg.cholesky_ex(torch.from_numpy(notpd)).info.tolist()
    _, info = LA.inv_ex(T(sing))
    assert info.tolist() == torch.linalg.inv_ex(torch.from_numpy(sing)).info.tolist()
    _, info = LA.solve_ex(T(sing), T(np.ones((2, 3, 1))))
    assert (
        info.tolist()
        == torch.linalg.solve_ex(
            torch.from_numpy(sing), torch.ones(2, 3, 1, dtype=torch.float64)
        ).info.tolist()
    )
    _, _, info = LA.lu_factor_ex(T(sing))
    assert info.tolist() == torch.linalg.lu_factor_ex(torch.from_numpy(sing)).info.tolist()
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.solve(T(sing), T(np.ones((2, 3, 1))))
    with pytest.raises(LA.LinAlgError, match="not positive-definite"):
        LA.cholesky_ex(T(notpd), check_errors=True)
    # singular matrices still have a determinant and a factorization
    assert LA.det(T(sing[1])).item() == 0.0
    s, l = LA.slogdet(T(sing[1]))
    assert s.item() == 0.0 and l.item() == -np.inf


def test_bad_arguments():
    with pytest.raises(
        TypeError, match="Expected a floating point or complex tensor as input. Got Long"
    ):
        LA.inv(tc.ones(2, 2, dtype=tc.int64))
    with pytest.raises(ValueError, match="must be batches of square matrices, but they are 2 by 3"):
        LA.det(tc.ones(2, 3))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        LA.cholesky(tc.ones(3))
    with pytest.raises(TypeError, match="same dtype"):
        LA.solve(tc.eye(2), tc.ones(2, 1, dtype=tc.float64))
    with pytest.raises(ValueError, match="Incompatible shapes"):
        LA.solve(tc.eye(3), tc.ones(2, 1))
    with pytest.raises(ValueError, match="unrecognized mode"):
        LA.qr(tc.eye(2), "full")
    with pytest.raises(ValueError, match="driver"):
        LA.lstsq(tc.eye(2), tc.eye(2), driver="bad")
    with pytest.raises(ValueError, match="UPLO"):
        LA.eigh(tc.eye(2), "X")
    with pytest.raises(NotImplementedError, match="without pivoting"):
        LA.lu_factor(tc.eye(2), pivot=False)


# ---------------------------------------------------------------- shapes and layouts
@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_empty_inputs(torch_ref, shape):
    torch = torch_ref
    a = np.zeros(shape)
    A, ta = T(a), torch.from_numpy(a)
    for fn in ("inv", "det", "cholesky", "svdvals", "eigvalsh", "matrix_exp"):
        got, exp = getattr(LA, fn)(A), getattr(torch.linalg, fn)(ta)
        assert tuple(got.shape) == tuple(exp.shape), fn
        np.testing.assert_allclose(got.numpy(), exp.numpy())
    U, S, Vh = LA.svd(A)
    tU, tS, tVh = torch.linalg.svd(ta)
    assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == (
        tuple(tU.shape),
        tuple(tS.shape),
        tuple(tVh.shape),
    )
    Q, R = LA.qr(A)
    tQ, tR = torch.linalg.qr(ta)
    assert (tuple(Q.shape), tuple(R.shape)) == (tuple(tQ.shape), tuple(tR.shape))


def test_broadcast_expanded_and_noncontiguous():
    a = rand((4, 4), "float64")
    b = rand((3, 4, 2), "float64", 1)
    A = T(a).unsqueeze(0).expand(3, 4, 4)  # stride-0 batch
    X = LA.solve(A, T(b))
    np.testing.assert_allclose(X.numpy(), np.linalg.solve(a, b), rtol=1e-10)
    X2 = LA.solve(T(a), T(b))  # batch broadcast of A
    np.testing.assert_allclose(X2.numpy(), X.numpy(), rtol=1e-12)
    big = T(rand((4, 8), "float64", 2))
    view = big[:, ::2]  # strided columns
    np.testing.assert_allclose(LA.inv(view).numpy(), np.linalg.inv(big.numpy()[:, ::2]), rtol=1e-10)
    np.testing.assert_allclose(
        LA.det(view.t()).numpy(), np.linalg.det(big.numpy()[:, ::2].T), rtol=1e-10
    )


def test_batched_parallel_equals_per_matrix():
    a = rand((37, 12, 12), "float64", 3)
    h = pd(a)
    H = T(h)
    L = LA.cholesky(H).numpy()
    w = LA.eigvalsh(H).numpy()
    s = LA.svdvals(T(a)).numpy()
    for i in range(a.shape[0]):
        np.testing.assert_allclose(L[i], np.linalg.cholesky(h[i]), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(w[i], np.linalg.eigvalsh(h[i]), rtol=1e-10)
        np.testing.assert_allclose(s[i], np.linalg.svd(a[i], compute_uv=False), rtol=1e-10)


def test_ill_conditioned():
    n = 9
    hilb = 1.0 / (np.arange(n)[:, None] + np.arange(n)[None, :] + 1)  # cond ~ 5e11
    x_true = np.ones((n, 1))
    b = hilb @ x_true
    x = LA.solve(T(hilb), T(b)).numpy()
    np.testing.assert_allclose(x, x_true, rtol=1e-3)  # forward error ~ cond * eps
    # backward-stable: the residual is tiny even though x is not accurate to full precision
    assert np.abs(hilb @ x - b).max() < 1e-13
    np.testing.assert_allclose(LA.cond(T(hilb)).item(), np.linalg.cond(hilb), rtol=1e-4)
    assert LA.matrix_rank(T(hilb)).item() == np.linalg.matrix_rank(hilb)
    # near-degenerate eigenvalues: values stay accurate
    d = np.diag([1.0, 1.0 + 1e-12, 2.0])
    q, _ = np.linalg.qr(rand((3, 3), "float64"))
    m = q @ d @ q.T
    np.testing.assert_allclose(LA.eigvalsh(T(m)).numpy(), [1.0, 1.0 + 1e-12, 2.0], atol=1e-14)
    # rank-deficient lstsq: gelsd gives the minimum-norm solution
    a = rand((6, 3), "float64")
    a[:, 2] = a[:, 0] + a[:, 1]
    b = rand((6, 2), "float64", 2)
    sol = LA.lstsq(T(a), T(b), driver="gelsd")
    np.testing.assert_allclose(
        sol.solution.numpy(), np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-8, atol=1e-10
    )
    assert sol.rank.item() == 2


# ---------------------------------------------------------------- autograd
def _leaf(a):
    return T(a).requires_grad_(True)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradgradcheck(dtype):
    a = rand((3, 3), dtype)
    h = pd(a)
    b = rand((3, 2), dtype, 1)
    A, H, B = _leaf(a), _leaf(h), _leaf(b)
    I3 = tc.eye(3, dtype=A.dtype) * 6
    gg = tc.autograd.gradgradcheck
    assert gg(lambda x: LA.cholesky(x @ x.mH + I3), (A,))
    assert gg(lambda x: LA.inv(x + I3), (A,))
    assert gg(lambda x, y: LA.solve(x + I3, y), (A, B))
    assert gg(lambda x: LA.det(x + I3).reshape(1), (A,))
    assert gg(lambda x: LA.slogdet(x + I3).logabsdet.reshape(1), (A,))
    assert gg(lambda x: LA.eigvalsh(x + x.mH), (A,))
    assert gg(lambda x: LA.svdvals(x), (A,))
    assert gg(lambda x: LA.qr(x).R, (A,))
    assert gg(lambda x: LA.lu(x).U, (A,))
    assert gg(lambda x: LA.solve_triangular(tc.triu(x) + I3, B.detach(), upper=True), (A,))
    assert gg(lambda x: LA.matrix_exp(x * 0.5), (A,))
    assert gg(lambda x: LA.pinv(x), (A,))
    del H


def test_eigh_svd_gauge_checks():
    a = rand((3, 3), "complex128")
    A = _leaf(a)
    w, V = LA.eigh(A + A.mH)
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        V[..., 0, 0].imag.backward()  # depends on the phase of the first eigenvector
    A.grad = None
    U, S, Vh = LA.svd(A)
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        U[0, 0].imag.backward()
    # gauge-invariant losses are fine: |V|^2 and U diag(S) Vh
    w, V = LA.eigh(A + A.mH)
    (V.abs() ** 2).sum().backward()
    assert tc.isfinite(A.grad).all().item()
    A.grad = None
    U, S, Vh = LA.svd(A, full_matrices=False)
    (U @ (S.to(U.dtype).unsqueeze(-1) * Vh)).real.sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), np.ones((3, 3)), atol=1e-10)


def test_eig_grad_matches_torch(torch_ref):
    torch = torch_ref
    a = rand((4, 4), "float64", 5)
    A = _leaf(a)
    tA = torch.from_numpy(a).requires_grad_(True)
    w, V = LA.eig(A)
    (w.real.sum() + (V.abs() ** 2 * tc.arange(4, dtype=tc.float64)).sum()).backward()
    tw, tV = torch.linalg.eig(tA)
    (tw.real.sum() + (tV.abs() ** 2 * torch.arange(4, dtype=torch.float64)).sum()).backward()
    np.testing.assert_allclose(A.grad.numpy(), tA.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl_matches_torch(torch_ref, dtype, hermitian):
    torch = torch_ref
    a = rand((2, 5, 5), dtype, 7)
    sym = a + (np.swapaxes(a, -1, -2).conj() if hermitian else np.swapaxes(a, -1, -2))
    b = rand((2, 5, 3), dtype, 8)
    LD, piv, info = LA.ldl_factor_ex(T(sym), hermitian=hermitian)
    tLD, tpiv, tinfo = torch.linalg.ldl_factor_ex(torch.from_numpy(sym), hermitian=hermitian)
    close(LD, tLD.numpy(), dtype, 10)
    np.testing.assert_array_equal(piv.numpy(), tpiv.numpy())
    assert info.tolist() == tinfo.tolist() == [0, 0]
    X = LA.ldl_solve(LD, piv, T(b), hermitian=hermitian)
    close(X, np.linalg.solve(sym, b), dtype, 100)


def _cofactor(m):
    n = m.shape[0]
    c = np.empty_like(m)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(m, i, 0), j, 1)
            c[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return c


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_det_gradient_at_singular_matrices(dtype):
    # d det / dA is the cofactor matrix, also where A is singular (rank n-1 here). torch 1.13
    # returns zeros for this input; the SVD route used here gives the true gradient.
    sing = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=dtype)
    if dtype == "complex128":
        sing = sing * (1 + 0.5j)
    batch = np.stack([sing, rand((3, 3), dtype, 3)])  # one singular, one regular matrix
    A = T(batch).requires_grad_(True)
    w = np.array([1.0, 2.0], dtype=dtype)
    (LA.det(A) * T(w)).sum().real.backward()
    expected = np.stack([np.conj(_cofactor(m)) * wi for m, wi in zip(batch, w)])
    np.testing.assert_allclose(A.grad.numpy(), expected, rtol=1e-8, atol=1e-10)
    assert tc.autograd.gradcheck(lambda x: LA.det(x), (T(sing).requires_grad_(True),))


@pytest.mark.parametrize("dtype", DTYPES)
def test_inv_through_triangular_inverse(dtype):
    # inv inverts getrf's L in place and solves with U, then undoes the row interchanges as
    # column swaps: matrices that need many interchanges (reversed rows, a zero leading entry)
    # and a batch that runs in parallel must give NumPy's inverse and A @ inv(A) = I.
    n = 9
    a = rand((5, n, n), dtype, 11)
    a[0] = a[0][::-1]  # every pivot step swaps
    a[1, 0, 0] = 0
    a[2] = np.triu(a[2]) + n * np.eye(n)  # no interchange at all
    got = LA.inv(T(a)).numpy()
    close(got, np.linalg.inv(a), dtype, scale=10)
    close(a @ got, np.broadcast_to(np.eye(n, dtype=dtype), a.shape), dtype, scale=10)
    big = rand((300, 300), dtype, 12)  # one matrix: OpenBLAS's own threads, blocked kernels
    close(LA.inv(T(big)).numpy(), np.linalg.inv(big), dtype, scale=1e3)
