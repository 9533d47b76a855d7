"""torch 1.13's legacy linear-algebra functions and Tensor methods (torch.svd, torch.qr,
torch.lu, torch.symeig, torch.triangular_solve, ...), expressed through tensorcore.linalg and
installed on the top-level module and on Tensor by install()."""

from collections import namedtuple as _nt

from .. import _C
from .._C import Tensor
from .._C import _linalg as _impl
from . import (
    cholesky as _lcholesky,
    householder_product as _householder,
    inv as _inv,
    lu_factor_ex as _lu_factor_ex,
    lu_solve as _lu_solve,
    matrix_exp as _matrix_exp,
    matrix_power as _matrix_power,
    multi_dot as _multi_dot,
    pinv as _pinv,
    qr as _lqr,
    solve_triangular as _solve_triangular,
    svd as _lsvd,
)
from . import eigh as _eigh, eigvalsh as _eigvalsh, slogdet as _lslogdet

_Svd = _nt("svd", ("U", "S", "V"))
_Qr = _nt("qr", ("Q", "R"))
_Slogdet = _nt("slogdet", ("sign", "logabsdet"))
_Symeig = _nt("symeig", ("eigenvalues", "eigenvectors"))
_TriSolve = _nt("triangular_solve", ("solution", "cloned_coefficient"))
_Geqrf = _nt("geqrf", ("a", "tau"))
_LuUnpack = _nt("lu_unpack", ("P", "L", "U"))


def det(input):
    return _impl.det(input)


def logdet(input):
    return _impl.logdet(input)


def slogdet(input):
    return _Slogdet(*_lslogdet(input))


def inverse(input):
    return _inv(input)


def cholesky(input, upper=False):
    return _lcholesky(input, upper=upper)


def cholesky_solve(input, input2, upper=False):
    return _impl.cholesky_solve(input, input2, upper)


def cholesky_inverse(input, upper=False):
    return _impl.cholesky_inverse(input, upper)


def svd(input, some=True, compute_uv=True):
    if not compute_uv:
        S = _impl.svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = list(input.shape[:-2])
        U = _C.zeros(batch + [m, m], dtype=input.dtype, device=input.device)
        V = _C.zeros(batch + [n, n], dtype=input.dtype, device=input.device)
        return _Svd(U, S, V)
    U, S, Vh = _lsvd(input, full_matrices=not some)
    V = Vh.transpose(-2, -1)
    if V.dtype.is_complex:
        V = V.conj()
    return _Svd(U, S, V)


def qr(input, some=True):
    return _Qr(*_lqr(input, "reduced" if some else "complete"))


def symeig(input, eigenvectors=False, upper=True):
    uplo = "U" if upper else "L"
    if eigenvectors:
        return _Symeig(*_eigh(input, uplo))
    w = _eigvalsh(input, uplo)
    return _Symeig(w, _C.empty([0], dtype=input.dtype, device=input.device))


def lu(A, pivot=True, get_infos=False):
    LU, piv, info = _lu_factor_ex(A, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


def lu_solve(input, LU_data, LU_pivots):
    return _lu_solve(LU_data, LU_pivots, input)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    P, L, U = _impl.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)
    empty = _C.empty([0], dtype=LU_data.dtype, device=LU_data.device)
    return _LuUnpack(
        P if P is not None else empty, L if L is not None else empty, U if U is not None else empty
    )


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    M = A.transpose(-2, -1) if transpose else A
    up = (not upper) if transpose else upper
    X = _solve_triangular(M, input, upper=up, unitriangular=unitriangular)
    return _TriSolve(X, A.clone())


def matrix_exp(input):
    return _matrix_exp(input)


def matrix_power(input, n):
    return _matrix_power(input, n)


def pinverse(input, rcond=1e-15):
    return _pinv(input, rtol=rcond)


def geqrf(input):
    return _Geqrf(*_impl.geqrf(input))


def orgqr(input, tau):
    return _householder(input, tau)


def ormqr(input, tau, other, left=True, transpose=False):
    """Multiplies `other` by the full Q of a geqrf result (Q^H with transpose=True)."""
    if (
        not isinstance(input, Tensor)
        or not isinstance(tau, Tensor)
        or not isinstance(other, Tensor)
    ):
        raise TypeError("ormqr(): input, tau and other must be Tensors")
    m, n = input.shape[-2], input.shape[-1]
    expected = m if left else other.shape[-1]
    if other.shape[-2 if left else -1] != m or expected != m:
        raise RuntimeError(
            f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to input.shape[-2]"
        )
    if n < m:
        pad = _C.zeros(list(input.shape[:-1]) + [m - n], dtype=input.dtype, device=input.device)
        input = _C.cat([input, pad], -1)
    elif n > m:
        input = input[..., :m]
    Q = _householder(input, tau)
    if transpose:
        Q = Q.transpose(-2, -1)
        if Q.dtype.is_complex:
            Q = Q.conj()
    return _C.matmul(Q, other) if left else _C.matmul(other, Q)


def chain_matmul(*matrices, out=None):
    if len(matrices) == 1:
        return matrices[0].clone()
    return _multi_dot(matrices, out=out)


def vander(x, N=None, increasing=False):
    from . import vander as _lvander

    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    v = _lvander(x, N)
    return v if increasing else v.flip([-1])


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum_b batch1[b] @ batch2[b] (beta == 0 ignores input, as torch)."""
    if not isinstance(batch1, Tensor) or batch1.dim() != 3:
        raise RuntimeError("addbmm: batch1 must be a 3D tensor")
    if not isinstance(batch2, Tensor) or batch2.dim() != 3:
        raise RuntimeError("addbmm: batch2 must be a 3D tensor")
    prod = _C.bmm(batch1, batch2).sum(0)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        from .._extra_ops import broadcast_shapes

        return prod.expand(list(broadcast_shapes(tuple(input.shape), tuple(prod.shape)))).clone()
    return input * beta + prod if beta != 1 else input + prod


def _inplace_from(fn, name):
    def method(self, *args, **kwargs):
        result = fn(self, *args, **kwargs)
        self.copy_(result)
        return self

    method.__name__ = name
    method.__doc__ = f"In-place {name[:-1]}: writes the result into self."
    return method


def _removed(name, replacement):
    def fn(*args, **kwargs):
        raise RuntimeError(
            "This function was deprecated since version 1.9 and is now removed. "
            f"Please use the `{replacement}` function instead."
        )

    fn.__name__ = name
    return fn


eig = _removed("eig", "torch.linalg.eig")
solve = _removed("solve", "torch.linalg.solve")
lstsq = _removed("lstsq", "torch.linalg.lstsq")
matrix_rank = _removed("matrix_rank", "torch.linalg.matrix_rank")

_FUNCTIONS = [
    det,
    logdet,
    slogdet,
    inverse,
    cholesky,
    cholesky_solve,
    cholesky_inverse,
    svd,
    qr,
    symeig,
    lu,
    lu_solve,
    lu_unpack,
    triangular_solve,
    matrix_exp,
    matrix_power,
    pinverse,
    geqrf,
    orgqr,
    ormqr,
    chain_matmul,
    vander,
    eig,
    lstsq,
    matrix_rank,
    solve,
    addbmm,
]
# torch.* names that are not Tensor methods.
_NOT_METHODS = {"lu_unpack", "chain_matmul", "vander", "matrix_rank"}


def _mH(self):
    t = self.transpose(-2, -1)
    return t.conj() if t.dtype.is_complex else t


def _H(self):
    if self.dim() != 2:
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor."
        )
    return _mH(self)


def install(namespace):
    from .._argcheck import harden

    table = {fn.__name__: fn for fn in _FUNCTIONS}
    harden(table, "tensorcore")
    _FUNCTIONS[:] = list(table.values())
    if not hasattr(Tensor, "mH"):
        Tensor.mH = property(
            _mH, doc="Conjugate transpose of the last two dimensions (torch 1.13)."
        )
    if not hasattr(Tensor, "H"):
        Tensor.H = property(_H, doc="Conjugate transpose of a matrix (torch 1.13).")
    if not hasattr(Tensor, "adjoint"):
        Tensor.adjoint = _mH
    if "adjoint" not in namespace:

        def adjoint(input):
            if not isinstance(input, Tensor):
                raise TypeError(
                    f"adjoint(): argument 'input' must be Tensor, not {type(input).__name__}"
                )
            return _mH(input)

        namespace["adjoint"] = adjoint
    for name in ("addmm", "addmv", "addr", "baddbmm", "addbmm"):
        fn = namespace.get(name, addbmm if name == "addbmm" else None)
        if fn is not None and not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _inplace_from(fn, name + "_"))
    for fn in _FUNCTIONS:
        name = fn.__name__
        namespace.setdefault(name, fn)
        if name not in _NOT_METHODS and not hasattr(Tensor, name):
            setattr(Tensor, name, fn)

    # torch names the Tensor methods' arguments input2/input3 (the functions: tau/other).
    def orgqr_method(self, input2):
        return namespace["orgqr"](self, input2)

    def ormqr_method(self, input2, input3, left=True, transpose=False):
        return namespace["ormqr"](self, input2, input3, left, transpose)

    orgqr_method.__name__, ormqr_method.__name__ = "orgqr", "ormqr"
    Tensor.orgqr, Tensor.ormqr = orgqr_method, ormqr_method
