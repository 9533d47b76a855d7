#pragma once
// torch.fft for tensorcore: tc::fft::fft(x, n, dim, norm) and friends, with numpy/torch semantics
// (n/s zero-pad or trim, integer inputs promoted to the default float dtype, real inputs to
// complex; norm "backward" | "forward" | "ortho"). Every function is differentiable.
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "tensorcore/ops/options.h"

namespace tc::fft {

using OptInt = std::optional<int64_t>;
using OptDims = std::optional<std::vector<int64_t>>;
using OptNorm = std::optional<std::string>;

// How a primitive scales its result: by 1, 1/sqrt(N) or 1/N (N = product of signal sizes).
enum class Norm { None, BySqrtN, ByN };

// The three differentiable primitives the public functions are built from (torch's _fft_c2c,
// _fft_r2c, _fft_c2r). r2c is always a forward (e^{-i...}) transform, c2r always an inverse one.
// c2r takes last_dim_size/2+1 bins along dims.back() and returns last_dim_size real values.
Tensor fft_c2c(const Tensor& x, const std::vector<int64_t>& dims, Norm norm, bool forward);
Tensor fft_r2c(const Tensor& x, const std::vector<int64_t>& dims, Norm norm, bool onesided);
Tensor fft_c2r(const Tensor& x, const std::vector<int64_t>& dims, Norm norm, int64_t last_dim_size);

Tensor fft(const Tensor& x, OptInt n = {}, int64_t dim = -1, const OptNorm& norm = {});
Tensor ifft(const Tensor& x, OptInt n = {}, int64_t dim = -1, const OptNorm& norm = {});
Tensor rfft(const Tensor& x, OptInt n = {}, int64_t dim = -1, const OptNorm& norm = {});
Tensor irfft(const Tensor& x, OptInt n = {}, int64_t dim = -1, const OptNorm& norm = {});
Tensor hfft(const Tensor& x, OptInt n = {}, int64_t dim = -1, const OptNorm& norm = {});
Tensor ihfft(const Tensor& x, OptInt n = {}, int64_t dim = -1, const OptNorm& norm = {});

Tensor fft2(const Tensor& x, OptDims s = {}, std::vector<int64_t> dim = {-2, -1},
            const OptNorm& norm = {});
Tensor ifft2(const Tensor& x, OptDims s = {}, std::vector<int64_t> dim = {-2, -1},
             const OptNorm& norm = {});
Tensor rfft2(const Tensor& x, OptDims s = {}, std::vector<int64_t> dim = {-2, -1},
             const OptNorm& norm = {});
Tensor irfft2(const Tensor& x, OptDims s = {}, std::vector<int64_t> dim = {-2, -1},
              const OptNorm& norm = {});

Tensor fftn(const Tensor& x, OptDims s = {}, OptDims dim = {}, const OptNorm& norm = {});
Tensor ifftn(const Tensor& x, OptDims s = {}, OptDims dim = {}, const OptNorm& norm = {});
Tensor rfftn(const Tensor& x, OptDims s = {}, OptDims dim = {}, const OptNorm& norm = {});
Tensor irfftn(const Tensor& x, OptDims s = {}, OptDims dim = {}, const OptNorm& norm = {});
// torch 1.13's Hermitian n-d transforms: hfftn takes the one-sided half (last dim) of a
// Hermitian-symmetric signal and returns the real spectrum; ihfftn is its inverse.
Tensor hfft2(const Tensor& x, OptDims s = {}, std::vector<int64_t> dim = {-2, -1},
             const OptNorm& norm = {});
Tensor ihfft2(const Tensor& x, OptDims s = {}, std::vector<int64_t> dim = {-2, -1},
              const OptNorm& norm = {});
Tensor hfftn(const Tensor& x, OptDims s = {}, OptDims dim = {}, const OptNorm& norm = {});
Tensor ihfftn(const Tensor& x, OptDims s = {}, OptDims dim = {}, const OptNorm& norm = {});

// Sample frequencies; dtype defaults to the default float dtype.
Tensor fftfreq(int64_t n, double d = 1.0, TensorOptions opts = TensorOptions(get_default_dtype()));
Tensor rfftfreq(int64_t n, double d = 1.0, TensorOptions opts = TensorOptions(get_default_dtype()));
// Rolls the zero frequency to the centre (dims empty = all dims).
Tensor fftshift(const Tensor& x, const std::vector<int64_t>& dim = {});
Tensor ifftshift(const Tensor& x, const std::vector<int64_t>& dim = {});

}  // namespace tc::fft
