// Cholesky, LU, inverse, solves and determinants (tc::linalg), with their vjps.
#include <algorithm>

#include "tensorcore/core/tensor_iter.h"
#include "tensorcore/linalg/linalg_internal.h"

namespace tc::linalg {

using namespace detail;

namespace {

TensorOptions int_opts(const Tensor& like, DType d = DType::Int32) {
  return TensorOptions(d).device(like.device());
}

bool has_batch(const Tensor& A) { return A.dim() > 2; }

// A and B expanded to a common batch shape (their last two dims kept).
std::pair<Tensor, Tensor> broadcast_batch(const Tensor& A, const Tensor& B, const char* op) {
  Shape batch = broadcast_shapes(batch_shape(A), batch_shape(B), op);
  return {expand(A, concat_shape(batch, {A.size(-2), A.size(-1)})),
          expand(B, concat_shape(batch, {B.size(-2), B.size(-1)}))};
}

// Packed LU -> (L, U) in differentiable tensor ops.
std::pair<Tensor, Tensor> split_lu(const Tensor& LU) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  Tensor L = narrow(LU, -1, 0, k);
  L = add(tril(L, -1), eye(m, k, TensorOptions(LU.dtype()).device(LU.device())));
  Tensor U = triu(narrow(LU, -2, 0, k));
  return {L, U};
}

// gA for A = P L U given gL [m, k] and gU [k, n] (square, tall and wide cases).
Tensor lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& P, const Tensor& L,
                   const Tensor& U) {
  const int64_t m = L.size(-2), n = U.size(-1), k = std::min(m, n);
  auto square = [](const Tensor& gL1, const Tensor& gU1, const Tensor& L1, const Tensor& U1) {
    // gA' = L^{-H} [tril(L^H gL, -1) + triu(gU U^H)] U^{-H}
    Tensor phi = add(tril(matmul(mH(L1), gL1), -1), triu(matmul(gU1, mH(U1))));
    Tensor x = solve_triangular(mH(L1), phi, /*upper=*/true, /*left=*/true, /*unit=*/true);
    return solve_triangular(mH(U1), x, /*upper=*/false, /*left=*/false);
  };
  if (m == n) return matmul(P, square(gL, gU, L, U));
  if (m > n) {
    Tensor L1 = narrow(L, -2, 0, k), L2 = narrow(L, -2, k, m - k);
    Tensor gL1 = narrow(gL, -2, 0, k), gL2 = narrow(gL, -2, k, m - k);
    Tensor gU1 = sub(gU, matmul(mH(L2), solve_triangular(mH(U), gL2, false, false)));
    Tensor gA1 = square(gL1, gU1, L1, U);
    Tensor gA2 = solve_triangular(mH(U), gL2, /*upper=*/false, /*left=*/false);
    return matmul(P, cat({gA1, gA2}, -2));
  }
  Tensor U1 = narrow(U, -1, 0, k), U2 = narrow(U, -1, k, n - k);
  Tensor gU1 = narrow(gU, -1, 0, k), gU2 = narrow(gU, -1, k, n - k);
  Tensor gA2 = solve_triangular(mH(L), gU2, /*upper=*/true, /*left=*/true, /*unit=*/true);
  Tensor gL1 = sub(gL, matmul(gA2, mH(U2)));
  Tensor gA1 = square(gL1, gU1, L, U1);
  return matmul(P, cat({gA1, gA2}, -1));
}

// Raw LU of A's LAPACK copy: (buffer, pivots [B, k], info [B]). With `transposed` the buffer
// holds A^T (a plain row-major copy of A, as torch's inv/solve factor it), so solves use
// trans='T' and the singular-pivot index in info matches torch's.
std::tuple<Tensor, Tensor, Tensor> lu_raw(const Tensor& A, bool transposed = false) {
  Tensor buf = to_lapack(transposed ? mT(A) : A);
  const int64_t B = buf.size(0), k = std::min(A.size(-2), A.size(-1));
  Tensor piv = zeros({B, k}, int_opts(A));
  Tensor info = zeros({B}, int_opts(A));
  if (buf.numel() > 0) lu_factor_kernel.get(A.device().type)(buf, piv, info);
  return {buf, piv, info};
}

Tensor reshape_batch(const Tensor& t, const Shape& batch, const Shape& tail = {}) {
  return reshape(t, concat_shape(batch, tail));
}

}  // namespace

// ---- Cholesky ----

std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  const char* op = "linalg.cholesky";
  check_square(op, A);
  Shape batch = batch_shape(A);
  Tensor buf = to_lapack(A);
  Tensor info = zeros({buf.size(0)}, int_opts(A));
  if (buf.numel() > 0) cholesky_kernel.get(A.device().type)(buf, upper, info);
  if (check_errors) check_info(op, info, InfoKind::Cholesky, has_batch(A));
  Tensor L = from_lapack(buf, batch);
  if (autograd::needs_grad({A})) {
    autograd::record("LinalgCholeskyExBackward0", {A}, {L}, {L},
                     [upper](const TensorList& s, const TensorList& g) -> TensorList {
                       Tensor L_ = upper ? mH(s[0]) : s[0];
                       Tensor gL = upper ? mH(g[0]) : g[0];
                       Tensor gA = tril(matmul(mH(L_), gL));
                       gA = mul(add(gA, mH(tril(gA, -1))), 0.5);
                       gA = solve_triangular(mH(L_), gA, /*upper=*/true, /*left=*/true);
                       return {solve_triangular(L_, gA, /*upper=*/false, /*left=*/false)};
                     });
  }
  return {L, reshape_batch(info, batch)};
}

Tensor cholesky(const Tensor& A, bool upper) {
  return std::get<0>(cholesky_ex(A, upper, /*check_errors=*/true));
}

Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper) {
  // Through two triangular solves so that autograd (both arguments) comes from them.
  const char* op = "cholesky_solve";
  check_square(op, L, "input2");
  check_matrix(op, B, "input");
  check_same_dtype_device(op, L, B);
  TC_CHECK(B.size(-2) == L.size(-1), op,
           ": Incompatible matrix sizes for cholesky_solve: each A "
           "matrix is ",
           L.size(-1), " by ", L.size(-1), " but each b matrix is ", B.size(-2), " by ",
           B.size(-1));
  if (!autograd::needs_grad({B, L})) {
    auto [Lb, Bb] = broadcast_batch(L, B, op);
    Shape batch = batch_shape(Bb);
    Tensor f = to_lapack(Lb), rhs = to_lapack(Bb);
    if (rhs.numel() > 0 && f.numel() > 0) cholesky_solve_kernel.get(B.device().type)(f, rhs, upper);
    return from_lapack(rhs, batch);
  }
  Tensor Lo = upper ? mH(L) : L;
  Tensor y = solve_triangular(Lo, B, /*upper=*/false);
  return solve_triangular(mH(Lo), y, /*upper=*/true);
}

Tensor cholesky_inverse(const Tensor& L, bool upper) {
  check_square("cholesky_inverse", L, "input");
  return cholesky_solve(identity_like(L), L, upper);
}

// ---- Triangular solve ----

namespace {
Tensor solve_triangular_left(const Tensor& A, const Tensor& B, bool upper, bool unit) {
  const char* op = "linalg.solve_triangular";
  auto [Ab, Bb] = broadcast_batch(A, B, op);
  Shape batch = batch_shape(Bb);
  Tensor X;
  {
    autograd::GradModeGuard guard(false);
    Tensor a = to_lapack(Ab), rhs = to_lapack(Bb);
    if (rhs.numel() > 0 && a.numel() > 0)
      triangular_solve_kernel.get(A.device().type)(a, rhs, upper, 'N', unit);
    X = from_lapack(rhs, batch);
  }
  if (autograd::needs_grad({A, B})) {
    const bool ga = req(A), gb = req(B);
    autograd::record("LinalgSolveTriangularBackward0", {A, B}, {X}, {A, X},
                     [upper, unit, ga, gb](const TensorList& s, const TensorList& g) -> TensorList {
                       Tensor gB = solve_triangular(mH(s[0]), g[0], !upper, true, unit);
                       Tensor gA;
                       if (ga) {
                         gA = neg(matmul(gB, mH(s[1])));
                         gA = upper ? triu(gA, unit ? 1 : 0) : tril(gA, unit ? -1 : 0);
                       }
                       return {gA, gb ? gB : Tensor()};
                     });
  }
  return X;
}
}  // namespace

Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left,
                        bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  check_square(op, A);
  check_matrix(op, B, "B");
  check_same_dtype_device(op, A, B);
  if (left) {
    TC_CHECK(A.size(-1) == B.size(-2), op,
             ": Incompatible shapes of A and B for the equation AX "
             "= B (",
             A.size(-2), "x", A.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
    return solve_triangular_left(A, B, upper, unitriangular);
  }
  TC_CHECK(A.size(-2) == B.size(-1), op,
           ": Incompatible shapes of A and B for the equation XA "
           "= B (",
           A.size(-2), "x", A.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
  // X A = B  <=>  A^T X^T = B^T
  return mT(solve_triangular_left(mT(A), mT(B), !upper, unitriangular));
}

// ---- LU ----

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  const char* op = "linalg.lu_factor";
  check_matrix(op, A);
  TC_CHECK_AS(NotImplementedError, pivot || !A.is_cpu(), op,
              ": LU without pivoting is not implemented on the CPU");
  Shape batch = batch_shape(A);
  auto [buf, piv, info] = lu_raw(A);
  if (check_errors) check_info(op, info, InfoKind::Singular, has_batch(A));
  Tensor LU = from_lapack(buf, batch);
  const int64_t k = std::min(A.size(-2), A.size(-1));
  Tensor pivots = reshape_batch(piv, batch, {k});
  if (autograd::needs_grad({A})) {
    Tensor P = std::get<0>(lu_unpack(LU, pivots, false, true));
    autograd::record("LinalgLuFactorExBackward0", {A}, {LU}, {LU, P},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       auto [L, U] = split_lu(s[0]);
                       const int64_t k2 = std::min(s[0].size(-2), s[0].size(-1));
                       Tensor gL = tril(narrow(g[0], -1, 0, k2), -1);
                       Tensor gU = triu(narrow(g[0], -2, 0, k2));
                       return {lu_backward(gL, gU, s[1], L, U)};
                     });
  }
  return {LU, pivots, reshape_batch(info, batch)};
}

std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot) {
  auto [LU, piv, info] = lu_factor_ex(A, pivot, /*check_errors=*/false);
  // torch.linalg.lu_factor raises only for invalid arguments; singular matrices factor fine.
  (void)info;
  return {LU, piv};
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots,
                                             bool unpack_data, bool unpack_pivots) {
  const char* op = "lu_unpack";
  check_matrix(op, LU, "LU_data");
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  TC_CHECK_TYPE(pivots.dtype() == DType::Int32, op,
                ": LU_pivots is expected to be a contiguous "
                "tensor of torch.int32 dtype. Note: this function is intended to be used with "
                "the output produced by torch.linalg.lu_factor");
  TC_CHECK(pivots.dim() >= 1 && pivots.size(-1) == k, op, ": LU_pivots must have ", k,
           " elements in its last dimension, got ", pivots.dim() ? pivots.size(-1) : 0);
  Tensor P, L, U;
  if (unpack_pivots) {
    Shape batch = batch_shape(LU);
    const int64_t B = shape_numel(batch);
    Tensor piv =
        contiguous(to_device(reshape(expand(pivots, concat_shape(batch, {k})), {B, k}), Device()));
    Tensor perm_host = empty({B, m, m}, TensorOptions(LU.dtype()));
    zero_(perm_host);
    dispatch_dtype<kFloating | kComplex>(LU.dtype(), op, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const int* pv = piv.data<int>();
      T* out = perm_host.data<T>();
      std::vector<int64_t> perm(static_cast<size_t>(m));
      for (int64_t b = 0; b < B; ++b) {
        for (int64_t i = 0; i < m; ++i) perm[size_t(i)] = i;
        for (int64_t i = 0; i < k; ++i) {
          const int64_t j = pv[b * k + i] - 1;
          TC_CHECK_INDEX(j >= 0 && j < m, op, ": pivot ", j + 1, " out of range [1, ", m, "]");
          std::swap(perm[size_t(i)], perm[size_t(j)]);
        }
        // (P^T A)[j] = A[perm[j]]  =>  P[perm[j], j] = 1
        for (int64_t j = 0; j < m; ++j) out[b * m * m + perm[size_t(j)] * m + j] = T(1);
      }
    });
    P = reshape(to_device(perm_host, LU.device()), concat_shape(batch, {m, m}));
  }
  if (unpack_data) std::tie(L, U) = split_lu(LU);
  return {P, L, U};
}

std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot) {
  const char* op = "linalg.lu";
  check_matrix(op, A);
  Tensor LU, piv;
  {
    autograd::GradModeGuard guard(false);
    std::tie(LU, piv, std::ignore) = lu_factor_ex(A, pivot, false);
  }
  auto [P, L, U] = lu_unpack(LU, piv, true, true);
  if (autograd::needs_grad({A})) {
    autograd::record("LinalgLuBackward0", {A}, {L, U}, {P, L, U},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       return {lu_backward(tril(g[0], -1), triu(g[1]), s[0], s[1], s[2])};
                     });
  }
  return {P, L, U};
}

Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  check_square(op, LU, "LU");
  check_matrix(op, B, "B");
  check_same_dtype_device(op, LU, B);
  if (!left) {
    // X A = B  <=>  A^H X^H = B^H
    return mH(lu_solve(LU, pivots, mH(B), true, !adjoint));
  }
  TC_CHECK(LU.size(-1) == B.size(-2), op,
           ": Incompatible shapes of A and B for the equation AX "
           "= B (",
           LU.size(-2), "x", LU.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
  const int64_t n = LU.size(-1);
  Shape batch = broadcast_shapes(batch_shape(LU), batch_shape(B), op);
  Tensor X;
  {
    autograd::GradModeGuard guard(false);
    Tensor f = to_lapack(expand(LU, concat_shape(batch, {n, n})));
    Tensor piv = contiguous(reshape(expand(pivots, concat_shape(batch, {n})), {f.size(0), n}));
    Tensor rhs = to_lapack(expand(B, concat_shape(batch, {B.size(-2), B.size(-1)})));
    const char trans = !adjoint ? 'N' : LU.is_complex() ? 'C' : 'T';
    if (rhs.numel() > 0) lu_solve_kernel.get(LU.device().type)(f, piv, rhs, trans);
    X = from_lapack(rhs, batch);
  }
  if (autograd::needs_grad({LU, B})) {
    const bool glu = req(LU);
    Tensor P = std::get<0>(lu_unpack(LU, pivots, false, true));
    autograd::record("LinalgLuSolveBackward0", {LU, B}, {X}, {LU, pivots, X, P},
                     [adjoint, glu](const TensorList& s, const TensorList& g) -> TensorList {
                       Tensor gB = lu_solve(s[0], s[1], g[0], true, !adjoint);
                       if (!glu) return {Tensor(), gB};
                       Tensor gA = adjoint ? neg(matmul(s[2], mH(gB))) : neg(matmul(gB, mH(s[2])));
                       auto [L, U] = split_lu(s[0]);
                       Tensor PtgA = matmul(mT(s[3]), gA);
                       Tensor gLU = add(tril(matmul(PtgA, mH(U)), -1), triu(matmul(mH(L), PtgA)));
                       return {gLU, gB};
                     });
  }
  return X;
}

// ---- LDL ----

std::tuple<Tensor, Tensor, Tensor> ldl_factor_ex(const Tensor& A, bool hermitian,
                                                 bool check_errors) {
  const char* op = "torch.linalg.ldl_factor_ex";
  check_square(op, A);
  TC_CHECK_AS(Error, !autograd::needs_grad({A}), op,
              ": the derivative of linalg.ldl_factor is not implemented (as in torch 1.13)");
  Shape batch = batch_shape(A);
  const int64_t n = A.size(-1);
  Tensor buf = to_lapack(A);
  Tensor piv = zeros({buf.size(0), n}, int_opts(A));
  Tensor info = zeros({buf.size(0)}, int_opts(A));
  if (buf.numel() > 0) ldl_factor_kernel.get(A.device().type)(buf, piv, hermitian, info);
  if (check_errors) check_info("torch.linalg.ldl_factor", info, InfoKind::Singular, has_batch(A));
  // sytrf leaves the upper triangle untouched: zero it, as torch does
  return {tril(from_lapack(buf, batch)), reshape_batch(piv, batch, {n}),
          reshape_batch(info, batch)};
}

std::tuple<Tensor, Tensor> ldl_factor(const Tensor& A, bool hermitian) {
  auto [LD, piv, info] = ldl_factor_ex(A, hermitian, /*check_errors=*/false);
  check_info("torch.linalg.ldl_factor", info, InfoKind::Singular, A.dim() > 2);
  return {LD, piv};
}

Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  const char* op = "torch.linalg.ldl_solve";
  check_square(op, LD, "LD");
  check_matrix(op, B, "B");
  check_same_dtype_device(op, LD, B);
  TC_CHECK_TYPE(pivots.dtype() == DType::Int32, op, ": Expected pivots to be integers. Got ",
                torch_type_name(pivots.dtype()));
  TC_CHECK(LD.size(-1) == B.size(-2), op,
           ": Incompatible shapes of A and B for the equation AX "
           "= B (",
           LD.size(-2), "x", LD.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
  TC_CHECK(!autograd::needs_grad({LD, B}), op,
           ": the derivative of linalg.ldl_solve is not implemented (as in torch 1.13)");
  const int64_t n = LD.size(-1);
  Shape batch = broadcast_shapes(batch_shape(LD), batch_shape(B), op);
  Tensor f = to_lapack(expand(LD, concat_shape(batch, {n, n})));
  Tensor piv = contiguous(reshape(expand(pivots, concat_shape(batch, {n})), {f.size(0), n}));
  Tensor rhs = to_lapack(expand(B, concat_shape(batch, {B.size(-2), B.size(-1)})));
  if (rhs.numel() > 0) ldl_solve_kernel.get(LD.device().type)(f, piv, rhs, hermitian);
  return from_lapack(rhs, batch);
}

// ---- Inverse and solve ----

std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors) {
  const char* op = "linalg.inv";
  check_square(op, A);
  Shape batch = batch_shape(A);
  Tensor Ainv, info;
  {
    autograd::GradModeGuard guard(false);
    auto [buf, piv, inf] = lu_raw(A, /*transposed=*/true);
    info = inf;
    if (check_errors) check_info(op, info, InfoKind::Singular, has_batch(A));
    const int64_t n = A.size(-1);
    if (lu_inverse_kernel.kernels[int(A.device().type)]) {
      // buf holds A^T column-major, so its inverse, inv(A)^T column-major, is inv(A) row-major.
      Tensor out = empty_like(buf);
      if (out.numel() > 0) lu_inverse_kernel.get(A.device().type)(buf, piv, out);
      Ainv = reshape(out, concat_shape(batch, {n, n}));
    } else {
      // The identity is symmetric, so its LAPACK (column-major) buffer is a plain contiguous copy.
      Tensor rhs = contiguous(
          expand(eye(n, n, TensorOptions(A.dtype()).device(A.device())), {buf.size(0), n, n}));
      if (rhs.numel() > 0) lu_solve_kernel.get(A.device().type)(buf, piv, rhs, 'T');
      Ainv = from_lapack(rhs, batch);
    }
  }
  if (autograd::needs_grad({A})) {
    autograd::record("LinalgInvExBackward0", {A}, {Ainv}, {Ainv},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       Tensor iH = mH(s[0]);
                       return {neg(matmul(iH, matmul(g[0], iH)))};
                     });
  }
  return {Ainv, reshape_batch(info, batch)};
}

Tensor inv(const Tensor& A) { return std::get<0>(inv_ex(A, /*check_errors=*/true)); }

std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left,
                                    bool check_errors) {
  const char* op = "linalg.solve";
  check_square(op, A);
  check_floating(op, B, "B");
  check_same_dtype_device(op, A, B);
  // B is a (batch of) vector(s) when it is 1-d or has exactly A's batch shape plus one dim.
  const bool vector_rhs =
      B.dim() == 1 ||
      (B.dim() == A.dim() - 1 && Shape(B.sizes()) == Shape(A.sizes().begin(), A.sizes().end() - 1));
  if (vector_rhs) {
    TC_CHECK(left, op,
             ": Vector broadcasting of the left hand side is not supported for left="
             "False. In this case linalg.solve is equivalent to B / A.squeeze(-1)");
    auto [X, info] = solve_ex(A, unsqueeze(B, -1), left, check_errors);
    return {squeeze(X, -1), info};
  }
  check_matrix(op, B, "B");
  if (!left) {
    auto [Xh, info] = solve_ex(mH(A), mH(B), true, check_errors);
    return {mH(Xh), info};
  }
  TC_CHECK(A.size(-1) == B.size(-2), op,
           ": Incompatible shapes of A and B for the equation AX "
           "= B (",
           A.size(-2), "x", A.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
  auto [Ab, Bb] = broadcast_batch(A, B, op);
  Shape batch = batch_shape(Bb);
  Tensor X, info;
  {
    autograd::GradModeGuard guard(false);
    auto [buf, piv, inf] = lu_raw(Ab, /*transposed=*/true);
    info = inf;
    if (check_errors) check_info(op, info, InfoKind::SolveSingular, !batch.empty());
    Tensor rhs = to_lapack(Bb);
    if (rhs.numel() > 0) lu_solve_kernel.get(A.device().type)(buf, piv, rhs, 'T');
    X = from_lapack(rhs, batch);
  }
  if (autograd::needs_grad({A, B})) {
    const bool ga = req(A), gb = req(B);
    autograd::record("LinalgSolveExBackward0", {A, B}, {X}, {A, X},
                     [ga, gb](const TensorList& s, const TensorList& g) -> TensorList {
                       Tensor gB = solve(mH(s[0]), g[0]);
                       Tensor gA = ga ? neg(matmul(gB, mH(s[1]))) : Tensor();
                       return {gA, gb ? gB : Tensor()};
                     });
  }
  return {X, reshape_batch(info, batch)};
}

Tensor solve(const Tensor& A, const Tensor& B, bool left) {
  return std::get<0>(solve_ex(A, B, left, /*check_errors=*/true));
}

// ---- Determinants ----

namespace {
// (diagonal of U [..., n], permutation sign [...]) from an LU factorization, no autograd.
std::pair<Tensor, Tensor> lu_diag_and_sign(const Tensor& A) {
  auto [buf, piv, info] = lu_raw(A);
  Shape batch = batch_shape(A);
  const int64_t n = A.size(-1);
  Tensor d = diagonal(from_lapack(buf, batch), 0, -2, -1);
  Tensor idx = arange(1, n + 1, 1, TensorOptions(DType::Int32).device(A.device()));
  Tensor swaps = sum(ne(reshape_batch(piv, batch, {n}), idx), {-1});
  // (-1)^swaps
  Tensor sign = rsub(mul(remainder(swaps, scalar_tensor(2, DType::Int64, A.device())), 2), 1);
  return {d, to_dtype(sign, A.dtype())};
}
// gA = g * adj(A)^H through the SVD A = U S V^H, valid for singular A as well (torch 1.13's
// route there): adj(A) = det(U) det(V^H) V adj(S) U^H, adj(S)_ii = prod_{j != i} s_j.
Tensor det_backward_svd(const Tensor& g, const Tensor& A) {
  auto [U, S, Vh] = svd(A, false);
  const int64_t n = S.size(-1);
  // prod_{j != i} s_j as exclusive prefix * suffix products (no division by a zero s_i)
  Tensor ones1 = ones_like(narrow(S, -1, 0, 1));
  Tensor prefix = cat({ones1, narrow(cumprod(S, -1), -1, 0, n - 1)}, -1);
  Tensor suffix = flip(cat({ones1, narrow(cumprod(flip(S, {-1}), -1), -1, 0, n - 1)}, -1), {-1});
  Tensor adjS = to_dtype(mul(prefix, suffix), A.dtype());
  Tensor phase = mul(det(U), det(Vh));  // |phase| = 1
  Tensor c = unsqueeze(unsqueeze(mul(g, conj(phase)), -1), -1);
  // adj(A)^H = conj(phase) U adj(S) V^H
  return mul(c, matmul(mul(U, unsqueeze(adjS, -2)), Vh));
}

}  // namespace

Tensor det(const Tensor& A) {
  const char* op = "linalg.det";
  check_square(op, A);
  Tensor out;
  {
    autograd::GradModeGuard guard(false);
    auto [d, sign] = lu_diag_and_sign(A);
    out = mul(prod(d, -1), sign);
  }
  if (autograd::needs_grad({A})) {
    autograd::record("LinalgDetBackward0", {A}, {out}, {A, out},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       // d det = det tr(A^{-1} dA)  =>  gA = g conj(det) A^{-H}
                       const bool singular = !all(ne(s[1], zeros_like(s[1]))).item<bool>();
                       if (!singular) {
                         Tensor c = unsqueeze(unsqueeze(mul(g[0], conj(s[1])), -1), -1);
                         return {mul(c, mH(inv(s[0])))};
                       }
                       return {det_backward_svd(g[0], s[0])};
                     });
  }
  return out;
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  const char* op = "linalg.slogdet";
  check_square(op, A);
  Tensor sign, logabs;
  {
    autograd::GradModeGuard guard(false);
    auto [d, psign] = lu_diag_and_sign(A);
    Tensor ad = abs(d);
    logabs = sum(log(ad), {-1});
    Tensor unit = A.is_complex() ? prod(div(d, ad), -1) : prod(sgn(d), -1);
    sign = mul(unit, psign);
    // A singular matrix has sign 0 (and logabsdet -inf).
    sign = where(any(eq(ad, zeros_like(ad)), {-1}), zeros_like(sign), sign);
  }
  if (autograd::needs_grad({A})) {
    const bool cplx = A.is_complex();
    autograd::record("LinalgSlogdetBackward0", {A}, {sign, logabs}, {A, sign},
                     [cplx](const TensorList& s, const TensorList& g) -> TensorList {
                       Tensor c = g[1];
                       if (cplx) {
                         // c = g_logabs - i Im(conj(g_sign) sign)
                         Tensor im = imag(mul(conj(g[0]), s[1]));
                         c = complex(c, neg(im));
                       }
                       c = unsqueeze(unsqueeze(c, -1), -1);
                       return {mul(c, mH(inv(s[0])))};
                     });
  }
  return {sign, logabs};
}

Tensor logdet(const Tensor& A) {
  check_square("logdet", A);
  auto [sign, logabs] = slogdet(A);
  if (A.is_complex()) return add(log(sign), logabs);
  Tensor nan = full_like(logabs, std::numeric_limits<double>::quiet_NaN());
  return where(lt(sign, zeros_like(sign)), nan, logabs);
}

}  // namespace tc::linalg
