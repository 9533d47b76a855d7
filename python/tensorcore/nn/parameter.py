"""nn.Parameter and nn.Buffer-style tensors: Tensor subclasses that alias existing data."""

from .. import _C
from .._C import Tensor


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter when assigned as an attribute.

    Parameter(data) is a detached alias of `data` (same storage) that requires grad by default.
    The Python object survives round trips through C++ (`p.grad`, ops returning `p`), because the
    binding maps each TensorImpl to one Python object.
    """

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): expected a Tensor for data, got {type(data).__name__}")
        Tensor.__init__(self, data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        _, (array, dtype_name, _) = Tensor.__reduce_ex__(self.detach(), proto)
        return (_rebuild_parameter, (array, dtype_name, self.requires_grad))


def _rebuild_parameter(array, dtype_name, requires_grad):
    from .._tensor import _rebuild_tensor

    return Parameter(_rebuild_tensor(array, dtype_name, False), requires_grad)


class UninitializedParameter(Parameter):
    """Placeholder for lazily shaped parameters (not materialized until first use)."""

    def __init__(self, requires_grad=True):
        Parameter.__init__(self, _C.empty(0), requires_grad)


def is_parameter(obj):
    return isinstance(obj, Parameter)
