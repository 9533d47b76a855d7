// QR, eigendecompositions, SVD, least squares and the pseudo-inverse (tc::linalg), with vjps.
#include <algorithm>
#include <limits>

#include "tensorcore/core/tensor_iter.h"
#include "tensorcore/linalg/linalg_internal.h"

namespace tc::linalg {

using namespace detail;

namespace {

TensorOptions opts_of(const Tensor& t, DType d) { return TensorOptions(d).device(t.device()); }

Tensor zero_diag(const Tensor& X) {
  const int64_t n = X.size(-1);
  Tensor I = eye(n, n, opts_of(X, X.dtype()));
  return mul(X, rsub(I, 1));
}

// Raises when a complex loss depends on the phase of the vectors (torch's gauge check).
void check_gauge(const char* op, const Tensor& imag_diag, const char* what) {
  if (imag_diag.numel() == 0) return;
  const double worst = amax(abs(imag_diag.detach())).item<double>();
  TC_CHECK_AS(Error, worst <= 1e-2, op, ": The ", what,
              " in the complex case are specified up to multiplication by e^{i phi}. The "
              "specified loss function depends on this phase term, making it ill-defined.");
}

// gA for A = QR given gQ, gR (m >= n reduced, or the square block of the wide case).
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  // M = gR R^H - Q^H gQ; gA = (gQ + Q copyutl(M)) R^{-H}, copyutl keeping a real diagonal.
  Tensor M = sub(matmul(gR, mH(R)), matmul(mH(Q), gQ));
  Tensor up = triu(M, 1);
  Tensor d = diagonal(M, 0, -2, -1);
  if (d.is_complex()) d = real(d);
  Tensor sym = add(add(up, mH(up)), to_dtype(diag_embed_last(d), M.dtype()));
  Tensor b = add(gQ, matmul(Q, sym));
  return solve_triangular(mH(R), b, /*upper=*/false, /*left=*/false);
}

}  // namespace

// ---- QR ----

std::tuple<Tensor, Tensor> geqrf(const Tensor& A) {
  const char* op = "geqrf";
  check_matrix(op, A, "input");
  Shape batch = batch_shape(A);
  const int64_t k = std::min(A.size(-2), A.size(-1));
  Tensor buf = to_lapack(A);
  Tensor tau = zeros({buf.size(0), k}, opts_of(A, A.dtype()));
  if (buf.numel() > 0) geqrf_kernel.get(A.device().type)(buf, tau);
  return {from_lapack(buf, batch), reshape(tau, concat_shape(batch, {k}))};
}

Tensor householder_product(const Tensor& A, const Tensor& tau) {
  const char* op = "linalg.householder_product";
  check_matrix(op, A, "input");
  TC_CHECK(A.size(-2) >= A.size(-1), op,
           ": input.shape[-2] must be greater than or equal to "
           "input.shape[-1]");
  TC_CHECK(tau.dim() == A.dim() - 1, op, ": input.dim() must be greater than tau.dim() by 1");
  TC_CHECK(tau.size(-1) <= A.size(-1), op,
           ": input.shape[-1] must be greater than or equal to "
           "tau.shape[-1]");
  check_same_dtype_device(op, A, tau);
  Shape batch = batch_shape(A);
  for (int64_t i = 0; i + 1 < tau.dim(); ++i)
    TC_CHECK(tau.size(i) == batch[size_t(i)], op,
             ": Expected batch dimensions of tau to be equal "
             "to input.shape[:-2]");
  const int64_t k = tau.size(-1);
  Tensor Q;
  {
    autograd::GradModeGuard guard(false);
    Tensor buf = to_lapack(A);
    Tensor t = contiguous(reshape(tau, {buf.size(0), k}));
    if (buf.numel() > 0) orgqr_kernel.get(A.device().type)(buf, t);
    Q = from_lapack(buf, batch);
  }
  if (autograd::needs_grad({A, tau})) {
    // Q = H_1 ... H_k with H_i = I - tau_i v_i v_i^H: differentiate the product in tensor ops
    // (k small matrix products), which also gives double backward.
    autograd::record("LinalgHouseholderProductBackward0", {A, tau}, {Q}, {A, tau},
                     [](const TensorList& s, const TensorList& g) -> TensorList {
                       Tensor A2 = s[0].detach().requires_grad_(true),
                              t2 = s[1].detach().requires_grad_(true);
                       Tensor out;
                       {
                         autograd::GradModeGuard on(true);
                         const int64_t m = A2.size(-2), n = A2.size(-1), kk = t2.size(-1);
                         Tensor I = eye(m, m, opts_of(A2, A2.dtype()));
                         Tensor V = add(tril(A2, -1), eye(m, n, opts_of(A2, A2.dtype())));
                         Tensor H = expand(I, concat_shape(batch_shape(A2), {m, m}));
                         for (int64_t i = 0; i < kk; ++i) {
                           Tensor v = narrow(V, -1, i, 1);
                           Tensor ti = unsqueeze(unsqueeze(select(t2, -1, i), -1), -1);
                           H = sub(H, mul(ti, matmul(matmul(H, v), mH(v))));
                         }
                         out = narrow(H, -1, 0, n);
                       }
                       TensorList gr = autograd::grad({out}, {A2, t2}, {g[0]}, false, false, true);
                       return gr;
                     });
  }
  return Q;
}

std::tuple<Tensor, Tensor> qr(const Tensor& A, const std::string& mode) {
  const char* op = "linalg.qr";
  check_matrix(op, A);
  TC_CHECK(mode == "reduced" || mode == "complete" || mode == "r", op,
           ": qr received unrecognized mode '", mode,
           "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Shape batch = batch_shape(A);
  Tensor Q, R;
  {
    autograd::GradModeGuard guard(false);
    Tensor buf = to_lapack(A);
    const int64_t B = buf.size(0);
    Tensor tau = zeros({B, k}, opts_of(A, A.dtype()));
    if (buf.numel() > 0) geqrf_kernel.get(A.device().type)(buf, tau);
    Tensor fact = from_lapack(buf, batch);
    R = triu(mode == "complete" ? fact : narrow(fact, -2, 0, k));
    if (mode == "r") {
      Q = empty({0}, opts_of(A, A.dtype()));
    } else {
      const int64_t qcols = mode == "complete" ? m : k;
      Tensor qbuf = zeros({B, qcols, m}, opts_of(A, A.dtype()));
      const int64_t copy_cols = std::min(n, qcols);
      Tensor dst = narrow(qbuf, 1, 0, copy_cols);
      copy_(dst, narrow(buf, 1, 0, copy_cols));
      if (qbuf.numel() > 0) orgqr_kernel.get(A.device().type)(qbuf, tau);
      Q = from_lapack(qbuf, batch);
    }
  }
  if (autograd::needs_grad({A})) {
    autograd::record(
        "LinalgQrBackward0", {A}, {Q, R}, {Q, R},
        [mode, m, n](const TensorList& s, const TensorList& g) -> TensorList {
          TC_CHECK_AS(Error, mode != "r",
                      "The derivative of linalg.qr depends on Q, which is not "
                      "computed when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                      "going to differentiate through linalg.qr.");
          TC_CHECK_AS(Error, !(mode == "complete" && m > n),
                      "The QR decomposition is not "
                      "differentiable when mode='complete' and nrows > ncols.");
          const Tensor &Q = s[0], &R = s[1], &gQ = g[0], &gR = g[1];
          if (m >= n) return {qr_backward_tall(gQ, gR, Q, R)};
          // Wide: A = Q [U | V]; V = Q^H Y feeds back into gQ.
          Tensor U = narrow(R, -1, 0, m), V = narrow(R, -1, m, n - m);
          Tensor gU = narrow(gR, -1, 0, m), gV = narrow(gR, -1, m, n - m);
          // Y = A[:, m:] = Q V
          Tensor Y = matmul(Q, V);
          Tensor gQ2 = add(gQ, matmul(Y, mH(gV)));
          Tensor gX = qr_backward_tall(gQ2, gU, Q, U);
          return {cat({gX, matmul(Q, gV)}, -1)};
        });
  }
  return {Q, R};
}

// ---- Hermitian eigendecomposition ----

namespace {
std::tuple<Tensor, Tensor> eigh_impl(const Tensor& A, const std::string& UPLO, bool vectors,
                                     const char* op) {
  check_square(op, A);
  TC_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u", op,
           ": Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  const bool upper = UPLO == "U" || UPLO == "u";
  Shape batch = batch_shape(A);
  const int64_t n = A.size(-1);
  Tensor w, V;
  {
    autograd::GradModeGuard guard(false);
    Tensor buf = to_lapack(A);
    w = empty({buf.size(0), n}, opts_of(A, to_real(A.dtype())));
    Tensor info = zeros({buf.size(0)}, opts_of(A, DType::Int32));
    if (buf.numel() > 0) eigh_kernel.get(A.device().type)(buf, w, vectors, upper, info);
    check_info(op, info, InfoKind::EigConverge, A.dim() > 2);
    w = reshape(w, concat_shape(batch, {n}));
    if (vectors) V = from_lapack(buf, batch);
  }
  return {w, V};
}

Tensor eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V,
                    bool hermitian, const char* op) {
  Tensor W = matmul(mH(V), gV);
  Tensor dW = diagonal(W, 0, -2, -1);
  if (V.is_complex()) check_gauge(op, imag(dW), "eigenvectors");
  if (hermitian) {
    W = mul(sub(W, mH(W)), 0.5);
  } else {
    Tensor re = dW.is_complex() ? real(dW) : dW;
    W = sub(W, matmul(mH(V), mul(V, unsqueeze(to_dtype(re, V.dtype()), -2))));
  }
  Tensor Lc = L.is_complex() ? conj(L) : L;
  Tensor E = sub(unsqueeze(Lc, -2), unsqueeze(Lc, -1));  // E_ij = conj(L_j - L_i)
  const int64_t n = L.size(-1);
  Tensor I = eye(n, n, opts_of(E, E.dtype()));
  E = add(E, I);  // the diagonal is replaced below; avoid 0/0 there
  Tensor core =
      add(zero_diag(div(W, to_dtype(E, W.dtype()))), diag_embed_last(to_dtype(gL, W.dtype())));
  if (hermitian) return matmul(V, matmul(core, mH(V)));
  return solve(mH(V), matmul(core, mH(V)));
}
}  // namespace

std::tuple<Tensor, Tensor> eigh(const Tensor& A, const std::string& UPLO) {
  const char* op = "linalg.eigh";
  auto [w, V] = eigh_impl(A, UPLO, true, op);
  if (autograd::needs_grad({A})) {
    autograd::record("LinalgEighBackward0", {A}, {w, V}, {w, V},
                     [op](const TensorList& s, const TensorList& g) -> TensorList {
                       return {eig_backward(g[0], g[1], s[0], s[1], true, op)};
                     });
  }
  return {w, V};
}

Tensor eigvalsh(const Tensor& A, const std::string& UPLO) {
  if (autograd::needs_grad({A})) return std::get<0>(eigh(A, UPLO));
  return std::get<0>(eigh_impl(A, UPLO, false, "linalg.eigvalsh"));
}

// ---- General eigendecomposition ----

namespace {
std::tuple<Tensor, Tensor> eig_impl(const Tensor& A, bool vectors, const char* op) {
  check_square(op, A);
  Shape batch = batch_shape(A);
  const int64_t n = A.size(-1);
  const DType cd = A.is_complex() ? A.dtype() : to_complex(A.dtype());
  autograd::GradModeGuard guard(false);
  Tensor buf = to_lapack(A);
  Tensor w = empty({buf.size(0), n}, opts_of(A, cd));
  Tensor v = vectors ? empty({buf.size(0), n, n}, opts_of(A, cd)) : Tensor();
  Tensor info = zeros({buf.size(0)}, opts_of(A, DType::Int32));
  if (buf.numel() > 0) eig_kernel.get(A.device().type)(buf, w, v, info);
  check_info(op, info, InfoKind::EigConverge, A.dim() > 2);
  return {reshape(w, concat_shape(batch, {n})), vectors ? from_lapack(v, batch) : Tensor()};
}
}  // namespace

std::tuple<Tensor, Tensor> eig(const Tensor& A) {
  const char* op = "linalg.eig";
  auto [w, V] = eig_impl(A, true, op);
  if (autograd::needs_grad({A})) {
    autograd::record("LinalgEigBackward0", {A}, {w, V}, {w, V},
                     [op](const TensorList& s, const TensorList& g) -> TensorList {
                       return {eig_backward(g[0], g[1], s[0], s[1], false, op)};
                     });
  }
  return {w, V};
}

Tensor eigvals(const Tensor& A) {
  if (autograd::needs_grad({A})) return std::get<0>(eig(A));
  return std::get<0>(eig_impl(A, false, "linalg.eigvals"));
}

// ---- SVD ----

namespace {
std::tuple<Tensor, Tensor, Tensor> svd_impl(const Tensor& A, bool full, bool vectors,
                                            const char* op) {
  check_matrix(op, A);
  Shape batch = batch_shape(A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  autograd::GradModeGuard guard(false);
  Tensor buf = to_lapack(A);
  const int64_t B = buf.size(0);
  Tensor s = empty({B, k}, opts_of(A, to_real(A.dtype())));
  Tensor u, vh;
  if (vectors) {
    u = empty({B, full ? m : k, m}, opts_of(A, A.dtype()));
    vh = empty({B, n, full ? n : k}, opts_of(A, A.dtype()));
  }
  Tensor info = zeros({B}, opts_of(A, DType::Int32));
  if (buf.numel() > 0) {
    svd_kernel.get(A.device().type)(buf, s, u, vh, full, info);
  } else if (vectors && full) {
    // An empty matrix still has full (identity) singular vector bases.
    u = to_lapack(expand(eye(m, m, opts_of(A, A.dtype())), concat_shape(batch, {m, m})));
    vh = to_lapack(expand(eye(n, n, opts_of(A, A.dtype())), concat_shape(batch, {n, n})));
  } else if (vectors) {
    zero_(u);
    zero_(vh);
  }
  check_info(op, info, InfoKind::SvdConverge, A.dim() > 2);
  s = reshape(s, concat_shape(batch, {k}));
  if (!vectors) return {Tensor(), s, Tensor()};
  return {from_lapack(u, batch), s, from_lapack(vh, batch)};
}

Tensor svd_backward(Tensor gU, const Tensor& gS, Tensor gVh, Tensor U, const Tensor& S, Tensor Vh,
                    bool full) {
  const int64_t m = U.size(-2), n = Vh.size(-1), k = S.size(-1);
  if (full) {
    U = narrow(U, -1, 0, k);
    gU = narrow(gU, -1, 0, k);
    Vh = narrow(Vh, -2, 0, k);
    gVh = narrow(gVh, -2, 0, k);
  }
  Tensor V = mH(Vh), gV = mH(gVh);
  Tensor UhgU = matmul(mH(U), gU), VhgV = matmul(mH(V), gV);
  if (U.is_complex())
    check_gauge("linalg.svd", imag(diagonal(add(UhgU, VhgV), 0, -2, -1)), "singular vectors");
  Tensor skU = sub(UhgU, mH(UhgU)), skV = sub(VhgV, mH(VhgV));
  Tensor S2 = mul(S, S);
  Tensor E = sub(unsqueeze(S2, -2), unsqueeze(S2, -1));
  E = add(E, eye(k, k, opts_of(E, E.dtype())));
  Tensor Sc = to_dtype(S, U.dtype());
  Tensor core =
      div(add(mul(skU, unsqueeze(Sc, -2)), mul(unsqueeze(Sc, -1), skV)), to_dtype(E, U.dtype()));
  core = add(zero_diag(core), diag_embed_last(to_dtype(gS, U.dtype())));
  if (U.is_complex()) {
    // i Im(diag(U^H gU)) / S
    Tensor d = div(diagonal(skU, 0, -2, -1), mul(Sc, 2.0));
    core = add(core, diag_embed_last(d));
  }
  Tensor gA;
  if (m > k) {
    Tensor gUSinv = div(gU, unsqueeze(Sc, -2));
    gA = add(matmul(U, core), sub(gUSinv, matmul(U, matmul(mH(U), gUSinv))));
    gA = matmul(gA, Vh);
  } else if (n > k) {
    Tensor gVSinv = div(gV, unsqueeze(Sc, -2));
    gA = matmul(matmul(U, core), Vh);
    gA = add(gA, matmul(U, mH(sub(gVSinv, matmul(V, matmul(mH(V), gVSinv))))));
  } else {
    gA = matmul(matmul(U, core), Vh);
  }
  return gA;
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices) {
  const char* op = "linalg.svd";
  auto [U, S, Vh] = svd_impl(A, full_matrices, true, op);
  if (autograd::needs_grad({A})) {
    autograd::record("LinalgSvdBackward0", {A}, {U, S, Vh}, {U, S, Vh},
                     [full_matrices](const TensorList& s, const TensorList& g) -> TensorList {
                       return {svd_backward(g[0], g[1], g[2], s[0], s[1], s[2], full_matrices)};
                     });
  }
  return {U, S, Vh};
}

Tensor svdvals(const Tensor& A) {
  if (autograd::needs_grad({A})) return std::get<1>(svd(A, false));
  return std::get<1>(svd_impl(A, false, false, "linalg.svdvals"));
}

// ---- Pseudo-inverse and least squares ----

Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
            bool hermitian) {
  const char* op = "linalg.pinv";
  check_matrix(op, A, "input");
  const int64_t m = A.size(-2), n = A.size(-1);
  const double eps = (A.dtype() == DType::Float32 || A.dtype() == DType::Complex64)
                         ? double(std::numeric_limits<float>::epsilon())
                         : std::numeric_limits<double>::epsilon();
  const double rt = rtol ? *rtol : (atol && *atol > 0 ? 0.0 : eps * double(std::max(m, n)));
  const double at = atol ? *atol : 0.0;
  if (A.numel() == 0) return zeros(concat_shape(batch_shape(A), {n, m}), opts_of(A, A.dtype()));
  Tensor U, S, Vh;
  if (hermitian) {
    check_square(op, A, "input");
    auto [w, V] = eigh(A);
    Tensor aw = abs(w);
    Tensor smax = amax(aw, {-1}, true);
    Tensor tol = maximum(full_like(smax, at), mul(smax, rt));
    Tensor keep = gt(aw, tol);
    Tensor winv = where(keep, reciprocal(where(keep, w, ones_like(w))), zeros_like(w));
    return matmul(mul(V, unsqueeze(to_dtype(winv, V.dtype()), -2)), mH(V));
  }
  std::tie(U, S, Vh) = svd(A, false);
  Tensor smax = amax(S, {-1}, true);
  if (S.size(-1) == 0) smax = zeros_like(S);
  Tensor tol = maximum(full_like(smax, at), mul(smax, rt));
  Tensor keep = gt(S, tol);
  Tensor sinv = where(keep, reciprocal(where(keep, S, ones_like(S))), zeros_like(S));
  return matmul(mul(mH(Vh), unsqueeze(to_dtype(sinv, A.dtype()), -2)), mH(U));
}

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B_in,
                                                 std::optional<double> rcond,
                                                 const std::string& driver_name) {
  const char* op = "torch.linalg.lstsq";
  check_matrix("linalg.lstsq", A);
  check_floating("linalg.lstsq", B_in, "B");
  check_same_dtype_device("linalg.lstsq", A, B_in);
  const std::string dn = driver_name.empty() ? "gelsy" : driver_name;
  int driver = -1;
  if (dn == "gels") driver = 0;
  if (dn == "gelsy") driver = 1;
  if (dn == "gelsd") driver = 2;
  if (dn == "gelss") driver = 3;
  TC_CHECK(driver >= 0, op, ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  const bool vector_rhs = B_in.dim() == A.dim() - 1;
  Tensor B = vector_rhs ? unsqueeze(B_in, -1) : B_in;
  TC_CHECK(B.dim() >= 2, op,
           ": input.dim() must be greater or equal to other.dim() and "
           "(input.dim() - other.dim()) <= 1");
  const int64_t m = A.size(-2), n = A.size(-1), nrhs = B.size(-1);
  TC_CHECK(B.size(-2) == m, op, ": input.size(-2) should match other.size(-2)");
  Shape batch = broadcast_shapes(batch_shape(A), batch_shape(B), op);
  const int64_t k = std::min(m, n), mx = std::max(m, n);
  const double eps = (A.dtype() == DType::Float32 || A.dtype() == DType::Complex64)
                         ? double(std::numeric_limits<float>::epsilon())
                         : std::numeric_limits<double>::epsilon();
  const double rc = rcond ? *rcond : eps * double(mx);
  Tensor X, residuals, rank, sv;
  {
    autograd::GradModeGuard guard(false);
    Tensor a = to_lapack(expand(A, concat_shape(batch, {m, n})));
    const int64_t Bc = a.size(0);
    Tensor rhs = zeros({Bc, nrhs, mx}, opts_of(A, A.dtype()));
    Tensor bsrc =
        reshape(transpose(expand(B, concat_shape(batch, {m, nrhs})), -2, -1), {Bc, nrhs, m});
    Tensor dst = narrow(rhs, 2, 0, m);
    if (bsrc.numel() > 0) copy_(dst, bsrc);
    Tensor rk = zeros({Bc}, opts_of(A, DType::Int64));
    Tensor s = zeros({Bc, k}, opts_of(A, to_real(A.dtype())));
    Tensor info = zeros({Bc}, opts_of(A, DType::Int32));
    if (a.numel() > 0 && rhs.numel() > 0)
      lstsq_kernel.get(A.device().type)(a, rhs, rk, s, rc, driver, info);
    check_info(op, info, InfoKind::Lstsq, !batch.empty());
    X = from_lapack(narrow(rhs, 2, 0, n), batch);
    X = contiguous(X);
    if (driver != 0)
      rank = reshape(rk, batch);
    else
      rank = empty({0}, opts_of(A, DType::Int64));
    if (driver >= 2)
      sv = reshape(s, concat_shape(batch, {k}));
    else
      sv = empty({0}, opts_of(A, to_real(A.dtype())));
    // Residuals exist for tall full-rank problems (not with gelsy, as torch).
    bool full_rank = driver != 1 && m > n;
    if (full_rank && driver != 0) full_rank = equal(rk, full_like(rk, n));
    if (full_rank) {
      Tensor tail = from_lapack(narrow(rhs, 2, n, m - n), batch);
      Tensor at = abs(tail);
      residuals = sum(mul(at, at), {-2});
    } else {
      residuals = empty({0}, opts_of(A, to_real(A.dtype())));
    }
  }
  if (autograd::needs_grad({A, B})) {
    // The minimum-norm least-squares solution is pinv(A) B; differentiate that expression.
    X = matmul(pinv(A), B);
  }
  if (vector_rhs) {
    X = squeeze(X, -1);
    if (residuals.numel() > 0) residuals = squeeze(residuals, -1);
  }
  return {X, residuals, rank, sv};
}

}  // namespace tc::linalg
