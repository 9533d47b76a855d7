#pragma once
// Typed C++ front for the LAPACK routines tc.linalg calls (the Fortran ABI of the packaged
// OpenBLAS / reference LAPACK). Column-major, 32-bit integers. Character arguments pass their
// hidden Fortran length (1) explicitly: gfortran-built routines may read it.
#include <complex>
#include <cstddef>
#include <type_traits>

namespace tc::lapack {

using c64 = std::complex<float>;
using c128 = std::complex<double>;

extern "C" {
#define TC_LAPACK_POTRF(p, T) void p##potrf_(const char*, const int*, T*, const int*, int*, size_t);
#define TC_LAPACK_POTRS(p, T)                                                                     \
  void p##potrs_(const char*, const int*, const int*, const T*, const int*, T*, const int*, int*, \
                 size_t);
#define TC_LAPACK_GETRF(p, T) void p##getrf_(const int*, const int*, T*, const int*, int*, int*);
#define TC_LAPACK_GETRS(p, T)                                                               \
  void p##getrs_(const char*, const int*, const int*, const T*, const int*, const int*, T*, \
                 const int*, int*, size_t);
#define TC_LAPACK_TRTRS(p, T)                                                             \
  void p##trtrs_(const char*, const char*, const char*, const int*, const int*, const T*, \
                 const int*, T*, const int*, int*, size_t, size_t, size_t);
#define TC_LAPACK_GEQRF(p, T) \
  void p##geqrf_(const int*, const int*, T*, const int*, T*, T*, const int*, int*);
#define TC_LAPACK_ALL(X) X(s, float) X(d, double) X(c, c64) X(z, c128)
TC_LAPACK_ALL(TC_LAPACK_POTRF)
TC_LAPACK_ALL(TC_LAPACK_POTRS)
TC_LAPACK_ALL(TC_LAPACK_GETRF)
TC_LAPACK_ALL(TC_LAPACK_GETRS)
TC_LAPACK_ALL(TC_LAPACK_TRTRS)
TC_LAPACK_ALL(TC_LAPACK_GEQRF)
#define TC_LAPACK_SYTRF(p, T) \
  void p##sytrf_(const char*, const int*, T*, const int*, int*, T*, const int*, int*, size_t);
#define TC_LAPACK_SYTRS(p, T)                                                               \
  void p##sytrs_(const char*, const int*, const int*, const T*, const int*, const int*, T*, \
                 const int*, int*, size_t);
TC_LAPACK_ALL(TC_LAPACK_SYTRF)
TC_LAPACK_ALL(TC_LAPACK_SYTRS)
#define TC_LAPACK_TRTRI(p, T) \
  void p##trtri_(const char*, const char*, const int*, T*, const int*, int*, size_t, size_t);
TC_LAPACK_ALL(TC_LAPACK_TRTRI)
void chetrf_(const char*, const int*, c64*, const int*, int*, c64*, const int*, int*, size_t);
void zhetrf_(const char*, const int*, c128*, const int*, int*, c128*, const int*, int*, size_t);
void chetrs_(const char*, const int*, const int*, const c64*, const int*, const int*, c64*,
             const int*, int*, size_t);
void zhetrs_(const char*, const int*, const int*, const c128*, const int*, const int*, c128*,
             const int*, int*, size_t);
void sorgqr_(const int*, const int*, const int*, float*, const int*, const float*, float*,
             const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
void cungqr_(const int*, const int*, const int*, c64*, const int*, const c64*, c64*, const int*,
             int*);
void zungqr_(const int*, const int*, const int*, c128*, const int*, const c128*, c128*, const int*,
             int*);
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*,
             int*, const int*, int*, size_t, size_t);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*,
             const int*, int*, const int*, int*, size_t, size_t);
void cheevd_(const char*, const char*, const int*, c64*, const int*, float*, c64*, const int*,
             float*, const int*, int*, const int*, int*, size_t, size_t);
void zheevd_(const char*, const char*, const int*, c128*, const int*, double*, c128*, const int*,
             double*, const int*, int*, const int*, int*, size_t, size_t);
void sgeev_(const char*, const char*, const int*, float*, const int*, float*, float*, float*,
            const int*, float*, const int*, float*, const int*, int*, size_t, size_t);
void dgeev_(const char*, const char*, const int*, double*, const int*, double*, double*, double*,
            const int*, double*, const int*, double*, const int*, int*, size_t, size_t);
void cgeev_(const char*, const char*, const int*, c64*, const int*, c64*, c64*, const int*, c64*,
            const int*, c64*, const int*, float*, int*, size_t, size_t);
void zgeev_(const char*, const char*, const int*, c128*, const int*, c128*, c128*, const int*,
            c128*, const int*, c128*, const int*, double*, int*, size_t, size_t);
void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*,
             float*, const int*, float*, const int*, int*, int*, size_t);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*,
             double*, const int*, double*, const int*, int*, int*, size_t);
void cgesdd_(const char*, const int*, const int*, c64*, const int*, float*, c64*, const int*, c64*,
             const int*, c64*, const int*, float*, int*, int*, size_t);
void zgesdd_(const char*, const int*, const int*, c128*, const int*, double*, c128*, const int*,
             c128*, const int*, c128*, const int*, double*, int*, int*, size_t);
void sgels_(const char*, const int*, const int*, const int*, float*, const int*, float*, const int*,
            float*, const int*, int*, size_t);
void dgels_(const char*, const int*, const int*, const int*, double*, const int*, double*,
            const int*, double*, const int*, int*, size_t);
void cgels_(const char*, const int*, const int*, const int*, c64*, const int*, c64*, const int*,
            c64*, const int*, int*, size_t);
void zgels_(const char*, const int*, const int*, const int*, c128*, const int*, c128*, const int*,
            c128*, const int*, int*, size_t);
void sgelsy_(const int*, const int*, const int*, float*, const int*, float*, const int*, int*,
             const float*, int*, float*, const int*, int*);
void dgelsy_(const int*, const int*, const int*, double*, const int*, double*, const int*, int*,
             const double*, int*, double*, const int*, int*);
void cgelsy_(const int*, const int*, const int*, c64*, const int*, c64*, const int*, int*,
             const float*, int*, c64*, const int*, float*, int*);
void zgelsy_(const int*, const int*, const int*, c128*, const int*, c128*, const int*, int*,
             const double*, int*, c128*, const int*, double*, int*);
void sgelsd_(const int*, const int*, const int*, float*, const int*, float*, const int*, float*,
             const float*, int*, float*, const int*, int*, int*);
void dgelsd_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*,
             const double*, int*, double*, const int*, int*, int*);
void cgelsd_(const int*, const int*, const int*, c64*, const int*, c64*, const int*, float*,
             const float*, int*, c64*, const int*, float*, int*, int*);
void zgelsd_(const int*, const int*, const int*, c128*, const int*, c128*, const int*, double*,
             const double*, int*, c128*, const int*, double*, int*, int*);
void sgelss_(const int*, const int*, const int*, float*, const int*, float*, const int*, float*,
             const float*, int*, float*, const int*, int*);
void dgelss_(const int*, const int*, const int*, double*, const int*, double*, const int*, double*,
             const double*, int*, double*, const int*, int*);
void cgelss_(const int*, const int*, const int*, c64*, const int*, c64*, const int*, float*,
             const float*, int*, c64*, const int*, float*, int*);
void zgelss_(const int*, const int*, const int*, c128*, const int*, c128*, const int*, double*,
             const double*, int*, c128*, const int*, double*, int*);
#undef TC_LAPACK_ALL
#undef TC_LAPACK_POTRF
#undef TC_LAPACK_POTRS
#undef TC_LAPACK_GETRF
#undef TC_LAPACK_GETRS
#undef TC_LAPACK_TRTRS
#undef TC_LAPACK_GEQRF
#undef TC_LAPACK_SYTRF
#undef TC_LAPACK_SYTRS
#undef TC_LAPACK_TRTRI
}

template <typename T>
struct real_of {
  using type = T;
};
template <typename T>
struct real_of<std::complex<T>> {
  using type = T;
};
template <typename T>
using real_t = typename real_of<T>::type;

// One overload set per routine; T picks s/d/c/z.
#define TC_LAPACK_PICK(fn, ...)                 \
  if constexpr (std::is_same_v<T, float>)       \
    s##fn##_(__VA_ARGS__);                      \
  else if constexpr (std::is_same_v<T, double>) \
    d##fn##_(__VA_ARGS__);                      \
  else if constexpr (std::is_same_v<T, c64>)    \
    c##fn##_(__VA_ARGS__);                      \
  else                                          \
    z##fn##_(__VA_ARGS__)

template <typename T>
void potrf(char uplo, int n, T* a, int lda, int* info) {
  TC_LAPACK_PICK(potrf, &uplo, &n, a, &lda, info, 1);
}
template <typename T>
void potrs(char uplo, int n, int nrhs, const T* a, int lda, T* b, int ldb, int* info) {
  TC_LAPACK_PICK(potrs, &uplo, &n, &nrhs, a, &lda, b, &ldb, info, 1);
}
template <typename T>
void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) {
  TC_LAPACK_PICK(getrf, &m, &n, a, &lda, ipiv, info);
}
template <typename T>
void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb,
           int* info) {
  TC_LAPACK_PICK(getrs, &trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
template <typename T>
void trtrs(char uplo, char trans, char diag, int n, int nrhs, const T* a, int lda, T* b, int ldb,
           int* info) {
  TC_LAPACK_PICK(trtrs, &uplo, &trans, &diag, &n, &nrhs, a, &lda, b, &ldb, info, 1, 1, 1);
}
template <typename T>
void trtri(char uplo, char diag, int n, T* a, int lda, int* info) {
  TC_LAPACK_PICK(trtri, &uplo, &diag, &n, a, &lda, info, 1, 1);
}
template <typename T>
void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) {
  TC_LAPACK_PICK(geqrf, &m, &n, a, &lda, tau, work, &lwork, info);
}
template <typename T>
void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, int* info) {
  if constexpr (std::is_same_v<T, float>)
    sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  else if constexpr (std::is_same_v<T, double>)
    dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  else if constexpr (std::is_same_v<T, c64>)
    cungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  else
    zungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
// Hermitian eigendecomposition; rwork is unused for real T.
template <typename T>
void syevd(char jobz, char uplo, int n, T* a, int lda, real_t<T>* w, T* work, int lwork,
           real_t<T>* rwork, int lrwork, int* iwork, int liwork, int* info) {
  if constexpr (std::is_same_v<T, float>)
    ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
  else if constexpr (std::is_same_v<T, double>)
    dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
  else if constexpr (std::is_same_v<T, c64>)
    cheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
  else
    zheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
}
template <typename T>
void gesdd(char jobz, int m, int n, T* a, int lda, real_t<T>* s, T* u, int ldu, T* vt, int ldvt,
           T* work, int lwork, real_t<T>* rwork, int* iwork, int* info) {
  if constexpr (std::is_same_v<T, float>)
    sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
  else if constexpr (std::is_same_v<T, double>)
    dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
  else if constexpr (std::is_same_v<T, c64>)
    cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1);
  else
    zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1);
}
// Symmetric-indefinite (Bunch-Kaufman) LDL^T; `hermitian` picks he* for complex T.
template <typename T>
void sytrf(bool hermitian, char uplo, int n, T* a, int lda, int* ipiv, T* work, int lwork,
           int* info) {
  if constexpr (std::is_same_v<T, c64>) {
    if (hermitian) return chetrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
  } else if constexpr (std::is_same_v<T, c128>) {
    if (hermitian) return zhetrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
  }
  TC_LAPACK_PICK(sytrf, &uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
}
template <typename T>
void sytrs(bool hermitian, char uplo, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b,
           int ldb, int* info) {
  if constexpr (std::is_same_v<T, c64>) {
    if (hermitian) return chetrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  } else if constexpr (std::is_same_v<T, c128>) {
    if (hermitian) return zhetrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  }
  TC_LAPACK_PICK(sytrs, &uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}
#undef TC_LAPACK_PICK

}  // namespace tc::lapack
