"""Docstrings of tensorcore's matrix products, legacy linear algebra, spectral, dtype/thread
settings and the remaining top-level functions."""

from ._style import INPUT, fn

TARGET = "tensorcore"

_A = "input (Tensor): a matrix or a batch of matrices (..., n, n)."
_SCALE = ("beta (Number): multiplier of ``input``.", "alpha (Number): multiplier of the product.")
_LINALG = "Prefer :func:`tensorcore.linalg.{0}` in new code."

DOCS = {
    "matmul": fn(
        "matmul",
        ["input", "other"],
        "Matrix product with NumPy's broadcasting rules: 1-D x 1-D is the dot product, 2-D x 2-D "
        "the matrix product, a 1-D operand is promoted to a matrix (and the added dimension "
        "removed), and batch dimensions broadcast. The ``@`` operator.",
        ["input (Tensor): first operand.", "other (Tensor): second operand."],
        example=">>> a = tc.tensor([[1.0, 2.0], [3.0, 4.0]])\n>>> tc.matmul(a, tc.tensor([1.0, 1.0]))\ntensor([3., 7.])\n"
        ">>> tc.matmul(tc.ones(5, 2, 3), tc.ones(3, 4)).shape\ntensorcore.Size([5, 2, 4])",
    ),
    "mm": fn(
        "mm",
        ["input", "mat2"],
        "Matrix product of an (n, m) and an (m, p) matrix (no broadcasting; see :func:`matmul`).",
        ["input (Tensor): (n, m).", "mat2 (Tensor): (m, p)."],
        example=">>> tc.mm(tc.tensor([[1, 2]]), tc.tensor([[3], [4]]))\ntensor([[11]])",
    ),
    "bmm": fn(
        "bmm",
        ["input", "mat2"],
        "Batched matrix product of (b, n, m) and (b, m, p) tensors.",
        ["input (Tensor): (b, n, m).", "mat2 (Tensor): (b, m, p)."],
        example=">>> tc.bmm(tc.ones(2, 1, 3), tc.ones(2, 3, 1)).shape\ntensorcore.Size([2, 1, 1])",
    ),
    "mv": fn(
        "mv",
        ["input", "vec"],
        "Matrix-vector product of an (n, m) matrix and an (m,) vector.",
        ["input (Tensor): (n, m).", "vec (Tensor): (m,)."],
    ),
    "dot": fn(
        "dot",
        ["input", "tensor"],
        "Dot product of two 1-D tensors of the same length (no conjugation; see :func:`vdot`).",
        ["input (Tensor): first vector.", "tensor (Tensor): second vector."],
        example=">>> tc.dot(tc.tensor([1, 2]), tc.tensor([3, 4]))\ntensor(11)",
    ),
    "vdot": fn(
        "vdot",
        ["input", "other"],
        "Dot product of two 1-D tensors, conjugating the first.",
        ["input (Tensor): first vector (conjugated).", "other (Tensor): second vector."],
    ),
    "inner": fn(
        "inner",
        ["input", "other"],
        "Inner product over the last dimension (the dot product for 1-D tensors).",
        ["input (Tensor): first tensor.", "other (Tensor): second tensor."],
    ),
    "outer": fn(
        "outer",
        ["input", "vec2"],
        "Outer product of two 1-D tensors: ``out[i, j] = input[i] * vec2[j]``.",
        ["input (Tensor): (n,).", "vec2 (Tensor): (m,)."],
        example=">>> tc.outer(tc.tensor([1, 2]), tc.tensor([1, 10]))\ntensor([[ 1, 10],\n        [ 2, 20]])",
    ),
    "ger": fn(
        "ger",
        ["input", "vec2"],
        "Deprecated name of :func:`outer`.",
        ["input (Tensor): (n,).", "vec2 (Tensor): (m,)."],
    ),
    "addmm": fn(
        "addmm",
        ["input", "mat1", "mat2", "*", "beta=1", "alpha=1"],
        ":math:`\\beta \\cdot input + \\alpha \\cdot (mat1 @ mat2)`; ``input`` broadcasts to (n, p).",
        ["input (Tensor): added term.", "mat1 (Tensor): (n, m).", "mat2 (Tensor): (m, p)."],
        _SCALE,
    ),
    "addmv": fn(
        "addmv",
        ["input", "mat", "vec", "*", "beta=1", "alpha=1"],
        ":math:`\\beta \\cdot input + \\alpha \\cdot (mat @ vec)`.",
        ["input (Tensor): added vector.", "mat (Tensor): (n, m).", "vec (Tensor): (m,)."],
        _SCALE,
    ),
    "addr": fn(
        "addr",
        ["input", "vec1", "vec2", "*", "beta=1", "alpha=1"],
        ":math:`\\beta \\cdot input + \\alpha \\cdot outer(vec1, vec2)`.",
        ["input (Tensor): added matrix.", "vec1 (Tensor): (n,).", "vec2 (Tensor): (m,)."],
        _SCALE,
    ),
    "baddbmm": fn(
        "baddbmm",
        ["input", "batch1", "batch2", "*", "beta=1", "alpha=1"],
        ":math:`\\beta \\cdot input + \\alpha \\cdot bmm(batch1, batch2)`.",
        [
            "input (Tensor): added term.",
            "batch1 (Tensor): (b, n, m).",
            "batch2 (Tensor): (b, m, p).",
        ],
        _SCALE,
    ),
    "kron": fn(
        "kron",
        ["input", "other"],
        "Kronecker product: each element of ``input`` scales a copy of ``other``.",
        ["input (Tensor): first tensor.", "other (Tensor): second tensor."],
        example=">>> tc.kron(tc.tensor([1, 2]), tc.tensor([1, 1]))\ntensor([1, 1, 2, 2])",
    ),
    "tensordot": fn(
        "tensordot",
        ["input", "other", "dims=2"],
        "Contracts the last ``dims`` dimensions of ``input`` with the first ``dims`` of ``other`` "
        "(or the listed pairs of dimensions).",
        [
            "input (Tensor): first tensor.",
            "other (Tensor): second tensor.",
            "dims (int or pair of lists): how many or which dimensions to contract.",
        ],
        example=">>> tc.tensordot(tc.ones(2, 3), tc.ones(3, 4), dims=1).shape\ntensorcore.Size([2, 4])",
    ),
    "einsum": fn(
        "einsum",
        ["equation", "*operands"],
        "Einstein summation: the equation names each operand's dimensions with letters; letters "
        "missing from the output (after ``->``) are summed. ``...`` stands for broadcast dimensions.",
        [
            "equation (str): e.g. ``'ij,jk->ik'``.",
            "*operands (Tensor): the operands (or one list of them).",
        ],
        example=">>> a = tc.tensor([[1.0, 2.0], [3.0, 4.0]])\n>>> tc.einsum('ii->', a)\ntensor(5.)\n>>> tc.einsum('ij,j->i', a, tc.tensor([1.0, 1.0]))\ntensor([3., 7.])",
    ),
    "chain_matmul": fn(
        "chain_matmul",
        ["*matrices", "out=None"],
        "Product of several matrices, in the cheapest association order. Deprecated: use :func:`tensorcore.linalg.multi_dot`.",
        ["*matrices (Tensor): 2-D tensors."],
    ),
    "trace": fn(
        "trace",
        ["input"],
        "Sum of the main diagonal of a 2-D tensor.",
        [INPUT],
        example=">>> tc.trace(tc.tensor([[1, 2], [3, 4]]))\ntensor(5)",
    ),
    "cdist": fn(
        "cdist",
        ["x1", "x2", "p=2.0", "compute_mode='use_mm_for_euclid_dist_if_necessary'"],
        "p-norm distances between each row of ``x1`` (..., P, M) and each row of ``x2`` (..., R, M): shape (..., P, R).",
        [
            "x1 (Tensor): first set of vectors.",
            "x2 (Tensor): second set of vectors.",
            "p (float): the norm.",
            "compute_mode (str): whether Euclidean distances may use a matrix product.",
        ],
        example=">>> tc.cdist(tc.tensor([[0.0, 0.0]]), tc.tensor([[3.0, 4.0], [0.0, 1.0]]))\ntensor([[5., 1.]])",
    ),
    "cov": fn(
        "cov",
        ["input", "*", "correction=1", "fweights=None", "aweights=None"],
        "Covariance matrix of the variables in the rows of ``input`` (observations in columns).",
        ["input (Tensor): (variables, observations), or 1-D."],
        [
            "correction (int): 1 for the sample covariance, 0 for the population one.",
            "fweights (Tensor, optional): integer frequency weights of the observations.",
            "aweights (Tensor, optional): observation weights.",
        ],
    ),
    "corrcoef": fn(
        "corrcoef",
        ["input"],
        "Pearson correlation coefficients of the variables in the rows of ``input``.",
        ["input (Tensor): (variables, observations)."],
    ),
    "renorm": fn(
        "renorm",
        ["input", "p", "dim", "maxnorm"],
        "Rescales each slice along ``dim`` whose p-norm exceeds ``maxnorm`` to norm ``maxnorm``.",
        [
            INPUT,
            "p (float): the norm.",
            "dim (int): slices are taken along this dimension.",
            "maxnorm (float): the maximum norm.",
        ],
    ),
    "trapezoid": fn(
        "trapezoid",
        ["y", "x=None", "*", "dx=None", "dim=-1"],
        "Integral of ``y`` along ``dim`` by the trapezoidal rule, at sample points ``x`` or with spacing ``dx`` (default 1).",
        ["y (Tensor): the values.", "x (Tensor, optional): the sample points."],
        ["dx (float, optional): constant spacing.", "dim (int): the dimension to integrate."],
        ">>> tc.trapezoid(tc.tensor([1.0, 2.0, 3.0]))\ntensor(4.)",
    ),
    "cumulative_trapezoid": fn(
        "cumulative_trapezoid",
        ["y", "x=None", "*", "dx=None", "dim=-1"],
        "Running trapezoidal integral of ``y`` along ``dim`` (one element shorter).",
        ["y (Tensor): the values.", "x (Tensor, optional): the sample points."],
        ["dx (float, optional): constant spacing.", "dim (int): the dimension to integrate."],
    ),
    "vander": fn(
        "vander",
        ["x", "N=None", "increasing=False"],
        "Vandermonde matrix of a 1-D tensor: columns are powers of ``x`` (decreasing by default).",
        [
            "x (Tensor): 1-D.",
            "N (int, optional): number of columns (default len(x)).",
            "increasing (bool): powers from 0 upward.",
        ],
    ),
    "stft": fn(
        "stft",
        [
            "input",
            "n_fft",
            "hop_length=None",
            "win_length=None",
            "window=None",
            "center=True",
            "pad_mode='reflect'",
            "normalized=False",
            "onesided=None",
            "return_complex=None",
        ],
        "Short-time Fourier transform of a 1-D signal or a batch (B, L): the DFT of overlapping "
        "windowed frames, shape (B?, n_fft // 2 + 1, frames) when one-sided.",
        [
            "input (Tensor): the signal.",
            "n_fft (int): frame size.",
            "hop_length (int, optional): frame step (default n_fft // 4).",
            "win_length (int, optional): window size (default n_fft).",
            "window (Tensor, optional): the window (default rectangular).",
            "center (bool): pad the signal so frames are centered on their time.",
            "pad_mode (str): padding mode for ``center``.",
            "normalized (bool): scale by :math:`1/\\sqrt{n\\_fft}`.",
            "onesided (bool, optional): keep only non-negative frequencies (real input default).",
            "return_complex (bool): return a complex tensor (required for real input, as torch).",
        ],
        example=">>> spec = tc.stft(tc.zeros(400), n_fft=64, window=tc.hann_window(64), return_complex=True)\n>>> spec.shape\ntensorcore.Size([33, 26])",
    ),
    "istft": fn(
        "istft",
        [
            "input",
            "n_fft",
            "hop_length=None",
            "win_length=None",
            "window=None",
            "center=True",
            "normalized=False",
            "onesided=None",
            "length=None",
            "return_complex=False",
        ],
        "Inverse of :func:`stft` by overlap-add with window normalization.",
        [
            "input (Tensor): complex STFT (freq, frames) or (B, freq, frames).",
            "n_fft (int): frame size.",
            "hop_length (int, optional): frame step.",
            "win_length (int, optional): window size.",
            "window (Tensor, optional): the analysis window.",
            "center (bool): the STFT was centered.",
            "normalized (bool): the STFT was normalized.",
            "onesided (bool, optional): the STFT is one-sided.",
            "length (int, optional): trim or pad the signal to this length.",
            "return_complex (bool): return a complex signal.",
        ],
    ),
    # legacy linear algebra
    "det": fn("det", ["input"], "Determinant of square matrices. " + _LINALG.format("det"), [_A]),
    "logdet": fn(
        "logdet",
        ["input"],
        "Log-determinant of square matrices (NaN for a negative determinant).",
        [_A],
    ),
    "slogdet": fn(
        "slogdet",
        ["input"],
        "Sign and log of the absolute determinant. " + _LINALG.format("slogdet"),
        [_A],
        returns="(Tensor, Tensor)",
    ),
    "inverse": fn(
        "inverse",
        ["input"],
        "Inverse of square matrices. " + _LINALG.format("inv"),
        [_A],
        example=">>> tc.inverse(tc.tensor([[2.0, 0.0], [0.0, 4.0]]))\ntensor([[0.5000, 0.0000],\n        [0.0000, 0.2500]])",
    ),
    "pinverse": fn(
        "pinverse",
        ["input", "rcond=1e-15"],
        "Moore-Penrose pseudo-inverse by SVD. " + _LINALG.format("pinv"),
        [_A, "rcond (float): singular values below rcond * largest are treated as zero."],
    ),
    "matrix_power": fn(
        "matrix_power",
        ["input", "n"],
        "The ``n``-th power of square matrices (negative ``n`` uses the inverse).",
        [_A, "n (int): the exponent."],
    ),
    "matrix_exp": fn("matrix_exp", ["input"], "Matrix exponential of square matrices.", [_A]),
    "cholesky": fn(
        "cholesky",
        ["input", "upper=False"],
        "Cholesky factor of symmetric (Hermitian) positive-definite matrices. "
        + _LINALG.format("cholesky"),
        [_A, "upper (bool): return the upper factor U (A = U^H U) instead of L."],
    ),
    "cholesky_inverse": fn(
        "cholesky_inverse",
        ["input", "upper=False"],
        "Inverse of a matrix from its Cholesky factor.",
        ["input (Tensor): the factor.", "upper (bool): the factor is upper triangular."],
    ),
    "cholesky_solve": fn(
        "cholesky_solve",
        ["input", "input2", "upper=False"],
        "Solves A X = B given B (``input``) and the Cholesky factor of A (``input2``).",
        [
            "input (Tensor): right-hand side B.",
            "input2 (Tensor): the Cholesky factor.",
            "upper (bool): the factor is upper triangular.",
        ],
    ),
    "qr": fn(
        "qr",
        ["input", "some=True"],
        "QR decomposition. " + _LINALG.format("qr"),
        [_A, "some (bool): reduced (True) or complete decomposition."],
        returns="(Tensor, Tensor)",
    ),
    "svd": fn(
        "svd",
        ["input", "some=True", "compute_uv=True"],
        "Singular value decomposition ``input = U diag(S) V^H``, returning ``(U, S, V)`` (V, not V^H). "
        + _LINALG.format("svd"),
        [
            _A,
            "some (bool): reduced decomposition.",
            "compute_uv (bool): compute U and V (else zeros).",
        ],
        returns="(Tensor, Tensor, Tensor)",
    ),
    "symeig": fn(
        "symeig",
        ["input", "eigenvectors=False", "upper=True"],
        "Eigenvalues (ascending) and optionally eigenvectors of symmetric matrices. Deprecated: use :func:`tensorcore.linalg.eigh`.",
        [
            _A,
            "eigenvectors (bool): also compute eigenvectors.",
            "upper (bool): which triangle is read.",
        ],
        returns="(Tensor, Tensor)",
    ),
    "lu": fn(
        "lu",
        ["A", "pivot=True", "get_infos=False"],
        "LU factorization with partial pivoting, as ``(LU, pivots)`` (and infos). "
        + _LINALG.format("lu_factor"),
        [
            "A (Tensor): matrices.",
            "pivot (bool): must be True on the CPU.",
            "get_infos (bool): also return per-matrix error codes.",
        ],
        returns="tuple of Tensors",
    ),
    "lu_solve": fn(
        "lu_solve",
        ["input", "LU_data", "LU_pivots"],
        "Solves A X = B from the LU factorization of A (from :func:`lu`).",
        [
            "input (Tensor): B.",
            "LU_data (Tensor): the packed factors.",
            "LU_pivots (Tensor): the pivots.",
        ],
    ),
    "lu_unpack": fn(
        "lu_unpack",
        ["LU_data", "LU_pivots", "unpack_data=True", "unpack_pivots=True"],
        "Unpacks :func:`lu`'s result into the permutation P and the factors L and U.",
        [
            "LU_data (Tensor): the packed factors.",
            "LU_pivots (Tensor): the pivots.",
            "unpack_data (bool): return L and U.",
            "unpack_pivots (bool): return P.",
        ],
        returns="(Tensor, Tensor, Tensor)",
    ),
    "triangular_solve": fn(
        "triangular_solve",
        ["input", "A", "upper=True", "transpose=False", "unitriangular=False"],
        "Solves A X = B for triangular A; returns ``(X, A)``. "
        + _LINALG.format("solve_triangular"),
        [
            "input (Tensor): B.",
            "A (Tensor): triangular matrices.",
            "upper (bool): A is upper triangular.",
            "transpose (bool): solve with A^T.",
            "unitriangular (bool): assume a unit diagonal.",
        ],
        returns="(Tensor, Tensor)",
    ),
    "geqrf": fn(
        "geqrf",
        ["input"],
        "LAPACK's geqrf: QR as Householder reflectors and their scalars ``(a, tau)``.",
        [_A],
        returns="(Tensor, Tensor)",
    ),
    "orgqr": fn(
        "orgqr",
        ["input", "tau"],
        "Forms Q from :func:`geqrf`'s reflectors (same as :func:`tensorcore.linalg.householder_product`).",
        ["input (Tensor): the reflectors.", "tau (Tensor): their scalars."],
    ),
    "matrix_rank": fn(
        "matrix_rank",
        ["input", "tol=None", "symmetric=False"],
        "Removed from torch in 1.9; as in torch 1.13, calling it raises a RuntimeError that "
        "points at :func:`tensorcore.linalg.matrix_rank`, the replacement.",
        returns="Tensor",
    ),
    "lstsq": fn(
        "lstsq",
        ["input", "A"],
        "Removed from torch in 1.9; as in torch 1.13, calling it raises a RuntimeError that "
        "points at :func:`tensorcore.linalg.lstsq`, the replacement.",
        returns="(Tensor, Tensor)",
    ),
    "solve": fn(
        "solve",
        ["input", "A"],
        "Removed from torch in 1.9; as in torch 1.13, calling it raises a RuntimeError that "
        "points at :func:`tensorcore.linalg.solve`, the replacement.",
        returns="(Tensor, Tensor)",
    ),
    "eig": fn(
        "eig",
        ["input", "eigenvectors=False"],
        "Removed from torch in 1.9; as in torch 1.13, calling it raises a RuntimeError that "
        "points at :func:`tensorcore.linalg.eig`, the replacement.",
        returns="(Tensor, Tensor)",
    ),
    "nuclear_norm": fn(
        "nuclear_norm",
        ["input", "dim=None", "keepdim=False"],
        "Nuclear norm (sum of singular values) of matrices.",
        [
            _A,
            "dim (pair of ints, optional): the matrix dimensions.",
            "keepdim (bool): keep the reduced dimensions.",
        ],
    ),
    "frobenius_norm": fn(
        "frobenius_norm",
        ["input", "dim=(-2, -1)", "keepdim=False"],
        "Frobenius norm over ``dim``.",
        [
            INPUT,
            "dim (tuple of ints): the dimensions.",
            "keepdim (bool): keep the reduced dimensions.",
        ],
    ),
    # settings
    "set_default_dtype": fn(
        "set_default_dtype",
        ["d"],
        "Sets the dtype of floating tensors created from Python floats and of the factories without ``dtype`` (float32 or float64; complex defaults follow).",
        ["d (tensorcore.dtype): float32 or float64."],
        returns="None",
        example=">>> tc.set_default_dtype(tc.float64)\n>>> tc.tensor([1.5]).dtype\ntensorcore.float64\n>>> tc.set_default_dtype(tc.float32)",
    ),
    "get_default_dtype": fn(
        "get_default_dtype",
        [],
        "The current default floating dtype (float32 unless changed).",
        returns="dtype",
        example=">>> tc.get_default_dtype()\ntensorcore.float32",
    ),
    "promote_types": fn(
        "promote_types",
        ["type1", "type2"],
        "The dtype that type promotion gives for two dtypes.",
        ["type1 (tensorcore.dtype): first dtype.", "type2 (tensorcore.dtype): second dtype."],
        returns="dtype",
        example=">>> tc.promote_types(tc.int32, tc.float32)\ntensorcore.float32",
    ),
    "can_cast": fn(
        "can_cast",
        ["from_", "to"],
        "Whether type promotion allows a cast from ``from_`` to ``to`` (e.g. an out= tensor of that dtype).",
        ["from_ (tensorcore.dtype): source dtype.", "to (tensorcore.dtype): target dtype."],
        returns="bool",
        example=">>> tc.can_cast(tc.float32, tc.int32)\nFalse",
    ),
    "set_num_threads": fn(
        "set_num_threads",
        ["int"],
        "Sets the number of threads of the CPU kernels (OpenMP).",
        ["int (int): the thread count."],
        returns="None",
    ),
    "get_num_threads": fn(
        "get_num_threads", [], "The number of threads of the CPU kernels.", returns="int"
    ),
    "use_deterministic_algorithms": fn(
        "use_deterministic_algorithms",
        ["mode", "*", "warn_only=False"],
        "With ``mode=True``, operations without a deterministic implementation raise (or warn with ``warn_only``) instead of running.",
        ["mode (bool): enable deterministic mode."],
        ["warn_only (bool): warn instead of raising."],
        returns="None",
    ),
    "are_deterministic_algorithms_enabled": fn(
        "are_deterministic_algorithms_enabled",
        [],
        "Whether :func:`use_deterministic_algorithms` is on.",
        returns="bool",
    ),
    "is_deterministic_algorithms_warn_only_enabled": fn(
        "is_deterministic_algorithms_warn_only_enabled",
        [],
        "Whether deterministic mode only warns.",
        returns="bool",
    ),
    "set_deterministic": fn(
        "set_deterministic",
        ["d"],
        "Deprecated name of :func:`use_deterministic_algorithms`.",
        ["d (bool): enable deterministic mode."],
        returns="None",
    ),
    "is_deterministic": fn(
        "is_deterministic",
        [],
        "Deprecated name of :func:`are_deterministic_algorithms_enabled`.",
        returns="bool",
    ),
    "from_dlpack": fn(
        "from_dlpack",
        ["ext_tensor"],
        "A tensor sharing memory with an object implementing the DLPack protocol (``__dlpack__``) or a DLPack capsule, e.g. from NumPy or torch.",
        ["ext_tensor (object): the producer."],
    ),
    "to_dlpack": fn(
        "to_dlpack",
        ["tensor"],
        "A DLPack capsule sharing ``tensor``'s memory, for another library's ``from_dlpack`` (consumable once).",
        ["tensor (Tensor): the tensor to export."],
        returns="PyCapsule",
    ),
    "resolve_conj": fn(
        "resolve_conj",
        ["input"],
        "Returns ``input`` with any lazy conjugation materialized (tensors here are always resolved, so it returns ``input``).",
        [INPUT],
    ),
    "resolve_neg": fn(
        "resolve_neg",
        ["input"],
        "Returns ``input`` with any lazy negation materialized (tensors here are always resolved).",
        [INPUT],
    ),
    "is_neg": fn(
        "is_neg",
        ["input"],
        "Whether ``input`` carries a lazy negation bit (never, here).",
        [INPUT],
        returns="bool",
    ),
    "conj_physical_": fn("conj_physical_", ["input"], "Conjugates ``input`` in place.", [INPUT]),
    # nn at the top level (torch exposes these too)
    "relu": fn(
        "relu",
        ["input"],
        "Rectified linear unit :math:`\\max(0, x)` (see :func:`tensorcore.nn.functional.relu`).",
        [INPUT],
    ),
    "rrelu": fn(
        "rrelu",
        ["input", "lower=1/8", "upper=1/3", "training=False", "generator=None"],
        "Randomized leaky ReLU (see :func:`tensorcore.nn.functional.rrelu`).",
        [
            INPUT,
            "lower (float): lowest slope.",
            "upper (float): highest slope.",
            "training (bool): draw random slopes.",
            "generator (Generator, optional): the random source.",
        ],
    ),
    "softmax": fn(
        "softmax",
        ["input", "dim", "dtype=None"],
        "Softmax along ``dim`` (see :func:`tensorcore.nn.functional.softmax`).",
        [INPUT, "dim (int): the dimension.", "dtype (tensorcore.dtype, optional): cast first."],
    ),
    "log_softmax": fn(
        "log_softmax",
        ["input", "dim", "dtype=None"],
        "Log-softmax along ``dim`` (see :func:`tensorcore.nn.functional.log_softmax`).",
        [INPUT, "dim (int): the dimension.", "dtype (tensorcore.dtype, optional): cast first."],
    ),
    "layer_norm": fn(
        "layer_norm",
        ["input", "normalized_shape", "weight=None", "bias=None", "eps=1e-05", "cudnn_enable=True"],
        "Layer normalization (see :func:`tensorcore.nn.functional.layer_norm`).",
        [
            INPUT,
            "normalized_shape (tuple): trailing shape.",
            "weight (Tensor, optional): scale.",
            "bias (Tensor, optional): shift.",
            "eps (float): added to the variance.",
            "cudnn_enable (bool): ignored.",
        ],
    ),
    "group_norm": fn(
        "group_norm",
        ["input", "num_groups", "weight=None", "bias=None", "eps=1e-05", "cudnn_enabled=True"],
        "Group normalization (see :func:`tensorcore.nn.functional.group_norm`).",
        [
            INPUT,
            "num_groups (int): groups.",
            "weight (Tensor, optional): scale.",
            "bias (Tensor, optional): shift.",
            "eps (float): added to the variance.",
            "cudnn_enabled (bool): ignored.",
        ],
    ),
    "adaptive_max_pool1d": fn(
        "adaptive_max_pool1d",
        ["input", "output_size"],
        "1-D adaptive max pooling, returning ``(output, indices)`` (see :func:`tensorcore.nn.functional.adaptive_max_pool1d`).",
        [INPUT, "output_size (int): target length."],
        returns="(Tensor, Tensor)",
    ),
    "max_pool1d_with_indices": fn(
        "max_pool1d_with_indices",
        ["input", "kernel_size", "stride=None", "padding=0", "dilation=1", "ceil_mode=False"],
        "1-D max pooling returning ``(output, indices)``.",
        [
            INPUT,
            "kernel_size (int): window.",
            "stride (int, optional): step.",
            "padding (int): padding.",
            "dilation (int): spacing.",
            "ceil_mode (bool): round up.",
        ],
        returns="(Tensor, Tensor)",
    ),
}

_AC = "device_type (str): ``'cpu'`` or ``'cuda'``."
DOCS.update(
    {
        "trapz": fn(
            "trapz",
            ["y", "x=None", "*", "dx=None", "dim=-1"],
            "Old name of :func:`trapezoid`.",
            ["y (Tensor): the values.", "x (Tensor, optional): the sample points."],
            ["dx (float, optional): constant spacing.", "dim (int): the dimension."],
        ),
        "is_autocast_enabled": fn(
            "is_autocast_enabled",
            ["device_type=None"],
            "Whether autocast is active for ``device_type`` (CUDA when omitted).",
            [_AC],
            returns="bool",
        ),
        "set_autocast_enabled": fn(
            "set_autocast_enabled",
            ["enabled", "value=None"],
            "Turns autocast on or off for CUDA, or ``set_autocast_enabled(device_type, value)``. Prefer the :class:`autocast` context manager.",
            [
                "enabled (bool or str): the state, or the device type.",
                "value (bool, optional): the state when a device type is given.",
            ],
            returns="None",
        ),
        "is_autocast_cpu_enabled": fn(
            "is_autocast_cpu_enabled", [], "Whether CPU autocast is active.", returns="bool"
        ),
        "set_autocast_cpu_enabled": fn(
            "set_autocast_cpu_enabled",
            ["enabled"],
            "Turns CPU autocast on or off.",
            ["enabled (bool): the state."],
            returns="None",
        ),
        "get_autocast_dtype": fn(
            "get_autocast_dtype",
            ["device_type"],
            "The lower-precision dtype autocast uses on ``device_type``.",
            [_AC],
            returns="dtype",
        ),
        "set_autocast_dtype": fn(
            "set_autocast_dtype",
            ["device_type", "dtype"],
            "Sets the lower-precision dtype of autocast on ``device_type``.",
            [_AC, "dtype (tensorcore.dtype): float16 or bfloat16."],
            returns="None",
        ),
        "get_autocast_cpu_dtype": fn(
            "get_autocast_cpu_dtype",
            [],
            "The dtype of CPU autocast (bfloat16 by default).",
            returns="dtype",
        ),
        "set_autocast_cpu_dtype": fn(
            "set_autocast_cpu_dtype",
            ["dtype"],
            "Sets the dtype of CPU autocast.",
            ["dtype (tensorcore.dtype): bfloat16 or float16."],
            returns="None",
        ),
        "get_autocast_gpu_dtype": fn(
            "get_autocast_gpu_dtype",
            [],
            "The dtype of CUDA autocast (float16 by default).",
            returns="dtype",
        ),
        "set_autocast_gpu_dtype": fn(
            "set_autocast_gpu_dtype",
            ["dtype"],
            "Sets the dtype of CUDA autocast.",
            ["dtype (tensorcore.dtype): float16 or bfloat16."],
            returns="None",
        ),
        "is_autocast_cache_enabled": fn(
            "is_autocast_cache_enabled",
            [],
            "Whether autocast caches the lower-precision copies of weights within a region.",
            returns="bool",
        ),
        "set_autocast_cache_enabled": fn(
            "set_autocast_cache_enabled",
            ["enabled"],
            "Turns the autocast weight cache on or off.",
            ["enabled (bool): the state."],
            returns="None",
        ),
        "clear_autocast_cache": fn(
            "clear_autocast_cache",
            [],
            "Drops the cached lower-precision weight copies (done when the outermost autocast region exits).",
            returns="None",
        ),
        "autocast_increment_nesting": fn(
            "autocast_increment_nesting",
            [],
            "Increments the autocast nesting depth and returns it (used by :class:`autocast`).",
            returns="int",
        ),
        "autocast_decrement_nesting": fn(
            "autocast_decrement_nesting",
            [],
            "Decrements the autocast nesting depth and returns it; at 0 the cache is cleared.",
            returns="int",
        ),
        # classes
        "Tensor": "A multi-dimensional array of one dtype on one device, with autograd support. Create tensors with "
        ":func:`tensor`, the factories (:func:`zeros`, :func:`arange`, ...) or :func:`from_numpy`; most "
        "functions of ``tensorcore`` are also methods (``x.sum()`` is ``tc.sum(x)``), and methods ending in "
        "``_`` modify the tensor in place.\n\nExample:\n    >>> x = tc.tensor([[1.0, 2.0], [3.0, 4.0]])\n    >>> x.shape, x.dtype\n"
        "    (tensorcore.Size([2, 2]), tensorcore.float32)\n    >>> (x @ x).sum().item()\n    54.0",
        "dtype": "The data type of a tensor: ``tensorcore.float32``, ``float64``, ``float16``, ``bfloat16``, ``complex64``, "
        "``complex128``, ``uint8``, ``int8``, ``int16``, ``int32``, ``int64`` and ``bool`` (with torch's aliases such as "
        "``tensorcore.float`` and ``tensorcore.long``). Attributes ``is_floating_point``, ``is_complex``, ``is_signed`` and ``itemsize``.",
        "device": "Where a tensor's memory lives: ``tensorcore.device('cpu')`` or ``tensorcore.device('cuda', 0)`` / "
        "``'cuda:0'``. Attributes ``type`` (``'cpu'``/``'cuda'``) and ``index``.\n\nExample:\n    >>> tc.device('cuda:1').index\n    1",
        "Size": "The shape of a tensor: a tuple of ints (``x.shape``, ``x.size()``), with :meth:`numel` for the product.\n\n"
        "Example:\n    >>> tc.Size([2, 3]).numel()\n    6",
        "Generator": "A random number generator (Philox-based counter state) with ``manual_seed(seed)``, ``seed()``, "
        "``initial_seed()``, ``get_state()`` and ``set_state(state)``. Pass it as ``generator=`` to sampling functions "
        "for a stream independent of the default generator.\n\nArgs:\n    device (str or device): where the generator's samples are produced.",
        "Node": "A node of the autograd graph (the ``grad_fn`` of a tensor): ``name()``, ``next_functions`` (the nodes of its "
        "inputs, as (node, input index) pairs) and ``register_hook(fn)`` (called with the node's "
        "gradients).",
        "TensorcoreError": "Base class of errors raised by the C++ library that have no more specific Python type (a RuntimeError).",
        "DecodeError": "Raised when an image, audio or video file cannot be decoded (corrupt or unsupported data).",
    }
)

for _name, _dtype in (
    ("FloatTensor", "float32"),
    ("DoubleTensor", "float64"),
    ("HalfTensor", "float16"),
    ("BFloat16Tensor", "bfloat16"),
    ("ByteTensor", "uint8"),
    ("CharTensor", "int8"),
    ("ShortTensor", "int16"),
    ("IntTensor", "int32"),
    ("LongTensor", "int64"),
    ("BoolTensor", "bool"),
):
    DOCS[_name] = (
        f"Legacy tensor type of dtype {_dtype}: ``{_name}(sizes...)`` creates an uninitialized tensor, "
        f"``{_name}(data)`` converts data, and ``isinstance(x, tensorcore.{_name})`` tests the dtype."
    )
