// C++ use of tc::nn::functional with no Python: forward against naive loops, autograd, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "tensorcore/nn/functional.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace F = tc::nn::functional;

namespace {

Tensor rand_tensor(const Shape& s, DType dt) { return to_dtype(randn(s), dt); }

double at(const Tensor& t, int64_t i) {
  return contiguous(to_dtype(t, DType::Float64)).data<double>()[i];
}

// y[n, o, i, j] = sum_c,k,l x[n, c, i*s - p + k, j*s - p + l] * w[o, c, k, l]
double naive_conv_at(const Tensor& x, const Tensor& w, int64_t n, int64_t o, int64_t i, int64_t j,
                     int64_t s, int64_t p) {
  Tensor xd = contiguous(to_dtype(x, DType::Float64)), wd = contiguous(to_dtype(w, DType::Float64));
  const double* xp = xd.data<double>();
  const double* wp = wd.data<double>();
  int64_t C = x.size(1), H = x.size(2), W = x.size(3), K = w.size(2);
  double acc = 0;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t l = 0; l < K; ++l) {
        int64_t ih = i * s - p + k, iw = j * s - p + l;
        if (ih < 0 || iw < 0 || ih >= H || iw >= W) continue;
        acc += xp[((n * C + c) * H + ih) * W + iw] * wp[((o * C + c) * K + k) * K + l];
      }
  return acc;
}

}  // namespace

TEST(NnNative, Conv2dMatchesNaiveLoopsInBothBackends) {
  for (DType dt : {DType::Float32, DType::Float64}) {
    Tensor x = rand_tensor({2, 3, 7, 6}, dt), w = rand_tensor({4, 3, 3, 3}, dt);
    Tensor y = F::conv2d(x, w, Tensor(), {2}, {1});
    ASSERT_EQ(y.sizes(), (Shape{2, 4, 4, 3}));
    double tol = dt == DType::Float32 ? 1e-4 : 1e-12;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t o = 0; o < 4; ++o)
        for (int64_t i = 0; i < 4; ++i)
          for (int64_t j = 0; j < 3; ++j)
            EXPECT_NEAR(at(y, ((n * 4 + o) * 4 + i) * 3 + j), naive_conv_at(x, w, n, o, i, j, 2, 1),
                        tol);
  }
}

TEST(NnNative, ConvBackwardGivesWeightGradient) {
  // d/dw sum(conv(x, w)) for a 1x1 kernel is the per-channel sum of x.
  Tensor x = rand_tensor({2, 3, 4, 4}, DType::Float64);
  Tensor w = rand_tensor({5, 3, 1, 1}, DType::Float64).requires_grad_(true);
  sum(F::conv2d(x, w)).backward();
  Tensor expect = sum(x, {0, 2, 3});
  for (int64_t o = 0; o < 5; ++o)
    for (int64_t c = 0; c < 3; ++c) EXPECT_NEAR(at(w.grad(), o * 3 + c), at(expect, c), 1e-10);
}

TEST(NnNative, BatchNormTrainingNormalizesAndUpdatesRunningStats) {
  Tensor x = rand_tensor({8, 3, 5}, DType::Float64);
  Tensor rm = zeros({3}, TensorOptions(DType::Float64)),
         rv = ones({3}, TensorOptions(DType::Float64));
  Tensor y = F::batch_norm(x, rm, rv, Tensor(), Tensor(), true, 0.5);
  Tensor m = mean(y, {0, 2});
  for (int64_t c = 0; c < 3; ++c) EXPECT_NEAR(at(m, c), 0.0, 1e-10);
  Tensor xm = mean(x, {0, 2});
  for (int64_t c = 0; c < 3; ++c) EXPECT_NEAR(at(rm, c), 0.5 * at(xm, c), 1e-12);
}

TEST(NnNative, PoolingAndCtcAndErrors) {
  Tensor x = reshape(arange(16, TensorOptions(DType::Float32)), {1, 1, 4, 4});
  Tensor y = F::max_pool2d(x, {2});
  EXPECT_EQ(y.sizes(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(at(y, 0), 5);
  EXPECT_EQ(at(y, 3), 15);
  // CTC with one frame, one class besides blank: the only alignment of target [1] emits it.
  Tensor lp =
      log(to_dtype(from_vector(std::vector<double>{0.25, 0.75}, {1, 1, 2}), DType::Float64));
  Tensor loss = F::ctc_loss(lp, from_vector(std::vector<int64_t>{1}, {1, 1}),
                            from_vector(std::vector<int64_t>{1}, {1}),
                            from_vector(std::vector<int64_t>{1}, {1}), 0, "sum");
  EXPECT_NEAR(loss.item<double>(), -std::log(0.75), 1e-12);
  EXPECT_THROW(F::conv2d(zeros({1, 3, 5, 5}), zeros({2, 4, 3, 3})), ValueError);
  EXPECT_THROW(F::max_pool2d(zeros({4}), {2}), ValueError);
  try {
    F::conv2d(zeros({1, 3, 5, 5}), zeros({2, 4, 3, 3}));
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("conv2d: expected input [1, 3, 5, 5] to have 4 channels"),
              std::string::npos);
  }
}
