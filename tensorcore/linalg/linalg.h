#pragma once
// tc::linalg: torch.linalg's factorizations and solvers (torch 1.13 names, argument order and
// semantics). Inputs are batches of matrices [..., m, n] in float32/float64/complex64/complex128;
// the CPU runs LAPACK per matrix, the batch in parallel. Every differentiable function records
// its vjp in tensor ops, so double backward works; complex gradients follow torch's convention.
// Functions without `_ex` raise tc::linalg::LinAlgError (Python: torch-like LinAlgError, a
// RuntimeError) naming the batch element; `_ex` variants return LAPACK's info instead.
#include <optional>
#include <string>
#include <tuple>

#include "tensorcore/core/error.h"
#include "tensorcore/core/tensor.h"

namespace tc::linalg {

struct LinAlgError : Error {
  using Error::Error;
};

Tensor cholesky(const Tensor& A, bool upper = false);
std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper = false,
                                       bool check_errors = false);  // (L, info)
Tensor cholesky_solve(const Tensor& B, const Tensor& L,
                      bool upper = false);                     // torch.cholesky_solve
Tensor cholesky_inverse(const Tensor& L, bool upper = false);  // torch.cholesky_inverse

Tensor inv(const Tensor& A);
std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors = false);  // (inverse, info)
Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left = true,
                                    bool check_errors = false);  // (result, info)
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                        bool unitriangular = false);
Tensor det(const Tensor& A);
std::tuple<Tensor, Tensor> slogdet(const Tensor& A);  // (sign, logabsdet)
Tensor logdet(const Tensor& A);                       // torch.logdet: nan for det < 0

// LU with partial pivoting; pivots are int32 and 1-based, as LAPACK's / torch's.
std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot = true);  // (LU, pivots)
std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot = true,
                                                bool check_errors = false);  // (LU, pivots, info)
std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot = true);   // (P, L, U)
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots,
                                             bool unpack_data = true, bool unpack_pivots = true);
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                bool adjoint = false);

// LDL^T / LDL^H (Bunch-Kaufman, lower); pivots in LAPACK's sytrf encoding. Not differentiable
// (as torch 1.13).
std::tuple<Tensor, Tensor, Tensor> ldl_factor_ex(const Tensor& A, bool hermitian = false,
                                                 bool check_errors = false);  // (LD, pivots, info)
std::tuple<Tensor, Tensor> ldl_factor(const Tensor& A, bool hermitian = false);
Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian = false);

// mode: "reduced", "complete" or "r".
std::tuple<Tensor, Tensor> qr(const Tensor& A, const std::string& mode = "reduced");
std::tuple<Tensor, Tensor> geqrf(const Tensor& A);  // torch.geqrf: (reflectors, tau); no grad
Tensor householder_product(const Tensor& A, const Tensor& tau);

std::tuple<Tensor, Tensor> eigh(const Tensor& A, const std::string& UPLO = "L");
Tensor eigvalsh(const Tensor& A, const std::string& UPLO = "L");
std::tuple<Tensor, Tensor> eig(const Tensor& A);  // complex (eigenvalues, eigenvectors)
Tensor eigvals(const Tensor& A);

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices = true);  // U, S, Vh
Tensor svdvals(const Tensor& A);

// (solution, residuals, rank, singular_values); driver "" picks gelsy, as torch on the CPU.
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B,
                                                 std::optional<double> rcond = {},
                                                 const std::string& driver = "");

}  // namespace tc::linalg

namespace tc::linalg {
// Moore-Penrose pseudo-inverse through the SVD (or eigh with hermitian); singular values below
// max(atol, rtol * largest) are treated as zero. rtol default: eps * max(m, n) when atol is
// not given, else 0 (torch 1.13).
Tensor pinv(const Tensor& A, std::optional<double> atol = {}, std::optional<double> rtol = {},
            bool hermitian = false);
}  // namespace tc::linalg
