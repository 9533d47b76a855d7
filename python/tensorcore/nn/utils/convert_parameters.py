"""parameters_to_vector / vector_to_parameters."""

from ... import _C
from ..._C import Tensor
from ...autograd.grad_mode import no_grad


def parameters_to_vector(parameters):
    return _C.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if vec.numel() != total:
        raise ValueError(
            f"vector_to_parameters: vector has {vec.numel()} elements but the parameters need {total}"
        )
    with no_grad():
        for p in params:
            n = p.numel()
            p.copy_(vec[offset : offset + n].reshape(tuple(p.shape)))
            offset += n
