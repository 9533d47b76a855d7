// Batched matrix products on CUDA: cuBLAS strided-batched GEMM for floating and complex dtypes
// (transposed views are handed to cuBLAS as transposes, not copied; TF32 when
// tc.backends.cuda.matmul.allow_tf32 is set), a tiled kernel for integer dtypes.
#include <cublas_v2.h>

#include <array>

#include "tensorcore/kernels/cuda/common.cuh"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/linalg.h"

namespace tc::cuda_kernels {
namespace {

const char* cublas_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
      return "cuBLAS error";
  }
}

#define TC_CUBLAS_CHECK(expr)                                                                      \
  do {                                                                                             \
    cublasStatus_t st_ = (expr);                                                                   \
    TC_CHECK_AS(::tc::Error, st_ == CUBLAS_STATUS_SUCCESS, "bmm: ", cublas_status_name(st_), " (", \
                #expr, ")");                                                                       \
  } while (0)

cublasHandle_t handle_for(int device) {
  // cuBLAS handles are not safe to share between threads: one per thread and device.
  thread_local std::array<cublasHandle_t, 64> handles{};
  if (!handles[device]) TC_CUBLAS_CHECK(cublasCreate(&handles[device]));
  return handles[device];
}

// How a row-major [rows, cols] matrix with strides (rs, cs) looks to column-major cuBLAS as its
// transpose: 'N' with ld = rs when rows are contiguous, 'T' with ld = cs when columns are.
bool col_major_view(int64_t rows, int64_t cols, int64_t rs, int64_t cs, cublasOperation_t& op,
                    int64_t& ld) {
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(1, cols))) {
    op = CUBLAS_OP_N;
    ld = rows == 1 ? std::max<int64_t>(1, cols) : rs;
    return true;
  }
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(1, rows))) {
    op = CUBLAS_OP_T;
    ld = cols == 1 ? std::max<int64_t>(1, rows) : cs;
    return true;
  }
  return false;
}

template <typename T>
__global__ void int_bmm_kernel(const T* a, const T* b, T* c, int64_t M, int64_t N, int64_t K,
                               int64_t sab, int64_t sam, int64_t sak, int64_t sbb, int64_t sbk,
                               int64_t sbn) {
  constexpr int kTile = 16;
  __shared__ T ta[kTile][kTile];
  __shared__ T tb[kTile][kTile];
  int64_t batch = blockIdx.z;
  int64_t row = int64_t(blockIdx.y) * kTile + threadIdx.y;
  int64_t col = int64_t(blockIdx.x) * kTile + threadIdx.x;
  const T* pa = a + batch * sab;
  const T* pb = b + batch * sbb;
  T acc = 0;
  for (int64_t k0 = 0; k0 < K; k0 += kTile) {
    int64_t ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? pa[row * sam + ka * sak] : T(0);
    tb[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? pb[kb * sbk + col * sbn] : T(0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) c[batch * M * N + row * N + col] = acc;
}

void bmm_cuda(const Tensor& out, const Tensor& a_in, const Tensor& b_in) {
  Tensor a = a_in, b = b_in;
  int64_t B = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
  int dev = out.device().index;
  DeviceGuard guard(dev);
  cudaStream_t stream = stream_of(dev);
  DType dt = out.dtype();
  if (is_integral(dt, true)) {
    TC_CHECK_TYPE(dt != DType::Bool, "bmm: not implemented for dtype bool");
    dispatch_dtype<kIntegral>(dt, "bmm", [&](auto tag) {
      using T = typename decltype(tag)::type;
      dim3 block(16, 16), grid(unsigned((N + 15) / 16), unsigned((M + 15) / 16), unsigned(B));
      int_bmm_kernel<T><<<grid, block, 0, stream>>>(
          static_cast<const T*>(a.data_ptr()), static_cast<const T*>(b.data_ptr()),
          static_cast<T*>(out.data_ptr()), M, N, K, a.stride(0), a.stride(1), a.stride(2),
          b.stride(0), b.stride(1), b.stride(2));
    });
    TC_CUDA_KERNEL_CHECK();
    return;
  }
  cublasOperation_t opa, opb;
  int64_t lda, ldb;
  if (!col_major_view(M, K, a.stride(1), a.stride(2), opa, lda)) {
    a = contiguous(a);
    col_major_view(M, K, a.stride(1), a.stride(2), opa, lda);
  }
  if (!col_major_view(K, N, b.stride(1), b.stride(2), opb, ldb)) {
    b = contiguous(b);
    col_major_view(K, N, b.stride(1), b.stride(2), opb, ldb);
  }
  int64_t sa = B == 1 ? 0 : a.stride(0), sb = B == 1 ? 0 : b.stride(0);
  cudaDataType_t type;
  cublasComputeType_t compute;
  float alpha_f = 1, beta_f = 0;
  double alpha_d = 1, beta_d = 0;
  cuComplex alpha_c{1, 0}, beta_c{0, 0};
  cuDoubleComplex alpha_z{1, 0}, beta_z{0, 0};
  const void *alpha = &alpha_f, *beta = &beta_f;
  switch (dt) {
    case DType::Float32:
      type = CUDA_R_32F;
      compute = cuda::allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case DType::Float16:
      type = CUDA_R_16F;
      compute = CUBLAS_COMPUTE_32F;
      break;
    case DType::BFloat16:
      type = CUDA_R_16BF;
      compute = CUBLAS_COMPUTE_32F;
      break;
    case DType::Float64:
      type = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      alpha = &alpha_d;
      beta = &beta_d;
      break;
    case DType::Complex64:
      type = CUDA_C_32F;
      compute = cuda::allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      alpha = &alpha_c;
      beta = &beta_c;
      break;
    case DType::Complex128:
      type = CUDA_C_64F;
      compute = CUBLAS_COMPUTE_64F;
      alpha = &alpha_z;
      beta = &beta_z;
      break;
    default:
      throw TypeError(
          detail::concat("bmm: not implemented for dtype ", dtype_name(dt), " on CUDA"));
  }
  cublasHandle_t h = handle_for(dev);
  TC_CUBLAS_CHECK(cublasSetStream(h, stream));
  TC_CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  TC_CUBLAS_CHECK(cublasGemmStridedBatchedEx(h, opb, opa, int(N), int(M), int(K), alpha,
                                             b.data_ptr(), type, int(ldb), sb, a.data_ptr(), type,
                                             int(lda), sa, beta, out.data_ptr(), type, int(N),
                                             M * N, int(B), compute, CUBLAS_GEMM_DEFAULT));
}

TC_REGISTER_KERNEL(bmm_out_kernel, CUDA, bmm_cuda);

}  // namespace
}  // namespace tc::cuda_kernels
