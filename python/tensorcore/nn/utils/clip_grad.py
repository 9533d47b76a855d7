"""clip_grad_norm_ and clip_grad_value_, and the gradient zeroing of Module.zero_grad and
Optimizer.zero_grad."""

import math

from ... import _C
from ..._tensor import tensor as _tensor
from ..._C import Tensor
from ...autograd.grad_mode import no_grad


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _zero_grads(parameters, set_to_none):
    """Drops (set_to_none) or zeroes the gradients of `parameters`, as torch's zero_grad does."""
    for p in parameters:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            g = p.grad
            if g.grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            g.zero_()


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales all gradients together so their joint norm is at most max_norm; returns the norm."""
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if not grads:
        return _tensor(0.0)
    with no_grad():
        # Per-gradient norms are reduced on the gradients' device (the first gradient's when they
        # are spread over several); the total's single .item() is the step's only host sync.
        device = grads[0].device
        if norm_type == math.inf:
            norms = [g.detach().abs().amax().to(device) for g in grads]
            total = norms[0] if len(norms) == 1 else _C.stack(norms).amax()
        else:
            norms = _C.stack([_C.norm(g.detach().reshape(-1), norm_type).to(device) for g in grads])
            total = _C.norm(norms, norm_type)
        total_value = float(total.item())
        if error_if_nonfinite and not math.isfinite(total_value):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                "so it cannot be clipped. To disable this error and scale the gradients by the "
                "non-finite norm anyway, set `error_if_nonfinite=False`"
            )
        coef = max_norm / (total_value + 1e-6)
        if coef < 1.0:
            for g in grads:
                g.mul_(coef)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
