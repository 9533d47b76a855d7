// CPU batched matrix product: BLAS (s/d/c/zgemm) for float32/float64/complex, passing CblasTrans
// for transposed views instead of copying; a blocked loop for integer dtypes.
#include <cblas.h>

#include <algorithm>

#include "tensorcore/core/parallel.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/linalg.h"

namespace tc {
namespace {

// How a [rows, cols] matrix with strides (rs, cs) can be handed to row-major BLAS.
bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, CBLAS_TRANSPOSE& tr,
                 int64_t& ld) {
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(1, cols))) {
    tr = CblasNoTrans;
    ld = rows == 1 ? std::max<int64_t>(1, cols) : rs;
    return true;
  }
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(1, rows))) {
    tr = CblasTrans;
    ld = cols == 1 ? std::max<int64_t>(1, rows) : cs;
    return true;
  }
  return false;
}

template <typename T>
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const T* a,
          int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
  } else if constexpr (std::is_same_v<T, complex64>) {
    const complex64 one(1, 0), zero(0, 0);
    cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
  } else {
    const complex128 one(1, 0), zero(0, 0);
    cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
  }
}

template <typename T>
void bmm_blas(const Tensor& out, Tensor a, Tensor b) {
  int64_t B = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
  CBLAS_TRANSPOSE ta, tb;
  int64_t lda, ldb;
  if (!blas_layout(M, K, a.stride(1), a.stride(2), ta, lda)) {
    a = contiguous(a);
    blas_layout(M, K, a.stride(1), a.stride(2), ta, lda);
  }
  if (!blas_layout(K, N, b.stride(1), b.stride(2), tb, ldb)) {
    b = contiguous(b);
    blas_layout(K, N, b.stride(1), b.stride(2), tb, ldb);
  }
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(out.data_ptr());
  int64_t sa = a.stride(0), sb = b.stride(0);
  for (int64_t i = 0; i < B; ++i)
    gemm<T>(ta, tb, M, N, K, pa + i * sa, lda, pb + i * sb, ldb, pc + i * M * N,
            std::max<int64_t>(1, N));
}

// Integer product: i-k-j loop over blocks of k so rows of b stay in cache.
template <typename T>
void bmm_loop(const Tensor& out, const Tensor& a_in, const Tensor& b_in) {
  Tensor a = a_in, b = contiguous(b_in);
  int64_t B = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  T* pc = static_cast<T*>(out.data_ptr());
  int64_t as0 = a.stride(0), as1 = a.stride(1), as2 = a.stride(2), bs0 = b.stride(0);
  constexpr int64_t kBlock = 256;
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, K * N));
  parallel_for(0, B * M, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t bi = r / M, i = r % M;
      T* crow = pc + r * N;
      std::fill(crow, crow + N, T(0));
      for (int64_t k0 = 0; k0 < K; k0 += kBlock) {
        int64_t k1 = std::min(K, k0 + kBlock);
        for (int64_t k = k0; k < k1; ++k) {
          T av = pa[bi * as0 + i * as1 + k * as2];
          const T* brow = pb + bi * bs0 + k * N;
          for (int64_t j = 0; j < N; ++j) crow[j] += av * brow[j];
        }
      }
    }
  });
}

void bmm_cpu(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_dtype<kIntegral | (1u << int(DType::Float32)) | (1u << int(DType::Float64)) | kComplex>(
      a.dtype(), "bmm", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_floating_point_v<T> || is_complex_v<T>)
          bmm_blas<T>(out, a, b);
        else
          bmm_loop<T>(out, a, b);
      });
}

}  // namespace

TC_REGISTER_KERNEL(bmm_out_kernel, CPU, bmm_cpu);

}  // namespace tc
