"""tensorcore.linalg: torch.linalg's names and semantics (torch 1.13).

The factorizations and solvers are native (tensorcore/linalg/*.cpp: LAPACK from the packaged
OpenBLAS on the CPU, batches in parallel, vjps for every differentiable function, double backward
included). The functions composed from them (norms, cond, matrix_rank, matrix_power, matrix_exp,
multi_dot, tensorinv/tensorsolve, vander, vecdot) are written here in tensor ops, so autograd
flows through them unchanged. The legacy torch.* forms (torch.svd, torch.qr, torch.lu, ...)
live in ._legacy and are installed on the top-level module and on Tensor.
"""

import math as _math
from collections import namedtuple as _nt

from .. import _C
from .._C import _linalg as _impl
from .._C import Tensor

LinAlgError = _impl.LinAlgError

_CholeskyEx = _nt("linalg_cholesky_ex", ("L", "info"))
_InvEx = _nt("linalg_inv_ex", ("inverse", "info"))
_SolveEx = _nt("linalg_solve_ex", ("result", "info"))
_LuFactor = _nt("linalg_lu_factor", ("LU", "pivots"))
_LuFactorEx = _nt("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_Lu = _nt("linalg_lu", ("P", "L", "U"))
_Qr = _nt("linalg_qr", ("Q", "R"))
_Eig = _nt("linalg_eig", ("eigenvalues", "eigenvectors"))
_Eigh = _nt("linalg_eigh", ("eigenvalues", "eigenvectors"))
_Svd = _nt("linalg_svd", ("U", "S", "Vh"))
_Slogdet = _nt("linalg_slogdet", ("sign", "logabsdet"))
_Lstsq = _nt("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _check(x, op, name="A"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")


def cholesky(A, *, upper=False):
    return _impl.cholesky(A, upper=upper)


def cholesky_ex(A, *, upper=False, check_errors=False):
    return _CholeskyEx(*_impl.cholesky_ex(A, upper=upper, check_errors=check_errors))


def inv(A):
    return _impl.inv(A)


def inv_ex(A, *, check_errors=False):
    return _InvEx(*_impl.inv_ex(A, check_errors=check_errors))


def solve(A, B, *, left=True):
    return _impl.solve(A, B, left=left)


def solve_ex(A, B, *, left=True, check_errors=False):
    return _SolveEx(*_impl.solve_ex(A, B, left=left, check_errors=check_errors))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    return _impl.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def det(A):
    return _impl.det(A)


def slogdet(A):
    return _Slogdet(*_impl.slogdet(A))


def lu_factor(A, *, pivot=True):
    return _LuFactor(*_impl.lu_factor(A, pivot=pivot))


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    return _LuFactorEx(*_impl.lu_factor_ex(A, pivot=pivot, check_errors=check_errors))


def lu(A, *, pivot=True):
    return _Lu(*_impl.lu(A, pivot=pivot))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    return _impl.lu_solve(LU, pivots, B, left=left, adjoint=adjoint)


_LdlFactor = _nt("linalg_ldl_factor", ("LD", "pivots"))
_LdlFactorEx = _nt("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


def ldl_factor(A, *, hermitian=False):
    return _LdlFactor(*_impl.ldl_factor(A, hermitian=hermitian))


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    return _LdlFactorEx(*_impl.ldl_factor_ex(A, hermitian=hermitian, check_errors=check_errors))


def ldl_solve(LD, pivots, B, *, hermitian=False):
    return _impl.ldl_solve(LD, pivots, B, hermitian=hermitian)


def qr(A, mode="reduced"):
    return _Qr(*_impl.qr(A, mode))


def householder_product(A, tau):
    return _impl.householder_product(A, tau)


def eig(A):
    return _Eig(*_impl.eig(A))


def eigvals(A):
    return _impl.eigvals(A)


def eigh(A, UPLO="L"):
    return _Eigh(*_impl.eigh(A, UPLO))


def eigvalsh(A, UPLO="L"):
    return _impl.eigvalsh(A, UPLO)


def svd(A, full_matrices=True, *, driver=None):
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
        )
    return _Svd(*_impl.svd(A, full_matrices))


def svdvals(A, *, driver=None):
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svdvals: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
        )
    return _impl.svdvals(A)


def _tol_arg(x):
    return x.item() if isinstance(x, Tensor) else x


def pinv(A, *, atol=None, rtol=None, hermitian=False, rcond=None):
    if rcond is not None:  # torch 1.13's deprecated spelling of rtol
        rtol = rcond
    return _impl.pinv(A, atol=_tol_arg(atol), rtol=_tol_arg(rtol), hermitian=hermitian)


def lstsq(A, B, rcond=None, *, driver=None):
    return _Lstsq(*_impl.lstsq(A, B, rcond, driver=driver))


# ---- Composites ----


def _real_dtype(dt):
    return dt.to_real() if dt.is_complex else dt


def _eps(dt):
    return 1.1920928955078125e-07 if _real_dtype(dt) == _C.float32 else 2.220446049250313e-16


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    _check(x, "linalg.vector_norm", "x")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            + str(x.dtype).split(".")[-1]
        )
    if dtype is not None:
        x = x.to(dtype)
    if isinstance(dim, int):
        dim = [dim]
    if dim is None:
        dims = list(range(x.dim()))
    else:
        dims = [d % max(x.dim(), 1) for d in dim]
    ord = float(ord)
    if x.numel() == 0 and ord < 0:
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the operation does not have an identity"
        )
    if x.dim() == 0:
        x, dims, squeeze0 = x.reshape(1), [0], True
    else:
        squeeze0 = False
    if ord == _math.inf or ord == -_math.inf:
        if x.numel() == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the operation does not have an identity"
            )
    out = _C.norm(x, p=ord, dim=dims, keepdim=keepdim)
    if squeeze0 and not keepdim:
        out = out.reshape(())
    return out


def _sum_abs(A, dim, keepdim):
    return A.abs().sum(dim=dim, keepdim=keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    _check(A, "linalg.matrix_norm")
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    if dtype is not None:
        A = A.to(dtype)
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
    d0, d1 = dim[0] % A.dim(), dim[1] % A.dim()
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc" or ord in (2, -2):
        # move the two dims last, reduce over the singular values
        Am = _C.movedim(A, [d0, d1], [-2, -1])
        s = svdvals(Am)
        if ord == "nuc":
            r = s.sum(-1)
        elif ord == 2:
            r = s.amax(-1)
        else:
            r = s.amin(-1)
        if keepdim:
            r = r.unsqueeze(-1).unsqueeze(-1)
            r = _C.movedim(r, [-2, -1], [d0, d1])
        return r
    if ord in (1, -1, _math.inf, -_math.inf):
        # 1: max column sum (sum over rows d0); inf: max row sum (sum over columns d1)
        sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = _sum_abs(A, sum_dim, True)
        r = s.amax(red_dim, keepdim=True) if ord > 0 else s.amin(red_dim, keepdim=True)
        if not keepdim:
            r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
        return r
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    _check(A, "linalg.norm")
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if dim is None and ord is not None:
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.dim() != 1:
            raise RuntimeError(
                f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.dim()}D."
            )
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: Order {ord} not supported for vectors")
    if dim is None:
        out = vector_norm(A.reshape(-1), 2 if ord is None else ord, None, False, dtype=dtype)
        if keepdim:
            out = out.reshape([1] * A.dim())
        return out
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def cond(A, p=None):
    _check(A, "linalg.cond")
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p is None or p in (2, -2):
        s = svdvals(A)
        if p == -2:
            return s[..., -1] / s[..., 0]
        return s[..., 0] / s[..., -1]
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.cond: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )
    Ainv, info = inv_ex(A)
    r = matrix_norm(A, p) * matrix_norm(Ainv, p)
    # singular inputs: +inf, as torch
    singular = info != 0
    if singular.any().item():
        r = _C.where(singular, _C.full_like(r, _math.inf), r)
    return r


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None):
    _check(A, "linalg.matrix_rank")
    if tol is not None:  # torch 1.13's deprecated spelling: an absolute tolerance
        atol, rtol = tol, 0.0
    if A.dim() < 2:
        raise RuntimeError(
            "linalg.matrix_rank: The input tensor A must have at least 2 dimensions."
        )
    atol, rtol = _tol_arg(atol), _tol_arg(rtol)
    m, n = A.shape[-2], A.shape[-1]
    if rtol is None:
        rtol = 0.0 if (atol is not None and atol > 0) else _eps(A.dtype) * max(m, n)
    atol = 0.0 if atol is None else atol
    from ..autograd.grad_mode import no_grad

    with no_grad():
        s = eigvalsh(A).abs() if hermitian else svdvals(A)
        if s.shape[-1] == 0:
            return _C.zeros(list(A.shape[:-2]), dtype=_C.int64, device=A.device)
        smax = s.amax(-1, keepdim=True)
        tol_t = _C.maximum(_C.full_like(smax, atol), smax * rtol)
        return (s > tol_t).sum(-1)


def _eye_like(A):
    n = A.shape[-1]
    return _C.eye(n, dtype=A.dtype, device=A.device).expand(list(A.shape))


def matrix_power(A, n):
    _check(A, "linalg.matrix_power")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, "
            f"but they are {A.shape[-2] if A.dim() >= 2 else 1} by {A.shape[-1] if A.dim() else 1} matrices"
        )
    if n == 0:
        return _eye_like(A).clone()
    if n < 0:
        A, n = inv(A), -n
    result, base = None, A
    while True:
        if n & 1:
            result = base if result is None else _C.matmul(result, base)
        n >>= 1
        if not n:
            break
        base = _C.matmul(base, base)
    return result if result is not A else A.clone()


# Padé-13 coefficients for the scaling-and-squaring matrix exponential (Higham 2005).
_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152


def matrix_exp(A):
    _check(A, "linalg.matrix_exp")
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_exp: Expected a floating point or complex tensor as input"
            if A.dim() < 2
            else f"linalg.matrix_exp: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(
            "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
            + str(A.dtype).split(".")[-1]
        )
    if A.numel() == 0:
        return A.clone()
    # One scaling for the whole batch (the largest one needed): more squarings than a matrix
    # needs cost accuracy only marginally, and keep the computation a single batched expression.
    norm1 = _sum_abs(A.detach(), -2, False).amax(-1).amax().item()
    s = 0 if norm1 <= _THETA13 else int(_math.ceil(_math.log2(norm1 / _THETA13)))
    X = A / (2.0**s) if s > 0 else A
    b = _PADE13
    I = _eye_like(X)
    X2 = _C.matmul(X, X)
    X4 = _C.matmul(X2, X2)
    X6 = _C.matmul(X4, X2)
    U = _C.matmul(
        X,
        _C.matmul(X6, b[13] * X6 + b[11] * X4 + b[9] * X2)
        + b[7] * X6
        + b[5] * X4
        + b[3] * X2
        + b[1] * I,
    )
    V = (
        _C.matmul(X6, b[12] * X6 + b[10] * X4 + b[8] * X2)
        + b[6] * X6
        + b[4] * X4
        + b[2] * X2
        + b[0] * I
    )
    R = solve(V - U, V + U)
    for _ in range(s):
        R = _C.matmul(R, R)
    return R


def multi_dot(tensors, *, out=None):
    if out is not None:
        raise TypeError("linalg.multi_dot(): out= is not supported")
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        _check(t, "linalg.multi_dot", f"tensors[{i}]")
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    if tensors[0].dim() not in (1, 2):
        raise RuntimeError(
            f"multi_dot(): the first tensor must be 1D or 2D but got {tensors[0].dim()}D"
        )
    if tensors[-1].dim() not in (1, 2):
        raise RuntimeError(
            f"multi_dot(): the last tensor must be 1D or 2D but got {tensors[-1].dim()}D"
        )
    mats = list(tensors)
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(1, n - 1):
        if mats[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {mats[i].dim()}D")
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {tuple(tensors[i].shape)} and "
                f"{tuple(tensors[i + 1].shape)} cannot be multiplied"
            )
    # Optimal parenthesization (the classic O(n^3) chain order dynamic programme).
    dims = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def build(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return _C.mm(build(i, k), build(k + 1, j))

    r = build(0, n - 1)
    if first_vec:
        r = r.squeeze(0)
    if last_vec:
        r = r.squeeze(-1)
    return r


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def tensorinv(A, ind=2):
    _check(A, "linalg.tensorinv")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = list(A.shape[ind:]) + list(A.shape[:ind])
    rows, cols = _prod(A.shape[:ind]), _prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
            f"but got {cols} != {rows}"
        )
    return inv(A.reshape(rows, cols)).reshape(out_shape)


def tensorsolve(A, B, dims=None):
    _check(A, "linalg.tensorsolve")
    _check(B, "linalg.tensorsolve", "B")
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in dims]
        A = A.permute(rest + dims)
    result_shape = list(A.shape[B.dim() :])
    n = _prod(result_shape)
    if _prod(A.shape[: B.dim()]) != n or list(A.shape[: B.dim()]) != list(B.shape):
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
            f"but got {n} != {_prod(A.shape[: B.dim()])}"
        )
    return solve(A.reshape(n, n), B.reshape(n)).reshape(result_shape)


def cross(input, other, *, dim=-1):
    _check(input, "linalg.cross", "input")
    _check(other, "linalg.cross", "other")
    from .. import broadcast_tensors
    from .._extra_ops import _cross_along

    a, b = broadcast_tensors(input, other)
    d = dim % max(a.dim(), 1)
    if a.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d] if input.dim() > d else 0} and {other.shape[d] if other.dim() > d else 0}"
        )
    return _cross_along(a, b, d)


def vander(x, N=None):
    _check(x, "linalg.vander", "x")
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension.")
    n = x.shape[-1] if N is None else N
    if n < 0:
        raise RuntimeError(f"N must be non-negative. Got N={n}")
    if n == 0:
        return _C.empty(list(x.shape) + [0], dtype=x.dtype, device=x.device)
    cols = [_C.ones_like(x)]
    for _ in range(1, n):
        cols.append(cols[-1] * x)
    return _C.stack(cols, -1)


def vecdot(x, y, *, dim=-1):
    _check(x, "linalg.vecdot", "x")
    _check(y, "linalg.vecdot", "y")
    return (x.conj() * y).sum(dim) if x.dtype.is_complex else (x * y).sum(dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _C.diagonal(A, offset, dim1, dim2)


def matmul(input, other):
    return _C.matmul(input, other)


from .._argcheck import harden as _harden  # noqa: E402

_harden(globals(), "tensorcore.linalg")

from . import _legacy  # noqa: E402,F401

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]
