"""sigmoid_focal_loss and FrozenBatchNorm2d (torchvision.ops)."""

import tensorcore as tc

from .._module import Module


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0, reduction="none"):
    """Focal loss (Lin et al. 2017) on logits; reduction 'none' | 'mean' | 'sum'."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(
            f"sigmoid_focal_loss: invalid reduction {reduction!r}; expected 'none', 'mean' or 'sum'"
        )
    p = tc.sigmoid(inputs)
    # Numerically stable binary cross entropy with logits.
    ce = inputs.clamp(min=0) - inputs * targets + tc.log1p(tc.exp(-inputs.abs()))
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


class FrozenBatchNorm2d(Module):
    """BatchNorm2d with fixed statistics and affine parameters (buffers, not parameters)."""

    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.num_features, self.eps = num_features, eps
        self._set("weight", tc.ones(num_features))
        self._set("bias", tc.zeros(num_features))
        self._set("running_mean", tc.zeros(num_features))
        self._set("running_var", tc.ones(num_features))

    def _set(self, name, value):
        if hasattr(self, "register_buffer"):
            self.register_buffer(name, value)
        else:
            setattr(self, name, value)

    def forward(self, x):
        if x.dim() != 4 or x.shape[1] != self.num_features:
            raise ValueError(
                f"FrozenBatchNorm2d: expected input (N, {self.num_features}, H, W), "
                f"got {list(x.shape)}"
            )
        scale = self.weight * (self.running_var + self.eps).rsqrt()
        bias = self.bias - self.running_mean * scale
        return x * scale.reshape(1, -1, 1, 1) + bias.reshape(1, -1, 1, 1)

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}"
