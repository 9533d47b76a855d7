// CPU kernels of tc.linalg: LAPACK (from the packaged OpenBLAS) per matrix, batches split over
// threads. While a batch runs in parallel OpenBLAS is held to one thread per call, so the two
// levels of threading do not oversubscribe the cores; a single large matrix keeps OpenBLAS's own
// threads.
#include <cblas.h>

#include <algorithm>
#include <vector>

#include "tensorcore/core/parallel.h"
#include "tensorcore/kernels/cpu/blas_threads.h"
#include "tensorcore/linalg/lapack.h"
#include "tensorcore/linalg/linalg_kernels.h"

namespace tc::linalg {
namespace {

using lapack::c128;
using lapack::c64;
using lapack::real_t;
using namespace lapack;

constexpr uint32_t kLapackTypes =
    (1u << int(DType::Float32)) | (1u << int(DType::Float64)) | kComplex;

// Runs fn(b) for every matrix of the batch: in parallel when there are enough matrices to keep
// the threads busy, else one after the other with a multithreaded LAPACK.
template <typename F>
void for_each_matrix(int64_t batch, int64_t n, F&& fn) {
  const int threads = get_num_threads();
  const bool parallel =
      batch > 1 && threads > 1 && !in_parallel_region() && (batch >= threads || n <= 512);
  if (!parallel) {
    for (int64_t b = 0; b < batch; ++b) fn(b);
    return;
  }
  BlasSingleThread guard;
  parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) fn(b);
  });
}

int to_int(int64_t v) { return int(v); }
template <typename T>
int work_size(T w) {
  return std::max(1, int(std::real(w)));
}

// [B, cols, rows] buffer geometry.
struct Mats {
  int64_t batch, rows, cols;
  explicit Mats(const Tensor& t) : batch(t.size(0)), rows(t.size(2)), cols(t.size(1)) {}
  int ld() const { return to_int(std::max<int64_t>(1, rows)); }
  int64_t step() const { return rows * cols; }
};

void cholesky_cpu(const Tensor& a, bool upper, const Tensor& info) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.cholesky", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats g(a);
    T* p = a.data<T>();
    int* inf = info.data<int>();
    const int64_t n = g.rows;
    for_each_matrix(g.batch, n, [&](int64_t b) {
      T* m = p + b * g.step();
      lapack::potrf<T>(upper ? 'U' : 'L', to_int(n), m, g.ld(), &inf[b]);
      // potrf leaves the other triangle as it was: zero it while the matrix is in cache.
      for (int64_t j = 0; j < n; ++j) {
        T* col = m + j * n;
        if (upper)
          std::fill(col + j + 1, col + n, T(0));
        else
          std::fill(col, col + j, T(0));
      }
    });
  });
}

void cholesky_solve_cpu(const Tensor& f, const Tensor& rhs, bool upper) {
  dispatch_dtype<kLapackTypes>(f.dtype(), "cholesky_solve", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats gf(f), gb(rhs);
    const T* pf = f.data<T>();
    T* pb = rhs.data<T>();
    for_each_matrix(gf.batch, gf.rows, [&](int64_t b) {
      int inf = 0;
      lapack::potrs<T>(upper ? 'U' : 'L', to_int(gf.rows), to_int(gb.cols), pf + b * gf.step(),
                       gf.ld(), pb + b * gb.step(), gb.ld(), &inf);
    });
  });
}

void lu_factor_cpu(const Tensor& a, const Tensor& piv, const Tensor& info) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.lu_factor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats g(a);
    T* p = a.data<T>();
    int* pv = piv.data<int>();
    int* inf = info.data<int>();
    const int64_t k = std::min(g.rows, g.cols);
    for_each_matrix(g.batch, std::max(g.rows, g.cols), [&](int64_t b) {
      lapack::getrf<T>(to_int(g.rows), to_int(g.cols), p + b * g.step(), g.ld(), pv + b * k,
                       &inf[b]);
    });
  });
}

void lu_solve_cpu(const Tensor& lu, const Tensor& piv, const Tensor& rhs, char trans) {
  dispatch_dtype<kLapackTypes>(lu.dtype(), "linalg.lu_solve", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats ga(lu), gb(rhs);
    const T* pa = lu.data<T>();
    const int* pv = piv.data<int>();
    T* pb = rhs.data<T>();
    const int64_t n = ga.rows;
    for_each_matrix(ga.batch, n, [&](int64_t b) {
      int inf = 0;
      lapack::getrs<T>(trans, to_int(n), to_int(gb.cols), pa + b * ga.step(), ga.ld(), pv + b * n,
                       pb + b * gb.step(), gb.ld(), &inf);
    });
  });
}

// B <- op(A)^-1 B for a triangular column-major A (cblas picks s/d/c/z by T).
template <typename T>
void trsm_left(CBLAS_UPLO uplo, CBLAS_TRANSPOSE tr, CBLAS_DIAG diag, int n, int nrhs, const T* A,
               int lda, T* B, int ldb) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_strsm(CblasColMajor, CblasLeft, uplo, tr, diag, n, nrhs, 1.0f, A, lda, B, ldb);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dtrsm(CblasColMajor, CblasLeft, uplo, tr, diag, n, nrhs, 1.0, A, lda, B, ldb);
  } else {
    const T one(1);
    if constexpr (std::is_same_v<T, c64>)
      cblas_ctrsm(CblasColMajor, CblasLeft, uplo, tr, diag, n, nrhs, &one, A, lda, B, ldb);
    else
      cblas_ztrsm(CblasColMajor, CblasLeft, uplo, tr, diag, n, nrhs, &one, A, lda, B, ldb);
  }
}

void triangular_solve_cpu(const Tensor& a, const Tensor& rhs, bool upper, char trans, bool unit) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.solve_triangular", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats ga(a), gb(rhs);
    const T* pa = a.data<T>();
    T* pb = rhs.data<T>();
    const auto uplo = upper ? CblasUpper : CblasLower;
    const auto tr = trans == 'N' ? CblasNoTrans : trans == 'T' ? CblasTrans : CblasConjTrans;
    const auto diag = unit ? CblasUnit : CblasNonUnit;
    const int n = to_int(ga.rows), nrhs = to_int(gb.cols);
    for_each_matrix(ga.batch, n, [&](int64_t b) {
      trsm_left<T>(uplo, tr, diag, n, nrhs, pa + b * ga.step(), ga.ld(), pb + b * gb.step(),
                   gb.ld());
    });
  });
}

// inv(P L U) = U^-1 L^-1 P^T. Inverting the unit L in place (trtri, n^3/3 flops) and then one
// triangular solve with U against the full L^-1 (n^3) costs 4/3 n^3 after the factorization,
// where getrs against the identity costs 2 n^3: about 30% less time at 1024^2 with OpenBLAS.
void lu_inverse_cpu(const Tensor& lu, const Tensor& piv, const Tensor& out) {
  dispatch_dtype<kLapackTypes>(lu.dtype(), "linalg.inv", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats g(lu);
    T* pa = lu.data<T>();
    const int* pv = piv.data<int>();
    T* po = out.data<T>();
    const int64_t n = g.rows;
    for_each_matrix(g.batch, n, [&](int64_t b) {
      T* a = pa + b * g.step();
      T* x = po + b * g.step();
      const int* ipiv = pv + b * n;
      int info = 0;
      lapack::trtri<T>('L', 'U', to_int(n), a, g.ld(), &info);
      for (int64_t j = 0; j < n; ++j) {  // x = L^-1: unit diagonal, zeros above it
        T* col = x + j * n;
        std::fill(col, col + j, T(0));
        col[j] = T(1);
        // trtri negates the column below the diagonal, so its exact zeros come out as -0;
        // adding +0 clears the sign, as getrs on the identity would leave it.
        std::transform(a + j * n + j + 1, a + (j + 1) * n, col + j + 1,
                       [](T v) { return v + T(0); });
      }
      trsm_left<T>(CblasUpper, CblasNoTrans, CblasNonUnit, to_int(n), to_int(n), a, g.ld(), x,
                   g.ld());
      // Right-multiplying by P^T undoes getrf's row interchanges as column swaps, last first.
      for (int64_t j = n - 1; j >= 0; --j) {
        const int64_t p = ipiv[j] - 1;
        if (p != j) std::swap_ranges(x + j * n, x + (j + 1) * n, x + p * n);
      }
    });
  });
}

void ldl_factor_cpu(const Tensor& a, const Tensor& piv, bool hermitian, const Tensor& info) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.ldl_factor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats g(a);
    T* p = a.data<T>();
    int* pv = piv.data<int>();
    int* inf = info.data<int>();
    const int n = to_int(g.rows);
    T query{};
    int i0 = 0, dummy_piv = 0;
    lapack::sytrf<T>(hermitian, 'L', n, p, g.ld(), &dummy_piv, &query, -1, &i0);
    const int lwork = work_size(query);
    for_each_matrix(g.batch, n, [&](int64_t b) {
      std::vector<T> work(static_cast<size_t>(lwork));
      lapack::sytrf<T>(hermitian, 'L', n, p + b * g.step(), g.ld(), pv + b * n, work.data(), lwork,
                       &inf[b]);
    });
  });
}

void ldl_solve_cpu(const Tensor& ld, const Tensor& piv, const Tensor& rhs, bool hermitian) {
  dispatch_dtype<kLapackTypes>(ld.dtype(), "linalg.ldl_solve", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats ga(ld), gb(rhs);
    const T* pa = ld.data<T>();
    const int* pv = piv.data<int>();
    T* pb = rhs.data<T>();
    const int n = to_int(ga.rows);
    for_each_matrix(ga.batch, n, [&](int64_t b) {
      int inf = 0;
      lapack::sytrs<T>(hermitian, 'L', n, to_int(gb.cols), pa + b * ga.step(), ga.ld(), pv + b * n,
                       pb + b * gb.step(), gb.ld(), &inf);
    });
  });
}

void geqrf_cpu(const Tensor& a, const Tensor& tau) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.qr", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats g(a);
    T* p = a.data<T>();
    T* pt = tau.data<T>();
    const int m = to_int(g.rows), n = to_int(g.cols);
    const int64_t k = std::min(g.rows, g.cols);
    T query{};
    int inf = 0;
    lapack::geqrf<T>(m, n, p, g.ld(), pt, &query, -1, &inf);
    const int lwork = work_size(query);
    for_each_matrix(g.batch, std::max(m, n), [&](int64_t b) {
      std::vector<T> work(static_cast<size_t>(lwork));
      int i = 0;
      lapack::geqrf<T>(m, n, p + b * g.step(), g.ld(), pt + b * k, work.data(), lwork, &i);
    });
  });
}

void orgqr_cpu(const Tensor& a, const Tensor& tau) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.householder_product", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Mats g(a);
    T* p = a.data<T>();
    const T* pt = tau.data<T>();
    const int m = to_int(g.rows), n = to_int(g.cols), k = to_int(tau.size(1));
    T query{};
    int inf = 0;
    lapack::orgqr<T>(m, n, k, p, g.ld(), pt, &query, -1, &inf);
    const int lwork = work_size(query);
    for_each_matrix(g.batch, m, [&](int64_t b) {
      std::vector<T> work(static_cast<size_t>(lwork));
      int i = 0;
      lapack::orgqr<T>(m, n, k, p + b * g.step(), g.ld(), pt + b * k, work.data(), lwork, &i);
    });
  });
}

void eigh_cpu(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.eigh", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = real_t<T>;
    Mats g(a);
    T* p = a.data<T>();
    R* pw = w.data<R>();
    int* inf = info.data<int>();
    const int n = to_int(g.rows);
    const char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    T wq{};
    R rq{};
    int iq = 0, i0 = 0;
    lapack::syevd<T>(jobz, uplo, n, p, g.ld(), pw, &wq, -1, &rq, -1, &iq, -1, &i0);
    const int lwork = work_size(wq), lrwork = std::max(1, int(rq)), liwork = std::max(1, iq);
    for_each_matrix(g.batch, n, [&](int64_t b) {
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<R> rwork(static_cast<size_t>(lrwork));
      std::vector<int> iwork(static_cast<size_t>(liwork));
      lapack::syevd<T>(jobz, uplo, n, p + b * g.step(), g.ld(), pw + b * n, work.data(), lwork,
                       rwork.data(), lrwork, iwork.data(), liwork, &inf[b]);
    });
  });
}

template <typename T>
void geev_one(int n, T* a, int lda, std::complex<real_t<T>>* w, std::complex<real_t<T>>* v,
              int* info, int lwork_query_only, T* query) {
  using R = real_t<T>;
  const char jobvl = 'N', jobvr = v ? 'V' : 'N';
  int ldvr = std::max(1, n), one = 1;
  if constexpr (std::is_floating_point_v<T>) {
    const size_t nn = static_cast<size_t>(n);
    std::vector<R> wr(nn), wi(nn), vr(v ? nn * nn : 1);
    int lwork = -1;
    T q{};
    auto call = [&](T* work, int lw) {
      if constexpr (std::is_same_v<T, float>)
        sgeev_(&jobvl, &jobvr, &n, a, &lda, wr.data(), wi.data(), nullptr, &one, vr.data(), &ldvr,
               work, &lw, info, 1, 1);
      else
        dgeev_(&jobvl, &jobvr, &n, a, &lda, wr.data(), wi.data(), nullptr, &one, vr.data(), &ldvr,
               work, &lw, info, 1, 1);
    };
    if (lwork_query_only) {
      call(query, -1);
      return;
    }
    call(&q, -1);
    lwork = work_size(q);
    std::vector<T> work(static_cast<size_t>(lwork));
    call(work.data(), lwork);
    for (int j = 0; j < n; ++j) w[j] = std::complex<R>(wr[size_t(j)], wi[size_t(j)]);
    if (!v) return;
    // Real geev packs a complex pair (j, j+1) as vr[:, j] +- i vr[:, j+1].
    for (int j = 0; j < n; ++j) {
      const R* cj = vr.data() + size_t(j) * n;
      if (wi[size_t(j)] != R(0) && j + 1 < n) {
        const R* cj1 = cj + n;
        for (int r = 0; r < n; ++r) {
          v[size_t(j) * n + r] = std::complex<R>(cj[r], cj1[r]);
          v[size_t(j + 1) * n + r] = std::complex<R>(cj[r], -cj1[r]);
        }
        ++j;
      } else {
        for (int r = 0; r < n; ++r) v[size_t(j) * n + r] = std::complex<R>(cj[r], R(0));
      }
    }
  } else {
    std::vector<R> rwork(static_cast<size_t>(std::max(1, 2 * n)));
    auto call = [&](T* work, int lw) {
      if constexpr (std::is_same_v<T, c64>)
        cgeev_(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &one, v ? v : w, &ldvr, work, &lw,
               rwork.data(), info, 1, 1);
      else
        zgeev_(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &one, v ? v : w, &ldvr, work, &lw,
               rwork.data(), info, 1, 1);
    };
    if (lwork_query_only) {
      call(query, -1);
      return;
    }
    T q{};
    call(&q, -1);
    const int lwork = work_size(q);
    std::vector<T> work(static_cast<size_t>(lwork));
    call(work.data(), lwork);
  }
}

void eig_cpu(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.eig", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::complex<real_t<T>>;
    Mats g(a);
    T* p = a.data<T>();
    C* pw = w.data<C>();
    C* pv = v.defined() ? v.data<C>() : nullptr;
    int* inf = info.data<int>();
    const int n = to_int(g.rows);
    for_each_matrix(g.batch, n, [&](int64_t b) {
      geev_one<T>(n, p + b * g.step(), g.ld(), pw + b * n, pv ? pv + b * g.step() : nullptr,
                  &inf[b], 0, nullptr);
    });
  });
}

void svd_cpu(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, bool full,
             const Tensor& info) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.svd", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = real_t<T>;
    Mats g(a);
    const int m = to_int(g.rows), n = to_int(g.cols), k = std::min(m, n);
    const bool vectors = u.defined();
    const char jobz = !vectors ? 'N' : full ? 'A' : 'S';
    T* p = a.data<T>();
    R* ps = s.data<R>();
    T* pu = vectors ? u.data<T>() : nullptr;
    T* pv = vectors ? vh.data<T>() : nullptr;
    const int64_t ustep = vectors ? u.size(1) * u.size(2) : 0;
    const int64_t vstep = vectors ? vh.size(1) * vh.size(2) : 0;
    const int ldu = std::max(1, m), ldvt = std::max(1, vectors ? to_int(vh.size(2)) : 1);
    int* inf = info.data<int>();
    const size_t lrwork = size_t(
        std::max(1, !vectors ? 7 * k : k * std::max(5 * k + 7, 2 * std::max(m, n) + 2 * k + 1)));
    T q{};
    R rq{};
    int iq = 0, i0 = 0;
    T dummy{};
    lapack::gesdd<T>(jobz, m, n, p, std::max(1, m), ps, pu ? pu : &dummy, ldu, pv ? pv : &dummy,
                     ldvt, &q, -1, &rq, &iq, &i0);
    const int lwork = work_size(q);
    for_each_matrix(g.batch, std::max(m, n), [&](int64_t b) {
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<R> rwork(is_complex_v<T> ? lrwork : 1);
      std::vector<int> iwork(static_cast<size_t>(std::max(1, 8 * k)));
      T scratch{};
      lapack::gesdd<T>(jobz, m, n, p + b * g.step(), std::max(1, m), ps + b * k,
                       pu ? pu + b * ustep : &scratch, ldu, pv ? pv + b * vstep : &scratch, ldvt,
                       work.data(), lwork, rwork.data(), iwork.data(), &inf[b]);
    });
  });
}

template <typename T>
void lstsq_one(int driver, int m, int n, int nrhs, T* a, T* b, int ldb, real_t<T>* sv,
               real_t<T> rcond, int64_t* rank, int* info) {
  using R = real_t<T>;
  const int lda = std::max(1, m);
  int rk = 0;
  auto run = [&](T* work, int lwork, R* rwork, int* iwork, int* jpvt, R* svals) {
    if (driver == 0) {
      const char tr = 'N';
      if constexpr (std::is_same_v<T, float>)
        sgels_(&tr, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info, 1);
      else if constexpr (std::is_same_v<T, double>)
        dgels_(&tr, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info, 1);
      else if constexpr (std::is_same_v<T, c64>)
        cgels_(&tr, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info, 1);
      else
        zgels_(&tr, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info, 1);
    } else if (driver == 1) {
      if constexpr (std::is_same_v<T, float>)
        sgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, &rk, work, &lwork, info);
      else if constexpr (std::is_same_v<T, double>)
        dgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, &rk, work, &lwork, info);
      else if constexpr (std::is_same_v<T, c64>)
        cgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, &rk, work, &lwork, rwork, info);
      else
        zgelsy_(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, &rk, work, &lwork, rwork, info);
    } else if (driver == 2) {
      if constexpr (std::is_same_v<T, float>)
        sgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, svals, &rcond, &rk, work, &lwork, iwork, info);
      else if constexpr (std::is_same_v<T, double>)
        dgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, svals, &rcond, &rk, work, &lwork, iwork, info);
      else if constexpr (std::is_same_v<T, c64>)
        cgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, svals, &rcond, &rk, work, &lwork, rwork, iwork,
                info);
      else
        zgelsd_(&m, &n, &nrhs, a, &lda, b, &ldb, svals, &rcond, &rk, work, &lwork, rwork, iwork,
                info);
    } else {
      if constexpr (std::is_same_v<T, float>)
        sgelss_(&m, &n, &nrhs, a, &lda, b, &ldb, svals, &rcond, &rk, work, &lwork, info);
      else if constexpr (std::is_same_v<T, double>)
        dgelss_(&m, &n, &nrhs, a, &lda, b, &ldb, svals, &rcond, &rk, work, &lwork, info);
      else if constexpr (std::is_same_v<T, c64>)
        cgelss_(&m, &n, &nrhs, a, &lda, b, &ldb, svals, &rcond, &rk, work, &lwork, rwork, info);
      else
        zgelss_(&m, &n, &nrhs, a, &lda, b, &ldb, svals, &rcond, &rk, work, &lwork, rwork, info);
    }
  };
  const int mn = std::min(m, n);
  // gelsd's rwork / iwork bounds (LAPACK docs, with smlsiz = 25, nlvl <= 32).
  const size_t nlvl = 32;
  std::vector<R> rwork(static_cast<size_t>(std::max(
      {1, 5 * mn, 2 * n, int(10 * mn + 2 * mn * 25 + 8 * mn * nlvl + 3 * 25 * nrhs + 676)})));
  std::vector<int> iwork(static_cast<size_t>(std::max(1, int(3 * mn * nlvl + 11 * mn))));
  std::vector<int> jpvt(static_cast<size_t>(std::max(1, n)), 0);
  std::vector<R> sv_local(static_cast<size_t>(std::max(1, mn)));
  R* svp = sv ? sv : sv_local.data();
  T q{};
  int* final_info = info;
  int query_info = 0;
  info = &query_info;
  run(&q, -1, rwork.data(), iwork.data(), jpvt.data(), svp);
  info = final_info;
  const int lwork = work_size(q);
  std::vector<T> work(static_cast<size_t>(lwork));
  run(work.data(), lwork, rwork.data(), iwork.data(), jpvt.data(), svp);
  if (rank) *rank = driver == 0 ? mn : rk;
}

void lstsq_cpu(const Tensor& a, const Tensor& rhs, const Tensor& rank, const Tensor& sv,
               double rcond, int driver, const Tensor& info) {
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.lstsq", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = real_t<T>;
    Mats ga(a), gb(rhs);
    T* pa = a.data<T>();
    T* pb = rhs.data<T>();
    int64_t* pr = rank.defined() ? rank.data<int64_t>() : nullptr;
    R* ps = sv.defined() ? sv.data<R>() : nullptr;
    int* inf = info.data<int>();
    const int m = to_int(ga.rows), n = to_int(ga.cols), k = std::min(m, n);
    for_each_matrix(ga.batch, std::max(m, n), [&](int64_t b) {
      lstsq_one<T>(driver, m, n, to_int(gb.cols), pa + b * ga.step(), pb + b * gb.step(), gb.ld(),
                   ps ? ps + b * k : nullptr, R(rcond), pr ? pr + b : nullptr, &inf[b]);
    });
  });
}

}  // namespace

KernelTable<CholeskyKernel> cholesky_kernel("linalg.cholesky");
KernelTable<CholeskySolveKernel> cholesky_solve_kernel("cholesky_solve");
KernelTable<LdlFactorKernel> ldl_factor_kernel("linalg.ldl_factor");
KernelTable<LdlSolveKernel> ldl_solve_kernel("linalg.ldl_solve");
KernelTable<LuFactorKernel> lu_factor_kernel("linalg.lu_factor");
KernelTable<LuSolveKernel> lu_solve_kernel("linalg.lu_solve");
KernelTable<LuInverseKernel> lu_inverse_kernel("linalg.inv");
KernelTable<TriangularSolveKernel> triangular_solve_kernel("linalg.solve_triangular");
KernelTable<GeqrfKernel> geqrf_kernel("geqrf");
KernelTable<OrgqrKernel> orgqr_kernel("linalg.householder_product");
KernelTable<EighKernel> eigh_kernel("linalg.eigh");
KernelTable<EigKernel> eig_kernel("linalg.eig");
KernelTable<SvdKernel> svd_kernel("linalg.svd");
KernelTable<LstsqKernel> lstsq_kernel("linalg.lstsq");

TC_REGISTER_KERNEL(cholesky_kernel, CPU, cholesky_cpu);
TC_REGISTER_KERNEL(cholesky_solve_kernel, CPU, cholesky_solve_cpu);
TC_REGISTER_KERNEL(ldl_factor_kernel, CPU, ldl_factor_cpu);
TC_REGISTER_KERNEL(ldl_solve_kernel, CPU, ldl_solve_cpu);
TC_REGISTER_KERNEL(lu_factor_kernel, CPU, lu_factor_cpu);
TC_REGISTER_KERNEL(lu_solve_kernel, CPU, lu_solve_cpu);
TC_REGISTER_KERNEL(lu_inverse_kernel, CPU, lu_inverse_cpu);
TC_REGISTER_KERNEL(triangular_solve_kernel, CPU, triangular_solve_cpu);
TC_REGISTER_KERNEL(geqrf_kernel, CPU, geqrf_cpu);
TC_REGISTER_KERNEL(orgqr_kernel, CPU, orgqr_cpu);
TC_REGISTER_KERNEL(eigh_kernel, CPU, eigh_cpu);
TC_REGISTER_KERNEL(eig_kernel, CPU, eig_cpu);
TC_REGISTER_KERNEL(svd_kernel, CPU, svd_cpu);
TC_REGISTER_KERNEL(lstsq_kernel, CPU, lstsq_cpu);

}  // namespace tc::linalg
