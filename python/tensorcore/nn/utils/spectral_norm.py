"""spectral_norm / remove_spectral_norm: w = w_orig / sigma(w_orig), sigma by power iteration."""

from ... import _C
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from .weight_norm import _remove_reparametrization


def _normalize(v, eps):
    return v / _C.clamp(_C.norm(v, 2), min=eps)


class SpectralNorm:
    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations="
                f"{n_power_iterations}"
            )
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        mat = weight
        if self.dim != 0:
            perm = [self.dim] + [d for d in range(weight.dim()) if d != self.dim]
            mat = mat.permute(*perm)
        return mat.reshape(mat.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # Updated in place: the buffers carry the iteration across forwards.
                    v.copy_(_normalize(_C.mv(mat.t(), u), self.eps))
                    u.copy_(_normalize(_C.mv(mat, v), self.eps))
            u, v = u.clone(), v.clone()
        sigma = _C.dot(u, _C.mv(mat, v))
        return weight / sigma

    def __call__(self, module, inputs):
        object.__setattr__(module, self.name, self.compute_weight(module, module.training))

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, False).detach()
        delattr(module, self.name)
        del module._parameters[self.name + "_orig"]
        del module._buffers[self.name + "_u"]
        del module._buffers[self.name + "_v"]
        module.register_parameter(self.name, Parameter(weight))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            mat = fn.reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = _normalize(_C.randn(h, dtype=weight.dtype), eps)
            v = _normalize(_C.randn(w, dtype=weight.dtype), eps)
        del module._parameters[name]
        module.register_parameter(name + "_orig", Parameter(weight.detach()))
        object.__setattr__(module, name, weight.detach() * 1.0)
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    return _remove_reparametrization(module, name, SpectralNorm, "spectral_norm")
