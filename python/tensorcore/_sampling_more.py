"""torch 1.13's remaining samplers: Tensor.cauchy_, geometric_, log_normal_ (transforms of the
uniform and normal fills, so they follow tc.manual_seed and run on every device) and
binomial / poisson. Installed by tensorcore/__init__.py."""

import math

import numpy as _np

from . import _C
from ._C import Tensor


def _check_float(self, op):
    if not self.is_floating_point():
        raise TypeError(f"{op}: expects a floating-point tensor, got {self.dtype}")


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fills self with samples of the Cauchy distribution (median, sigma), in place."""
    _check_float(self, "cauchy_")
    if not sigma > 0.0:
        raise ValueError(f"cauchy_: sigma must be positive, got {sigma}")
    # Inverse CDF: median + sigma * tan(pi * (u - 1/2)).
    self.uniform_(0.0, 1.0, generator=generator)
    return self.sub_(0.5).mul_(math.pi).tan_().mul_(sigma).add_(median)


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fills self with exp(N(mean, std)) samples, in place."""
    _check_float(self, "log_normal_")
    if not std > 0.0:
        raise ValueError(f"log_normal_: std must be positive, got {std}")
    return self.normal_(mean, std, generator=generator).exp_()


def _geometric_(self, p, *, generator=None):
    """Fills self with the number of Bernoulli(p) trials up to and including the first success
    (values 1, 2, ...), in place."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"geometric_: p must be in (0, 1), got {p}")
    u = _C.empty(list(self.shape), dtype=_C.float64, device=self.device)
    u.uniform_(0.0, 1.0, generator=generator)
    # Inverse CDF: ceil(log(1 - u) / log(1 - p)); 1 - u is in (0, 1].
    trials = (1.0 - u).log_().div_(math.log1p(-p)).ceil_().clamp_(min=1.0)
    return self.copy_(trials)


def _numpy_generator(generator):
    """A NumPy generator seeded from tensorcore's stream, so tc.manual_seed reproduces draws."""
    seed = _C.randint(0, 2**62, [2], dtype=_C.int64, generator=generator)
    return _np.random.default_rng([int(v) for v in seed.tolist()])


def binomial(count, prob, generator=None):
    """Samples Binomial(count, prob) elementwise (count and prob broadcast); floating result
    of prob's dtype, as torch."""
    if not isinstance(count, Tensor) or not isinstance(prob, Tensor):
        raise TypeError("binomial: count and prob must be Tensors")
    if not prob.is_floating_point():
        raise TypeError(f"binomial: prob must be a floating-point tensor, got {prob.dtype}")
    c = count.detach().cpu().double().numpy()
    p = prob.detach().cpu().double().numpy()
    if (c < 0).any() or (c != _np.floor(c)).any():
        raise ValueError("binomial: count must hold non-negative integers")
    if ((p < 0) | (p > 1) | _np.isnan(p)).any():
        raise ValueError("binomial: prob must be in [0, 1]")
    draws = _numpy_generator(generator).binomial(c.astype(_np.int64), p)
    return _C.from_numpy(_np.ascontiguousarray(draws)).to(dtype=prob.dtype, device=prob.device)


def poisson(input, generator=None):
    """Samples Poisson(rate) for each element of input (the rates), same dtype and device."""
    if not isinstance(input, Tensor):
        raise TypeError(f"poisson: input must be a Tensor, got {type(input).__name__}")
    if not input.is_floating_point():
        raise TypeError(f"poisson: input must be a floating-point tensor, got {input.dtype}")
    rates = input.detach().cpu().double().numpy()
    if ((rates < 0) | _np.isnan(rates)).any():
        raise ValueError("poisson: rates must be non-negative")
    draws = _numpy_generator(generator).poisson(rates)
    return _C.from_numpy(_np.ascontiguousarray(draws.astype(_np.float64))).to(
        dtype=input.dtype, device=input.device
    )


_FUNCTIONS = (binomial, poisson)
_METHODS = {"cauchy_": _cauchy_, "log_normal_": _log_normal_, "geometric_": _geometric_}
