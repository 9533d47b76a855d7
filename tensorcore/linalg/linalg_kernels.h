#pragma once
// Device kernel tables of tc.linalg's factorizations. Every matrix argument is a LAPACK-layout
// batch: a contiguous [B, cols, rows] tensor holding B column-major rows x cols matrices (the op
// layer builds it with to_lapack_layout). Kernels work in place and report per-matrix status in
// an int32 `info` [B] (LAPACK's convention), so the `_ex` ops can return it without raising.
#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/tensor.h"

namespace tc::linalg {

// Leaves the factor with the other triangle zeroed.
using CholeskyKernel = void (*)(const Tensor& a, bool upper, const Tensor& info);
using CholeskySolveKernel = void (*)(const Tensor& factor, const Tensor& b, bool upper);
// pivots: int32 [B, min(m, n)], 1-based as LAPACK's ipiv.
using LuFactorKernel = void (*)(const Tensor& a, const Tensor& pivots, const Tensor& info);
// trans: 'N', 'T' or 'C'.
using LuSolveKernel = void (*)(const Tensor& lu, const Tensor& pivots, const Tensor& b, char trans);
// Writes inv(A) of each square LU factorization into `out` (same geometry); `lu` is destroyed.
// Optional per device: where none is registered, inv solves against the identity.
using LuInverseKernel = void (*)(const Tensor& lu, const Tensor& pivots, const Tensor& out);
// Solves op(A) X = B (left side) for triangular A; no singularity check (as torch).
using TriangularSolveKernel = void (*)(const Tensor& a, const Tensor& b, bool upper, char trans,
                                       bool unit_diagonal);
using GeqrfKernel = void (*)(const Tensor& a, const Tensor& tau);
// Overwrites the m x n reflector matrix `a` with the first n columns of Q.
using OrgqrKernel = void (*)(const Tensor& a, const Tensor& tau);
// w: real [B, n]; with `vectors` the eigenvectors overwrite `a`.
using EighKernel = void (*)(const Tensor& a, const Tensor& w, bool vectors, bool upper,
                            const Tensor& info);
// w: complex [B, n]; v: complex [B, n, n] or undefined (values only). `a` is destroyed.
using EigKernel = void (*)(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info);
// s: real [B, k]; u [B, ucols, m], vh [B, n, vrows], both undefined for values only.
using SvdKernel = void (*)(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh,
                           bool full_matrices, const Tensor& info);
// driver: 0 gels, 1 gelsy, 2 gelsd, 3 gelss. b: [B, nrhs, max(m, n)]; rank int64 [B];
// sv real [B, min(m, n)] (drivers gelsd/gelss).
using LstsqKernel = void (*)(const Tensor& a, const Tensor& b, const Tensor& rank, const Tensor& sv,
                             double rcond, int driver, const Tensor& info);

// Bunch-Kaufman LDL^T (lower); pivots int32 [B, n] in LAPACK's sytrf encoding.
using LdlFactorKernel = void (*)(const Tensor& a, const Tensor& pivots, bool hermitian,
                                 const Tensor& info);
using LdlSolveKernel = void (*)(const Tensor& ld, const Tensor& pivots, const Tensor& b,
                                bool hermitian);

extern KernelTable<CholeskyKernel> cholesky_kernel;
extern KernelTable<LdlFactorKernel> ldl_factor_kernel;
extern KernelTable<LdlSolveKernel> ldl_solve_kernel;
extern KernelTable<CholeskySolveKernel> cholesky_solve_kernel;
extern KernelTable<LuFactorKernel> lu_factor_kernel;
extern KernelTable<LuSolveKernel> lu_solve_kernel;
extern KernelTable<LuInverseKernel> lu_inverse_kernel;
extern KernelTable<TriangularSolveKernel> triangular_solve_kernel;
extern KernelTable<GeqrfKernel> geqrf_kernel;
extern KernelTable<OrgqrKernel> orgqr_kernel;
extern KernelTable<EighKernel> eigh_kernel;
extern KernelTable<EigKernel> eig_kernel;
extern KernelTable<SvdKernel> svd_kernel;
extern KernelTable<LstsqKernel> lstsq_kernel;

}  // namespace tc::linalg
