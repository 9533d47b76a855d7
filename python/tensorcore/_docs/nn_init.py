"""Docstrings of tensorcore.nn.init."""

from ._style import doc

TARGET = "tensorcore.nn.init"

_T = "tensor (Tensor): the tensor to fill in place (no autograd history is recorded)."
_GEN = "generator (tensorcore.Generator, optional): the random source."
_FAN = (
    "a (float): negative slope of the rectifier after this layer (for ``'leaky_relu'``).",
    "mode (str): ``'fan_in'`` (preserves the forward variance) or ``'fan_out'`` (the backward one).",
    "nonlinearity (str): the nonlinearity after this layer, for :func:`calculate_gain`.",
    _GEN,
)


DOCS = {
    "calculate_gain": doc(
        "calculate_gain(nonlinearity, param=None) -> float",
        "The recommended gain for a nonlinearity: 1 for linear/sigmoid, 5/3 for tanh, sqrt(2) for ReLU, "
        "sqrt(2 / (1 + slope^2)) for leaky ReLU, 3/4 for SELU.",
        [
            "nonlinearity (str): the function's name.",
            "param (float, optional): the leaky ReLU slope.",
        ],
        example=">>> round(nn.init.calculate_gain('relu'), 4)\n1.4142",
    ),
    "uniform_": doc(
        "uniform_(tensor, a=0.0, b=1.0, generator=None) -> Tensor",
        "Fills with samples from U(a, b).",
        [_T, "a (float): lower bound.", "b (float): upper bound.", _GEN],
    ),
    "normal_": doc(
        "normal_(tensor, mean=0.0, std=1.0, generator=None) -> Tensor",
        "Fills with samples from N(mean, std^2).",
        [_T, "mean (float): the mean.", "std (float): the standard deviation.", _GEN],
    ),
    "constant_": doc(
        "constant_(tensor, val) -> Tensor",
        "Fills with the value ``val``.",
        [_T, "val (float): the value."],
    ),
    "ones_": doc("ones_(tensor) -> Tensor", "Fills with ones.", [_T]),
    "zeros_": doc(
        "zeros_(tensor) -> Tensor",
        "Fills with zeros.",
        [_T],
        example=">>> w = tc.empty(2)\n>>> nn.init.zeros_(w)\ntensor([0., 0.])",
    ),
    "eye_": doc(
        "eye_(tensor) -> Tensor",
        "Fills a 2-D tensor with the identity matrix (keeps the input of a Linear layer).",
        [_T],
    ),
    "dirac_": doc(
        "dirac_(tensor, groups=1) -> Tensor",
        "Fills a 3-, 4- or 5-D convolution weight with the Dirac delta, so the convolution preserves its input channels.",
        [_T, "groups (int): split the output channels into this many groups."],
    ),
    "xavier_uniform_": doc(
        "xavier_uniform_(tensor, gain=1.0, generator=None) -> Tensor",
        "Glorot uniform: U(-a, a) with :math:`a = gain \\sqrt{6 / (fan\\_in + fan\\_out)}`.",
        [_T, "gain (float): scaling factor.", _GEN],
    ),
    "xavier_normal_": doc(
        "xavier_normal_(tensor, gain=1.0, generator=None) -> Tensor",
        "Glorot normal: N(0, std^2) with :math:`std = gain \\sqrt{2 / (fan\\_in + fan\\_out)}`.",
        [_T, "gain (float): scaling factor.", _GEN],
    ),
    "kaiming_uniform_": doc(
        "kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None) -> Tensor",
        "He uniform: U(-b, b) with :math:`b = gain \\sqrt{3 / fan}`.",
        [_T, *_FAN],
    ),
    "kaiming_normal_": doc(
        "kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None) -> Tensor",
        "He normal: N(0, std^2) with :math:`std = gain / \\sqrt{fan}`.",
        [_T, *_FAN],
    ),
    "sparse_": doc(
        "sparse_(tensor, sparsity, std=0.01, generator=None) -> Tensor",
        "Fills a 2-D tensor so that a fraction ``sparsity`` of each column is zero and the rest is N(0, std^2).",
        [
            _T,
            "sparsity (float): fraction of zeros per column.",
            "std (float): standard deviation of the non-zeros.",
            _GEN,
        ],
    ),
}
