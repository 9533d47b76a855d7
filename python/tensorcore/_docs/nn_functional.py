"""Docstrings of tensorcore.nn.functional (attached at import by tensorcore._docs)."""

from ._style import doc

TARGET = "tensorcore.nn.functional"

_IN = "input (Tensor): the input."
_INPLACE = "inplace (bool): write the result into ``input``."
_RED = (
    "reduction (str): ``'none'`` (one loss per element), ``'mean'`` (the default) or ``'sum'``.",
    "size_average, reduce: deprecated forms of ``reduction``, kept for torch compatibility.",
)
_RED_ONLY = (
    "reduction (str): ``'none'`` (one loss per element), ``'mean'`` (the default) or ``'sum'``.",
)
_X = ">>> x = tc.tensor([-1.0, 0.0, 2.0])\n"


def _act(name, params, text, args=(), example=""):
    return doc(f"{name}({', '.join(params)}) -> Tensor", text, (_IN,) + tuple(args), (), example)


def _conv(n, transposed=False):
    spatial = {1: "(N, C_in, L)", 2: "(N, C_in, H, W)", 3: "(N, C_in, D, H, W)"}[n]
    if transposed:
        wshape = "(C_in, C_out / groups" + ", k" * n + ")"
        params = [
            "input",
            "weight",
            "bias=None",
            "stride=1",
            "padding=0",
            "output_padding=0",
            "groups=1",
            "dilation=1",
        ]
        text = (
            f"{n}-D transposed convolution (the gradient of conv{n}d with respect to its input, "
            "sometimes called deconvolution) over an input of shape " + spatial + "."
        )
        extra = [
            "output_padding (int or tuple): extra size added to one side of each output dimension."
        ]
    else:
        wshape = "(C_out, C_in / groups" + ", k" * n + ")"
        params = ["input", "weight", "bias=None", "stride=1", "padding=0", "dilation=1", "groups=1"]
        text = (
            f"{n}-D convolution (cross-correlation, as in torch) over an input of shape {spatial}. "
            "``padding`` may also be ``'valid'`` (none) or ``'same'`` (output size = input size, stride 1)."
        )
        extra = []
    args = [
        f"input (Tensor): input of shape {spatial}, or without the batch dimension.",
        f"weight (Tensor): filters of shape {wshape}.",
        "bias (Tensor, optional): shape (C_out,).",
        "stride (int or tuple): step of the kernel.",
        "padding (int, tuple or str): implicit zero padding on both sides.",
        *extra,
        "dilation (int or tuple): spacing between kernel elements.",
        "groups (int): split input and output channels into this many independent groups.",
    ]
    example = ""
    if n == 2 and not transposed:
        example = (
            ">>> x = tc.ones(1, 1, 4, 4)\n>>> w = tc.ones(1, 1, 3, 3)\n"
            ">>> F.conv2d(x, w, padding=1)[0, 0]\ntensor([[4., 6., 6., 4.],\n        [6., 9., 9., 6.],\n"
            "        [6., 9., 9., 6.],\n        [4., 6., 6., 4.]])"
        )
    return doc(
        f"conv{'_transpose' if transposed else ''}{n}d({', '.join(params)}) -> Tensor",
        text,
        args,
        (),
        example,
    )


def _pool(kind, n):
    shape = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[n]
    if kind == "max":
        params = [
            "input",
            "kernel_size",
            "stride=None",
            "padding=0",
            "dilation=1",
            "ceil_mode=False",
            "return_indices=False",
        ]
        text = f"{n}-D max pooling over an input of shape {shape} (or without the batch dimension)."
        extra = [
            "dilation (int or tuple): spacing between window elements.",
            "ceil_mode (bool): round the output size up instead of down.",
            "return_indices (bool): also return the argmax positions (for max_unpool).",
        ]
    else:
        params = [
            "input",
            "kernel_size",
            "stride=None",
            "padding=0",
            "ceil_mode=False",
            "count_include_pad=True",
        ]
        if n > 1:
            params.append("divisor_override=None")
        text = f"{n}-D average pooling over an input of shape {shape} (or without the batch dimension)."
        extra = [
            "ceil_mode (bool): round the output size up instead of down.",
            "count_include_pad (bool): count the zero padding in the average.",
        ]
        if n > 1:
            extra.append(
                "divisor_override (int, optional): divide by this instead of the window size."
            )
    args = [
        _IN,
        "kernel_size (int or tuple): window size.",
        "stride (int or tuple, optional): window step (default: ``kernel_size``).",
        "padding (int or tuple): implicit padding (-inf for max, 0 for average).",
    ] + extra
    example = ""
    if kind == "max" and n == 2:
        example = ">>> x = tc.arange(16.0).reshape(1, 1, 4, 4)\n>>> F.max_pool2d(x, 2)\ntensor([[[[ 5.,  7.],\n          [13., 15.]]]])"
    return doc(f"{kind}_pool{n}d({', '.join(params)}) -> Tensor", text, args, (), example)


def _adaptive(kind, n):
    shape = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[n]
    params = ["input", "output_size"] + (["return_indices=False"] if kind == "max" else [])
    args = [_IN, "output_size (int or tuple): the target size (None keeps an input dimension)."]
    if kind == "max":
        args.append("return_indices (bool): also return the argmax positions.")
    text = (
        f"{n}-D adaptive {kind} pooling: windows are chosen so that an input of shape {shape} "
        "becomes ``output_size``, whatever the input size."
    )
    example = (
        ">>> F.adaptive_avg_pool2d(tc.ones(1, 3, 7, 5), 1).shape\ntensorcore.Size([1, 3, 1, 1])"
        if (kind, n) == ("avg", 2)
        else ""
    )
    return doc(f"adaptive_{kind}_pool{n}d({', '.join(params)}) -> Tensor", text, args, (), example)


def _loss(name, params, text, args, red=_RED, example=""):
    return doc(f"{name}({', '.join(params)}) -> Tensor", text, list(args) + list(red), (), example)


_OLD_RED = ["size_average=None", "reduce=None", "reduction='mean'"]

DOCS = {
    "relu": _act(
        "relu",
        ["input", "inplace=False"],
        "Rectified linear unit, :math:`\\max(0, x)`, element-wise.",
        [_INPLACE],
        _X + ">>> F.relu(x)\ntensor([0., 0., 2.])",
    ),
    "relu_": _act("relu_", ["input"], "In-place :func:`relu`."),
    "relu6": _act(
        "relu6",
        ["input", "inplace=False"],
        ":math:`\\min(\\max(0, x), 6)`, element-wise.",
        [_INPLACE],
    ),
    "elu": _act(
        "elu",
        ["input", "alpha=1.0", "inplace=False"],
        "Exponential linear unit: :math:`x` for :math:`x > 0`, :math:`\\alpha (e^{x} - 1)` otherwise.",
        ["alpha (float): the saturation value for negative inputs.", _INPLACE],
    ),
    "elu_": _act(
        "elu_",
        ["input", "alpha=1.0"],
        "In-place :func:`elu`.",
        ["alpha (float): the saturation value."],
    ),
    "selu": _act(
        "selu",
        ["input", "inplace=False"],
        "Scaled ELU with the self-normalizing constants (alpha ~ 1.6733, scale ~ 1.0507).",
        [_INPLACE],
    ),
    "selu_": _act("selu_", ["input"], "In-place :func:`selu`."),
    "celu": _act(
        "celu",
        ["input", "alpha=1.0", "inplace=False"],
        ":math:`\\max(0, x) + \\min(0, \\alpha (e^{x/\\alpha} - 1))`, element-wise.",
        ["alpha (float): the scale of the negative part.", _INPLACE],
    ),
    "celu_": _act(
        "celu_",
        ["input", "alpha=1.0"],
        "In-place :func:`celu`.",
        ["alpha (float): the scale of the negative part."],
    ),
    "gelu": _act(
        "gelu",
        ["input", "approximate='none'"],
        "Gaussian error linear unit :math:`x \\Phi(x)`; ``approximate='tanh'`` uses the tanh approximation.",
        ["approximate (str): ``'none'`` or ``'tanh'``."],
    ),
    "silu": _act(
        "silu",
        ["input", "inplace=False"],
        "Sigmoid linear unit (swish), :math:`x \\sigma(x)`.",
        [_INPLACE],
    ),
    "mish": _act(
        "mish",
        ["input", "inplace=False"],
        "Mish, :math:`x \\tanh(\\mathrm{softplus}(x))`.",
        [_INPLACE],
    ),
    "leaky_relu": _act(
        "leaky_relu",
        ["input", "negative_slope=0.01", "inplace=False"],
        ":math:`x` for :math:`x \\ge 0`, ``negative_slope * x`` otherwise.",
        ["negative_slope (float): slope for negative inputs.", _INPLACE],
        _X + ">>> F.leaky_relu(x, 0.1)\ntensor([-0.1000,  0.0000,  2.0000])",
    ),
    "leaky_relu_": _act(
        "leaky_relu_",
        ["input", "negative_slope=0.01"],
        "In-place :func:`leaky_relu`.",
        ["negative_slope (float): slope for negative inputs."],
    ),
    "hardtanh": _act(
        "hardtanh",
        ["input", "min_val=-1.0", "max_val=1.0", "inplace=False"],
        "Clamps to ``[min_val, max_val]``.",
        ["min_val (float): lower bound.", "max_val (float): upper bound.", _INPLACE],
    ),
    "hardtanh_": _act(
        "hardtanh_",
        ["input", "min_val=-1.0", "max_val=1.0"],
        "In-place :func:`hardtanh`.",
        ["min_val (float): lower bound.", "max_val (float): upper bound."],
    ),
    "hardswish": _act(
        "hardswish",
        ["input", "inplace=False"],
        ":math:`x \\cdot \\mathrm{relu6}(x + 3) / 6` (MobileNetV3).",
        [_INPLACE],
    ),
    "hardsigmoid": _act(
        "hardsigmoid",
        ["input", "inplace=False"],
        ":math:`\\mathrm{relu6}(x + 3) / 6`, a piecewise-linear sigmoid.",
        [_INPLACE],
    ),
    "softplus": _act(
        "softplus",
        ["input", "beta=1.0", "threshold=20.0"],
        ":math:`\\frac{1}{\\beta} \\log(1 + e^{\\beta x})`; linear where :math:`\\beta x` exceeds ``threshold``.",
        ["beta (float): sharpness.", "threshold (float): switch to the identity above this."],
    ),
    "softsign": _act("softsign", ["input"], ":math:`x / (1 + |x|)`, element-wise."),
    "softshrink": _act(
        "softshrink",
        ["input", "lambd=0.5"],
        "Soft thresholding: shrinks values toward 0 by ``lambd`` (0 inside ``[-lambd, lambd]``).",
        ["lambd (float): the threshold."],
    ),
    "hardshrink": _act(
        "hardshrink",
        ["input", "lambd=0.5"],
        "Hard thresholding: 0 inside ``[-lambd, lambd]``, the input elsewhere.",
        ["lambd (float): the threshold."],
    ),
    "tanhshrink": _act("tanhshrink", ["input"], ":math:`x - \\tanh(x)`, element-wise."),
    "logsigmoid": _act(
        "logsigmoid",
        ["input"],
        ":math:`\\log \\sigma(x)`, computed stably for large negative inputs.",
    ),
    "sigmoid": _act(
        "sigmoid", ["input"], "Logistic sigmoid, :math:`1 / (1 + e^{-x})`, element-wise."
    ),
    "tanh": _act("tanh", ["input"], "Hyperbolic tangent, element-wise."),
    "glu": _act(
        "glu",
        ["input", "dim=-1"],
        "Gated linear unit: splits ``input`` in two halves ``a``, ``b`` along ``dim`` and returns :math:`a \\sigma(b)`.",
        ["dim (int): the dimension to split (even length)."],
    ),
    "threshold": _act(
        "threshold",
        ["input", "threshold", "value", "inplace=False"],
        "Replaces elements not greater than ``threshold`` with ``value``.",
        ["threshold (float): the threshold.", "value (float): the replacement.", _INPLACE],
    ),
    "threshold_": _act(
        "threshold_",
        ["input", "threshold", "value"],
        "In-place :func:`threshold`.",
        ["threshold (float): the threshold.", "value (float): the replacement."],
    ),
    "prelu": _act(
        "prelu",
        ["input", "weight"],
        "Parametric ReLU: :math:`\\max(0, x) + w \\min(0, x)` with one learnable slope per channel (dim 1) or one shared.",
        ["weight (Tensor): the slopes, 1 or C values."],
    ),
    "rrelu": _act(
        "rrelu",
        ["input", "lower=1/8", "upper=1/3", "training=False", "inplace=False"],
        "Randomized leaky ReLU: in training the negative slope is drawn uniformly from ``[lower, upper]`` per element; in evaluation it is their mean.",
        [
            "lower (float): lowest slope.",
            "upper (float): highest slope.",
            "training (bool): draw random slopes.",
            _INPLACE,
        ],
    ),
    "rrelu_": _act(
        "rrelu_",
        ["input", "lower=1/8", "upper=1/3", "training=False"],
        "In-place :func:`rrelu`.",
        [
            "lower (float): lowest slope.",
            "upper (float): highest slope.",
            "training (bool): draw random slopes.",
        ],
    ),
    "softmax": _act(
        "softmax",
        ["input", "dim=None", "dtype=None"],
        "Softmax along ``dim``: :math:`e^{x_i} / \\sum_j e^{x_j}`, so each slice sums to 1 (computed stably).",
        [
            "dim (int): the dimension that sums to 1.",
            "dtype (tensorcore.dtype, optional): cast the input to this dtype first.",
        ],
        ">>> F.softmax(tc.tensor([1.0, 1.0, 2.0]), dim=0)\ntensor([0.2119, 0.2119, 0.5761])",
    ),
    "log_softmax": _act(
        "log_softmax",
        ["input", "dim=None", "dtype=None"],
        "Logarithm of :func:`softmax` along ``dim``, computed directly (stable; pair it with :func:`nll_loss`).",
        [
            "dim (int): the dimension.",
            "dtype (tensorcore.dtype, optional): cast the input to this dtype first.",
        ],
    ),
    "softmin": _act(
        "softmin",
        ["input", "dim=None", "dtype=None"],
        "Softmax of ``-input`` along ``dim``.",
        ["dim (int): the dimension.", "dtype (tensorcore.dtype, optional): cast the input first."],
    ),
    "gumbel_softmax": doc(
        "gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1) -> Tensor",
        "Samples from the Gumbel-softmax (concrete) distribution: softmax of ``(logits + gumbel noise) / tau``. "
        "With ``hard=True`` the result is one-hot, with the soft sample's gradient (straight-through).",
        [
            "logits (Tensor): unnormalized log-probabilities.",
            "tau (float): temperature.",
            "hard (bool): return one-hot samples.",
            "eps (float): unused, kept for torch compatibility.",
            "dim (int): the category dimension.",
        ],
    ),
    "dropout": _act(
        "dropout",
        ["input", "p=0.5", "training=True", "inplace=False"],
        "In training, zeroes each element with probability ``p`` and scales the others by ``1 / (1 - p)``; the identity otherwise.",
        ["p (float): drop probability.", "training (bool): apply dropout.", _INPLACE],
    ),
    "alpha_dropout": _act(
        "alpha_dropout",
        ["input", "p=0.5", "training=False", "inplace=False"],
        "Dropout for SELU networks: dropped elements take SELU's negative saturation value and the result is rescaled to keep mean and variance.",
        ["p (float): drop probability.", "training (bool): apply dropout.", _INPLACE],
    ),
    "feature_alpha_dropout": _act(
        "feature_alpha_dropout",
        ["input", "p=0.5", "training=False", "inplace=False"],
        "Alpha dropout of whole channels (dim 1) instead of elements.",
        ["p (float): drop probability.", "training (bool): apply dropout.", _INPLACE],
    ),
    "dropout1d": _act(
        "dropout1d",
        ["input", "p=0.5", "training=True", "inplace=False"],
        "Zeroes whole channels of an (N, C, L) or (C, L) input with probability ``p`` and scales the others by ``1 / (1 - p)``.",
        ["p (float): drop probability.", "training (bool): apply dropout.", _INPLACE],
    ),
    "dropout2d": _act(
        "dropout2d",
        ["input", "p=0.5", "training=True", "inplace=False"],
        "Zeroes whole channels of an (N, C, H, W) input. As torch 1.13, a 3-D input is taken as "
        "(N, C, L) and other ranks drop along dims 0 and 1, with a deprecation warning.",
        ["p (float): drop probability.", "training (bool): apply dropout.", _INPLACE],
    ),
    "dropout3d": _act(
        "dropout3d",
        ["input", "p=0.5", "training=True", "inplace=False"],
        "Zeroes whole channels of an (N, C, D, H, W) or (C, D, H, W) input (other ranks warn, as torch 1.13).",
        ["p (float): drop probability.", "training (bool): apply dropout.", _INPLACE],
    ),
    "interpolate": doc(
        "interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None, antialias=False) -> Tensor",
        "Resamples the spatial dimensions of a 3-D, 4-D or 5-D input to ``size``, or by "
        "``scale_factor`` (output size floor(in * scale)), as torch 1.13.",
        [
            "input (Tensor): shape (N, C) followed by 1 to 3 spatial dimensions.",
            "size (int or tuple, optional): the output spatial size.",
            "scale_factor (float or tuple, optional): multiplier of the spatial size.",
            "mode (str): ``'nearest'``, ``'nearest-exact'``, ``'linear'``, ``'bilinear'``, ``'bicubic'``, ``'trilinear'`` or ``'area'``.",
            "align_corners (bool, optional): linear modes only; map corner pixel centres onto each other.",
            "recompute_scale_factor (bool, optional): derive the coordinate mapping from the output size.",
            "antialias (bool): anti-aliased bilinear/bicubic downsampling (4-D input).",
        ],
    ),
    "batch_norm": doc(
        "batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05) -> Tensor",
        "Batch normalization over dim 1 (channels): normalizes with the batch statistics in training "
        "(and updates the running ones in place by ``momentum``), with the running statistics otherwise.",
        [
            "input (Tensor): shape (N, C, ...).",
            "running_mean (Tensor, optional): shape (C,).",
            "running_var (Tensor, optional): shape (C,).",
            "weight (Tensor, optional): scale, shape (C,).",
            "bias (Tensor, optional): shift, shape (C,).",
            "training (bool): use batch statistics.",
            "momentum (float): update rate of the running statistics.",
            "eps (float): added to the variance.",
        ],
    ),
    "layer_norm": doc(
        "layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05) -> Tensor",
        "Normalizes over the trailing dimensions ``normalized_shape`` to zero mean and unit variance, then applies the element-wise affine ``weight``/``bias``.",
        [
            _IN,
            "normalized_shape (int or tuple): the trailing shape to normalize over.",
            "weight (Tensor, optional): scale of that shape.",
            "bias (Tensor, optional): shift of that shape.",
            "eps (float): added to the variance.",
        ],
        (),
        ">>> y = F.layer_norm(tc.tensor([[1.0, 2.0, 3.0]]), (3,))\n>>> y\ntensor([[-1.2247,  0.0000,  1.2247]])",
    ),
    "group_norm": doc(
        "group_norm(input, num_groups, weight=None, bias=None, eps=1e-05) -> Tensor",
        "Splits the channels (dim 1) into ``num_groups`` groups and normalizes each group of each sample, then applies the per-channel affine.",
        [
            "input (Tensor): shape (N, C, ...).",
            "num_groups (int): divides C.",
            "weight (Tensor, optional): shape (C,).",
            "bias (Tensor, optional): shape (C,).",
            "eps (float): added to the variance.",
        ],
    ),
    "instance_norm": doc(
        "instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.1, eps=1e-05) -> Tensor",
        "Normalizes each channel of each sample over its spatial dimensions.",
        [
            "input (Tensor): shape (N, C, ...).",
            "running_mean (Tensor, optional): shape (C,).",
            "running_var (Tensor, optional): shape (C,).",
            "weight (Tensor, optional): shape (C,).",
            "bias (Tensor, optional): shape (C,).",
            "use_input_stats (bool): normalize with the input's statistics (else the running ones).",
            "momentum (float): update rate of the running statistics.",
            "eps (float): added to the variance.",
        ],
    ),
    "local_response_norm": doc(
        "local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0) -> Tensor",
        "Normalizes each element by the sum of squares over ``size`` neighbouring channels (AlexNet's LRN).",
        [
            "input (Tensor): shape (N, C, ...).",
            "size (int): number of channels in the window.",
            "alpha (float): scale.",
            "beta (float): exponent.",
            "k (float): additive constant.",
        ],
    ),
    "normalize": doc(
        "normalize(input, p=2.0, dim=1, eps=1e-12, out=None) -> Tensor",
        "Divides ``input`` by its ``p``-norm along ``dim`` (at least ``eps``), so each slice has unit norm.",
        [
            _IN,
            "p (float): the norm.",
            "dim (int): the dimension.",
            "eps (float): lower bound of the divisor.",
            "out (Tensor, optional): the output tensor.",
        ],
        (),
        ">>> F.normalize(tc.tensor([[3.0, 4.0]]))\ntensor([[0.6000, 0.8000]])",
    ),
    "embedding": doc(
        "embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False) -> Tensor",
        "Looks up rows of ``weight`` by the indices in ``input``; the result has shape ``input.shape + (embedding_dim,)``.",
        [
            "input (LongTensor): indices.",
            "weight (Tensor): the table, shape (num_embeddings, embedding_dim).",
            "padding_idx (int, optional): this row gets no gradient.",
            "max_norm (float, optional): rows looked up are renormalized in place to at most this norm.",
            "norm_type (float): the norm for ``max_norm``.",
            "scale_grad_by_freq (bool): scale gradients by the inverse frequency in the batch.",
            "sparse (bool): accepted for compatibility; the gradient is dense.",
        ],
        (),
        ">>> w = tc.tensor([[0.0, 0.0], [1.0, 2.0]])\n>>> F.embedding(tc.tensor([1, 0, 1]), w)\ntensor([[1., 2.],\n        [0., 0.],\n        [1., 2.]])",
    ),
    "embedding_bag": doc(
        "embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None) -> Tensor",
        "Sums, averages or takes the max of bags of embeddings without materializing them: bags are the rows of a 2-D ``input``, or the segments of a 1-D ``input`` starting at ``offsets``.",
        [
            "input (LongTensor): indices, 1-D with ``offsets`` or 2-D.",
            "weight (Tensor): the table.",
            "offsets (LongTensor, optional): start of each bag.",
            "max_norm (float, optional): renormalize looked-up rows.",
            "norm_type (float): the norm for ``max_norm``.",
            "scale_grad_by_freq (bool): scale gradients by inverse frequency.",
            "mode (str): ``'sum'``, ``'mean'`` or ``'max'``.",
            "sparse (bool): accepted for compatibility.",
            "per_sample_weights (Tensor, optional): weights for ``'sum'``.",
            "include_last_offset (bool): ``offsets`` has one extra end entry.",
            "padding_idx (int, optional): entries with this index are skipped.",
        ],
    ),
    "one_hot": doc(
        "one_hot(tensor, num_classes=-1) -> LongTensor",
        "One-hot encoding: a trailing dimension of ``num_classes`` (default: max + 1) with a 1 at each index.",
        ["tensor (LongTensor): class indices.", "num_classes (int): number of classes."],
        (),
        ">>> F.one_hot(tc.tensor([0, 2]), 3)\ntensor([[1, 0, 0],\n        [0, 0, 1]])",
    ),
    "pixel_shuffle": doc(
        "pixel_shuffle(input, upscale_factor) -> Tensor",
        "Rearranges (N, C*r*r, H, W) into (N, C, H*r, W*r) (sub-pixel convolution).",
        [_IN, "upscale_factor (int): r."],
    ),
    "pixel_unshuffle": doc(
        "pixel_unshuffle(input, downscale_factor) -> Tensor",
        "Inverse of :func:`pixel_shuffle`: (N, C, H*r, W*r) to (N, C*r*r, H, W).",
        [_IN, "downscale_factor (int): r."],
    ),
    "channel_shuffle": doc(
        "channel_shuffle(input, groups) -> Tensor",
        "Interleaves the channels of ``groups`` groups (ShuffleNet): (N, g*c, ...) viewed as (N, g, c, ...) is transposed to (N, c, g, ...).",
        [_IN, "groups (int): number of groups."],
    ),
    "native_channel_shuffle": doc(
        "native_channel_shuffle(input, groups) -> Tensor",
        "Same as :func:`channel_shuffle` (torch's name of the native kernel).",
        [_IN, "groups (int): number of groups."],
    ),
    "cosine_similarity": doc(
        "cosine_similarity(x1, x2, dim=1, eps=1e-08) -> Tensor",
        "Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (they broadcast); the norms are clamped below by ``eps``.",
        [
            "x1 (Tensor): first input.",
            "x2 (Tensor): second input.",
            "dim (int): the vector dimension.",
            "eps (float): lower bound of the norms.",
        ],
        (),
        ">>> F.cosine_similarity(tc.tensor([[1.0, 0.0]]), tc.tensor([[1.0, 1.0]]))\ntensor([0.7071])",
    ),
    "pairwise_distance": doc(
        "pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False) -> Tensor",
        "The p-norm distance between the rows of ``x1`` and ``x2`` (``eps`` is added to the difference).",
        [
            "x1 (Tensor): shape (N, D) or (D,).",
            "x2 (Tensor): same shape as ``x1`` (broadcasts).",
            "p (float): the norm.",
            "eps (float): added to the difference.",
            "keepdim (bool): keep the vector dimension.",
        ],
    ),
    "pdist": doc(
        "pdist(input, p=2) -> Tensor",
        "The p-norm distances between all pairs of rows of an (N, M) input: the upper triangle of the distance matrix, N*(N-1)/2 values.",
        ["input (Tensor): shape (N, M).", "p (float): the norm."],
    ),
    "identity": doc(
        "identity(input) -> Tensor",
        "Returns ``input`` unchanged (the function form of :class:`tensorcore.nn.Identity`).",
        [_IN],
    ),
    "grid_sample": doc(
        "grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None) -> Tensor",
        "Samples ``input`` at the normalized coordinates of ``grid`` (in [-1, 1]; x then y), e.g. for spatial transformers.",
        [
            "input (Tensor): shape (N, C, H, W) or (N, C, D, H, W).",
            "grid (Tensor): shape (N, H_out, W_out, 2) or (N, D_out, H_out, W_out, 3).",
            "mode (str): ``'bilinear'``, ``'nearest'`` or ``'bicubic'``.",
            "padding_mode (str): ``'zeros'``, ``'border'`` or ``'reflection'``.",
            "align_corners (bool, optional): whether -1 and 1 are the centers (True) or outer edges (False, the default) of the corner pixels.",
        ],
    ),
    "affine_grid": doc(
        "affine_grid(theta, size, align_corners=None) -> Tensor",
        "The sampling grid for :func:`grid_sample` of the affine transforms ``theta``.",
        [
            "theta (Tensor): shape (N, 2, 3) or (N, 3, 4).",
            "size (tuple): the output size (N, C, H, W) or (N, C, D, H, W).",
            "align_corners (bool, optional): as in :func:`grid_sample`.",
        ],
    ),
    "fold": doc(
        "fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor",
        "Combines sliding local blocks (N, C*prod(kernel_size), L) into an (N, C, H, W) tensor, summing overlaps (the inverse layout of :func:`unfold`).",
        [
            _IN,
            "output_size (int or tuple): (H, W).",
            "kernel_size (int or tuple): block size.",
            "dilation (int or tuple): block element spacing.",
            "padding (int or tuple): implicit zero padding.",
            "stride (int or tuple): block step.",
        ],
    ),
    "unfold": doc(
        "unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor",
        "Extracts sliding local blocks of an (N, C, H, W) input as columns: (N, C*prod(kernel_size), L) (im2col).",
        [
            _IN,
            "kernel_size (int or tuple): block size.",
            "dilation (int or tuple): block element spacing.",
            "padding (int or tuple): implicit zero padding.",
            "stride (int or tuple): block step.",
        ],
    ),
    "upsample_bilinear": doc(
        "upsample_bilinear(input, size=None, scale_factor=None) -> Tensor",
        "Deprecated form of ``interpolate(..., mode='bilinear', align_corners=True)``.",
        [
            _IN,
            "size (int or tuple, optional): output size.",
            "scale_factor (float or tuple, optional): multiplier of the size.",
        ],
    ),
    "upsample_nearest": doc(
        "upsample_nearest(input, size=None, scale_factor=None) -> Tensor",
        "Deprecated form of ``interpolate(..., mode='nearest')``.",
        [
            _IN,
            "size (int or tuple, optional): output size.",
            "scale_factor (float or tuple, optional): multiplier of the size.",
        ],
    ),
    "lp_pool1d": doc(
        "lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor",
        "1-D power-average pooling: :math:`(\\sum x^p)^{1/p}` over each window.",
        [
            _IN,
            "norm_type (float): p.",
            "kernel_size (int): window size.",
            "stride (int, optional): window step.",
            "ceil_mode (bool): round the output size up.",
        ],
    ),
    "lp_pool2d": doc(
        "lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor",
        "2-D power-average pooling: :math:`(\\sum x^p)^{1/p}` over each window.",
        [
            _IN,
            "norm_type (float): p.",
            "kernel_size (int or tuple): window size.",
            "stride (int or tuple, optional): window step.",
            "ceil_mode (bool): round the output size up.",
        ],
    ),
    # losses
    "mse_loss": _loss(
        "mse_loss",
        ["input", "target"] + _OLD_RED,
        "Mean squared error :math:`(x - y)^2`, element-wise, then reduced. Shapes that differ broadcast with a warning.",
        ["input (Tensor): predictions.", "target (Tensor): targets."],
        example=">>> F.mse_loss(tc.tensor([1.0, 2.0]), tc.tensor([1.0, 4.0]))\ntensor(2.)",
    ),
    "l1_loss": _loss(
        "l1_loss",
        ["input", "target"] + _OLD_RED,
        "Mean absolute error :math:`|x - y|`, element-wise, then reduced.",
        ["input (Tensor): predictions.", "target (Tensor): targets."],
        example=">>> F.l1_loss(tc.tensor([1.0, 2.0]), tc.tensor([1.0, 4.0]))\ntensor(1.)",
    ),
    "smooth_l1_loss": _loss(
        "smooth_l1_loss",
        ["input", "target"] + _OLD_RED + ["beta=1.0"],
        "Quadratic below ``beta`` (:math:`0.5 d^2 / \\beta`) and linear above (:math:`|d| - 0.5 \\beta`), for the difference :math:`d = x - y`.",
        [
            "input (Tensor): predictions.",
            "target (Tensor): targets.",
            "beta (float): the switch point.",
        ],
    ),
    "huber_loss": _loss(
        "huber_loss",
        ["input", "target", "reduction='mean'", "delta=1.0"],
        "Huber loss: :math:`0.5 d^2` below ``delta`` and :math:`\\delta (|d| - 0.5 \\delta)` above, for :math:`d = x - y`.",
        [
            "input (Tensor): predictions.",
            "target (Tensor): targets.",
            "delta (float): the switch point.",
        ],
        _RED_ONLY,
    ),
    "nll_loss": _loss(
        "nll_loss",
        [
            "input",
            "target",
            "weight=None",
            "size_average=None",
            "ignore_index=-100",
            "reduce=None",
            "reduction='mean'",
        ],
        "Negative log-likelihood: ``-input[n, target[n]]`` per sample, from log-probabilities (e.g. :func:`log_softmax`). "
        "The mean is weighted by the class weights of the targets.",
        [
            "input (Tensor): log-probabilities, shape (N, C) or (N, C, d1, ...).",
            "target (LongTensor): class indices, shape (N) or (N, d1, ...).",
            "weight (Tensor, optional): per-class weights, shape (C,).",
            "ignore_index (int): targets with this value add nothing.",
        ],
    ),
    "cross_entropy": _loss(
        "cross_entropy",
        [
            "input",
            "target",
            "weight=None",
            "size_average=None",
            "ignore_index=-100",
            "reduce=None",
            "reduction='mean'",
            "label_smoothing=0.0",
        ],
        "Cross entropy of logits: :func:`log_softmax` over the class dim (dim 1, or 0 for an "
        "unbatched input) followed by :func:`nll_loss` for class-index targets, or by "
        "``-sum_c w_c target_c log p_c`` for class-probability targets of the input's shape. "
        "Float32/float64 CPU inputs with index targets run one fused kernel.",
        [
            "input (Tensor): logits, shape (C), (N, C) or (N, C, d1, ...).",
            "target (Tensor): class indices (integer dtype), shape () / (N) / (N, d1, ...), or "
            "class probabilities of the input's shape.",
            "weight (Tensor, optional): per-class weights, shape (C,).",
            "ignore_index (int): index targets with this value add nothing (nor to the mean's "
            "denominator).",
            "label_smoothing (float): in [0, 1]; the target becomes ``(1 - s) * target + s / C``.",
        ],
        example=">>> F.cross_entropy(tc.tensor([[0.0, 0.0]]), tc.tensor([1]))\ntensor(0.6931)",
    ),
    "binary_cross_entropy": _loss(
        "binary_cross_entropy",
        ["input", "target", "weight=None"] + _OLD_RED,
        ":math:`-(y \\log x + (1 - y) \\log(1 - x))` between probabilities ``input`` and targets in [0, 1] (logs are clamped at -100).",
        [
            "input (Tensor): probabilities.",
            "target (Tensor): targets, same shape.",
            "weight (Tensor, optional): rescales each element's loss.",
        ],
    ),
    "binary_cross_entropy_with_logits": _loss(
        "binary_cross_entropy_with_logits",
        ["input", "target", "weight=None"] + _OLD_RED + ["pos_weight=None"],
        "Sigmoid followed by binary cross entropy, computed stably from logits.",
        [
            "input (Tensor): logits.",
            "target (Tensor): targets in [0, 1].",
            "weight (Tensor, optional): rescales each element's loss.",
            "pos_weight (Tensor, optional): weight of the positive term per class.",
        ],
        example=">>> F.binary_cross_entropy_with_logits(tc.tensor([0.0]), tc.tensor([1.0]))\ntensor(0.6931)",
    ),
    "kl_div": _loss(
        "kl_div",
        ["input", "target"] + _OLD_RED + ["log_target=False"],
        "Kullback-Leibler divergence :math:`y (\\log y - x)` with ``input`` as log-probabilities. Use ``reduction='batchmean'`` for the mathematical KL divergence (sum over all, divided by the batch size).",
        [
            "input (Tensor): log-probabilities.",
            "target (Tensor): probabilities (log-probabilities with ``log_target``).",
            "log_target (bool): ``target`` is given in log space.",
        ],
    ),
    "ctc_loss": _loss(
        "ctc_loss",
        [
            "log_probs",
            "targets",
            "input_lengths",
            "target_lengths",
            "blank=0",
            "reduction='mean'",
            "zero_infinity=False",
        ],
        "Connectionist temporal classification loss, summing over all alignments of the targets to the input frames. "
        "``'mean'`` divides each sequence's loss by its target length, then averages.",
        [
            "log_probs (Tensor): shape (T, N, C), log-softmax output.",
            "targets (Tensor): shape (N, S) padded, or the concatenated targets.",
            "input_lengths (tuple or Tensor): frames per sequence.",
            "target_lengths (tuple or Tensor): target length per sequence.",
            "blank (int): the blank label.",
            "zero_infinity (bool): replace infinite losses (impossible alignments) and their gradients with 0.",
        ],
        _RED_ONLY,
    ),
    "poisson_nll_loss": _loss(
        "poisson_nll_loss",
        [
            "input",
            "target",
            "log_input=True",
            "full=False",
            "size_average=None",
            "eps=1e-08",
            "reduce=None",
            "reduction='mean'",
        ],
        "Negative log-likelihood of a Poisson target: :math:`e^{x} - y x` with ``log_input``, else :math:`x - y \\log(x + eps)`.",
        [
            "input (Tensor): the predicted rate (or its log).",
            "target (Tensor): counts.",
            "log_input (bool): ``input`` is the log-rate.",
            "full (bool): add the Stirling term.",
            "eps (float): avoids log(0).",
        ],
    ),
    "gaussian_nll_loss": _loss(
        "gaussian_nll_loss",
        ["input", "target", "var", "full=False", "eps=1e-06", "reduction='mean'"],
        "Negative log-likelihood of a Gaussian with predicted mean ``input`` and variance ``var``: :math:`0.5 (\\log var + (x - y)^2 / var)`.",
        [
            "input (Tensor): predicted means.",
            "target (Tensor): samples.",
            "var (Tensor): predicted variances (clamped below by ``eps``).",
            "full (bool): add the constant term.",
            "eps (float): lower bound of ``var``.",
        ],
        _RED_ONLY,
    ),
    "cosine_embedding_loss": _loss(
        "cosine_embedding_loss",
        ["input1", "input2", "target", "margin=0.0"] + _OLD_RED,
        "For target 1: :math:`1 - \\cos(x_1, x_2)`; for target -1: :math:`\\max(0, \\cos(x_1, x_2) - margin)`.",
        [
            "input1 (Tensor): first embeddings.",
            "input2 (Tensor): second embeddings.",
            "target (Tensor): 1 or -1 per pair.",
            "margin (float): the margin.",
        ],
    ),
    "hinge_embedding_loss": _loss(
        "hinge_embedding_loss",
        ["input", "target", "margin=1.0"] + _OLD_RED,
        ":math:`x` where the target is 1 and :math:`\\max(0, margin - x)` where it is -1 (``input`` usually a distance).",
        ["input (Tensor): distances.", "target (Tensor): 1 or -1.", "margin (float): the margin."],
    ),
    "margin_ranking_loss": _loss(
        "margin_ranking_loss",
        ["input1", "input2", "target", "margin=0.0"] + _OLD_RED,
        ":math:`\\max(0, -y (x_1 - x_2) + margin)`: ``input1`` should rank higher where the target is 1.",
        [
            "input1 (Tensor): first scores.",
            "input2 (Tensor): second scores.",
            "target (Tensor): 1 or -1.",
            "margin (float): the margin.",
        ],
    ),
    "multi_margin_loss": _loss(
        "multi_margin_loss",
        ["input", "target", "p=1", "margin=1.0", "weight=None"] + _OLD_RED,
        "Multi-class hinge loss: :math:`\\sum_{i \\ne y} \\max(0, margin - x_y + x_i)^p / C`.",
        [
            "input (Tensor): scores (N, C).",
            "target (LongTensor): classes (N).",
            "p (int): 1 or 2.",
            "margin (float): the margin.",
            "weight (Tensor, optional): per-class weights.",
        ],
    ),
    "multilabel_margin_loss": _loss(
        "multilabel_margin_loss",
        ["input", "target"] + _OLD_RED,
        "Multi-label hinge loss; ``target`` lists the positive classes of each sample, ended by -1.",
        [
            "input (Tensor): scores (N, C).",
            "target (LongTensor): (N, C) class indices padded with -1.",
        ],
    ),
    "multilabel_soft_margin_loss": _loss(
        "multilabel_soft_margin_loss",
        ["input", "target", "weight=None"] + _OLD_RED,
        "Multi-label one-versus-all logistic loss, averaged over the classes.",
        [
            "input (Tensor): logits (N, C).",
            "target (Tensor): 0/1 labels (N, C).",
            "weight (Tensor, optional): per-class weights.",
        ],
    ),
    "soft_margin_loss": _loss(
        "soft_margin_loss",
        ["input", "target"] + _OLD_RED,
        "Two-class logistic loss :math:`\\log(1 + e^{-y x})` with targets 1 or -1.",
        ["input (Tensor): scores.", "target (Tensor): 1 or -1."],
    ),
    "triplet_margin_loss": _loss(
        "triplet_margin_loss",
        ["anchor", "positive", "negative", "margin=1.0", "p=2", "eps=1e-06", "swap=False"]
        + _OLD_RED,
        ":math:`\\max(d(a, p) - d(a, n) + margin, 0)` with the p-norm distance ``d``.",
        [
            "anchor (Tensor): anchors (N, D).",
            "positive (Tensor): positives.",
            "negative (Tensor): negatives.",
            "margin (float): the margin.",
            "p (float): the norm.",
            "eps (float): added to differences.",
            "swap (bool): use the positive-negative distance when smaller (distance swap).",
        ],
    ),
    "triplet_margin_with_distance_loss": doc(
        "triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction='mean') -> Tensor",
        "Triplet margin loss with a custom distance function (default: :func:`pairwise_distance`).",
        [
            "anchor (Tensor): anchors.",
            "positive (Tensor): positives.",
            "negative (Tensor): negatives.",
        ],
        [
            "distance_function (callable, optional): d(x1, x2) -> Tensor.",
            "margin (float): the margin.",
            "swap (bool): distance swap.",
            _RED_ONLY[0],
        ],
    ),
}

for _n in (1, 2, 3):
    DOCS[f"conv{_n}d"] = _conv(_n)
    DOCS[f"conv_transpose{_n}d"] = _conv(_n, transposed=True)
    DOCS[f"max_pool{_n}d"] = _pool("max", _n)
    DOCS[f"avg_pool{_n}d"] = _pool("avg", _n)
    DOCS[f"adaptive_avg_pool{_n}d"] = _adaptive("avg", _n)
    DOCS[f"adaptive_max_pool{_n}d"] = _adaptive("max", _n)
    DOCS[f"max_pool{_n}d_with_indices"] = doc(
        f"max_pool{_n}d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False) -> (Tensor, LongTensor)",
        f":func:`max_pool{_n}d` returning ``(output, indices)``; the indices feed :func:`max_unpool{_n}d`.",
        [
            _IN,
            "kernel_size (int or tuple): window size.",
            "stride (int or tuple, optional): window step.",
            "padding (int or tuple): implicit -inf padding.",
            "dilation (int or tuple): window element spacing.",
            "ceil_mode (bool): round the output size up.",
        ],
    )
    DOCS[f"max_unpool{_n}d"] = doc(
        f"max_unpool{_n}d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor",
        f"Partial inverse of :func:`max_pool{_n}d`: puts each value back at its argmax position, zeros elsewhere.",
        [
            _IN,
            "indices (LongTensor): from ``max_pool(..., return_indices=True)``.",
            "kernel_size (int or tuple): the pooling window.",
            "stride (int or tuple, optional): the pooling step.",
            "padding (int or tuple): the pooling padding.",
            "output_size (tuple, optional): the exact output size when ambiguous.",
        ],
    )

_W = (
    "w_ih (Tensor): input-hidden weights.",
    "w_hh (Tensor): hidden-hidden weights.",
    "b_ih (Tensor, optional): input-hidden bias.",
    "b_hh (Tensor, optional): hidden-hidden bias.",
)
_STEP = "One time step of {what} (the kernel behind :class:`tensorcore.nn.{cls}`; a tensorcore extension)."
_LAYER = "A whole layer of {what} over a sequence (L, N, H_in), one direction; returns the outputs and final state (a tensorcore extension used by :class:`tensorcore.nn.{cls}`)."
_PACKED = "Same as ``{base}`` over a packed sequence given by ``data`` and ``batch_sizes``."
DOCS.update(
    {
        "rnn_tanh_cell": doc(
            "rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor",
            _STEP.format(what="a tanh RNN", cls="RNNCell"),
            ["input (Tensor): (N, H_in).", "hx (Tensor): (N, H)."] + list(_W),
        ),
        "rnn_relu_cell": doc(
            "rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor",
            _STEP.format(what="a ReLU RNN", cls="RNNCell"),
            ["input (Tensor): (N, H_in).", "hx (Tensor): (N, H)."] + list(_W),
        ),
        "gru_cell": doc(
            "gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor",
            _STEP.format(what="a GRU", cls="GRUCell"),
            ["input (Tensor): (N, H_in).", "hx (Tensor): (N, H)."] + list(_W),
        ),
        "lstm_cell": doc(
            "lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> (Tensor, Tensor)",
            _STEP.format(what="an LSTM", cls="LSTMCell"),
            ["input (Tensor): (N, H_in).", "hx (tuple): (h, c), each (N, H)."] + list(_W),
        ),
        "rnn_layer": doc(
            "rnn_layer(input, h0, w_ih, w_hh, b_ih=None, b_hh=None, nonlinearity='tanh', reverse=False) -> (Tensor, Tensor)",
            _LAYER.format(what="an Elman RNN", cls="RNN"),
            ["input (Tensor): (L, N, H_in).", "h0 (Tensor): (N, H)."]
            + list(_W)
            + [
                "nonlinearity (str): ``'tanh'`` or ``'relu'``.",
                "reverse (bool): run backward in time.",
            ],
        ),
        "gru_layer": doc(
            "gru_layer(input, h0, w_ih, w_hh, b_ih=None, b_hh=None, reverse=False) -> (Tensor, Tensor)",
            _LAYER.format(what="a GRU", cls="GRU"),
            ["input (Tensor): (L, N, H_in).", "h0 (Tensor): (N, H)."]
            + list(_W)
            + ["reverse (bool): run backward in time."],
        ),
        "lstm_layer": doc(
            "lstm_layer(input, h0, c0, w_ih, w_hh, b_ih=None, b_hh=None, reverse=False, w_hr=None) -> (Tensor, Tensor, Tensor)",
            _LAYER.format(what="an LSTM", cls="LSTM"),
            ["input (Tensor): (L, N, H_in).", "h0 (Tensor): (N, H).", "c0 (Tensor): (N, H)."]
            + list(_W)
            + [
                "reverse (bool): run backward in time.",
                "w_hr (Tensor, optional): projection weights (LSTMP).",
            ],
        ),
        "rnn_layer_packed": doc(
            "rnn_layer_packed(data, batch_sizes, h0, w_ih, w_hh, b_ih=None, b_hh=None, nonlinearity='tanh', reverse=False) -> (Tensor, Tensor)",
            _PACKED.format(base="rnn_layer"),
            [
                "data (Tensor): packed inputs.",
                "batch_sizes (Tensor): batch size per time step.",
                "h0 (Tensor): initial state.",
            ]
            + list(_W)
            + [
                "nonlinearity (str): ``'tanh'`` or ``'relu'``.",
                "reverse (bool): run backward in time.",
            ],
        ),
        "gru_layer_packed": doc(
            "gru_layer_packed(data, batch_sizes, h0, w_ih, w_hh, b_ih=None, b_hh=None, reverse=False) -> (Tensor, Tensor)",
            _PACKED.format(base="gru_layer"),
            [
                "data (Tensor): packed inputs.",
                "batch_sizes (Tensor): batch size per time step.",
                "h0 (Tensor): initial state.",
            ]
            + list(_W)
            + ["reverse (bool): run backward in time."],
        ),
        "lstm_layer_packed": doc(
            "lstm_layer_packed(data, batch_sizes, h0, c0, w_ih, w_hh, b_ih=None, b_hh=None, reverse=False, w_hr=None) -> (Tensor, Tensor, Tensor)",
            _PACKED.format(base="lstm_layer"),
            [
                "data (Tensor): packed inputs.",
                "batch_sizes (Tensor): batch size per time step.",
                "h0 (Tensor): initial hidden state.",
                "c0 (Tensor): initial cell state.",
            ]
            + list(_W)
            + [
                "reverse (bool): run backward in time.",
                "w_hr (Tensor, optional): projection weights.",
            ],
        ),
    }
)
