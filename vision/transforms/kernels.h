#pragma once
// Image kernels behind tensorcore.vision.transforms. Images are (..., C, H, W) (resize: any
// leading dims); uint8 is processed natively where the result is uint8. Every kernel takes CPU or
// CUDA images (the CUDA ones are in vision/cuda/) and returns on the image's device.
#include <optional>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::vision::kernels {

enum class Interpolation { Nearest = 0, Bilinear = 2, Bicubic = 3 };

// Resizes the last two dims. antialias: Pillow-style filter widened by the scale factor when
// downscaling (bilinear/bicubic). uint8 with antialias uses fixed-point weights in two uint8
// passes (like Pillow); other uint8 modes compute in float and round (like torchvision).
Tensor resize(const Tensor& img, int64_t out_h, int64_t out_w, Interpolation mode, bool antialias);

// One pass over (N, C, H, W): reads sample n's window at (tops[n], lefts[n]) of size
// (out_h, out_w), mirrored horizontally where hflip[n] (vertically where vflip[n]), and writes
// float32 x * scale[c] + bias[c]. This is crop + flip + ConvertImageDtype + Normalize fused.
Tensor crop_flip_normalize(const Tensor& img, const std::vector<int64_t>& tops,
                           const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                           const std::vector<uint8_t>& vflip, int64_t out_h, int64_t out_w,
                           const std::vector<double>& scale, const std::vector<double>& bias);

// The same per-sample crop + flips without conversion: output has the input's dtype.
Tensor crop_flip(const Tensor& img, const std::vector<int64_t>& tops,
                 const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                 const std::vector<uint8_t>& vflip, int64_t out_h, int64_t out_w);

// torchvision's _blend(img, other, factor) = clamp(f*img + (1-f)*other, 0, bound) in float32,
// then the image dtype (truncating for uint8), for uint8/float32 (..., C, H, W) images with one
// factor per image (or one for all). `other` is zero (brightness), the image's grayscale
// (saturation) or one value per image (contrast: its mean gray level).
enum class BlendOther { Zero, Gray, Value };
Tensor blend(const Tensor& img, const std::vector<double>& factors, BlendOther other,
             const std::vector<double>& values = {});

// torchvision's adjust_hue per pixel (rgb -> hsv, shift, hsv -> rgb), one factor per image.
Tensor adjust_hue(const Tensor& img, const std::vector<double>& factors);

// Resamples (N, C, H, W) through per-sample 3x3 projective matrices (row-major, (N or 1) x 9)
// mapping output pixel (x, y) to input coordinates. Outside pixels are zero; with `fill`
// (1 or C values) they blend towards fill the way torchvision's grid transform does.
Tensor warp(const Tensor& img, const std::vector<double>& matrices, int64_t out_h, int64_t out_w,
            Interpolation mode, const std::optional<std::vector<double>>& fill);

// Separable Gaussian blur of (N, C, H, W) uint8/float32/float64 images with reflect padding, as
// torchvision's gaussian_blur (float32 kernels; uint8 rounds to nearest). kernel_x/kernel_y:
// odd sizes along W/H; sigma_x/sigma_y: 1 or N values (per-sample sigmas in one call).
Tensor gaussian_blur(const Tensor& img, int64_t kernel_x, int64_t kernel_y,
                     const std::vector<double>& sigma_x, const std::vector<double>& sigma_y);

// img[..., i:i+h, j:j+w] = value (broadcast to (..., C, h, w), converted to the image dtype);
// writes into img when inplace, else into a copy.
Tensor erase(const Tensor& img, int64_t i, int64_t j, int64_t h, int64_t w, const Tensor& value,
             bool inplace);

// torchvision's invert, posterize (uint8) and solarize, as core ops (any device).
Tensor invert(const Tensor& img);
Tensor posterize(const Tensor& img, int64_t bits);
Tensor solarize(const Tensor& img, double threshold);
// torchvision's autocontrast (uint8/float), adjust_sharpness and equalize (uint8; CPU and CUDA).
Tensor autocontrast(const Tensor& img);
Tensor adjust_sharpness(const Tensor& img, double factor);
Tensor equalize(const Tensor& img);

}  // namespace tc::vision::kernels
