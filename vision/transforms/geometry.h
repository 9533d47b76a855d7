#pragma once
// Matrices behind rotate / affine / perspective, shared by the Python functional transforms and
// the C++ pipeline so both resample through bit-identical matrices. Conventions follow
// torchvision: an "inverse affine" is the 2x3 map from output to input coordinates centred on the
// image; a "pixel matrix" is the 3x3 map from output pixel index (x, y) to input pixel
// coordinates that kernels::warp consumes.
#include <array>
#include <cstdint>
#include <optional>
#include <utility>

namespace tc::vision::kernels {

using Affine2x3 = std::array<double, 6>;
using Matrix3x3 = std::array<double, 9>;

// torchvision's _get_inverse_affine_matrix: center (cx, cy) relative to the image centre, angle
// and shear in degrees.
Affine2x3 inverse_affine(double cx, double cy, double angle, double tx, double ty, double scale,
                         double shear_x, double shear_y);

// The inverse affine of F.affine / F.rotate on an (h, w) image; center is (x, y) in pixels
// (default: the image centre). rotate(angle) is affine(-angle) without translation or shear.
Affine2x3 affine_for_image(int64_t h, int64_t w, double angle, double tx, double ty, double scale,
                           double shear_x, double shear_y,
                           const std::optional<std::pair<double, double>>& center);

// Centred inverse affine for an (h, w) input -> pixel matrix producing an (out_h, out_w) output
// (the rotation centre maps to the output centre).
Matrix3x3 affine_pixel_matrix(const Affine2x3& m, int64_t h, int64_t w, int64_t out_h,
                              int64_t out_w);

// rotate(expand=True)'s output size (out_h, out_w): the bounding box of the transformed corners,
// computed in float32 with torchvision's 1e-4 tolerance.
std::pair<int64_t, int64_t> expanded_size(const Affine2x3& m, int64_t h, int64_t w);

// F.perspective's pixel matrix for 4 (x, y) start points mapped to 4 end points (row-major
// [x0, y0, x1, y1, ...]). Solves torchvision's 8x8 system in double.
Matrix3x3 perspective_matrix(const std::array<double, 8>& start, const std::array<double, 8>& end);

}  // namespace tc::vision::kernels
