// Convolution by im2col + BLAS GEMM: the float64 path and the fallback for geometries oneDNN
// does not take. Every geometry is handled as 3-d (missing leading dims have size 1) so one set
// of loops serves conv1d/2d/3d.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/parallel.h"
#include "tensorcore/kernels/cpu/blas_threads.h"
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

// The shapes shared by the three passes: for each batch element and group, a GEMM of the group's
// weights (Og x K) with the columns of the group's input (K x L), which are the input itself for
// pointwise convs and its im2col otherwise.
struct GroupGemm {
  explicit GroupGemm(const ConvGeometry& geometry)
      : cg(geometry),
        g(to_geo3(geometry)),
        Cg(geometry.in_channels / geometry.groups),
        Og(geometry.out_channels / geometry.groups),
        K(Cg * g.k_size()),
        L(g.out_size()),
        pointwise(g.is_pointwise()) {}

  // fn(n, x_offset, y_offset, w_offset) for each batch element n and group: the offsets of the
  // group's input channels, output channels and weights.
  template <typename Fn>
  void each_group(Fn&& fn) const {
    for (int64_t n = 0; n < cg.batch; ++n)
      for (int64_t gi = 0; gi < cg.groups; ++gi)
        fn(n, (n * cg.in_channels + gi * Cg) * g.in_size(), (n * cg.out_channels + gi * Og) * L,
           gi * Og * K);
  }

  template <typename T>
  std::vector<T> column_buffer() const {
    return std::vector<T>(pointwise ? 0 : size_t(K * L));
  }

  // The (K x L) columns of a group's input `xg`: xg itself, or its im2col written into `col`.
  template <typename T>
  const T* columns(const T* xg, std::vector<T>& col) const {
    if (pointwise) return xg;
    im2col(xg, Cg, g, col.data());
    return col.data();
  }

  const ConvGeometry& cg;
  const Geo3 g;
  const int64_t Cg, Og, K, L;
  const bool pointwise;
};

// y = conv(x, w) + beta * y, then per element: + bias, + residual `res` (if given), ReLU.
template <typename T>
void forward_impl(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& cg,
                  const Tensor& y, T beta = T(0), const T* res = nullptr, bool relu = false) {
  const GroupGemm gg(cg);
  const int64_t K = gg.K, L = gg.L;
  std::vector<T> col = gg.column_buffer<T>();
  const T* xp = x.data<T>();
  const T* wp = w.data<T>();
  T* yp = y.data<T>();
  const int threads = get_num_threads();
  if (gg.pointwise && cg.groups == 1 && threads > 1 && !in_parallel_region()) {
    // Our threads split images and column blocks, each running a one-thread GEMM: OpenBLAS's
    // own threads would contend with the spinning OpenMP workers of the surrounding ops.
    const int64_t chunks = cg.batch % threads == 0 ? 1 : threads;
    const int64_t width = (L + chunks - 1) / chunks;
    const int64_t block = std::max<int64_t>(16, (width + 15) / 16 * 16);
    BlasSingleThread one_thread_blas;
    parallel_for(0, cg.batch * chunks, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t n = t / chunks, c0 = (t % chunks) * block;
        if (c0 >= L) continue;
        const int64_t cols = std::min(block, L - c0);
        gemm(false, false, gg.Og, cols, K, T(1), wp, K, xp + n * cg.in_channels * L + c0, L, beta,
             yp + n * cg.out_channels * L + c0, L);
      }
    });
  } else {
    gg.each_group([&](int64_t, int64_t xo, int64_t yo, int64_t wo) {
      gemm(false, false, gg.Og, L, K, T(1), wp + wo, K, gg.columns(xp + xo, col), L, beta, yp + yo,
           L);
    });
  }
  if (b.defined() || res || relu) {
    // One pass over the output for bias, residual and ReLU together.
    const T* bp = b.defined() ? b.data<T>() : nullptr;
    parallel_for(0, cg.batch * cg.out_channels,
                 std::max<int64_t>(1, kGrainSize / std::max<int64_t>(L, 1)),
                 [&](int64_t r0, int64_t r1) {
                   for (int64_t r = r0; r < r1; ++r) {
                     const T bv = bp ? bp[r % cg.out_channels] : T(0);
                     T* row = yp + r * L;
                     const T* rrow = res ? res + r * L : nullptr;
                     if (rrow && relu) {
                       for (int64_t i = 0; i < L; ++i)
                         row[i] = std::max(row[i] + bv + rrow[i], T(0));
                     } else if (rrow) {
                       for (int64_t i = 0; i < L; ++i) row[i] += bv + rrow[i];
                     } else if (relu) {
                       for (int64_t i = 0; i < L; ++i) row[i] = std::max(row[i] + bv, T(0));
                     } else {
                       for (int64_t i = 0; i < L; ++i) row[i] += bv;
                     }
                   }
                 });
  }
}

template <typename T>
void backward_data_impl(const Tensor& gy, const Tensor& w, const ConvGeometry& cg,
                        const Tensor& gx) {
  const GroupGemm gg(cg);
  const int64_t K = gg.K, L = gg.L;
  std::vector<T> col = gg.column_buffer<T>();
  const T* gyp = gy.data<T>();
  const T* wp = w.data<T>();
  T* gxp = gx.data<T>();
  gg.each_group([&](int64_t, int64_t xo, int64_t yo, int64_t wo) {
    if (gg.pointwise) {
      gemm(true, false, K, L, gg.Og, T(1), wp + wo, K, gyp + yo, L, T(0), gxp + xo, L);
    } else {
      gemm(true, false, K, L, gg.Og, T(1), wp + wo, K, gyp + yo, L, T(0), col.data(), L);
      col2im(col.data(), gg.Cg, gg.g, gxp + xo);
    }
  });
}

template <typename T>
void backward_weight_impl(const Tensor& x, const Tensor& gy, const ConvGeometry& cg,
                          const Tensor& gw) {
  const GroupGemm gg(cg);
  const int64_t K = gg.K, L = gg.L;
  std::vector<T> col = gg.column_buffer<T>();
  const T* xp = x.data<T>();
  const T* gyp = gy.data<T>();
  T* gwp = gw.data<T>();
  gg.each_group([&](int64_t n, int64_t xo, int64_t yo, int64_t wo) {
    gemm(false, true, gg.Og, K, L, T(1), gyp + yo, L, gg.columns(xp + xo, col), L,
         n == 0 ? T(0) : T(1), gwp + wo, K);
  });
}

}  // namespace

Tensor conv_forward_gemm(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g,
                         const ConvEpilogue* epi) {
  if (epi) {
    TC_CHECK(x.dtype() == DType::Float32, "conv: a fused epilogue needs float32");
    // Into the residual: the GEMM accumulates onto it (beta 1); else the residual is added in
    // the pass that adds the bias.
    Tensor y =
        epi->into_residual ? epi->residual : empty(g.output_shape(), TensorOptions(x.dtype()));
    const float* res =
        epi->residual.defined() && !epi->into_residual ? epi->residual.data<float>() : nullptr;
    forward_impl<float>(x, w, b, g, y, epi->into_residual ? 1.f : 0.f, res, epi->relu);
    return y;
  }
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
