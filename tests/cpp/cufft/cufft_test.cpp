// CUDA FFT (cuFFT) and the native CUDA scans / sorts / unique against the CPU kernels, through
// the C++ API. All skip without a GPU (scripts/gpu_check.sh runs them with --gtest_filter=Cuda*).
#include <gtest/gtest.h>

#include "tensorcore/cuda/cuda.h"
#include "tensorcore/cuda/cufft.h"
#include "tensorcore/fft/fft.h"
#include "tensorcore/tensorcore.h"
#include "tests/cpp/cuda/gpu_test_util.h"

namespace tc {
namespace {

using gpu_test::kCuda;

Tensor host_randn(const Shape& s, DType dt, uint64_t seed = 1) {
  auto g = std::make_shared<Generator>(Device(), seed);
  return to_dtype(randn(s, g, TensorOptions(DType::Float64)), dt);
}

// Real view of a (possibly complex) result on the host, for allclose.
Tensor real_host(const Tensor& t) {
  Tensor h = contiguous(to_device(t, Device()));
  return h.is_complex() ? view_as_real(h) : h;
}

void expect_close(const Tensor& gpu, const Tensor& cpu, double rtol, double atol,
                  const std::string& what) {
  ASSERT_TRUE(gpu.is_cuda()) << what;
  ASSERT_EQ(gpu.sizes(), cpu.sizes()) << what;
  ASSERT_EQ(gpu.dtype(), cpu.dtype()) << what;
  EXPECT_TRUE(allclose(real_host(gpu), real_host(cpu), rtol, atol, true)) << what;
}

TEST(CudaFft, MatchesCpuEngine) {
  SKIP_WITHOUT_GPU();
  for (int64_t n : {1, 2, 7, 64, 100, 1000, 4093, 4096}) {
    Tensor x = host_randn({3, n}, DType::Float64, uint64_t(n));
    Tensor g = to_device(x, kCuda);
    const std::string tag = "n=" + std::to_string(n);
    expect_close(fft::rfft(g), fft::rfft(x), 1e-10, 1e-9, "rfft " + tag);
    expect_close(fft::fft(g, {}, -1, std::string("ortho")),
                 fft::fft(x, {}, -1, std::string("ortho")), 1e-10, 1e-9, "fft " + tag);
    Tensor spec = fft::rfft(x);
    expect_close(fft::irfft(to_device(spec, kCuda), n), fft::irfft(spec, n), 1e-10, 1e-9,
                 "irfft " + tag);
    Tensor xf = to_dtype(x, DType::Float32), gf = to_device(xf, kCuda);
    expect_close(fft::rfft(gf), fft::rfft(xf), 1e-4, 1e-3, "rfft f32 " + tag);
  }
  Tensor v = host_randn({4, 6, 10, 3}, DType::Float64, 9);
  Tensor c = to_dtype(v, DType::Complex128);
  expect_close(fft::fftn(to_device(c, kCuda)), fft::fftn(c), 1e-10, 1e-9, "fftn 4-d");
  expect_close(fft::rfftn(to_device(v, kCuda), {}, std::vector<int64_t>{2, 0}),
               fft::rfftn(v, {}, std::vector<int64_t>{2, 0}), 1e-10, 1e-9, "rfftn dims (2, 0)");
  expect_close(fft::fft(to_device(c, kCuda), {}, 1), fft::fft(c, {}, 1), 1e-10, 1e-9, "fft dim 1");
}

TEST(CudaFft, PlanCacheCountsAndEvicts) {
  SKIP_WITHOUT_GPU();
  cuda::clear_cufft_plan_cache(0);
  EXPECT_EQ(cuda::cufft_plan_cache_size(0), 0);
  const int64_t cap = cuda::cufft_plan_cache_max_size(0);
  EXPECT_EQ(cap, 4096);
  Tensor g = to_device(host_randn({2, 32}, DType::Float32), kCuda);
  fft::rfft(g);
  fft::rfft(g);
  EXPECT_EQ(cuda::cufft_plan_cache_size(0), 1);
  fft::rfft(to_device(host_randn({2, 33}, DType::Float32), kCuda));
  EXPECT_EQ(cuda::cufft_plan_cache_size(0), 2);
  cuda::set_cufft_plan_cache_max_size(1, 0);
  EXPECT_EQ(cuda::cufft_plan_cache_size(0), 1);
  cuda::set_cufft_plan_cache_max_size(cap, 0);
  cuda::clear_cufft_plan_cache(0);
  EXPECT_EQ(cuda::cufft_plan_cache_size(0), 0);
}

TEST(CudaScanSort, MatchesCpuKernels) {
  SKIP_WITHOUT_GPU();
  for (Shape s : {Shape{5, 33}, Shape{3, 600}, Shape{2, 70000}, Shape{4000, 6}}) {
    Tensor x = round(mul(host_randn(s, DType::Float64, uint64_t(s[1])), 2.0));  // ties
    Tensor g = to_device(x, kCuda);
    const std::string tag = shape_str(s);
    expect_close(cumsum(g, 1), cumsum(x, 1), 1e-12, 1e-9, "cumsum " + tag);
    auto [mg, ig] = cummax(g, 1);
    auto [mc, ic] = cummax(x, 1);
    expect_close(mg, mc, 0, 0, "cummax values " + tag);
    expect_close(ig, ic, 0, 0, "cummax indices " + tag);
    auto [sg, sig] = sort(g, 1, true, true);
    auto [sc, sic] = sort(x, 1, true, true);
    expect_close(sg, sc, 0, 0, "sort values " + tag);
    expect_close(sig, sic, 0, 0, "sort indices (stable) " + tag);
    auto [tg, tig] = topk(g, std::min<int64_t>(5, s[1]), 1);
    auto [tcv, tci] = topk(x, std::min<int64_t>(5, s[1]), 1);
    expect_close(tg, tcv, 0, 0, "topk values " + tag);
    expect_close(tig, tci, 0, 0, "topk indices " + tag);
    auto [ug, invg, cntg] = unique(g);
    auto [uc, invc, cntc] = unique(x);
    expect_close(ug, uc, 0, 0, "unique values " + tag);
    expect_close(invg, invc, 0, 0, "unique inverse " + tag);
    expect_close(cntg, cntc, 0, 0, "unique counts " + tag);
  }
}

}  // namespace
}  // namespace tc
