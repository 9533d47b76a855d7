"""BatchNorm, InstanceNorm, GroupNorm, LayerNorm, LocalResponseNorm over the native kernels."""

from ... import _C
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from .linear import _optional_parameter
from .module import Module


def _affine_parameters(module, affine, *shape, device=None, dtype=None):
    """weight and bias of an affine normalization (set by reset_parameters), or both None."""
    for name in ("weight", "bias"):
        _optional_parameter(module, name, affine, *shape, device=device, dtype=dtype)


def _reset_affine(module, affine):
    if affine:
        init.ones_(module.weight)
        init.zeros_(module.bias)


class _NormBase(Module):
    _expected_dims = (2, 3, 4)

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        # The rule and its message are C++'s (tensorcore/nn/modules/rules.h).
        _C._nn_modules.check_norm_options(type(self).__name__, num_features)
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine_parameters(self, affine, num_features, device=device, dtype=dtype)
        if track_running_stats:
            dt = dtype if dtype is not None else _C.get_default_dtype()
            self.register_buffer("running_mean", _C.zeros(num_features, dtype=dt))
            self.register_buffer("running_var", _C.ones(num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", _C.zeros((), dtype=_C.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self, self.affine)

    def _check_input_dim(self, input):
        if input.dim() not in self._expected_dims:
            dims = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(
                f"{type(self).__name__}: expected {dims} input (got {input.dim()}D input of shape "
                f"{tuple(input.shape)})"
            )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        # Checkpoints from before num_batches_tracked existed load with a zero counter.
        key = prefix + "num_batches_tracked"
        if self.track_running_stats and key not in state_dict:
            state_dict[key] = _C.zeros((), dtype=_C.int64)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def extra_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"track_running_stats={self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        if input.shape[1] != self.num_features:
            raise ValueError(
                f"{type(self).__name__}: expected input with {self.num_features} channels, got "
                f"{input.shape[1]} (input shape {tuple(input.shape)})"
            )
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or self.running_mean is None
        return F.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight,
            self.bias,
            use_batch_stats,
            momentum,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    _expected_dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch norm over the batch of every process of `process_group` (the default group when
    None). In training with more than one process the statistics are all-reduced; in eval mode,
    or when tensorcore.distributed is not initialized, it is BatchNorm."""

    _expected_dims = (2, 3, 4, 5)

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        process_group=None,
        device=None,
        dtype=None,
    ):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def forward(self, input):
        from ... import distributed as dist

        if input.dim() < 2:
            raise ValueError(
                f"SyncBatchNorm: expected at least 2D input (got {input.dim()}D input)"
            )
        group_size = 1
        if self.training and dist.is_initialized():
            group_size = dist.get_world_size(self.process_group)
        if group_size <= 1:
            return super().forward(input)
        if input.shape[1] != self.num_features:
            raise ValueError(
                f"SyncBatchNorm: expected input with {self.num_features} channels, got "
                f"{input.shape[1]} (input shape {tuple(input.shape)})"
            )
        from ._sync_batch_norm import SyncBatchNormFunction

        momentum = 0.0 if self.momentum is None else self.momentum
        running_mean = running_var = None
        if self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked.item())
            running_mean, running_var = self.running_mean, self.running_var
        return SyncBatchNormFunction.apply(
            input, self.weight, self.bias, running_mean, running_var, self.eps, momentum,
            self.process_group,
        )  # fmt: skip

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            ref = module.weight if module.weight is not None else module.running_mean
            out = SyncBatchNorm(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                dtype=ref.dtype if ref is not None else None,
            )
            out.load_state_dict(module.state_dict())
            out.train(module.training)
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class _InstanceNorm(_NormBase):
    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=False,
        track_running_stats=False,
        device=None,
        dtype=None,
    ):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        self._check_input_dim(input)
        batched = input.dim() == self._expected_dims[-1]
        x = input if batched else input.unsqueeze(0)
        out = F.instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum,
            self.eps,
        )
        return out if batched else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    _expected_dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    _expected_dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    _expected_dims = (4, 5)


class LayerNorm(Module):
    def __init__(
        self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None
    ):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        _affine_parameters(
            self, elementwise_affine, *self.normalized_shape, device=device, dtype=dtype
        )
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self, self.elementwise_affine)

    def forward(self, input):
        n = len(self.normalized_shape)
        if tuple(input.shape[-n:]) != self.normalized_shape:
            raise ValueError(
                f"LayerNorm: expected input with trailing shape {self.normalized_shape}, got "
                f"{tuple(input.shape)}"
            )
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        _C._nn_modules.check_group_norm_options(num_groups, num_channels)
        self.num_groups, self.num_channels, self.eps, self.affine = (
            num_groups,
            num_channels,
            eps,
            affine,
        )
        _affine_parameters(self, affine, num_channels, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self, self.affine)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        _C._nn_modules.check_local_response_norm_options(type(self).__name__, size)
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """Local response normalization across channels of (N, C, H, W) input, the legacy (Lua
    torch) form: x * (k + alpha / size * sum of squares over a window of channels)^-beta, with
    torch's window (it starts at channel 0 for the first (size + 1) // 2 channels and always keeps
    channel 0's square once the window slides past it, as torch 1.13 computes it)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(
                f"CrossMapLRN2d: expected a 4-D input (N, C, H, W), got {input.dim()}-D"
            )
        channels = input.shape[1]
        squares = input * input
        running = squares.cumsum(1)
        pre_pad = int((self.size - 1) / 2 + 1)
        c = _C.arange(channels, device=input.device)
        upper = (c + pre_pad - 1).clamp(max=channels - 1)
        slid = c > pre_pad  # torch's sliding window drops channels 1 .. c - pre_pad only
        lower = (c - pre_pad).clamp(min=0)
        window = running.index_select(1, upper)
        dropped = running.index_select(1, lower) - running[:, :1]
        window = window - dropped * slid.to(input.dtype).reshape(1, -1, 1, 1)
        scale = window * (self.alpha / self.size) + self.k
        return input * scale.pow(-self.beta)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
