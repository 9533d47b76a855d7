// tc::linalg from C++: results reconstruct their inputs, errors carry torch's messages, the _ex
// variants return info, and gradients flow (the Python tests compare against torch/NumPy).
#include <gtest/gtest.h>

#include "tensorcore/linalg/linalg.h"
#include "tensorcore/tensorcore.h"

using namespace tc;

namespace {
const TensorOptions kF64(DType::Float64);

Tensor spd(int64_t batch, int64_t n) {
  Tensor a = randn({batch, n, n}, {}, kF64);
  return add(matmul(a, transpose(a, -2, -1)), mul(eye(n, n, kF64), double(n)));
}
double max_abs_diff(const Tensor& a, const Tensor& b) {
  return amax(abs(sub(a, b))).item<double>();
}
}  // namespace

TEST(LinalgCpp, CholeskyAndSolveReconstruct) {
  Tensor H = spd(3, 5);
  Tensor L = linalg::cholesky(H);
  EXPECT_LT(max_abs_diff(matmul(L, transpose(L, -2, -1)), H), 1e-10);
  EXPECT_EQ(max_abs_diff(L, tril(L)), 0.0);  // the upper triangle is exactly zero
  Tensor B = randn({3, 5, 2}, {}, kF64);
  Tensor X = linalg::solve(H, B);
  EXPECT_LT(max_abs_diff(matmul(H, X), B), 1e-10);
  EXPECT_LT(max_abs_diff(linalg::cholesky_solve(B, L), X), 1e-10);
  EXPECT_LT(max_abs_diff(matmul(linalg::inv(H), B), X), 1e-10);
}

TEST(LinalgCpp, DecompositionsReconstruct) {
  Tensor A = randn({2, 4, 3}, {}, kF64);
  auto [Q, R] = linalg::qr(A);
  EXPECT_LT(max_abs_diff(matmul(Q, R), A), 1e-12);
  auto [U, S, Vh] = linalg::svd(A, false);
  EXPECT_LT(max_abs_diff(matmul(mul(U, unsqueeze(S, -2)), Vh), A), 1e-12);
  auto [P, Lf, Uf] = linalg::lu(A);
  EXPECT_LT(max_abs_diff(matmul(P, matmul(Lf, Uf)), A), 1e-12);
  Tensor H = spd(2, 4);
  auto [w, V] = linalg::eigh(H);
  EXPECT_LT(max_abs_diff(matmul(mul(V, unsqueeze(w, -2)), transpose(V, -2, -1)), H), 1e-10);
  auto [ew, EV] = linalg::eig(H);
  EXPECT_EQ(ew.dtype(), DType::Complex128);
  EXPECT_EQ(EV.sizes(), (Shape{2, 4, 4}));
}

TEST(LinalgCpp, ErrorsAndInfo) {
  Tensor bad = stack({eye(3, 3, kF64), neg(eye(3, 3, kF64))});
  try {
    linalg::cholesky(bad);
    FAIL() << "expected LinAlgError";
  } catch (const linalg::LinAlgError& e) {
    EXPECT_NE(std::string(e.what()).find("(Batch element 1)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not positive-definite"), std::string::npos);
  }
  auto [L, info] = linalg::cholesky_ex(bad);
  EXPECT_EQ(info.dtype(), DType::Int32);
  EXPECT_EQ(info.sizes(), (Shape{2}));
  EXPECT_EQ(contiguous(info).data<int>()[0], 0);
  EXPECT_EQ(contiguous(info).data<int>()[1], 1);
  EXPECT_THROW(linalg::inv(zeros({3, 3}, kF64)), linalg::LinAlgError);
  EXPECT_THROW(linalg::inv(zeros({2, 3}, kF64)), ValueError);
  EXPECT_THROW(linalg::det(zeros({3, 3}, TensorOptions(DType::Int64))), TypeError);
  EXPECT_DOUBLE_EQ(linalg::det(zeros({3, 3}, kF64)).item<double>(), 0.0);
}

TEST(LinalgCpp, GradientOfLogdetIsInverseTranspose) {
  Tensor H = spd(1, 4).detach().requires_grad_(true);
  Tensor logabs = std::get<1>(linalg::slogdet(H));
  sum(logabs).backward();
  EXPECT_LT(max_abs_diff(H.grad(), transpose(linalg::inv(H.detach()), -2, -1)), 1e-10);
}
