#pragma once
// Short-time Fourier transforms (torch.stft / torch.istft, PyTorch 1.13 semantics) and the
// window functions (torch.hann_window, ...). Everything is differentiable.
#include <optional>
#include <string>

#include "tensorcore/core/tensor.h"
#include "tensorcore/ops/options.h"

namespace tc {

// input: [L] or [B, L]. Returns [(B,) n_fft/2+1 or n_fft, n_frames] complex, or with a trailing
// dim of 2 (real, imag) when return_complex is false. pad_mode: reflect, constant, replicate,
// circular.
Tensor stft(const Tensor& input, int64_t n_fft, std::optional<int64_t> hop_length = {},
            std::optional<int64_t> win_length = {}, const Tensor& window = Tensor(),
            bool center = true, const std::string& pad_mode = "reflect", bool normalized = false,
            std::optional<bool> onesided = {}, std::optional<bool> return_complex = {});

// input: [(B,) freq, n_frames] complex. Returns [(B,) length] (real unless return_complex).
Tensor istft(const Tensor& input, int64_t n_fft, std::optional<int64_t> hop_length = {},
             std::optional<int64_t> win_length = {}, const Tensor& window = Tensor(),
             bool center = true, bool normalized = false, std::optional<bool> onesided = {},
             std::optional<int64_t> length = {}, bool return_complex = false);

// Frames [B, L] into [B, T, frame_length] at step hop (T = 1 + (L - frame_length) / hop), and the
// adjoint: overlap-add of [B, T, frame_length] into [B, frame_length + hop*(T-1)].
Tensor frame_signal(const Tensor& x, int64_t frame_length, int64_t hop);
Tensor overlap_add(const Tensor& frames, int64_t hop);

// Windows; periodic windows are the first window_length points of a symmetric window one longer.
Tensor hann_window(int64_t window_length, bool periodic = true,
                   TensorOptions opts = TensorOptions(get_default_dtype()));
Tensor hamming_window(int64_t window_length, bool periodic = true, double alpha = 0.54,
                      double beta = 0.46, TensorOptions opts = TensorOptions(get_default_dtype()));
Tensor blackman_window(int64_t window_length, bool periodic = true,
                       TensorOptions opts = TensorOptions(get_default_dtype()));
Tensor bartlett_window(int64_t window_length, bool periodic = true,
                       TensorOptions opts = TensorOptions(get_default_dtype()));
Tensor kaiser_window(int64_t window_length, bool periodic = true, double beta = 12.0,
                     TensorOptions opts = TensorOptions(get_default_dtype()));

}  // namespace tc
