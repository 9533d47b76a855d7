#include <gtest/gtest.h>

#include "tensorcore/tensorcore.h"

using namespace tc;

namespace {
double at(const Tensor& t, int64_t i) {
  return contiguous(to_dtype(t, DType::Float64)).data<double>()[i];
}
}  // namespace

TEST(Linalg, MatmulShapes) {
  Tensor a = arange(6, TensorOptions(DType::Float64)),
         b = arange(12, TensorOptions(DType::Float64));
  Tensor m = matmul(reshape(a, {2, 3}), reshape(b, {3, 4}));
  EXPECT_EQ(m.sizes(), (Shape{2, 4}));
  // row 0 of [[0,1,2],[3,4,5]] @ [[0..3],[4..7],[8..11]] = [20, 23, 26, 29]
  EXPECT_DOUBLE_EQ(at(m, 0), 20);
  EXPECT_DOUBLE_EQ(at(m, 3), 29);
  EXPECT_EQ(matmul(reshape(a, {2, 3}), arange(3, TensorOptions(DType::Float64))).sizes(),
            (Shape{2}));
  EXPECT_EQ(matmul(zeros({5, 1, 2, 3}), zeros({4, 3, 7})).sizes(), (Shape{5, 4, 2, 7}));
  EXPECT_EQ(matmul(zeros({3}), zeros({3})).dim(), 0);
  EXPECT_THROW(mm(zeros({2, 3}), zeros({2, 3})), ValueError);
  EXPECT_THROW(mm(zeros({2, 3}), zeros({3, 2}, TensorOptions(DType::Float64))), TypeError);
}

TEST(Linalg, TransposedViewAndIntegers) {
  Tensor a = reshape(arange(6, TensorOptions(DType::Float32)), {3, 2});
  Tensor r = mm(t(a), a);  // [[20, 26], [26, 35]]... (0,2,4)·(0,2,4)=20
  EXPECT_DOUBLE_EQ(at(r, 0), 20);
  EXPECT_DOUBLE_EQ(at(r, 3), 35);
  Tensor ai = reshape(arange(6), {3, 2});
  Tensor ri = mm(t(ai), ai);
  EXPECT_EQ(ri.dtype(), DType::Int64);
  EXPECT_EQ(ri.data<int64_t>()[1], 26);
}

TEST(Linalg, GradOfMm) {
  Tensor a = ones({2, 3}, TensorOptions(DType::Float64).requires_grad(true));
  Tensor b = reshape(arange(12, TensorOptions(DType::Float64)), {3, 4});
  sum(mm(a, b)).backward();
  // grad_a = 1 @ b^T: row sums of b = 6, 22, 38
  EXPECT_DOUBLE_EQ(at(a.grad(), 0), 6);
  EXPECT_DOUBLE_EQ(at(a.grad(), 2), 38);
}

TEST(Linalg, EinsumTrace) {
  Tensor e = eye(4, {}, TensorOptions(DType::Float64));
  EXPECT_DOUBLE_EQ(einsum("ii", {e}).item<double>(), 4);
  EXPECT_EQ(einsum("ij,jk->ki", {zeros({2, 3}), zeros({3, 5})}).sizes(), (Shape{5, 2}));
}

TEST(Random, GeneratorDeterminism) {
  auto g1 = std::make_shared<Generator>();
  auto g2 = std::make_shared<Generator>();
  g1->manual_seed(11);
  g2->manual_seed(11);
  Tensor x = randn({100}, g1), y = randn({100}, g2);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(x.data<float>()[i], y.data<float>()[i]);
  Tensor p = randperm(20, g1);
  std::vector<int> seen(20, 0);
  for (int i = 0; i < 20; ++i) seen[p.data<int64_t>()[i]]++;
  for (int v : seen) EXPECT_EQ(v, 1);
}
