"""Docstrings of tensorcore.fft."""

from ._style import doc

TARGET = "tensorcore.fft"

_NORM = (
    "norm (str, optional): ``'backward'`` (default: no scaling forward, 1/n on the inverse), "
    "``'ortho'`` (1/sqrt(n) both ways) or ``'forward'`` (1/n forward)."
)
_IN = "input (Tensor): the input (real or complex)."
_N = "n (int, optional): signal length: the input is zero-padded or trimmed to it."
_S = "s (tuple of ints, optional): signal size per transformed dimension (pad or trim)."


def _one(name, text, example="", real_in=False):
    inp = "input (Tensor): real input." if real_in else _IN
    return doc(
        f"{name}(input, n=None, dim=-1, norm=None) -> Tensor",
        text,
        [inp, _N, "dim (int): the dimension to transform.", _NORM],
        example=example,
    )


def _multi(name, text, dims):
    return doc(
        f"{name}(input, s=None, dim={dims}, norm=None) -> Tensor",
        text,
        [
            _IN,
            _S,
            f"dim (tuple of ints{', optional' if dims == 'None' else ''}): the dimensions to transform"
            + (" (all when None)." if dims == "None" else "."),
            _NORM,
        ],
    )


_FREQ_KW = (
    "dtype (tensorcore.dtype, optional): result dtype.",
    "device (optional): result device.",
    "requires_grad (bool): record autograd.",
)

DOCS = {
    "fft": _one(
        "fft",
        "One-dimensional discrete Fourier transform along ``dim`` (complex output).",
        ">>> tc.fft.fft(tc.tensor([1.0, 0.0, 0.0, 0.0]))\ntensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=tensorcore.complex64)",
    ),
    "ifft": _one("ifft", "Inverse of :func:`fft`."),
    "rfft": _one(
        "rfft",
        "DFT of a real signal keeping the ``n // 2 + 1`` non-negative frequencies (the rest are their conjugates).",
        ">>> tc.fft.rfft(tc.tensor([1.0, 1.0, 1.0, 1.0]))\ntensor([4.+0.j, 0.+0.j, 0.+0.j], dtype=tensorcore.complex64)",
        real_in=True,
    ),
    "irfft": _one(
        "irfft",
        "Inverse of :func:`rfft`: a real signal of length ``n`` (default ``2 * (m - 1)``) from its one-sided spectrum.",
    ),
    "hfft": _one(
        "hfft", "DFT of a Hermitian-symmetric signal given by its first half; the output is real."
    ),
    "ihfft": _one(
        "ihfft",
        "Inverse of :func:`hfft`: the one-sided half of a real signal's inverse DFT.",
        real_in=True,
    ),
    "fft2": _multi(
        "fft2", "Two-dimensional DFT over ``dim`` (the last two by default).", "(-2, -1)"
    ),
    "ifft2": _multi("ifft2", "Inverse of :func:`fft2`.", "(-2, -1)"),
    "rfft2": _multi(
        "rfft2", "Two-dimensional DFT of a real input, one-sided in the last dimension.", "(-2, -1)"
    ),
    "irfft2": _multi("irfft2", "Inverse of :func:`rfft2`.", "(-2, -1)"),
    "hfft2": _multi("hfft2", "Two-dimensional :func:`hfft`.", "(-2, -1)"),
    "ihfft2": _multi("ihfft2", "Two-dimensional :func:`ihfft`.", "(-2, -1)"),
    "fftn": _multi("fftn", "N-dimensional DFT over ``dim``.", "None"),
    "ifftn": _multi("ifftn", "Inverse of :func:`fftn`.", "None"),
    "rfftn": _multi(
        "rfftn",
        "N-dimensional DFT of a real input, one-sided in the last transformed dimension.",
        "None",
    ),
    "irfftn": _multi("irfftn", "Inverse of :func:`rfftn`.", "None"),
    "hfftn": _multi("hfftn", "N-dimensional :func:`hfft`.", "None"),
    "ihfftn": _multi("ihfftn", "N-dimensional :func:`ihfft`.", "None"),
    "fftfreq": doc(
        "fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False) -> Tensor",
        "The sample frequencies of an ``n``-point DFT with sample spacing ``d``: ``[0, 1, ..., n/2-1, -n/2, ..., -1] / (d n)``.",
        ["n (int): signal length.", "d (float): sample spacing."],
        _FREQ_KW,
        ">>> tc.fft.fftfreq(4)\ntensor([ 0.0000,  0.2500, -0.5000, -0.2500])",
    ),
    "rfftfreq": doc(
        "rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False) -> Tensor",
        "The ``n // 2 + 1`` non-negative sample frequencies of :func:`rfft`.",
        ["n (int): signal length.", "d (float): sample spacing."],
        _FREQ_KW,
    ),
    "fftshift": doc(
        "fftshift(input, dim=None) -> Tensor",
        "Moves the zero frequency to the center (rolls by n // 2 along ``dim``, all dims by default).",
        ["input (Tensor): a spectrum.", "dim (int or tuple, optional): the dimensions."],
        example=">>> tc.fft.fftshift(tc.fft.fftfreq(4))\ntensor([-0.5000, -0.2500,  0.0000,  0.2500])",
    ),
    "ifftshift": doc(
        "ifftshift(input, dim=None) -> Tensor",
        "Inverse of :func:`fftshift`.",
        ["input (Tensor): a shifted spectrum.", "dim (int or tuple, optional): the dimensions."],
    ),
}
