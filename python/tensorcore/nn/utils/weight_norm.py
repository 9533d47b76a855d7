"""weight_norm / remove_weight_norm: w = g * v / ||v|| recomputed before every forward."""

from ... import _C
from ..parameter import Parameter


def _norm_except_dim(v, dim):
    if dim is None or dim == -1 and v.dim() == 0:
        return _C.norm(v.reshape(-1), 2)
    dim = dim % v.dim()
    dims = tuple(d for d in range(v.dim()) if d != dim)
    return _C.sqrt((v * v).sum(dims, keepdim=True))


class WeightNorm:
    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim if dim != -1 else None)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(
            name + "_g", Parameter(_norm_except_dim(weight, fn.dim).detach().clone())
        )
        module.register_parameter(name + "_v", Parameter(weight.detach().clone()))
        object.__setattr__(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module).detach()
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        module.register_parameter(self.name, Parameter(weight))

    def __call__(self, module, inputs):
        object.__setattr__(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    WeightNorm.apply(module, name, dim)
    return module


def _remove_reparametrization(module, name, hook_type, what):
    """Undoes weight_norm/spectral_norm (`what`): finds the forward pre-hook of type `hook_type`
    for parameter `name`, restores the plain parameter and drops the hook."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, hook_type) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")


def remove_weight_norm(module, name="weight"):
    return _remove_reparametrization(module, name, WeightNorm, "weight_norm")
