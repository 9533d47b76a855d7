"""Docstrings of tensorcore.linalg."""

from ._style import doc

TARGET = "tensorcore.linalg"

_A = "A (Tensor): matrix or batch of matrices (..., m, n)."
_SQ = "A (Tensor): square matrix or batch (..., n, n)."
_B = "B (Tensor): right-hand side (..., n, k), or (..., n) for a vector."
_CHECK = "check_errors (bool): raise on a failure instead of reporting it in ``info``."
_DRIVER = "driver (str, optional): accepted for torch compatibility."

DOCS = {
    "LinAlgError": "Raised when a linear algebra function fails on its input (singular matrix, matrix not positive-definite, no convergence). A subclass of RuntimeError.",
    "det": doc(
        "det(A) -> Tensor",
        "Determinant of square matrices.",
        [_SQ],
        example=">>> tc.linalg.det(tc.tensor([[1.0, 2.0], [3.0, 4.0]]))\ntensor(-2.0000)",
    ),
    "slogdet": doc(
        "slogdet(A) -> (Tensor, Tensor)",
        "Sign (or phase) and natural log of the absolute determinant, as ``(sign, logabsdet)``; stable where det over/underflows.",
        [_SQ],
    ),
    "inv": doc(
        "inv(A) -> Tensor",
        "Inverse of square matrices; raises LinAlgError when singular.",
        [_SQ],
        example=">>> tc.linalg.inv(tc.tensor([[2.0, 0.0], [0.0, 4.0]]))\ntensor([[0.5000, 0.0000],\n        [0.0000, 0.2500]])",
    ),
    "inv_ex": doc(
        "inv_ex(A, *, check_errors=False) -> (Tensor, Tensor)",
        "Inverse returning ``(inverse, info)`` where ``info`` is non-zero for singular matrices instead of raising.",
        [_SQ],
        [_CHECK],
    ),
    "pinv": doc(
        "pinv(A, *, atol=None, rtol=None, hermitian=False, rcond=None) -> Tensor",
        "Moore-Penrose pseudo-inverse by SVD (or eigendecomposition when ``hermitian``); singular values below the tolerance count as zero.",
        [_A],
        [
            "atol (float, optional): absolute tolerance.",
            "rtol (float, optional): relative tolerance.",
            "hermitian (bool): A is Hermitian.",
            "rcond (float, optional): old name of ``rtol``.",
        ],
    ),
    "solve": doc(
        "solve(A, B, *, left=True) -> Tensor",
        "Solution X of ``A X = B`` (or ``X A = B`` with ``left=False``) for square invertible A.",
        [_SQ, _B],
        ["left (bool): solve A X = B (True) or X A = B."],
        ">>> A = tc.tensor([[3.0, 1.0], [1.0, 2.0]])\n>>> tc.linalg.solve(A, tc.tensor([9.0, 8.0]))\ntensor([2., 3.])",
    ),
    "solve_ex": doc(
        "solve_ex(A, B, *, left=True, check_errors=False) -> (Tensor, Tensor)",
        ":func:`solve` returning ``(result, info)`` instead of raising on singular matrices.",
        [_SQ, _B],
        ["left (bool): side of A.", _CHECK],
    ),
    "solve_triangular": doc(
        "solve_triangular(A, B, *, upper, left=True, unitriangular=False) -> Tensor",
        "Solution of a triangular system by substitution.",
        ["A (Tensor): triangular matrices.", "B (Tensor): right-hand side."],
        [
            "upper (bool): A is upper triangular.",
            "left (bool): solve A X = B (True) or X A = B.",
            "unitriangular (bool): assume a unit diagonal.",
        ],
    ),
    "lstsq": doc(
        "lstsq(A, B, rcond=None, *, driver=None) -> (Tensor, Tensor, Tensor, Tensor)",
        "Least-squares solution of ``A X = B`` as the named tuple ``(solution, residuals, rank, singular_values)``.",
        [_A, "B (Tensor): (..., m, k).", "rcond (float, optional): singular value cutoff."],
        [_DRIVER],
    ),
    "cholesky": doc(
        "cholesky(A, *, upper=False) -> Tensor",
        "Cholesky factor L of Hermitian positive-definite matrices (``A = L L^H``); LinAlgError otherwise.",
        [_SQ],
        ["upper (bool): return the upper factor instead."],
        ">>> tc.linalg.cholesky(tc.tensor([[4.0, 2.0], [2.0, 2.0]]))\ntensor([[2., 0.],\n        [1., 1.]])",
    ),
    "cholesky_ex": doc(
        "cholesky_ex(A, *, upper=False, check_errors=False) -> (Tensor, Tensor)",
        ":func:`cholesky` returning ``(L, info)`` instead of raising.",
        [_SQ],
        ["upper (bool): upper factor.", _CHECK],
    ),
    "qr": doc(
        "qr(A, mode='reduced') -> (Tensor, Tensor)",
        "QR decomposition ``A = Q R``.",
        [_A, "mode (str): ``'reduced'``, ``'complete'`` or ``'r'`` (R only)."],
    ),
    "eig": doc(
        "eig(A) -> (Tensor, Tensor)",
        "Eigenvalues and eigenvectors of general square matrices (complex results).",
        [_SQ],
    ),
    "eigvals": doc(
        "eigvals(A) -> Tensor", "Eigenvalues of general square matrices (complex).", [_SQ]
    ),
    "eigh": doc(
        "eigh(A, UPLO='L') -> (Tensor, Tensor)",
        "Eigenvalues (ascending, real) and orthonormal eigenvectors of Hermitian/symmetric matrices.",
        [_SQ, "UPLO (str): which triangle is read, ``'L'`` or ``'U'``."],
        example=">>> w, v = tc.linalg.eigh(tc.tensor([[2.0, 0.0], [0.0, 1.0]]))\n>>> w\ntensor([1., 2.])",
    ),
    "eigvalsh": doc(
        "eigvalsh(A, UPLO='L') -> Tensor",
        "Eigenvalues (ascending) of Hermitian/symmetric matrices.",
        [_SQ, "UPLO (str): which triangle is read."],
    ),
    "svd": doc(
        "svd(A, full_matrices=True, *, driver=None) -> (Tensor, Tensor, Tensor)",
        "Singular value decomposition ``A = U diag(S) Vh`` with singular values in descending order.",
        [_A, "full_matrices (bool): complete (True) or reduced U and Vh."],
        [_DRIVER],
    ),
    "svdvals": doc(
        "svdvals(A, *, driver=None) -> Tensor",
        "Singular values in descending order.",
        [_A],
        [_DRIVER],
        ">>> tc.linalg.svdvals(tc.tensor([[3.0, 0.0], [0.0, -4.0]]))\ntensor([4., 3.])",
    ),
    "lu": doc(
        "lu(A, *, pivot=True) -> (Tensor, Tensor, Tensor)",
        "LU decomposition with partial pivoting ``A = P L U``.",
        [_A],
        ["pivot (bool): must be True on the CPU."],
    ),
    "lu_factor": doc(
        "lu_factor(A, *, pivot=True) -> (Tensor, Tensor)",
        "Compact LU factorization ``(LU, pivots)`` for :func:`lu_solve`.",
        [_A],
        ["pivot (bool): must be True on the CPU."],
    ),
    "lu_factor_ex": doc(
        "lu_factor_ex(A, *, pivot=True, check_errors=False) -> (Tensor, Tensor, Tensor)",
        ":func:`lu_factor` with an ``info`` tensor.",
        [_A],
        ["pivot (bool): partial pivoting.", _CHECK],
    ),
    "lu_solve": doc(
        "lu_solve(LU, pivots, B, *, left=True, adjoint=False) -> Tensor",
        "Solves a system from :func:`lu_factor`'s result.",
        [
            "LU (Tensor): packed factors.",
            "pivots (Tensor): pivots.",
            "B (Tensor): right-hand side.",
        ],
        ["left (bool): side of A.", "adjoint (bool): solve with A^H."],
    ),
    "ldl_factor": doc(
        "ldl_factor(A, *, hermitian=False) -> (Tensor, Tensor)",
        "LDL^T (Bunch-Kaufman) factorization of symmetric (or Hermitian) matrices, for :func:`ldl_solve`.",
        [_SQ],
        ["hermitian (bool): A is Hermitian rather than symmetric."],
    ),
    "ldl_factor_ex": doc(
        "ldl_factor_ex(A, *, hermitian=False, check_errors=False) -> (Tensor, Tensor, Tensor)",
        ":func:`ldl_factor` with an ``info`` tensor.",
        [_SQ],
        ["hermitian (bool): Hermitian.", _CHECK],
    ),
    "ldl_solve": doc(
        "ldl_solve(LD, pivots, B, *, hermitian=False) -> Tensor",
        "Solves a system from :func:`ldl_factor`'s result.",
        [
            "LD (Tensor): packed factors.",
            "pivots (Tensor): pivots.",
            "B (Tensor): right-hand side.",
        ],
        ["hermitian (bool): Hermitian factorization."],
    ),
    "householder_product": doc(
        "householder_product(A, tau) -> Tensor",
        "The first n columns of the product of Householder reflectors (as from :func:`tensorcore.geqrf`).",
        ["A (Tensor): reflectors in the columns.", "tau (Tensor): their scalars."],
    ),
    "matrix_exp": doc("matrix_exp(A) -> Tensor", "Matrix exponential of square matrices.", [_SQ]),
    "matrix_power": doc(
        "matrix_power(A, n) -> Tensor",
        "The ``n``-th power of square matrices (negative ``n`` inverts).",
        [_SQ, "n (int): the exponent."],
    ),
    "matrix_rank": doc(
        "matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None) -> Tensor",
        "Numerical rank: the number of singular values above the tolerance.",
        [_A],
        [
            "atol (float, optional): absolute tolerance.",
            "rtol (float, optional): relative tolerance.",
            "hermitian (bool): A is Hermitian.",
            "tol (float, optional): old name of ``atol``.",
        ],
        ">>> tc.linalg.matrix_rank(tc.tensor([[1.0, 2.0], [2.0, 4.0]]))\ntensor(1)",
    ),
    "norm": doc(
        "norm(A, ord=None, dim=None, keepdim=False, *, dtype=None) -> Tensor",
        "Vector norm (1-D, or ``dim`` an int) or matrix norm (2-D, or ``dim`` a pair); the 2-norm / Frobenius norm by default.",
        [
            "A (Tensor): the input.",
            "ord (int, float, inf or str, optional): the norm.",
            "dim (int or pair, optional): the dimension(s).",
            "keepdim (bool): keep the reduced dimensions.",
        ],
        ["dtype (tensorcore.dtype, optional): compute in this dtype."],
        ">>> tc.linalg.norm(tc.tensor([3.0, 4.0]))\ntensor(5.)",
    ),
    "vector_norm": doc(
        "vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None) -> Tensor",
        "Vector p-norm over ``dim`` (all elements when None); ``ord`` may be inf, -inf or 0 (count of non-zeros).",
        [
            "x (Tensor): the input.",
            "ord (float): the norm.",
            "dim (int or tuple, optional): the dimensions.",
            "keepdim (bool): keep them.",
        ],
        ["dtype (tensorcore.dtype, optional): compute in this dtype."],
        ">>> tc.linalg.vector_norm(tc.tensor([3.0, -4.0]), ord=1)\ntensor(7.)",
    ),
    "matrix_norm": doc(
        "matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None) -> Tensor",
        "Matrix norm over the two dimensions ``dim``: ``'fro'``, ``'nuc'``, inf, -inf, 1, -1, 2 or -2.",
        [
            "A (Tensor): the input.",
            "ord (str, int or float): the norm.",
            "dim (pair of ints): the matrix dimensions.",
            "keepdim (bool): keep them.",
        ],
        ["dtype (tensorcore.dtype, optional): compute in this dtype."],
    ),
    "cond": doc(
        "cond(A, p=None) -> Tensor",
        "Condition number of matrices in the norm ``p`` (the 2-norm ratio of extreme singular values by default).",
        [_A, "p (int, float, inf or str, optional): the norm."],
    ),
    "cross": doc(
        "cross(input, other, *, dim=-1) -> Tensor",
        "Cross product of 3-vectors along ``dim`` (the two broadcast).",
        ["input (Tensor): first vectors.", "other (Tensor): second vectors."],
        ["dim (int): the dimension of size 3."],
        ">>> tc.linalg.cross(tc.tensor([1.0, 0.0, 0.0]), tc.tensor([0.0, 1.0, 0.0]))\ntensor([0., 0., 1.])",
    ),
    "diagonal": doc(
        "diagonal(A, *, offset=0, dim1=-2, dim2=-1) -> Tensor",
        "The diagonals of a batch of matrices (a view), by default over the last two dimensions.",
        ["A (Tensor): the input."],
        [
            "offset (int): which diagonal.",
            "dim1 (int): first matrix dimension.",
            "dim2 (int): second matrix dimension.",
        ],
    ),
    "matmul": doc(
        "matmul(input, other) -> Tensor",
        "Same as :func:`tensorcore.matmul`.",
        ["input (Tensor): first operand.", "other (Tensor): second operand."],
    ),
    "multi_dot": doc(
        "multi_dot(tensors, *, out=None) -> Tensor",
        "Product of a chain of matrices in the cheapest association order; the first and last may be 1-D.",
        ["tensors (sequence of Tensors): the matrices."],
        ["out (Tensor, optional): the output tensor."],
    ),
    "tensorinv": doc(
        "tensorinv(A, ind=2) -> Tensor",
        "Inverse of a tensor with respect to :func:`tensordot` over its first ``ind`` dimensions.",
        ["A (Tensor): the tensor.", "ind (int): number of leading dimensions of the 'rows'."],
    ),
    "tensorsolve": doc(
        "tensorsolve(A, B, dims=None) -> Tensor",
        "Solution X of ``tensordot(A, X, X.ndim) = B``.",
        [
            "A (Tensor): the coefficient tensor.",
            "B (Tensor): the right-hand side.",
            "dims (tuple, optional): dimensions of A moved to the end first.",
        ],
    ),
    "vander": doc(
        "vander(x, N=None) -> Tensor",
        "Vandermonde matrix with increasing powers ``x^0 .. x^(N-1)`` (batched over leading dimensions).",
        ["x (Tensor): the points.", "N (int, optional): number of columns."],
    ),
    "vecdot": doc(
        "vecdot(x, y, *, dim=-1) -> Tensor",
        "Dot product along ``dim`` (conjugating ``x``), broadcasting the rest.",
        ["x (Tensor): first vectors.", "y (Tensor): second vectors."],
        ["dim (int): the vector dimension."],
    ),
}
