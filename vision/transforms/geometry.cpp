// Warp matrices (see geometry.h). No FMA contraction: Python calls these same functions, and the
// results should not depend on the compiler's choice of fused operations.
#include "vision/transforms/no_fp_contract.h"

#include "vision/transforms/geometry.h"

#include <algorithm>
#include <cmath>

#include "tensorcore/core/error.h"

namespace tc::vision::kernels {

namespace {
constexpr double kDegToRad = 3.14159265358979323846 / 180.0;
}

Affine2x3 inverse_affine(double cx, double cy, double angle, double tx, double ty, double scale,
                         double shear_x, double shear_y) {
  TC_CHECK(scale > 0, "affine: scale should be positive, got ", scale);
  const double rot = angle * kDegToRad, sx = shear_x * kDegToRad, sy = shear_y * kDegToRad;
  // RSS (rotation, scale, shear) inverted: M^-1 = C T^-1 RSS^-1 C^-1 (torchvision's derivation).
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
  Affine2x3 m{d, -b, 0.0, -c, a, 0.0};
  for (double& v : m) v /= scale;
  m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty);
  m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty);
  m[2] += cx;
  m[5] += cy;
  return m;
}

Affine2x3 affine_for_image(int64_t h, int64_t w, double angle, double tx, double ty, double scale,
                           double shear_x, double shear_y,
                           const std::optional<std::pair<double, double>>& center) {
  double cx = 0.0, cy = 0.0;
  if (center) cx = center->first - double(w) * 0.5, cy = center->second - double(h) * 0.5;
  return inverse_affine(cx, cy, angle, tx, ty, scale, shear_x, shear_y);
}

Matrix3x3 affine_pixel_matrix(const Affine2x3& m, int64_t h, int64_t w, int64_t out_h,
                              int64_t out_w) {
  // Output pixel index -> centred output coordinate -> centred input -> input pixel index.
  const double ox = 0.5 - double(out_w) * 0.5, oy = 0.5 - double(out_h) * 0.5;
  return {m[0], m[1], m[0] * ox + m[1] * oy + m[2] + double(w) * 0.5 - 0.5,
          m[3], m[4], m[3] * ox + m[4] * oy + m[5] + double(h) * 0.5 - 0.5,
          0.0,  0.0,  1.0};
}

std::pair<int64_t, int64_t> expanded_size(const Affine2x3& m, int64_t h, int64_t w) {
  // float32 like torchvision's _compute_affine_output_size, so sizes agree with it.
  const float fw = float(w), fh = float(h);
  const float pts[4][2] = {{-0.5f * fw, -0.5f * fh},
                           {-0.5f * fw, 0.5f * fh},
                           {0.5f * fw, 0.5f * fh},
                           {0.5f * fw, -0.5f * fh}};
  float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (const auto& p : pts)
    for (int j = 0; j < 2; ++j) {
      float v = p[0] * float(m[size_t(3 * j)]) + p[1] * float(m[size_t(3 * j + 1)]) +
                float(m[size_t(3 * j + 2)]);
      lo[j] = std::min(lo[j], v), hi[j] = std::max(hi[j], v);
    }
  const float tol = 1e-4f, shift[2] = {fw * 0.5f, fh * 0.5f};
  int64_t size[2];
  for (int j = 0; j < 2; ++j) {
    float cmax = std::ceil(std::trunc((hi[j] + shift[j]) / tol) * tol);
    float cmin = std::floor(std::trunc((lo[j] + shift[j]) / tol) * tol);
    size[j] = int64_t(cmax - cmin);
  }
  TC_CHECK(size[0] > 0 && size[1] > 0, "rotate: expanded output size is empty (", size[1], "x",
           size[0], ")");
  return {size[1], size[0]};
}

Matrix3x3 perspective_matrix(const std::array<double, 8>& start, const std::array<double, 8>& end) {
  // torchvision's _get_perspective_coeffs: 8 equations mapping end points back to start points.
  double a[8][9];
  for (int i = 0; i < 4; ++i) {
    const double ex = end[size_t(2 * i)], ey = end[size_t(2 * i + 1)];
    const double sx = start[size_t(2 * i)], sy = start[size_t(2 * i + 1)];
    const double r0[9] = {ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey, sx};
    const double r1[9] = {0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey, sy};
    std::copy(r0, r0 + 9, a[2 * i]);
    std::copy(r1, r1 + 9, a[2 * i + 1]);
  }
  // Gaussian elimination with partial pivoting.
  for (int col = 0; col < 8; ++col) {
    int piv = col;
    for (int r = col + 1; r < 8; ++r)
      if (std::abs(a[r][col]) > std::abs(a[piv][col])) piv = r;
    TC_CHECK(std::abs(a[piv][col]) > 1e-12,
             "perspective: the start and end points do not define a perspective transform "
             "(degenerate quadrilateral)");
    if (piv != col) std::swap(a[piv], a[col]);
    for (int r = col + 1; r < 8; ++r) {
      const double f = a[r][col] / a[col][col];
      for (int k = col; k < 9; ++k) a[r][k] -= f * a[col][k];
    }
  }
  double c[8];
  for (int r = 7; r >= 0; --r) {
    double v = a[r][8];
    for (int k = r + 1; k < 8; ++k) v -= a[r][k] * c[k];
    c[r] = v / a[r][r];
  }
  // Pixel centres (x + 0.5) through the homography, back to index space (- 0.5).
  const double den[3] = {c[6], c[7], 1.0 + 0.5 * c[6] + 0.5 * c[7]};
  return {c[0] - 0.5 * den[0],
          c[1] - 0.5 * den[1],
          c[2] + 0.5 * c[0] + 0.5 * c[1] - 0.5 * den[2],
          c[3] - 0.5 * den[0],
          c[4] - 0.5 * den[1],
          c[5] + 0.5 * c[3] + 0.5 * c[4] - 0.5 * den[2],
          den[0],
          den[1],
          den[2]};
}

}  // namespace tc::vision::kernels
