"""Op table entries for tensorcore.linalg: forward against NumPy/SciPy, gradcheck in float64 and
complex128 (gauge-invariant forms for eigen/singular vectors), strided layouts. Matrices are
built from the random sample inside the op (A A^H + n I for positive-definite inputs, a shifted
triangle for triangular ones), so every layout goes through the same construction."""

import numpy as np
import scipy.linalg as sla

import tensorcore as tc
from op_db import CPLX, FLOAT, GRAD_ALL, OpInfo, SampleInput, make_arr

LA = tc.linalg
TOL = {
    "float32": (2e-3, 2e-3),
    "complex64": (2e-3, 2e-3),
    "float64": (1e-7, 1e-7),
    "complex128": (1e-7, 1e-7),
}
LAYOUTS = ("contiguous", "noncontiguous")


def _mats(shapes):
    return lambda dt, rng: [SampleInput(make_arr(rng, s, dt)) for s in shapes]


def _pairs(shapes):
    return lambda dt, rng: [
        SampleInput(make_arr(rng, a, dt), make_arr(rng, b, dt)) for a, b in shapes
    ]


SQ = [(3, 3), (2, 3, 3), (0, 2, 2)]


def _op(name, op, ref, samples, dtypes=FLOAT + CPLX, grad=GRAD_ALL, out="same", **kw):
    return OpInfo(
        name,
        op,
        ref,
        samples,
        dtypes,
        grad_dtypes=grad,
        family="linalg",
        tol=TOL,
        layouts=LAYOUTS,
        out=out,
        **kw,
    )


# ---- matrix builders, the same in tc and NumPy ----
def _mh(x):
    return x.transpose(-2, -1).conj() if isinstance(x, tc.Tensor) else np.swapaxes(x, -1, -2).conj()


def _eye(x):
    n = x.shape[-1]
    if isinstance(x, tc.Tensor):
        return tc.eye(n, dtype=x.dtype)
    return np.eye(n, dtype=x.dtype)


def pd(x):  # Hermitian positive definite
    return x @ _mh(x) + x.shape[-1] * _eye(x)


def herm(x):
    return x + _mh(x)


def tri(x, upper=False):
    t = (
        (tc.triu(x) if upper else tc.tril(x))
        if isinstance(x, tc.Tensor)
        else (np.triu(x) if upper else np.tril(x))
    )
    return t + 4 * _eye(x)


def wellcond(x):  # diagonally shifted: far from singular
    return x + 6 * _eye(x)


def _abs(x):
    return x.abs() if isinstance(x, tc.Tensor) else np.abs(x)


# ---- NumPy references not in NumPy ----
def _np_householder(A, tau):
    A = np.asarray(A)
    m, n = A.shape[-2:]
    out = np.empty(A.shape, A.dtype)
    for idx in np.ndindex(A.shape[:-2]):
        H = np.eye(m, dtype=A.dtype)
        for i in range(tau.shape[-1]):
            v = np.zeros(m, A.dtype)
            v[i] = 1
            v[i + 1 :] = A[idx][i + 1 :, i]
            H = H @ (np.eye(m, dtype=A.dtype) - tau[idx][i] * np.outer(v, v.conj()))
        out[idx] = H[:, :n]
    return out


def _np_lu(A):
    parts = [sla.lu(A[idx]) for idx in np.ndindex(A.shape[:-2])]
    return tuple(np.stack(p).reshape(A.shape[:-2] + p[0].shape) for p in zip(*parts))


def _batched(fn):
    def run(A, *rest):
        A = np.asarray(A)
        if A.ndim == 2:
            return fn(A, *rest)
        out = [fn(A[i], *[r[i] for r in rest]) for i in range(A.shape[0])]
        if isinstance(out[0], tuple):
            return tuple(np.stack(o) for o in zip(*out)) if out else ()
        return np.stack(out) if out else np.zeros(A.shape, A.dtype)

    return run


def _svd_parts(A, full=False):
    U, S, Vh = np.linalg.svd(A, full_matrices=full)
    return np.abs(U), S, np.abs(Vh)


def _eig_parts(A):
    w, V = np.linalg.eig(A)
    return w, np.abs(V)


OPS = [
    _op(
        "linalg.det",
        lambda a: LA.det(wellcond(a)),
        lambda a: np.linalg.det(wellcond(a)),
        _mats(SQ + [(1, 1)]),
    ),
    _op(
        "linalg.det_singular_value",
        lambda a: LA.det(a),
        np.linalg.det,
        _mats([(3, 3), (2, 2, 2)]),
        grad=(),
    ),
    _op(
        "linalg.slogdet",
        lambda a: tuple(LA.slogdet(wellcond(a))),
        lambda a: tuple(np.linalg.slogdet(wellcond(a))),
        _mats(SQ),
        out=None,
    ),
    _op(
        "logdet",
        lambda a: tc.logdet(pd(a)),
        lambda a: (
            np.linalg.slogdet(pd(a))[1] if not np.iscomplexobj(a) else np.log(np.linalg.det(pd(a)))
        ),
        _mats(SQ),
        method=None,
    ),
    _op(
        "linalg.inv", lambda a: LA.inv(wellcond(a)), lambda a: np.linalg.inv(wellcond(a)), _mats(SQ)
    ),
    _op(
        "linalg.solve",
        lambda a, b: LA.solve(wellcond(a), b),
        lambda a, b: np.linalg.solve(wellcond(a), b),
        _pairs(
            [((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)), ((2, 2), (3, 2, 4)), ((0, 2, 2), (0, 2, 1))]
        ),
    ),
    _op(
        "linalg.solve_vector",
        lambda a, b: LA.solve(wellcond(a), b),
        lambda a, b: np.linalg.solve(wellcond(a), b[..., None])[..., 0],
        _pairs([((3, 3), (3,)), ((2, 3, 3), (2, 3))]),
    ),
    _op(
        "linalg.solve_left_false",
        lambda a, b: LA.solve(wellcond(a), b, left=False),
        lambda a, b: np.swapaxes(
            np.linalg.solve(np.swapaxes(wellcond(a), -1, -2), np.swapaxes(b, -1, -2)), -1, -2
        ),
        _pairs([((3, 3), (2, 3))]),
    ),
    _op(
        "linalg.cholesky",
        lambda a: LA.cholesky(pd(a)),
        lambda a: np.linalg.cholesky(pd(a)),
        _mats(SQ),
    ),
    _op(
        "linalg.cholesky_upper",
        lambda a: LA.cholesky(pd(a), upper=True),
        lambda a: _mh(np.linalg.cholesky(pd(a))),
        _mats(SQ),
    ),
    _op(
        "cholesky_solve",
        lambda a, b: tc.cholesky_solve(b, LA.cholesky(pd(a))),
        lambda a, b: np.linalg.solve(pd(a), b),
        _pairs([((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1))]),
    ),
    _op(
        "cholesky_inverse",
        lambda a: tc.cholesky_inverse(LA.cholesky(pd(a))),
        lambda a: np.linalg.inv(pd(a)),
        _mats(SQ),
    ),
    _op(
        "linalg.solve_triangular",
        lambda a, b: LA.solve_triangular(tri(a), b, upper=False),
        lambda a, b: np.linalg.solve(tri(a), b),
        _pairs([((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 2))]),
    ),
    _op(
        "linalg.solve_triangular_right_upper",
        lambda a, b: LA.solve_triangular(tri(a, True), b, upper=True, left=False),
        lambda a, b: np.swapaxes(
            np.linalg.solve(np.swapaxes(tri(a, True), -1, -2), np.swapaxes(b, -1, -2)), -1, -2
        ),
        _pairs([((3, 3), (2, 3))]),
    ),
    _op(
        "linalg.lu_factor",
        lambda a: tuple(LA.lu(a)),
        _batched(_np_lu),
        _mats([(3, 3), (2, 3, 3), (4, 2), (2, 4)]),
    ),
    _op(
        "linalg.lu_factor_packed",
        lambda a: LA.lu_factor(wellcond(a))[0],
        lambda a: _batched(lambda x: sla.lu_factor(x)[0])(wellcond(a)),
        _mats(SQ[:2]),
    ),
    _op(
        "linalg.lu_solve",
        lambda a, b: LA.lu_solve(*LA.lu_factor(wellcond(a)), b),
        lambda a, b: np.linalg.solve(wellcond(a), b),
        _pairs([((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1))]),
    ),
    _op(
        "linalg.lu_solve_adjoint",
        lambda a, b: LA.lu_solve(*LA.lu_factor(wellcond(a)), b, adjoint=True),
        lambda a, b: np.linalg.solve(_mh(wellcond(a)), b),
        _pairs([((3, 3), (3, 2))]),
    ),
    _op(
        "linalg.qr",
        lambda a: tuple(LA.qr(a)),
        lambda a: tuple(np.linalg.qr(a)),
        _mats([(4, 3), (3, 3), (2, 3, 2), (2, 4)]),
        out=None,
    ),
    _op(
        "linalg.qr_complete",
        lambda a: tuple(LA.qr(a, "complete")),
        lambda a: tuple(np.linalg.qr(a, "complete")),
        _mats([(2, 4), (3, 3)]),
        out=None,
    ),
    _op(
        "linalg.householder_product",
        LA.householder_product,
        _np_householder,
        lambda dt, rng: [
            SampleInput(make_arr(rng, (4, 3), dt), make_arr(rng, (2,), dt) * 0.5),
            SampleInput(make_arr(rng, (2, 3, 3), dt), make_arr(rng, (2, 3), dt) * 0.5),
        ],
    ),
    _op(
        "linalg.eigh",
        lambda a: (LA.eigh(herm(a))[0], _abs(LA.eigh(herm(a))[1])),
        lambda a: (np.linalg.eigh(herm(a))[0], np.abs(np.linalg.eigh(herm(a))[1])),
        _mats(SQ),
        out=None,
    ),
    _op(
        "linalg.eigvalsh",
        lambda a: LA.eigvalsh(herm(a)),
        lambda a: np.linalg.eigvalsh(herm(a)),
        _mats(SQ),
        out="real",
    ),
    _op(
        "linalg.eig",
        lambda a: (LA.eig(a)[0], _abs(LA.eig(a)[1])),
        _batched(_eig_parts),
        _mats([(3, 3), (2, 3, 3)]),
        out=None,
    ),
    _op("linalg.eigvals", LA.eigvals, np.linalg.eigvals, _mats([(3, 3), (2, 3, 3)]), out="complex"),
    _op(
        "linalg.svd",
        lambda a: (_abs(LA.svd(a, False)[0]), LA.svd(a, False)[1], _abs(LA.svd(a, False)[2])),
        _svd_parts,
        _mats([(3, 3), (4, 2), (2, 2, 3)]),
        out=None,
    ),
    _op(
        "linalg.svdvals",
        LA.svdvals,
        lambda a: np.linalg.svd(a, compute_uv=False),
        _mats([(3, 3), (4, 2), (2, 2, 3), (0, 3)]),
        out="real",
    ),
    _op("linalg.pinv", LA.pinv, np.linalg.pinv, _mats([(3, 3), (4, 2), (2, 2, 3)])),
    _op(
        "linalg.pinv_hermitian",
        lambda a: LA.pinv(herm(a), hermitian=True),
        lambda a: np.linalg.pinv(herm(a), hermitian=True),
        _mats([(3, 3)]),
    ),
    _op(
        "linalg.lstsq",
        lambda a, b: LA.lstsq(a, b, driver="gelsd").solution,
        lambda a, b: np.linalg.pinv(a) @ b,
        _pairs([((4, 3), (4, 2)), ((2, 4, 2), (2, 4, 1))]),
    ),
    _op(
        "linalg.lstsq_gels",
        lambda a, b: LA.lstsq(a, b, driver="gels").solution,
        lambda a, b: np.linalg.pinv(a) @ b,
        _pairs([((4, 3), (4, 2))]),
        grad=(),
    ),
    _op(
        "linalg.matrix_rank",
        LA.matrix_rank,
        np.linalg.matrix_rank,
        _mats([(3, 3), (4, 2), (2, 3, 3)]),
        grad=(),
        out="int64",
    ),
    _op(
        "linalg.matrix_norm_fro",
        LA.matrix_norm,
        lambda a: np.linalg.norm(a, "fro", (-2, -1)),
        _mats([(3, 4), (2, 3, 3)]),
        out="real",
    ),
    _op(
        "linalg.matrix_norm_nuc",
        lambda a: LA.matrix_norm(a, "nuc"),
        lambda a: np.linalg.norm(a, "nuc", (-2, -1)),
        _mats([(3, 4), (2, 3, 3)]),
        out="real",
    ),
    _op(
        "linalg.matrix_norm_2",
        lambda a: LA.matrix_norm(a, 2),
        lambda a: np.linalg.norm(a, 2, (-2, -1)),
        _mats([(3, 4)]),
        out="real",
    ),
    _op(
        "linalg.matrix_norm_inf",
        lambda a: (LA.matrix_norm(a, float("inf")), LA.matrix_norm(a, -1), LA.matrix_norm(a, -2)),
        lambda a: (
            np.linalg.norm(a, np.inf, (-2, -1)),
            np.linalg.norm(a, -1, (-2, -1)),
            np.linalg.norm(a, -2, (-2, -1)),
        ),
        _mats([(3, 4), (2, 3, 3)]),
        out=None,
    ),
    _op(
        "linalg.vector_norm",
        lambda a: (
            LA.vector_norm(a),
            LA.vector_norm(a, 1, -1),
            LA.vector_norm(a, float("inf"), (0,)),
        ),
        lambda a: (np.linalg.norm(a.reshape(-1)), np.linalg.norm(a, 1, -1), np.abs(a).max(0)),
        _mats([(3, 4)]),
        out=None,
    ),
    _op(
        "linalg.norm",
        lambda a: LA.norm(a),
        lambda a: np.linalg.norm(a),
        _mats([(3, 4)]),
        out="real",
    ),
    _op("linalg.cond", LA.cond, np.linalg.cond, _mats([(3, 3), (2, 3, 3)]), out="real"),
    _op(
        "linalg.cond_fro",
        lambda a: LA.cond(wellcond(a), "fro"),
        lambda a: np.linalg.cond(wellcond(a), "fro"),
        _mats([(3, 3)]),
        out="real",
    ),
    _op(
        "linalg.matrix_power",
        lambda a: (LA.matrix_power(a, 3), LA.matrix_power(wellcond(a), -2), LA.matrix_power(a, 0)),
        lambda a: (
            np.linalg.matrix_power(a, 3),
            np.linalg.matrix_power(wellcond(a), -2),
            np.linalg.matrix_power(a, 0),
        ),
        _mats([(3, 3), (2, 2, 2)]),
        out=None,
    ),
    _op(
        "linalg.matrix_exp",
        LA.matrix_exp,
        _batched(sla.expm),
        _mats([(3, 3), (2, 3, 3)]),
        method="matrix_exp",
    ),
    _op(
        "linalg.multi_dot",
        lambda a, b: LA.multi_dot([a, b, a.transpose(0, 1)]),
        lambda a, b: np.linalg.multi_dot([a, b, a.T]),
        _pairs([((2, 3), (3, 3)), ((4, 2), (2, 2))]),
    ),
    _op(
        "linalg.tensorinv",
        lambda a: LA.tensorinv(wellcond(a.reshape(4, 4)).reshape(2, 2, 4), 2),
        lambda a: np.linalg.tensorinv(wellcond(a.reshape(4, 4)).reshape(2, 2, 4), 2),
        _mats([(4, 4)]),
    ),
    _op(
        "linalg.tensorsolve",
        lambda a, b: LA.tensorsolve(wellcond(a).reshape(2, 3, 6), b),
        lambda a, b: np.linalg.tensorsolve(wellcond(a).reshape(2, 3, 6), b),
        _pairs([((6, 6), (2, 3))]),
    ),
    _op(
        "linalg.cross",
        LA.cross,
        lambda a, b: np.cross(a, b),
        _pairs([((4, 3), (4, 3)), ((2, 1, 3), (3, 3))]),
    ),
    _op("linalg.vander", LA.vander, lambda x: np.vander(x, increasing=True), _mats([(4,)])),
    _op(
        "linalg.vecdot", LA.vecdot, lambda a, b: (a.conj() * b).sum(-1), _pairs([((3, 4), (3, 4))])
    ),
]
