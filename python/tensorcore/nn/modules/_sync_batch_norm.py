"""The cross-process part of SyncBatchNorm: batch statistics (sum, sum of squares, count) are
all-reduced in forward, and the two sums the input gradient needs are all-reduced in backward,
so each process normalizes with the statistics of the whole global batch."""

from ... import _C
from ...autograd.function import Function


def _all_reduce(t, group):
    from ... import distributed as dist

    dist.all_reduce(t, group=group)
    return t


class SyncBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, group):
        channels = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        x = input.to(_C.float64)
        count = input.numel() // channels
        stats = _C.cat(
            [x.sum(dims), (x * x).sum(dims), _C.full((1,), float(count), dtype=_C.float64)]
        )
        _all_reduce(stats, group)
        total = stats[-1]
        mean = stats[:channels] / total
        var = (stats[channels : 2 * channels] / total - mean * mean).clamp(min=0)
        n = float(total.item())
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype) * momentum)
            unbiased = var * (n / max(n - 1, 1))
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
        shape = [1, channels] + [1] * (input.dim() - 2)
        invstd = (var + eps).rsqrt()
        xhat = ((x - mean.reshape(shape)) * invstd.reshape(shape)).to(input.dtype)
        out = xhat
        if weight is not None:
            out = out * weight.reshape(shape) + bias.reshape(shape)
        ctx.save_for_backward(xhat, invstd.to(input.dtype), weight)
        ctx.group, ctx.total, ctx.shape, ctx.dims = group, n, shape, dims
        return out

    @staticmethod
    def backward(ctx, grad_out):
        xhat, invstd, weight = ctx.saved_tensors
        shape, dims = ctx.shape, ctx.dims
        channels = xhat.shape[1]
        sum_dy = grad_out.sum(dims)
        sum_dy_xhat = (grad_out * xhat).sum(dims)
        # The weight and bias gradients stay local (DDP averages them); the input gradient needs
        # the sums over the global batch.
        grad_weight = sum_dy_xhat if weight is not None else None
        grad_bias = sum_dy if weight is not None else None
        both = _all_reduce(_C.cat([sum_dy, sum_dy_xhat]), ctx.group)
        mean_dy = (both[:channels] / ctx.total).reshape(shape)
        mean_dy_xhat = (both[channels:] / ctx.total).reshape(shape)
        scale = invstd.reshape(shape)
        if weight is not None:
            scale = scale * weight.reshape(shape)
        grad_input = scale * (grad_out - mean_dy - xhat * mean_dy_xhat)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None
