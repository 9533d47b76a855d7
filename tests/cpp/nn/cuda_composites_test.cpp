// The CUDA paths that are compositions of core ops (normalization, recurrent gates, resampling)
// are device-generic, so they are checked here on CPU tensors against the native CPU kernels:
// this runs without a GPU, and the GPU suite then only has to show the core ops agree.
#include <gtest/gtest.h>

#include <cmath>

#include "tensorcore/nn/cuda_composites.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/im2col.h"
#include "tensorcore/tensorcore.h"

namespace tc {
namespace {

namespace F = nn::functional;
namespace D = nn::detail;

Tensor randn64(const Shape& s, uint64_t seed) {
  auto g = std::make_shared<Generator>(Device(), seed);
  return randn(s, g, TensorOptions(DType::Float64));
}

Tensor leaf(const Tensor& t) { return clone(t).requires_grad_(true); }

void expect_close(const Tensor& a, const Tensor& b, double tol = 1e-10) {
  ASSERT_TRUE(a.defined() && b.defined());
  EXPECT_TRUE(allclose(a, b, tol, tol)) << "max abs diff " << max(abs(sub(a, b))).item<double>();
}

TEST(CudaComposites, BatchNormTrainingMatchesNative) {
  Tensor x = add(mul(randn64({4, 3, 5, 2}, 1), 2.0), 1.0), w = randn64({3}, 2), b = randn64({3}, 3);
  Tensor rm1 = randn64({3}, 4), rv1 = add(abs(randn64({3}, 5)), 0.5);
  Tensor rm2 = clone(rm1), rv2 = clone(rv1);
  Tensor x1 = leaf(x), w1 = leaf(w), b1 = leaf(b), x2 = leaf(x), w2 = leaf(w), b2 = leaf(b);
  Tensor y1 = F::batch_norm(x1, rm1, rv1, w1, b1, true, 0.2, 1e-5);
  Tensor y2 = D::batch_norm_cuda(x2, rm2, rv2, w2, b2, true, 0.2, 1e-5);
  expect_close(y2, y1);
  expect_close(rm2, rm1);
  expect_close(rv2, rv1);
  Tensor gy = randn64(x.sizes(), 6);
  sum(mul(y1, gy)).backward();
  sum(mul(y2, gy)).backward();
  expect_close(x2.grad(), x1.grad(), 1e-9);
  expect_close(w2.grad(), w1.grad(), 1e-9);
  expect_close(b2.grad(), b1.grad(), 1e-9);
}

TEST(CudaComposites, BatchNormEvalAndNoAffineMatchNative) {
  Tensor x = randn64({3, 4, 6}, 1), rm = randn64({4}, 2), rv = add(abs(randn64({4}, 3)), 0.5);
  expect_close(D::batch_norm_cuda(x, rm, rv, Tensor(), Tensor(), false, 0.1, 1e-3),
               F::batch_norm(x, rm, rv, Tensor(), Tensor(), false, 0.1, 1e-3));
  expect_close(D::batch_norm_cuda(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
               F::batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5));
}

TEST(CudaComposites, BatchNormBackwardFormulaMatchesNative) {
  Tensor x = add(mul(randn64({4, 3, 5}, 1), 2.0), 1.0), w = randn64({3}, 2), b = randn64({3}, 3);
  Tensor rm = randn64({3}, 4), rv = add(abs(randn64({3}, 5)), 0.5);
  Tensor gy = randn64(x.sizes(), 6);
  for (bool training : {true, false}) {
    Tensor x1 = leaf(x), w1 = leaf(w), b1 = leaf(b);
    Tensor rm1 = clone(rm), rv1 = clone(rv);
    sum(mul(F::batch_norm(x1, rm1, rv1, w1, b1, training, 0.1, 1e-5), gy)).backward();
    TensorList g =
        D::batch_norm_backward_formula(gy, x, w, rm, rv, training, 1e-5, true, true, true);
    expect_close(g[0], x1.grad(), 1e-9);
    expect_close(g[1], w1.grad(), 1e-9);
    expect_close(g[2], b1.grad(), 1e-9);
  }
}

TEST(CudaComposites, LayerNormAndGroupNormMatchNative) {
  Tensor x = add(mul(randn64({3, 6, 5, 4}, 1), 3.0), 1.0);
  Tensor w = randn64({5, 4}, 2), b = randn64({5, 4}, 3);
  Tensor x1 = leaf(x), x2 = leaf(x);
  Tensor y1 = F::layer_norm(x1, {5, 4}, w, b, 1e-5), y2 = D::layer_norm_cuda(x2, 2, w, b, 1e-5);
  expect_close(y2, y1);
  Tensor gy = randn64(x.sizes(), 4);
  sum(mul(y1, gy)).backward();
  sum(mul(y2, gy)).backward();
  expect_close(x2.grad(), x1.grad(), 1e-9);
  Tensor gw = randn64({6}, 5), gb = randn64({6}, 6);
  expect_close(D::group_norm_cuda(x, 3, gw, gb, 1e-5), F::group_norm(x, 3, gw, gb, 1e-5));
  expect_close(D::group_norm_cuda(x, 2, Tensor(), Tensor(), 1e-5),
               F::group_norm(x, 2, Tensor(), Tensor(), 1e-5));
}

TEST(CudaComposites, RecurrentGatesMatchNativeCells) {
  Tensor x = randn64({3, 4}, 1), h = randn64({3, 5}, 2), c = randn64({3, 5}, 3);
  Tensor w_ih = randn64({20, 4}, 4), w_hh = randn64({20, 5}, 5), b_ih = randn64({20}, 6),
         b_hh = randn64({20}, 7);
  auto gates = [&](const Tensor& wi, const Tensor& wh, const Tensor& bi, const Tensor& bh) {
    return std::make_pair(addmm(bi, x, t(wi)), addmm(bh, h, t(wh)));
  };
  auto [gi, gh] = gates(w_ih, w_hh, b_ih, b_hh);
  auto ref = F::lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh);
  auto got = D::lstm_gates_cuda(gi, gh, c);
  expect_close(got.first, ref.first);
  expect_close(got.second, ref.second);
  Tensor wi3 = narrow(w_ih, 0, 0, 15), wh3 = narrow(w_hh, 0, 0, 15), bi3 = narrow(b_ih, 0, 0, 15),
         bh3 = narrow(b_hh, 0, 0, 15);
  auto [gi3, gh3] = gates(wi3, wh3, bi3, bh3);
  expect_close(D::gru_gates_cuda(gi3, gh3, h), F::gru_cell(x, h, wi3, wh3, bi3, bh3));
}

TEST(CudaComposites, ResampleGatherMatchesInterpolate) {
  Tensor x = randn64({2, 3, 7}, 1);
  const int64_t in = 7, out = 12;
  // linear, align_corners=True: two taps per output.
  std::vector<int64_t> idx;
  std::vector<double> w;
  for (int64_t o = 0; o < out; ++o) {
    double src = double(o) * double(in - 1) / double(out - 1);
    int64_t i0 = int64_t(std::floor(src)), i1 = std::min<int64_t>(i0 + 1, in - 1);
    idx.insert(idx.end(), {i0, i1});
    w.insert(w.end(), {1.0 - (src - double(i0)), src - double(i0)});
  }
  expect_close(D::resample_gather_cuda(x, 2, out, 2, idx, w),
               F::interpolate_to_size(x, {out}, "linear", true));
  // nearest: one tap of weight 1.
  std::vector<int64_t> nidx;
  for (int64_t o = 0; o < out; ++o)
    nidx.push_back(std::min<int64_t>(int64_t(std::floor(double(o) * in / out)), in - 1));
  expect_close(D::resample_gather_cuda(x, 2, out, 1, nidx, std::vector<double>(size_t(out), 1.0)),
               F::interpolate_to_size(x, {out}, "nearest"));
}

TEST(CudaComposites, UnfoldFoldMatchNative) {
  const int64_t H = 6, W = 7;
  nn::detail::Geo3 g{};
  int64_t k[2] = {3, 2}, d[2] = {1, 2}, p[2] = {1, 1}, st[2] = {2, 1}, in[2] = {H, W};
  g.in[0] = g.k[0] = g.out[0] = g.s[0] = g.d[0] = 1;
  g.p[0] = 0;
  for (int i = 0; i < 2; ++i) {
    g.in[i + 1] = in[i];
    g.k[i + 1] = k[i];
    g.d[i + 1] = d[i];
    g.p[i + 1] = p[i];
    g.s[i + 1] = st[i];
    g.out[i + 1] = (in[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) / st[i] + 1;
  }
  Tensor x = randn64({2, 3, H, W}, 1);
  Tensor x1 = leaf(x), x2 = leaf(x);
  Tensor c1 = F::unfold(x1, {3, 2}, {1, 2}, {1, 1}, {2, 1}), c2 = D::unfold_cuda(x2, g);
  expect_close(c2, c1);
  Tensor gc = randn64(c1.sizes(), 2);
  sum(mul(c1, gc)).backward();
  sum(mul(c2, gc)).backward();
  expect_close(x2.grad(), x1.grad());
  expect_close(D::fold_cuda(gc, 3, g), F::fold(gc, {H, W}, {3, 2}, {1, 2}, {1, 1}, {2, 1}));
}

}  // namespace
}  // namespace tc
