#pragma once
// im2col / col2im over 3-d geometry (1-d and 2-d use leading size-1 dims). Shared by the GEMM
// convolution and unfold/fold.
#include <algorithm>
#include <cstdint>

#include "tensorcore/core/parallel.h"

namespace tc::nn::detail {

struct Geo3 {
  int64_t in[3], k[3], out[3], s[3], p[3], d[3];
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  bool is_pointwise() const {
    for (int i = 0; i < 3; ++i)
      if (k[i] != 1 || s[i] != 1 || p[i] != 0) return false;
    return true;
  }
};

// col[(c, kd, kh, kw), (od, oh, ow)] = x[c, od*s - p + kd*d, ...] (zero outside).
template <typename T>
inline void im2col(const T* x, int64_t channels, const Geo3& g, T* col) {
  const int64_t ks = g.k_size(), os = g.out_size();
  parallel_for(0, channels * ks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(os, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   int64_t c = r / ks, kk = r % ks;
                   int64_t kw = kk % g.k[2], kh = (kk / g.k[2]) % g.k[1],
                           kd = kk / (g.k[2] * g.k[1]);
                   const T* xc = x + c * g.in_size();
                   T* out = col + r * os;
                   for (int64_t od = 0; od < g.out[0]; ++od) {
                     int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
                     for (int64_t oh = 0; oh < g.out[1]; ++oh) {
                       int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
                       T* o = out + (od * g.out[1] + oh) * g.out[2];
                       if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
                         std::fill(o, o + g.out[2], T(0));
                         continue;
                       }
                       const T* xrow = xc + (id * g.in[1] + ih) * g.in[2];
                       int64_t iw0 = -g.p[2] + kw * g.d[2];
                       if (g.s[2] == 1) {
                         for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                           int64_t iw = iw0 + ow;
                           o[ow] = (iw >= 0 && iw < g.in[2]) ? xrow[iw] : T(0);
                         }
                       } else {
                         for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                           int64_t iw = iw0 + ow * g.s[2];
                           o[ow] = (iw >= 0 && iw < g.in[2]) ? xrow[iw] : T(0);
                         }
                       }
                     }
                   }
                 }
               });
}

// The adjoint of im2col: x[c, ...] += col[(c, k...), (o...)]. Parallel over channels so no two
// threads touch the same output.
template <typename T>
inline void col2im(const T* col, int64_t channels, const Geo3& g, T* x) {
  const int64_t ks = g.k_size(), os = g.out_size();
  parallel_for(0, channels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(os * ks, 1)),
               [&](int64_t c0, int64_t c1) {
                 for (int64_t c = c0; c < c1; ++c) {
                   T* xc = x + c * g.in_size();
                   for (int64_t kk = 0; kk < ks; ++kk) {
                     int64_t kw = kk % g.k[2], kh = (kk / g.k[2]) % g.k[1],
                             kd = kk / (g.k[2] * g.k[1]);
                     const T* in = col + (c * ks + kk) * os;
                     for (int64_t od = 0; od < g.out[0]; ++od) {
                       int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
                       if (id < 0 || id >= g.in[0]) continue;
                       for (int64_t oh = 0; oh < g.out[1]; ++oh) {
                         int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
                         if (ih < 0 || ih >= g.in[1]) continue;
                         const T* i = in + (od * g.out[1] + oh) * g.out[2];
                         T* xrow = xc + (id * g.in[1] + ih) * g.in[2];
                         int64_t iw0 = -g.p[2] + kw * g.d[2];
                         for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                           int64_t iw = iw0 + ow * g.s[2];
                           if (iw >= 0 && iw < g.in[2]) xrow[iw] += i[ow];
                         }
                       }
                     }
                   }
                 }
               });
}

}  // namespace tc::nn::detail
