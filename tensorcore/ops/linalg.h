#pragma once
// Matrix products (torch names and semantics: matmul broadcasting rules, addmm beta/alpha,
// einsum, tensordot, kron). float32/float64/complex go through BLAS; float16/bfloat16 compute in
// float32; integer dtypes use a blocked loop. All ops are differentiable (complex included).
#include <string>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/tensor.h"

namespace tc {

Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor vdot(const Tensor& a, const Tensor& b);  // sum(conj(a) * b)
Tensor inner(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
inline Tensor ger(const Tensor& a, const Tensor& b) { return outer(a, b); }
// beta * self + alpha * (m1 @ m2); with beta == 0 `self` is ignored (nan/inf not propagated).
Tensor addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor addr(const Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta = 1,
            const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta = 1,
               const Scalar& alpha = 1);
Tensor einsum(const std::string& equation, const TensorList& operands);
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);
Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int64_t>& dims_a,
                 const std::vector<int64_t>& dims_b);
Tensor kron(const Tensor& a, const Tensor& b);

// out[b] = a[b] @ b[b] for 3-d a [B, M, K], b [B, K, N] (any strides; batch stride may be 0);
// out is a contiguous [B, M, N] tensor of the same dtype. No autograd.
using BmmKernel = void (*)(const Tensor& out, const Tensor& a, const Tensor& b);
extern KernelTable<BmmKernel> bmm_out_kernel;

}  // namespace tc
