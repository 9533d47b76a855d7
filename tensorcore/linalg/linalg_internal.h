#pragma once
// Shared helpers of the tc::linalg op files (argument checks, LAPACK-layout buffers, errors).
#include <string>

#include "tensorcore/autograd/function.h"
#include "tensorcore/linalg/linalg.h"
#include "tensorcore/linalg/linalg_kernels.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/linalg.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/shape.h"

namespace tc::linalg::detail {

// torch's dtype names in messages ("Float", "Long", "ComplexDouble").
const char* torch_type_name(DType d);
void check_floating(const char* op, const Tensor& A, const char* name = "A");
void check_matrix(const char* op, const Tensor& A, const char* name = "A");
void check_square(const char* op, const Tensor& A, const char* name = "A");
void check_same_dtype_device(const char* op, const Tensor& A, const Tensor& B);

Shape batch_shape(const Tensor& A);  // all but the last two sizes
int64_t batch_count(const Tensor& A);
Shape concat_shape(const Shape& a, const Shape& b);

// A fresh [B, n, m] buffer holding A ([..., m, n]) column-major per matrix.
Tensor to_lapack(const Tensor& A);
// The [..., m, n] view of a [B, n, m] buffer (batch sizes given).
Tensor from_lapack(const Tensor& buf, const Shape& batch);

enum class InfoKind { Cholesky, Singular, SolveSingular, EigConverge, SvdConverge, Lstsq };
// Raises LinAlgError for the first nonzero info (info on the CPU or any device).
void check_info(const char* op, const Tensor& info, InfoKind kind, bool batched);

Tensor mH(const Tensor& x);  // conjugate transpose of the last two dims
Tensor mT(const Tensor& x);
Tensor diag_embed_last(const Tensor& d);  // [..., n] -> [..., n, n]
Tensor identity_like(const Tensor& A);    // eye broadcast to A's shape (square)

inline bool req(const Tensor& t) { return t.defined() && t.requires_grad(); }

}  // namespace tc::linalg::detail
