"""tensorcore.fft: discrete Fourier transforms with torch.fft's names and semantics.

Computed by tensorcore's own FFT engine on the CPU (mixed-radix Stockham, Rader and Bluestein,
plans cached per length) and by cuFFT on CUDA tensors (plans cached per device:
tensorcore.backends.cuda.cufft_plan_cache); every function is differentiable (complex autograd,
PyTorch's convention)."""

from .._C import _fft as _impl

fft = _impl.fft
ifft = _impl.ifft
fft2 = _impl.fft2
ifft2 = _impl.ifft2
fftn = _impl.fftn
ifftn = _impl.ifftn
rfft = _impl.rfft
irfft = _impl.irfft
rfft2 = _impl.rfft2
irfft2 = _impl.irfft2
rfftn = _impl.rfftn
irfftn = _impl.irfftn
hfft = _impl.hfft
ihfft = _impl.ihfft
hfft2 = _impl.hfft2
ihfft2 = _impl.ihfft2
hfftn = _impl.hfftn
ihfftn = _impl.ihfftn
fftfreq = _impl.fftfreq
rfftfreq = _impl.rfftfreq
fftshift = _impl.fftshift
ifftshift = _impl.ifftshift
next_fast_len = _impl.next_fast_len

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]
