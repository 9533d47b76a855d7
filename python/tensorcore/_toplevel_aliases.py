"""torch 1.13's top-level forms of Tensor in-place methods (torch.abs_(x) is x.abs_()) and of
nn.functional ops (torch.conv2d, torch.softmax, ...), with torch's top-level signatures.
Installed by tensorcore/__init__.py; names the package already has are left alone."""


def _inplace_alias(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"torch.{name}(input, ...): the same as input.{name}(...)."
    return fn


_INPLACE = (
    "abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ "
    "atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ "
    "exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ index_put_ log10_ log1p_ log2_ log_ logit_ "
    "nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ sin_ sinc_ "
    "sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_ detach addmv_ ldexp_ gcd_ lcm_ get_device "
    "is_same_size i0_"
).split()

# Same positional order in torch.* and nn.functional.*.
_SAME_AS_F = (
    "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d avg_pool1d "
    "max_pool1d max_pool2d max_pool3d adaptive_avg_pool1d pixel_shuffle pixel_unshuffle "
    "channel_shuffle celu selu hardshrink prelu cosine_similarity pairwise_distance pdist bilinear "
    "dropout alpha_dropout feature_alpha_dropout threshold celu_ selu_ rrelu_ threshold_"
).split()


def install(namespace):
    from ._argcheck import harden
    from .nn import functional as F

    aliases = {name: _inplace_alias(name) for name in _INPLACE if name not in namespace}
    harden(aliases, "tensorcore")
    namespace.update(aliases)
    for name in _SAME_AS_F:
        if name not in namespace and hasattr(F, name):
            namespace[name] = getattr(F, name)

    def softmax(input, dim, dtype=None):
        return F.softmax(input, dim, dtype=dtype)

    def log_softmax(input, dim, dtype=None):
        return F.log_softmax(input, dim, dtype=dtype)

    def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
        return F.layer_norm(input, normalized_shape, weight, bias, eps)

    def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
        return F.group_norm(input, num_groups, weight, bias, eps)

    def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
        return F.rrelu(input, lower, upper, training)

    def adaptive_max_pool1d(input, output_size):
        return F.adaptive_max_pool1d(input, output_size, return_indices=True)

    def max_pool1d_with_indices(
        input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False
    ):
        return F.max_pool1d(
            input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True
        )

    wrapped = {
        fn.__name__: fn
        for fn in (
            softmax,
            log_softmax,
            layer_norm,
            group_norm,
            rrelu,
            adaptive_max_pool1d,
            max_pool1d_with_indices,
        )
        if fn.__name__ not in namespace
    }
    harden(wrapped, "tensorcore")
    namespace.update(wrapped)

    from . import _toplevel_nn

    _toplevel_nn.install(namespace)
