// Convolution by im2col + BLAS GEMM: the float64 path and the fallback for geometries oneDNN
// does not take. Every geometry is handled as 3-d (missing leading dims have size 1) so one set
// of loops serves conv1d/2d/3d.
#include <cblas.h>

#include <cstring>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/nn/conv_internal.h"
#include "tensorcore/nn/im2col.h"
#include "tensorcore/ops/creation.h"

namespace tc::nn::detail {
namespace {

Geo3 to_geo3(const ConvGeometry& g) {
  Geo3 r;
  int off = 3 - g.nd;
  for (int i = 0; i < 3; ++i) {
    bool real = i >= off;
    int j = i - off;
    r.in[i] = real ? g.input[j] : 1;
    r.k[i] = real ? g.kernel[j] : 1;
    r.out[i] = real ? g.output[j] : 1;
    r.s[i] = real ? g.stride[j] : 1;
    r.p[i] = real ? g.pad_l[j] : 0;
    r.d[i] = real ? g.dilation[j] : 1;
  }
  return r;
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
              k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <typename T>
void forward_impl(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& cg,
                  const Tensor& y) {
  Geo3 g = to_geo3(cg);
  const int64_t G = cg.groups, Cg = cg.in_channels / G, Og = cg.out_channels / G;
  const int64_t K = Cg * g.k_size(), L = g.out_size();
  const bool pointwise = g.is_pointwise();
  std::vector<T> col(pointwise ? 0 : size_t(K * L));
  const T* xp = x.data<T>();
  const T* wp = w.data<T>();
  T* yp = y.data<T>();
  for (int64_t n = 0; n < cg.batch; ++n) {
    for (int64_t gi = 0; gi < G; ++gi) {
      const T* xg = xp + (n * cg.in_channels + gi * Cg) * g.in_size();
      const T* src = xg;
      if (!pointwise) {
        im2col(xg, Cg, g, col.data());
        src = col.data();
      }
      T* yg = yp + (n * cg.out_channels + gi * Og) * L;
      gemm(false, false, Og, L, K, T(1), wp + gi * Og * K, K, src, L, T(0), yg, L);
    }
  }
  if (b.defined()) {
    const T* bp = b.data<T>();
    parallel_for(0, cg.batch * cg.out_channels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(L, 1)),
                 [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        T bv = bp[r % cg.out_channels];
        T* row = yp + r * L;
        for (int64_t i = 0; i < L; ++i) row[i] += bv;
      }
    });
  }
}

template <typename T>
void backward_data_impl(const Tensor& gy, const Tensor& w, const ConvGeometry& cg,
                        const Tensor& gx) {
  Geo3 g = to_geo3(cg);
  const int64_t G = cg.groups, Cg = cg.in_channels / G, Og = cg.out_channels / G;
  const int64_t K = Cg * g.k_size(), L = g.out_size();
  const bool pointwise = g.is_pointwise();
  std::vector<T> col(pointwise ? 0 : size_t(K * L));
  const T* gyp = gy.data<T>();
  const T* wp = w.data<T>();
  T* gxp = gx.data<T>();
  for (int64_t n = 0; n < cg.batch; ++n) {
    for (int64_t gi = 0; gi < G; ++gi) {
      T* gxg = gxp + (n * cg.in_channels + gi * Cg) * g.in_size();
      const T* gyg = gyp + (n * cg.out_channels + gi * Og) * L;
      if (pointwise) {
        gemm(true, false, K, L, Og, T(1), wp + gi * Og * K, K, gyg, L, T(0), gxg, L);
      } else {
        gemm(true, false, K, L, Og, T(1), wp + gi * Og * K, K, gyg, L, T(0), col.data(), L);
        col2im(col.data(), Cg, g, gxg);
      }
    }
  }
}

template <typename T>
void backward_weight_impl(const Tensor& x, const Tensor& gy, const ConvGeometry& cg,
                          const Tensor& gw) {
  Geo3 g = to_geo3(cg);
  const int64_t G = cg.groups, Cg = cg.in_channels / G, Og = cg.out_channels / G;
  const int64_t K = Cg * g.k_size(), L = g.out_size();
  const bool pointwise = g.is_pointwise();
  std::vector<T> col(pointwise ? 0 : size_t(K * L));
  const T* xp = x.data<T>();
  const T* gyp = gy.data<T>();
  T* gwp = gw.data<T>();
  for (int64_t n = 0; n < cg.batch; ++n) {
    for (int64_t gi = 0; gi < G; ++gi) {
      const T* xg = xp + (n * cg.in_channels + gi * Cg) * g.in_size();
      const T* src = xg;
      if (!pointwise) {
        im2col(xg, Cg, g, col.data());
        src = col.data();
      }
      const T* gyg = gyp + (n * cg.out_channels + gi * Og) * L;
      gemm(false, true, Og, K, L, T(1), gyg, L, src, L, n == 0 ? T(0) : T(1), gwp + gi * Og * K, K);
    }
  }
}

}  // namespace

Tensor conv_forward_gemm(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g) {
  Tensor y = empty(g.output_shape(), TensorOptions(x.dtype()));
  dispatch_dtype<(1u << int(DType::Float32)) | (1u << int(DType::Float64))>(
      x.dtype(), "conv", [&](auto tag) {
        using T = typename decltype(tag)::type;
        forward_impl<T>(x, w, b, g, y);
      });
  return y;
}

Tensor conv_backward_data_gemm(const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  Tensor gx = zeros(g.input_shape(), TensorOptions(gy.dtype()));
  dispatch_dtype<(1u << int(DType::Float32)) | (1u << int(DType::Float64))>(
      gy.dtype(), "conv backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        backward_data_impl<T>(gy, w, g, gx);
      });
  return gx;
}

Tensor conv_backward_weight_gemm(const Tensor& x, const Tensor& gy, const ConvGeometry& g) {
  Tensor gw = zeros(g.weight_shape(), TensorOptions(x.dtype()));
  if (g.batch == 0) return gw;
  dispatch_dtype<(1u << int(DType::Float32)) | (1u << int(DType::Float64))>(
      x.dtype(), "conv backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        backward_weight_impl<T>(x, gy, g, gw);
      });
  return gw;
}

}  // namespace tc::nn::detail
