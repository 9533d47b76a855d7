"""Parameter initialisation (torch.nn.init): fills tensors in place, without recording autograd.

The rules, formulas, random draws and error messages are tc::nn::init's (tensorcore/nn/init.h,
bound as tensorcore._C._nn_init); this module adds torch's Python warnings and returns the
caller's tensor object.
"""

import warnings

from .. import _C

_init = _C._nn_init


def calculate_gain(nonlinearity, param=None):
    return _init.calculate_gain(nonlinearity, param)


def _calculate_fan_in_and_fan_out(tensor):
    return _init.calculate_fan_in_and_fan_out(tensor)


def _calculate_correct_fan(tensor, mode):
    return _init.calculate_correct_fan(tensor, mode)


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    _init.uniform_(tensor, a, b, generator)
    return tensor


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    _init.normal_(tensor, mean, std, generator)
    return tensor


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) truncated to [a, b], by inverse-CDF sampling (as torch does)."""
    if _init.trunc_normal_mean_far(mean, std, a, b):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    _init.trunc_normal_(tensor, mean, std, a, b, generator)
    return tensor


def constant_(tensor, val):
    _init.constant_(tensor, val)
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def eye_(tensor):
    _init.eye_(tensor)
    return tensor


def dirac_(tensor, groups=1):
    _init.dirac_(tensor, groups)
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    _init.xavier_uniform_(tensor, gain, generator)
    return tensor


def xavier_normal_(tensor, gain=1.0, generator=None):
    _init.xavier_normal_(tensor, gain, generator)
    return tensor


def _warn_if_empty(tensor):
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if not _warn_if_empty(tensor):
        _init.kaiming_uniform_(tensor, a, mode, nonlinearity, generator)
    return tensor


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if not _warn_if_empty(tensor):
        _init.kaiming_normal_(tensor, a, mode, nonlinearity, generator)
    return tensor


def orthogonal_(tensor, gain=1, generator=None):
    """Fills with a (semi-)orthogonal matrix from the QR of a Gaussian matrix (sign-corrected)."""
    _init.orthogonal_(tensor, gain, generator)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    _init.sparse_(tensor, sparsity, std, generator)
    return tensor


# Deprecated non-underscore aliases kept by torch.
uniform = uniform_
normal = normal_
constant = constant_
xavier_uniform = xavier_uniform_
xavier_normal = xavier_normal_
kaiming_uniform = kaiming_uniform_
kaiming_normal = kaiming_normal_
orthogonal = orthogonal_
