#include <algorithm>

#include "tensorcore/linalg/linalg_internal.h"

namespace tc::linalg::detail {

const char* torch_type_name(DType d) {
  switch (d) {
    case DType::Float32:
      return "Float";
    case DType::Float64:
      return "Double";
    case DType::Float16:
      return "Half";
    case DType::BFloat16:
      return "BFloat16";
    case DType::Complex64:
      return "ComplexFloat";
    case DType::Complex128:
      return "ComplexDouble";
    case DType::Int64:
      return "Long";
    case DType::Int32:
      return "Int";
    case DType::Int16:
      return "Short";
    case DType::Int8:
      return "Char";
    case DType::UInt8:
      return "Byte";
    case DType::Bool:
      return "Bool";
    default:
      return dtype_name(d);
  }
}

void check_floating(const char* op, const Tensor& A, const char* name) {
  TC_CHECK(A.defined(), op, ": ", name, " must be a tensor, got None");
  const DType d = A.dtype();
  TC_CHECK_TYPE(
      d == DType::Float32 || d == DType::Float64 || d == DType::Complex64 || d == DType::Complex128,
      op, ": Expected a floating point or complex tensor as input. Got ", torch_type_name(d));
}

void check_matrix(const char* op, const Tensor& A, const char* name) {
  check_floating(op, A, name);
  TC_CHECK(A.dim() >= 2, op, ": The input tensor ", name, " must have at least 2 dimensions.");
}

void check_square(const char* op, const Tensor& A, const char* name) {
  check_matrix(op, A, name);
  TC_CHECK(A.size(-1) == A.size(-2), op, ": ", name,
           " must be batches of square matrices, but they are ", A.size(-2), " by ", A.size(-1),
           " matrices");
}

void check_same_dtype_device(const char* op, const Tensor& A, const Tensor& B) {
  TC_CHECK_TYPE(A.dtype() == B.dtype(), op, ": Expected B to have the same dtype as A, but got ",
                torch_type_name(B.dtype()), " and ", torch_type_name(A.dtype()));
  TC_CHECK(A.device() == B.device(), op, ": Expected all tensors to be on the same device, got ",
           A.device().str(), " and ", B.device().str());
}

Shape batch_shape(const Tensor& A) { return Shape(A.sizes().begin(), A.sizes().end() - 2); }

int64_t batch_count(const Tensor& A) { return shape_numel(batch_shape(A)); }

Shape concat_shape(const Shape& a, const Shape& b) {
  Shape s = a;
  s.insert(s.end(), b.begin(), b.end());
  return s;
}

Tensor to_lapack(const Tensor& A) {
  const int64_t m = A.size(-2), n = A.size(-1);
  Shape batch = batch_shape(A);
  Tensor buf = empty(concat_shape(batch, {n, m}), TensorOptions(A.dtype()).device(A.device()));
  Tensor dst = transpose(buf, -2, -1);
  if (A.numel() > 0) copy_(dst, A.detach());
  return reshape(buf, {shape_numel(batch), n, m});
}

Tensor from_lapack(const Tensor& buf, const Shape& batch) {
  return transpose(reshape(buf, concat_shape(batch, {buf.size(1), buf.size(2)})), -2, -1);
}

void check_info(const char* op, const Tensor& info, InfoKind kind, bool batched) {
  if (info.numel() == 0) return;
  Tensor host = info.is_cpu() ? contiguous(info) : to_device(info, Device());
  const int* p = host.data<int>();
  for (int64_t b = 0; b < host.numel(); ++b) {
    const int i = p[b];
    if (i == 0) continue;
    const std::string where =
        batched ? ::tc::detail::concat("(Batch element ", b, "): ") : std::string();
    TC_CHECK(i > 0, op, ": ", where, "Argument ", -i,
             " has illegal value. Most certainly there "
             "is a bug in the implementation calling the backend library.");
    switch (kind) {
      case InfoKind::Cholesky:
        throw LinAlgError(::tc::detail::concat(
            op, ": ", where,
            "The factorization could not be completed because the input is not positive-definite "
            "(the leading minor of order ",
            i, " is not positive-definite)."));
      case InfoKind::Singular:
        throw LinAlgError(
            ::tc::detail::concat(op, ": ", where, "The diagonal element ", i,
                                 " is zero, the inversion could not be completed because "
                                 "the input matrix is singular."));
      case InfoKind::SolveSingular:
        throw LinAlgError(
            ::tc::detail::concat(op, ": ", where, "The diagonal element ", i,
                                 " is zero, the solve could not be completed because the "
                                 "input matrix is singular."));
      case InfoKind::EigConverge:
        throw LinAlgError(::tc::detail::concat(
            op, ": ", where,
            "The algorithm failed to converge because the input matrix is ill-conditioned or has "
            "too many repeated eigenvalues (error code: ",
            i, ")."));
      case InfoKind::SvdConverge:
        throw LinAlgError(::tc::detail::concat(
            op, ": ", where,
            "The algorithm failed to converge because the input matrix is ill-conditioned or has "
            "too many repeated singular values (error code: ",
            i, ")."));
      case InfoKind::Lstsq:
        throw LinAlgError(::tc::detail::concat(
            op, ": ", where,
            "The least squares solution could not be computed because the input "
            "matrix does not have full rank (error code: ",
            i, ")."));
    }
  }
}

Tensor mH(const Tensor& x) {
  Tensor t = transpose(x, -2, -1);
  return x.is_complex() ? conj(t) : t;
}

Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }

Tensor diag_embed_last(const Tensor& d) {
  const int64_t n = d.size(-1);
  Tensor I = eye(n, n, TensorOptions(d.dtype()).device(d.device()));
  return mul(unsqueeze(d, -1), I);  // [..., n, 1] * [n, n]: row i scaled by d_i on the diagonal
}

Tensor identity_like(const Tensor& A) {
  const int64_t n = A.size(-1);
  return expand(eye(n, n, TensorOptions(A.dtype()).device(A.device())), A.sizes());
}

}  // namespace tc::linalg::detail
