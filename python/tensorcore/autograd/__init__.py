"""tensorcore.autograd: backward, grad, grad-mode switches."""

from .. import _C
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: F401

_ag = _C._autograd


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, _C.Tensor):
        return [x]
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors) or [None] * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    _ag.backward(tensors, grads, retain_graph, create_graph, _as_list(inputs))


def grad(
    outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False
):
    outputs = _as_list(outputs)
    inputs = _as_list(inputs)
    grad_outputs = _as_list(grad_outputs) or [None] * len(outputs)
    result = _ag.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
    return tuple(result)


from .function import Function, FunctionCtx, once_differentiable  # noqa: E402,F401
from .gradcheck import gradcheck, gradgradcheck, GradcheckError  # noqa: E402,F401
from . import functional  # noqa: E402,F401
from . import profiler  # noqa: E402,F401
