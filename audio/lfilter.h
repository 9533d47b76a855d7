#pragma once
// The recursive (IIR) half of torchaudio.functional.lfilter, as a differentiable op.
#include "tensorcore/core/tensor.h"

namespace tc::audio {

// u: (batch, channels, time), a: (channels, order) with a[:, 0] == 1 (already normalized).
// Returns y with y[n] = u[n] - sum_{k >= 1} a[k] * y[n - k] along time, per (batch, channel).
// Differentiable with respect to u and a (gradients of any order).
Tensor lfilter_iir(const Tensor& u, const Tensor& a);

}  // namespace tc::audio
