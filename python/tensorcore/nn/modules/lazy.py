"""Lazy modules (torch 1.8): parameters whose shape is inferred from the first input.

An UninitializedParameter is materialized in place (same Python object, so references held by
optimizers or user code stay valid) on the first forward, or from a loaded state dict; the module
then turns into its regular class (LazyLinear -> Linear).
"""

from ... import _C
from ..parameter import Parameter, UninitializedParameter
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .module import Module
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)

_set_data = _C._nn_py.set_data


def _materialize(param, shape, dtype=None):
    _set_data(param, _C.empty(tuple(shape), dtype=dtype if dtype is not None else param.dtype))
    param.__class__ = Parameter


class LazyModuleMixin:
    cls_to_become = None

    def _lazy_init(self):
        self._lazy_hook = self.register_forward_pre_hook(_LazyMixinHook())

    # Buffers whose size waits for the first input (the norms' running statistics): empty until
    # materialized, listed by name.
    _lazy_buffers = ()

    def has_uninitialized_params(self):
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values()) or any(
            self._buffers.get(name) is not None and self._buffers[name].numel() == 0
            for name in self._lazy_buffers
        )

    def initialize_parameters(self, *args):
        raise NotImplementedError

    def _finish(self):
        self._lazy_hook.remove()
        self.reset_parameters()
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

    def _load_from_state_dict(self, state_dict, prefix, *rest):
        # rest: local_metadata, strict, missing_keys, unexpected_keys, error_msgs (passed on).
        for name, param in self._parameters.items():
            key = prefix + name
            if isinstance(param, UninitializedParameter) and key in state_dict:
                _materialize(param, state_dict[key].shape)
        for name in self._lazy_buffers:
            key, buf = prefix + name, self._buffers.get(name)
            if buf is not None and buf.numel() == 0 and key in state_dict:
                self._buffers[name] = _C.zeros(tuple(state_dict[key].shape), dtype=buf.dtype)
        if not self.has_uninitialized_params() and hasattr(self, "_lazy_hook"):
            self._lazy_hook.remove()
            self._set_sizes_from_parameters()
            if self.cls_to_become is not None:
                self.__class__ = self.cls_to_become
        Module._load_from_state_dict(self, state_dict, prefix, *rest)


class _LazyMixinHook:
    def __call__(self, module, args):
        module.initialize_parameters(*args)
        module._finish()


class LazyLinear(LazyModuleMixin, Linear):
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self.weight = UninitializedParameter()
        if bias:
            self.bias = UninitializedParameter()
        else:
            self.register_parameter("bias", None)
        self._dtype = dtype if dtype is not None else _C.get_default_dtype()
        self._lazy_init()

    def reset_parameters(self):
        if not self.has_uninitialized_params():
            Linear.reset_parameters(self)

    def initialize_parameters(self, input):
        self.in_features = input.shape[-1]
        _materialize(self.weight, (self.out_features, self.in_features), self._dtype)
        if self.bias is not None:
            _materialize(self.bias, (self.out_features,), self._dtype)

    def _set_sizes_from_parameters(self):
        self.in_features = self.weight.shape[1]


class _LazyConvNd(LazyModuleMixin):
    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        # Build as a 1-input-channel-per-group conv, then replace the parameters by lazy ones.
        self.cls_to_become.__init__(
            self,
            groups,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )
        self._become_lazy(bias, dtype)

    def _become_lazy(self, bias, dtype):
        """Replaces the parameters built for one input channel per group by lazy ones."""
        self.in_channels = 0
        self.weight = UninitializedParameter()
        if bias:
            self.bias = UninitializedParameter()
        self._dtype = dtype if dtype is not None else _C.get_default_dtype()
        self._lazy_init()

    def reset_parameters(self):
        if not self.has_uninitialized_params():
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input):
        self.in_channels = input.shape[1] if input.dim() == self._dims + 2 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError(
                f"{type(self).__name__}: in_channels ({self.in_channels}) must be divisible by groups "
                f"({self.groups})"
            )
        _materialize(self.weight, self._weight_shape(), self._dtype)
        if self.bias is not None:
            _materialize(self.bias, (self.out_channels,), self._dtype)

    def _weight_shape(self):
        return (self.out_channels, self.in_channels // self.groups) + self.kernel_size

    def _set_sizes_from_parameters(self):
        self.in_channels = self.weight.shape[1] * self.groups


class LazyConv1d(_LazyConvNd, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd, Conv3d):
    cls_to_become = Conv3d


class _LazyConvTransposeNd(_LazyConvNd):
    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        self.cls_to_become.__init__(
            self,
            groups,
            out_channels,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            bias,
            dilation,
            padding_mode,
            device,
            dtype,
        )
        self._become_lazy(bias, dtype)

    def _weight_shape(self):
        # Transposed convolutions store (in, out / groups, kernel...).
        return (self.in_channels, self.out_channels // self.groups) + self.kernel_size

    def _set_sizes_from_parameters(self):
        self.in_channels = self.weight.shape[0]


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    cls_to_become = ConvTranspose3d


class _LazyNormBase(LazyModuleMixin):
    """num_features from the first input's channel dimension (dim 1, or 0 when unbatched)."""

    _lazy_buffers = ("running_mean", "running_var")
    _affine_default = True
    _takes_unbatched = False

    def __init__(
        self,
        eps=1e-5,
        momentum=0.1,
        affine=None,
        track_running_stats=None,
        device=None,
        dtype=None,
    ):
        affine = self._affine_default if affine is None else affine
        track = self._affine_default if track_running_stats is None else track_running_stats
        self.cls_to_become.__init__(self, 0, eps, momentum, affine, track, device, dtype)
        if affine:
            self.weight = UninitializedParameter()
            self.bias = UninitializedParameter()
        self._dtype = dtype if dtype is not None else _C.get_default_dtype()
        self._lazy_init()

    def reset_parameters(self):
        if not self.has_uninitialized_params():
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input):
        # Batch norms always see (N, C, ...); instance norms also take unbatched (C, ...).
        unbatched = self._takes_unbatched and input.dim() < self.cls_to_become._expected_dims[-1]
        self.num_features = input.shape[0] if unbatched else input.shape[1]
        if self.affine:
            _materialize(self.weight, (self.num_features,), self._dtype)
            _materialize(self.bias, (self.num_features,), self._dtype)
        if self.track_running_stats:
            self._buffers["running_mean"] = _C.zeros(self.num_features, dtype=self._dtype)
            self._buffers["running_var"] = _C.ones(self.num_features, dtype=self._dtype)

    def _set_sizes_from_parameters(self):
        source = self.weight if self.affine else self._buffers.get("running_mean")
        self.num_features = source.shape[0] if source is not None else self.num_features


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    cls_to_become = InstanceNorm1d
    _affine_default = False
    _takes_unbatched = True


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    cls_to_become = InstanceNorm2d
    _affine_default = False
    _takes_unbatched = True


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    cls_to_become = InstanceNorm3d
    _affine_default = False
    _takes_unbatched = True
