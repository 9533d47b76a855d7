"""Structured dropout of torchvision.ops: stochastic depth (drop whole residual branches) and
DropBlock (drop contiguous square/cubic regions of feature maps)."""

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.nn import Module


def _check_p(op, p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{op}: drop probability has to be between 0 and 1, but got {p}")


def stochastic_depth(input, p, mode, training=True):
    """Randomly zeroes the residual branch `input` (Huang et al. 2016) and rescales the rest by
    1/(1-p). mode "row" draws one decision per sample (first dimension), "batch" one for the
    whole batch. Identity when not training or p == 0.

    Example::

        >>> x = tc.ones(4, 3)
        >>> tc.vision.ops.stochastic_depth(x, p=0.5, mode="row", training=False).equal(x)
        True
    """
    _check_p("stochastic_depth", p)
    if mode not in ("batch", "row"):
        raise ValueError(
            f"stochastic_depth: mode has to be either 'batch' or 'row', but got {mode}"
        )
    if not training or p == 0.0:
        return input
    survival_rate = 1.0 - p
    shape = [input.shape[0]] + [1] * (input.dim() - 1) if mode == "row" else [1] * input.dim()
    noise = tc.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


class StochasticDepth(Module):
    """Module form of stochastic_depth(input, p, mode, self.training)."""

    def __init__(self, p, mode):
        super().__init__()
        _check_p("StochasticDepth", p)
        if mode not in ("batch", "row"):
            raise ValueError(f"StochasticDepth: mode has to be 'batch' or 'row', but got {mode}")
        self.p, self.mode = p, mode

    def forward(self, input):
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self):
        return f"{type(self).__name__}(p={self.p}, mode={self.mode})"


def _drop_block(op, input, p, block_size, inplace, eps, training, spatial):
    _check_p(op, p)
    if input.dim() != spatial + 2:
        raise ValueError(
            f"{op}: input should be {spatial + 2} dimensional. Got {input.dim()} dimensions."
        )
    if block_size < 1:
        raise ValueError(f"{op}: block_size must be at least 1, got {block_size}")
    if not training or p == 0.0:
        return input
    sizes = list(input.shape[2:])
    block_size = min([block_size] + sizes)
    # gamma: the seed rate that makes the expected dropped fraction p once each seed grows into
    # a block (the paper's formula, over the positions where a whole block fits).
    valid = 1
    for s in sizes:
        valid *= s - block_size + 1
    total = 1
    for s in sizes:
        total *= s
    gamma = (p * total) / ((block_size**spatial) * valid)
    seed_shape = list(input.shape[:2]) + [s - block_size + 1 for s in sizes]
    noise = tc.empty(seed_shape, dtype=input.dtype, device=input.device).bernoulli_(gamma)
    noise = F.pad(noise, [block_size // 2] * (2 * spatial), value=0)
    pool = F.max_pool2d if spatial == 2 else F.max_pool3d
    noise = pool(noise, kernel_size=block_size, stride=1, padding=block_size // 2)
    keep = 1 - noise
    normalize_scale = keep.numel() / (eps + keep.sum())
    if inplace:
        return input.mul_(keep).mul_(normalize_scale)
    return input * keep * normalize_scale


def drop_block2d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """DropBlock (Ghiasi et al. 2018) on (N, C, H, W): zeroes block_size x block_size regions
    so that a fraction p of positions is dropped on average, and rescales the rest."""
    return _drop_block("drop_block2d", input, p, block_size, inplace, eps, training, 2)


def drop_block3d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """DropBlock on (N, C, D, H, W): zeroes cubes of side block_size (see drop_block2d)."""
    return _drop_block("drop_block3d", input, p, block_size, inplace, eps, training, 3)


class DropBlock2d(Module):
    """Module form of drop_block2d, active in training mode only."""

    _fn = staticmethod(drop_block2d)

    def __init__(self, p, block_size, inplace=False, eps=1e-06):
        super().__init__()
        _check_p(type(self).__name__, p)
        self.p, self.block_size, self.inplace, self.eps = p, block_size, inplace, eps

    def forward(self, input):
        return self._fn(input, self.p, self.block_size, self.inplace, self.eps, self.training)

    def __repr__(self):
        return (
            f"{type(self).__name__}(p={self.p}, block_size={self.block_size}, "
            f"inplace={self.inplace})"
        )


class DropBlock3d(DropBlock2d):
    """Module form of drop_block3d, active in training mode only."""

    _fn = staticmethod(drop_block3d)
