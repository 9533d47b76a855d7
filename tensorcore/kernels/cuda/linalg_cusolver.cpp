// tc.linalg on CUDA tensors: cuSOLVER (potrf/potrs, getrf/getrs, geqrf/orgqr, syevd/heevd,
// gesvdj) and cuBLAS (trsm) per matrix of the batch, on the current stream, registered into the
// same KernelTables as the LAPACK kernels (the op layer, autograd and errors are shared). Buffers
// are the op layer's LAPACK layout (column-major per matrix), which is cuSOLVER's too. Not yet
// on CUDA: linalg.eig (no general eigensolver in the legacy cuSOLVER API), lstsq and ldl_*
// (they raise "no kernel registered for device cuda"). Plain C++: no nvcc time.
#include "tensorcore/linalg/linalg_kernels.h"

#if defined(TC_WITH_CUDA) && defined(TC_WITH_CUSOLVER)
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <array>
#include <complex>
#include <type_traits>

#include "tensorcore/cuda/cuda_check.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

namespace tc::linalg {
namespace {

constexpr uint32_t kSolverTypes =
    (1u << int(DType::Float32)) | (1u << int(DType::Float64)) | kComplex;

#define TC_CUSOLVER_CHECK(expr)                                                                 \
  do {                                                                                          \
    cusolverStatus_t st_ = (expr);                                                              \
    TC_CHECK_AS(::tc::Error, st_ == CUSOLVER_STATUS_SUCCESS, "cuSOLVER error ", int(st_), " (", \
                #expr, ")");                                                                    \
  } while (0)
#define TC_CUBLAS_LA_CHECK(expr)                                                                   \
  do {                                                                                             \
    cublasStatus_t st_ = (expr);                                                                   \
    TC_CHECK_AS(::tc::Error, st_ == CUBLAS_STATUS_SUCCESS, "cuBLAS error ", int(st_), " (", #expr, \
                ")");                                                                              \
  } while (0)

// Handles are not thread-safe: one per thread and device, bound to the current stream per call.
cusolverDnHandle_t solver_for(int device) {
  thread_local std::array<cusolverDnHandle_t, 64> handles{};
  if (!handles[size_t(device)]) TC_CUSOLVER_CHECK(cusolverDnCreate(&handles[size_t(device)]));
  TC_CUSOLVER_CHECK(cusolverDnSetStream(handles[size_t(device)], cuda::stream_of(device)));
  return handles[size_t(device)];
}

cublasHandle_t blas_for(int device) {
  thread_local std::array<cublasHandle_t, 64> handles{};
  if (!handles[size_t(device)]) TC_CUBLAS_LA_CHECK(cublasCreate(&handles[size_t(device)]));
  TC_CUBLAS_LA_CHECK(cublasSetStream(handles[size_t(device)], cuda::stream_of(device)));
  return handles[size_t(device)];
}

// std::complex -> cuComplex views of the same memory.
template <typename T>
struct Cu {
  using type = T;
};
template <>
struct Cu<complex64> {
  using type = cuComplex;
};
template <>
struct Cu<complex128> {
  using type = cuDoubleComplex;
};
template <typename T>
auto* cu(T* p) {
  return reinterpret_cast<typename Cu<T>::type*>(p);
}
template <typename T>
const auto* cu(const T* p) {
  return reinterpret_cast<const typename Cu<T>::type*>(p);
}

// One overload set per routine; T picks S/D/C/Z.
#define TC_PICK(name, ...)                         \
  if constexpr (std::is_same_v<T, float>)          \
    return cusolverDnS##name(__VA_ARGS__);         \
  else if constexpr (std::is_same_v<T, double>)    \
    return cusolverDnD##name(__VA_ARGS__);         \
  else if constexpr (std::is_same_v<T, complex64>) \
    return cusolverDnC##name(__VA_ARGS__);         \
  else                                             \
    return cusolverDnZ##name(__VA_ARGS__)

template <typename T>
struct Solver {
  using C = typename Cu<T>::type;
  using R = std::conditional_t<std::is_same_v<T, complex64>, float,
                               std::conditional_t<std::is_same_v<T, complex128>, double, T>>;
  static cusolverStatus_t potrf_ws(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda,
                                   int* lw) {
    TC_PICK(potrf_bufferSize, h, u, n, cu(a), lda, lw);
  }
  static cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda,
                                T* w, int lw, int* info) {
    TC_PICK(potrf, h, u, n, cu(a), lda, cu(w), lw, info);
  }
  static cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t u, int n, int nrhs,
                                const T* a, int lda, T* b, int ldb, int* info) {
    TC_PICK(potrs, h, u, n, nrhs, cu(a), lda, cu(b), ldb, info);
  }
  static cusolverStatus_t getrf_ws(cusolverDnHandle_t h, int m, int n, T* a, int lda, int* lw) {
    TC_PICK(getrf_bufferSize, h, m, n, cu(a), lda, lw);
  }
  static cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* w, int* piv,
                                int* info) {
    TC_PICK(getrf, h, m, n, cu(a), lda, cu(w), piv, info);
  }
  static cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int nrhs,
                                const T* a, int lda, const int* piv, T* b, int ldb, int* info) {
    TC_PICK(getrs, h, t, n, nrhs, cu(a), lda, piv, cu(b), ldb, info);
  }
  static cusolverStatus_t geqrf_ws(cusolverDnHandle_t h, int m, int n, T* a, int lda, int* lw) {
    TC_PICK(geqrf_bufferSize, h, m, n, cu(a), lda, lw);
  }
  static cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* tau, T* w,
                                int lw, int* info) {
    TC_PICK(geqrf, h, m, n, cu(a), lda, cu(tau), cu(w), lw, info);
  }
  static cusolverStatus_t orgqr_ws(cusolverDnHandle_t h, int m, int n, int k, const T* a, int lda,
                                   const T* tau, int* lw) {
    if constexpr (std::is_same_v<T, float>)
      return cusolverDnSorgqr_bufferSize(h, m, n, k, a, lda, tau, lw);
    else if constexpr (std::is_same_v<T, double>)
      return cusolverDnDorgqr_bufferSize(h, m, n, k, a, lda, tau, lw);
    else if constexpr (std::is_same_v<T, complex64>)
      return cusolverDnCungqr_bufferSize(h, m, n, k, cu(a), lda, cu(tau), lw);
    else
      return cusolverDnZungqr_bufferSize(h, m, n, k, cu(a), lda, cu(tau), lw);
  }
  static cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T* a, int lda,
                                const T* tau, T* w, int lw, int* info) {
    if constexpr (std::is_same_v<T, float>)
      return cusolverDnSorgqr(h, m, n, k, a, lda, tau, w, lw, info);
    else if constexpr (std::is_same_v<T, double>)
      return cusolverDnDorgqr(h, m, n, k, a, lda, tau, w, lw, info);
    else if constexpr (std::is_same_v<T, complex64>)
      return cusolverDnCungqr(h, m, n, k, cu(a), lda, cu(tau), cu(w), lw, info);
    else
      return cusolverDnZungqr(h, m, n, k, cu(a), lda, cu(tau), cu(w), lw, info);
  }
  static cusolverStatus_t syevd_ws(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u,
                                   int n, T* a, int lda, R* w, int* lw) {
    if constexpr (std::is_same_v<T, float>)
      return cusolverDnSsyevd_bufferSize(h, j, u, n, a, lda, w, lw);
    else if constexpr (std::is_same_v<T, double>)
      return cusolverDnDsyevd_bufferSize(h, j, u, n, a, lda, w, lw);
    else if constexpr (std::is_same_v<T, complex64>)
      return cusolverDnCheevd_bufferSize(h, j, u, n, cu(a), lda, w, lw);
    else
      return cusolverDnZheevd_bufferSize(h, j, u, n, cu(a), lda, w, lw);
  }
  static cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u,
                                int n, T* a, int lda, R* w, T* work, int lw, int* info) {
    if constexpr (std::is_same_v<T, float>)
      return cusolverDnSsyevd(h, j, u, n, a, lda, w, work, lw, info);
    else if constexpr (std::is_same_v<T, double>)
      return cusolverDnDsyevd(h, j, u, n, a, lda, w, work, lw, info);
    else if constexpr (std::is_same_v<T, complex64>)
      return cusolverDnCheevd(h, j, u, n, cu(a), lda, w, cu(work), lw, info);
    else
      return cusolverDnZheevd(h, j, u, n, cu(a), lda, w, cu(work), lw, info);
  }
  static cusolverStatus_t gesvdj_ws(cusolverDnHandle_t h, cusolverEigMode_t j, int econ, int m,
                                    int n, T* a, int lda, R* s, T* u, int ldu, T* v, int ldv,
                                    int* lw, gesvdjInfo_t p) {
    TC_PICK(gesvdj_bufferSize, h, j, econ, m, n, cu(a), lda, s, cu(u), ldu, cu(v), ldv, lw, p);
  }
  static cusolverStatus_t gesvdj(cusolverDnHandle_t h, cusolverEigMode_t j, int econ, int m, int n,
                                 T* a, int lda, R* s, T* u, int ldu, T* v, int ldv, T* w, int lw,
                                 int* info, gesvdjInfo_t p) {
    TC_PICK(gesvdj, h, j, econ, m, n, cu(a), lda, s, cu(u), ldu, cu(v), ldv, cu(w), lw, info, p);
  }
  static cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t,
                             cublasDiagType_t d, int m, int n, const T* a, int lda, T* b, int ldb) {
    const T one(1);
    if constexpr (std::is_same_v<T, float>)
      return cublasStrsm(h, CUBLAS_SIDE_LEFT, u, t, d, m, n, &one, a, lda, b, ldb);
    else if constexpr (std::is_same_v<T, double>)
      return cublasDtrsm(h, CUBLAS_SIDE_LEFT, u, t, d, m, n, &one, a, lda, b, ldb);
    else if constexpr (std::is_same_v<T, complex64>)
      return cublasCtrsm(h, CUBLAS_SIDE_LEFT, u, t, d, m, n, cu(&one), cu(a), lda, cu(b), ldb);
    else
      return cublasZtrsm(h, CUBLAS_SIDE_LEFT, u, t, d, m, n, cu(&one), cu(a), lda, cu(b), ldb);
  }
};
#undef TC_PICK

// [B, cols, rows] buffer geometry, as on the CPU.
struct Mats {
  int64_t batch, rows, cols;
  explicit Mats(const Tensor& t) : batch(t.size(0)), rows(t.size(2)), cols(t.size(1)) {}
  int ld() const { return int(std::max<int64_t>(1, rows)); }
  int64_t step() const { return rows * cols; }
};

template <typename T>
Tensor workspace(int64_t elems, const Tensor& like) {
  return empty({std::max<int64_t>(1, elems)}, TensorOptions(like.dtype()).device(like.device()));
}

int dev(const Tensor& t) { return t.device().index; }

void cholesky_cuda(const Tensor& a, bool upper, const Tensor& info) {
  dispatch_dtype<kSolverTypes>(a.dtype(), "linalg.cholesky", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::DeviceGuard guard(dev(a));
    auto h = solver_for(dev(a));
    Mats g(a);
    T* p = a.data<T>();
    const auto uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    int lw = 0;
    TC_CUSOLVER_CHECK(Solver<T>::potrf_ws(h, uplo, int(g.rows), p, g.ld(), &lw));
    Tensor work = workspace<T>(lw, a);
    int* inf = info.data<int>();
    for (int64_t b = 0; b < g.batch; ++b)
      TC_CUSOLVER_CHECK(Solver<T>::potrf(h, uplo, int(g.rows), p + b * g.step(), g.ld(),
                                         work.data<T>(), lw, inf + b));
    // The kernel contract: the other triangle comes back zeroed. The buffer's rows are the
    // factor's columns, so the factor's lower triangle is the buffer's upper one.
    Tensor dst = a;
    copy_(dst, upper ? tril(a) : triu(a));
  });
}

void cholesky_solve_cuda(const Tensor& f, const Tensor& rhs, bool upper) {
  dispatch_dtype<kSolverTypes>(f.dtype(), "cholesky_solve", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::DeviceGuard guard(dev(f));
    auto h = solver_for(dev(f));
    Mats gf(f), gb(rhs);
    Tensor info = zeros({1}, TensorOptions(DType::Int32).device(f.device()));
    for (int64_t b = 0; b < gf.batch; ++b)
      TC_CUSOLVER_CHECK(Solver<T>::potrs(h, upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                                         int(gf.rows), int(gb.cols), f.data<T>() + b * gf.step(),
                                         gf.ld(), rhs.data<T>() + b * gb.step(), gb.ld(),
                                         info.data<int>()));
  });
}

void lu_factor_cuda(const Tensor& a, const Tensor& piv, const Tensor& info) {
  dispatch_dtype<kSolverTypes>(a.dtype(), "linalg.lu_factor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::DeviceGuard guard(dev(a));
    auto h = solver_for(dev(a));
    Mats g(a);
    const int m = int(g.rows), n = int(g.cols);
    const int64_t k = std::min(g.rows, g.cols);
    int lw = 0;
    TC_CUSOLVER_CHECK(Solver<T>::getrf_ws(h, m, n, a.data<T>(), g.ld(), &lw));
    Tensor work = workspace<T>(lw, a);
    for (int64_t b = 0; b < g.batch; ++b)
      TC_CUSOLVER_CHECK(Solver<T>::getrf(h, m, n, a.data<T>() + b * g.step(), g.ld(),
                                         work.data<T>(), piv.data<int>() + b * k,
                                         info.data<int>() + b));
  });
}

void lu_solve_cuda(const Tensor& lu, const Tensor& piv, const Tensor& rhs, char trans) {
  dispatch_dtype<kSolverTypes>(lu.dtype(), "linalg.lu_solve", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::DeviceGuard guard(dev(lu));
    auto h = solver_for(dev(lu));
    Mats ga(lu), gb(rhs);
    const auto op = trans == 'N' ? CUBLAS_OP_N : trans == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
    Tensor info = zeros({1}, TensorOptions(DType::Int32).device(lu.device()));
    for (int64_t b = 0; b < ga.batch; ++b)
      TC_CUSOLVER_CHECK(Solver<T>::getrs(
          h, op, int(ga.rows), int(gb.cols), lu.data<T>() + b * ga.step(), ga.ld(),
          piv.data<int>() + b * ga.rows, rhs.data<T>() + b * gb.step(), gb.ld(), info.data<int>()));
  });
}

void triangular_solve_cuda(const Tensor& a, const Tensor& rhs, bool upper, char trans, bool unit) {
  dispatch_dtype<kSolverTypes>(a.dtype(), "linalg.solve_triangular", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::DeviceGuard guard(dev(a));
    auto h = blas_for(dev(a));
    Mats ga(a), gb(rhs);
    const auto op = trans == 'N' ? CUBLAS_OP_N : trans == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
    for (int64_t b = 0; b < ga.batch; ++b)
      TC_CUBLAS_LA_CHECK(Solver<T>::trsm(h, upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
                                         op, unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT,
                                         int(ga.rows), int(gb.cols), a.data<T>() + b * ga.step(),
                                         ga.ld(), rhs.data<T>() + b * gb.step(), gb.ld()));
  });
}

void geqrf_cuda(const Tensor& a, const Tensor& tau) {
  dispatch_dtype<kSolverTypes>(a.dtype(), "linalg.qr", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::DeviceGuard guard(dev(a));
    auto h = solver_for(dev(a));
    Mats g(a);
    const int m = int(g.rows), n = int(g.cols);
    const int64_t k = std::min(g.rows, g.cols);
    int lw = 0;
    TC_CUSOLVER_CHECK(Solver<T>::geqrf_ws(h, m, n, a.data<T>(), g.ld(), &lw));
    Tensor work = workspace<T>(lw, a);
    Tensor info = zeros({1}, TensorOptions(DType::Int32).device(a.device()));
    for (int64_t b = 0; b < g.batch; ++b)
      TC_CUSOLVER_CHECK(Solver<T>::geqrf(h, m, n, a.data<T>() + b * g.step(), g.ld(),
                                         tau.data<T>() + b * k, work.data<T>(), lw,
                                         info.data<int>()));
  });
}

void orgqr_cuda(const Tensor& a, const Tensor& tau) {
  dispatch_dtype<kSolverTypes>(a.dtype(), "linalg.householder_product", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda::DeviceGuard guard(dev(a));
    auto h = solver_for(dev(a));
    Mats g(a);
    const int m = int(g.rows), n = int(g.cols), k = int(tau.size(1));
    int lw = 0;
    TC_CUSOLVER_CHECK(Solver<T>::orgqr_ws(h, m, n, k, a.data<T>(), g.ld(), tau.data<T>(), &lw));
    Tensor work = workspace<T>(lw, a);
    Tensor info = zeros({1}, TensorOptions(DType::Int32).device(a.device()));
    for (int64_t b = 0; b < g.batch; ++b)
      TC_CUSOLVER_CHECK(Solver<T>::orgqr(h, m, n, k, a.data<T>() + b * g.step(), g.ld(),
                                         tau.data<T>() + b * k, work.data<T>(), lw,
                                         info.data<int>()));
  });
}

void eigh_cuda(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
  dispatch_dtype<kSolverTypes>(a.dtype(), "linalg.eigh", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = typename Solver<T>::R;
    cuda::DeviceGuard guard(dev(a));
    auto h = solver_for(dev(a));
    Mats g(a);
    const int n = int(g.rows);
    const auto job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const auto uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    int lw = 0;
    TC_CUSOLVER_CHECK(Solver<T>::syevd_ws(h, job, uplo, n, a.data<T>(), g.ld(), w.data<R>(), &lw));
    Tensor work = workspace<T>(lw, a);
    for (int64_t b = 0; b < g.batch; ++b)
      TC_CUSOLVER_CHECK(Solver<T>::syevd(h, job, uplo, n, a.data<T>() + b * g.step(), g.ld(),
                                         w.data<R>() + b * n, work.data<T>(), lw,
                                         info.data<int>() + b));
  });
}

void svd_cuda(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, bool full,
              const Tensor& info) {
  dispatch_dtype<kSolverTypes>(a.dtype(), "linalg.svd", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = typename Solver<T>::R;
    cuda::DeviceGuard guard(dev(a));
    auto h = solver_for(dev(a));
    Mats g(a);
    const int m = int(g.rows), n = int(g.cols), k = std::min(m, n);
    const bool vectors = u.defined();
    const int econ = full ? 0 : 1;
    const int ucols = full ? m : k, vcols = full ? n : k;
    const auto job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    // gesvdj returns V (n x vcols, column-major); Vh is written into `vh` afterwards.
    Tensor ubuf =
        vectors ? u : empty({g.batch, ucols, m}, TensorOptions(a.dtype()).device(a.device()));
    Tensor vbuf = empty({g.batch, vcols, n}, TensorOptions(a.dtype()).device(a.device()));
    gesvdjInfo_t params = nullptr;
    TC_CUSOLVER_CHECK(cusolverDnCreateGesvdjInfo(&params));
    int lw = 0;
    TC_CUSOLVER_CHECK(Solver<T>::gesvdj_ws(h, job, econ, m, n, a.data<T>(), g.ld(), s.data<R>(),
                                           ubuf.data<T>(), std::max(1, m), vbuf.data<T>(),
                                           std::max(1, n), &lw, params));
    Tensor work = workspace<T>(lw, a);
    for (int64_t b = 0; b < g.batch; ++b)
      TC_CUSOLVER_CHECK(Solver<T>::gesvdj(h, job, econ, m, n, a.data<T>() + b * g.step(), g.ld(),
                                          s.data<R>() + b * k,
                                          ubuf.data<T>() + b * int64_t(ucols) * m, std::max(1, m),
                                          vbuf.data<T>() + b * int64_t(vcols) * n, std::max(1, n),
                                          work.data<T>(), lw, info.data<int>() + b, params));
    cusolverDnDestroyGesvdjInfo(params);
    if (vectors) {
      // vbuf[b] as a [vcols, n] tensor is V^T; the vh buffer [n, vcols] holds Vh^T = conj(V).
      Tensor V = transpose(vbuf, 1, 2);  // [B, n, vcols] = V
      Tensor dst = vh;
      copy_(dst, a.is_complex() ? conj(V) : V);
    }
  });
}

TC_REGISTER_KERNEL(cholesky_kernel, CUDA, cholesky_cuda);
TC_REGISTER_KERNEL(cholesky_solve_kernel, CUDA, cholesky_solve_cuda);
TC_REGISTER_KERNEL(lu_factor_kernel, CUDA, lu_factor_cuda);
TC_REGISTER_KERNEL(lu_solve_kernel, CUDA, lu_solve_cuda);
TC_REGISTER_KERNEL(triangular_solve_kernel, CUDA, triangular_solve_cuda);
TC_REGISTER_KERNEL(geqrf_kernel, CUDA, geqrf_cuda);
TC_REGISTER_KERNEL(orgqr_kernel, CUDA, orgqr_cuda);
TC_REGISTER_KERNEL(eigh_kernel, CUDA, eigh_cuda);
TC_REGISTER_KERNEL(svd_kernel, CUDA, svd_cuda);

}  // namespace
}  // namespace tc::linalg

#endif  // TC_WITH_CUDA && TC_WITH_CUSOLVER
