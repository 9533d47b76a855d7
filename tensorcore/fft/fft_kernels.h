#pragma once
// Per-device kernels behind the FFT primitives (fft_primitives.cpp) and stft's framing
// (stft.cpp). CPU: tensorcore's engine; CUDA: cuFFT (kernels/cuda/cufft.cpp) and
// kernels/cuda/fft_frames.cu. They compute only: argument checks, dim wrapping and autograd stay
// in the device-independent primitives.
#include <vector>

#include "tensorcore/core/dispatch.h"
#include "tensorcore/core/tensor.h"

namespace tc::fft {

// x is detached and complex (c2c, c2r) or float32/float64 (r2c); dims are wrapped, unique and
// non-empty. `scale` multiplies the result (1, 1/sqrt(N) or 1/N). c2c: exponent sign by
// `forward`. r2c: always e^{-i}; onesided keeps n/2+1 bins along dims.back(). c2r: always e^{+i},
// takes last_dim_size/2+1 bins along dims.back(), ignores the imaginary parts of the DC (and,
// for even sizes, Nyquist) bins and applies c2c along the other dims first (numpy's irfftn).
using FftC2CKernel = Tensor (*)(const Tensor& x, const std::vector<int64_t>& dims, double scale,
                                bool forward);
using FftR2CKernel = Tensor (*)(const Tensor& x, const std::vector<int64_t>& dims, double scale,
                                bool onesided);
using FftC2RKernel = Tensor (*)(const Tensor& x, const std::vector<int64_t>& dims, double scale,
                                int64_t last_dim_size);
extern KernelTable<FftC2CKernel> fft_c2c_kernel;
extern KernelTable<FftR2CKernel> fft_r2c_kernel;
extern KernelTable<FftC2RKernel> fft_c2r_kernel;

// stft framing on a contiguous [B, L] tensor (float or complex): out [B, T, frame_length]
// contiguous, T = 1 + (L - frame_length) / hop. overlap_add: frames [B, T, n] contiguous into a
// zero-initialised out [B, n + hop * (T - 1)].
using FrameKernel = void (*)(const Tensor& out, const Tensor& x, int64_t frame_length, int64_t hop);
using OverlapAddKernel = void (*)(const Tensor& out, const Tensor& frames, int64_t hop);
extern KernelTable<FrameKernel> frame_signal_kernel;
extern KernelTable<OverlapAddKernel> overlap_add_kernel;

}  // namespace tc::fft
