"""Docstrings of the tensorcore.nn module classes (attached at import by tensorcore._docs).

Class docstrings follow torch's: what the layer computes, its constructor arguments, the shapes
it takes and returns, its learnable attributes."""

TARGET = "tensorcore.nn"

_ANY = "Shape:\n    - Input: :math:`(*)`, any shape.\n    - Output: the input's shape."
_DEVICE = "device, dtype: where and in which dtype the parameters are created."
_RED = "reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.\n    size_average, reduce: deprecated forms of ``reduction``."


def _cls(text, args=(), shape="", example="", attrs=""):
    parts = [text.strip()]
    if args:
        parts.append("Args:\n" + "\n".join(f"    {a}" for a in args))
    if shape:
        parts.append(shape.strip())
    if attrs:
        parts.append("Attributes:\n" + "\n".join(f"    {a}" for a in attrs.strip().splitlines()))
    if example:
        parts.append(
            "Example:\n" + "\n".join("    " + line for line in example.strip().splitlines())
        )
    return "\n\n".join(parts)


def _activation(fn_name, text, args=(), example=""):
    return _cls(
        f"{text} Module form of :func:`tensorcore.nn.functional.{fn_name}`.", args, _ANY, example
    )


_INPLACE = "inplace (bool): modify the input in place."


def _conv(n, transposed=False):
    dims = {1: "(N, C_{in}, L)", 2: "(N, C_{in}, H, W)", 3: "(N, C_{in}, D, H, W)"}[n]
    out = (
        dims.replace("C_{in}", "C_{out}")
        .replace("L", "L_{out}")
        .replace("H", "H_{out}")
        .replace("W", "W_{out}")
        .replace("D,", "D_{out},")
    )
    kind = "transposed convolution" if transposed else "convolution"
    args = [
        "in_channels (int): channels of the input.",
        "out_channels (int): channels of the output.",
        "kernel_size (int or tuple): size of the kernel.",
        "stride (int or tuple): step of the kernel.",
        "padding (int, tuple or str): implicit padding (``'same'``/``'valid'`` allowed for convolutions).",
    ]
    if transposed:
        args.append("output_padding (int or tuple): extra size added to one side of the output.")
    args += [
        "dilation (int or tuple): spacing between kernel elements.",
        "groups (int): independent channel groups.",
        "bias (bool): add a learnable bias.",
        "padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``.",
        _DEVICE,
    ]
    fn = f"conv_transpose{n}d" if transposed else f"conv{n}d"
    example = ""
    if n == 2 and not transposed:
        example = ">>> conv = nn.Conv2d(3, 8, kernel_size=3, padding=1)\n>>> conv(tc.zeros(2, 3, 16, 16)).shape\ntensorcore.Size([2, 8, 16, 16])"
    return _cls(
        f"{n}-D {kind} layer (see :func:`tensorcore.nn.functional.{fn}`).",
        args,
        f"Shape:\n    - Input: :math:`{dims}` or without the batch dimension.\n    - Output: :math:`{out}`.",
        example,
        "weight (Parameter): the kernels, initialized uniformly (Kaiming, a = sqrt(5)).\n"
        "bias (Parameter or None): shape (out_channels,).",
    )


def _pool(kind, n):
    dims = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[n]
    args = [
        "kernel_size (int or tuple): window size.",
        "stride (int or tuple, optional): window step (default: ``kernel_size``).",
        "padding (int or tuple): implicit padding.",
    ]
    if kind == "max":
        args += [
            "dilation (int or tuple): window element spacing.",
            "return_indices (bool): also return the argmax positions.",
            "ceil_mode (bool): round the output size up.",
        ]
    else:
        args += [
            "ceil_mode (bool): round the output size up.",
            "count_include_pad (bool): count padding in the average.",
        ]
        if n > 1:
            args.append(
                "divisor_override (int, optional): divide by this instead of the window size."
            )
    return _cls(
        f"{n}-D {kind} pooling (see :func:`tensorcore.nn.functional.{kind}_pool{n}d`).",
        args,
        f"Shape:\n    - Input: :math:`{dims}` or without the batch dimension.\n    - Output: the same layout with pooled spatial sizes.",
    )


def _norm(kind, n):
    dims = {1: "(N, C) or (N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[n]
    if kind == "batch":
        text = (
            "Batch normalization over the channels (dim 1): in training, normalizes with the "
            "statistics of the batch and updates ``running_mean``/``running_var``; in eval mode "
            "uses the running statistics."
        )
        affine, track = "True", "True"
    else:
        text = "Instance normalization: each channel of each sample is normalized over its spatial dimensions."
        affine, track = "False", "False"
    return _cls(
        text,
        [
            "num_features (int): C, the number of channels.",
            "eps (float): added to the variance.",
            "momentum (float or None): update rate of the running statistics (None: cumulative average).",
            f"affine (bool): learn a per-channel scale and shift (default {affine}).",
            f"track_running_stats (bool): keep running statistics (default {track}).",
            _DEVICE,
        ],
        f"Shape:\n    - Input: :math:`{dims}`.\n    - Output: the input's shape.",
        ">>> bn = nn.BatchNorm2d(3)\n>>> bn(tc.randn(4, 3, 5, 5)).shape\ntensorcore.Size([4, 3, 5, 5])"
        if (kind, n) == ("batch", 2)
        else "",
    )


def _loss(fn_name, text, args=(), example=""):
    return _cls(
        f"{text} Module form of :func:`tensorcore.nn.functional.{fn_name}`.",
        list(args) + [_RED],
        "Shape:\n    - Input and target: the same shape (see the functional form).\n"
        "    - Output: a scalar, or the input's shape with ``reduction='none'``.",
        example,
    )


def _transformer_layer_args(seq):
    """The arguments both transformer layers take; seq names the sequence dim (S source, T target)."""
    return [
        "d_model (int): model width.",
        "nhead (int): attention heads.",
        "dim_feedforward (int): hidden width of the feed-forward network.",
        "dropout (float): dropout rate.",
        "activation (str or callable): ``'relu'`` or ``'gelu'``.",
        "layer_norm_eps (float): eps of the layer norms.",
        f"batch_first (bool): (N, {seq}, E) instead of ({seq}, N, E).",
        "norm_first (bool): layer norm before each block.",
        _DEVICE,
    ]


def _pad(kind, n):
    text = {
        "Constant": "Pads the last {n} dimension(s) with a constant ``value``.",
        "Zero": "Pads the last {n} dimension(s) with zeros.",
        "Reflection": "Pads the last {n} dimension(s) with the reflection of the input (the edge is not repeated).",
        "Replication": "Pads the last {n} dimension(s) by repeating the edge values.",
    }[kind].format(n=n)
    args = [
        f"padding (int or tuple): the same padding on every side, or {2 * n} values (left, right{', top, bottom' if n > 1 else ''}{', front, back' if n > 2 else ''})."
    ]
    if kind == "Constant":
        args.append("value (float): the fill value.")
    return _cls(
        text,
        args,
        "Shape:\n    - Input: :math:`(N, C, *)` or without the batch dimension.\n    - Output: padded along the last dimensions.",
    )


_RNN_ARGS = [
    "input_size (int): features of the input.",
    "hidden_size (int): features of the hidden state.",
    "num_layers (int): stacked layers.",
    "bias (bool): use bias weights.",
    "batch_first (bool): input and output are (N, L, H) instead of (L, N, H).",
    "dropout (float): dropout between layers (not after the last).",
    "bidirectional (bool): also run the sequence backward and concatenate.",
]

DOCS = {
    "Bilinear": _cls(
        "Bilinear transformation :math:`y = x_1^T A x_2 + b`.",
        [
            "in1_features (int): size of the first input.",
            "in2_features (int): size of the second input.",
            "out_features (int): size of the output.",
            "bias (bool): add a learnable bias.",
            _DEVICE,
        ],
        "Shape:\n    - Input: :math:`(*, H_{in1})` and :math:`(*, H_{in2})`.\n    - Output: :math:`(*, H_{out})`.",
    ),
    "Identity": _cls(
        "Returns its input unchanged; any constructor arguments are ignored (a placeholder layer).",
        shape=_ANY,
    ),
    "Flatten": _cls(
        "Flattens the dimensions ``start_dim..end_dim`` (by default all but the batch dimension).",
        [
            "start_dim (int): first dimension to flatten.",
            "end_dim (int): last dimension to flatten.",
        ],
        example=">>> nn.Flatten()(tc.zeros(2, 3, 4)).shape\ntensorcore.Size([2, 12])",
    ),
    "Unflatten": _cls(
        "Splits dimension ``dim`` into the shape ``unflattened_size``.",
        ["dim (int): the dimension to split.", "unflattened_size (tuple): its new shape."],
    ),
    "Embedding": _cls(
        "A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``, indexed by integer tensors.",
        [
            "num_embeddings (int): table rows.",
            "embedding_dim (int): vector size.",
            "padding_idx (int, optional): this row is zero-initialized and gets no gradient.",
            "max_norm (float, optional): renormalize looked-up rows to at most this norm.",
            "norm_type (float): the norm for ``max_norm``.",
            "scale_grad_by_freq (bool): scale gradients by inverse frequency.",
            "sparse (bool): accepted for compatibility; gradients are dense.",
            _DEVICE,
        ],
        "Shape:\n    - Input: :math:`(*)` integer indices.\n    - Output: :math:`(*, embedding\\_dim)`.",
        ">>> emb = nn.Embedding(10, 3)\n>>> emb(tc.tensor([[1, 2], [3, 4]])).shape\ntensorcore.Size([2, 2, 3])",
        "weight (Parameter): shape (num_embeddings, embedding_dim), initialized from N(0, 1).",
    ),
    "EmbeddingBag": _cls(
        "Sums, averages or max-reduces bags of embeddings (see :func:`tensorcore.nn.functional.embedding_bag`).",
        [
            "num_embeddings (int): table rows.",
            "embedding_dim (int): vector size.",
            "max_norm (float, optional): renormalize looked-up rows.",
            "norm_type (float): the norm for ``max_norm``.",
            "scale_grad_by_freq (bool): scale gradients by inverse frequency.",
            "mode (str): ``'sum'``, ``'mean'`` or ``'max'``.",
            "sparse (bool): accepted for compatibility.",
            "include_last_offset (bool): ``offsets`` has an extra end entry.",
            "padding_idx (int, optional): entries with this index are skipped.",
            _DEVICE,
        ],
    ),
    "LayerNorm": _cls(
        "Layer normalization over the trailing ``normalized_shape`` dimensions, with an optional element-wise affine.",
        [
            "normalized_shape (int or tuple): the trailing shape to normalize.",
            "eps (float): added to the variance.",
            "elementwise_affine (bool): learn ``weight`` (ones) and ``bias`` (zeros).",
            _DEVICE,
        ],
        "Shape:\n    - Input: :math:`(*, normalized\\_shape)`.\n    - Output: the input's shape.",
        ">>> ln = nn.LayerNorm(4)\n>>> ln(tc.randn(2, 4)).shape\ntensorcore.Size([2, 4])",
    ),
    "GroupNorm": _cls(
        "Group normalization: the channels are split into ``num_groups`` groups, each normalized per sample.",
        [
            "num_groups (int): groups (divides ``num_channels``).",
            "num_channels (int): C.",
            "eps (float): added to the variance.",
            "affine (bool): learn a per-channel scale and shift.",
            _DEVICE,
        ],
        "Shape:\n    - Input: :math:`(N, C, *)`.\n    - Output: the input's shape.",
    ),
    "LocalResponseNorm": _cls(
        "Local response normalization across neighbouring channels (see the functional form).",
        [
            "size (int): channels in the window.",
            "alpha (float): scale.",
            "beta (float): exponent.",
            "k (float): additive constant.",
        ],
    ),
    "Dropout": _cls(
        "In training, zeroes elements with probability ``p`` and scales the rest by ``1 / (1 - p)``; the identity in eval mode.",
        ["p (float): drop probability.", _INPLACE],
        _ANY,
    ),
    "Dropout1d": _cls(
        "Zeroes whole channels of (N, C, L) inputs with probability ``p`` in training (scaling the rest).",
        ["p (float): drop probability.", _INPLACE],
    ),
    "Dropout2d": _cls(
        "Zeroes whole channels of (N, C, H, W) inputs with probability ``p`` in training (scaling the rest).",
        ["p (float): drop probability.", _INPLACE],
    ),
    "Dropout3d": _cls(
        "Zeroes whole channels of (N, C, D, H, W) inputs with probability ``p`` in training (scaling the rest).",
        ["p (float): drop probability.", _INPLACE],
    ),
    "AlphaDropout": _cls(
        "Dropout that keeps SELU activations self-normalizing (see :func:`tensorcore.nn.functional.alpha_dropout`).",
        ["p (float): drop probability.", _INPLACE],
        _ANY,
    ),
    "FeatureAlphaDropout": _cls(
        "Alpha dropout of whole channels (see :func:`tensorcore.nn.functional.feature_alpha_dropout`).",
        ["p (float): drop probability.", _INPLACE],
    ),
    "ReLU": _activation(
        "relu",
        "Rectified linear unit, :math:`\\max(0, x)`.",
        [_INPLACE],
        ">>> nn.ReLU()(tc.tensor([-1.0, 2.0]))\ntensor([0., 2.])",
    ),
    "ReLU6": _activation("relu6", ":math:`\\min(\\max(0, x), 6)`.", [_INPLACE]),
    "ELU": _activation(
        "elu", "Exponential linear unit.", ["alpha (float): negative saturation.", _INPLACE]
    ),
    "SELU": _activation("selu", "Scaled exponential linear unit (self-normalizing).", [_INPLACE]),
    "CELU": _activation(
        "celu",
        "Continuously differentiable ELU.",
        ["alpha (float): scale of the negative part.", _INPLACE],
    ),
    "GELU": _activation(
        "gelu", "Gaussian error linear unit.", ["approximate (str): ``'none'`` or ``'tanh'``."]
    ),
    "SiLU": _activation("silu", "Sigmoid linear unit :math:`x \\sigma(x)`.", [_INPLACE]),
    "Mish": _activation("mish", "Mish :math:`x \\tanh(\\mathrm{softplus}(x))`.", [_INPLACE]),
    "LeakyReLU": _activation(
        "leaky_relu",
        "Leaky ReLU with slope ``negative_slope`` for negative inputs.",
        ["negative_slope (float): the slope.", _INPLACE],
    ),
    "Hardtanh": _activation(
        "hardtanh",
        "Clamps to ``[min_val, max_val]``.",
        ["min_val (float): lower bound.", "max_val (float): upper bound.", _INPLACE],
    ),
    "Hardswish": _activation(
        "hardswish", "Hard swish :math:`x \\cdot \\mathrm{relu6}(x + 3) / 6`.", [_INPLACE]
    ),
    "Hardsigmoid": _activation(
        "hardsigmoid", "Piecewise-linear sigmoid :math:`\\mathrm{relu6}(x + 3) / 6`.", [_INPLACE]
    ),
    "Hardshrink": _activation(
        "hardshrink", "Hard thresholding at ``lambd``.", ["lambd (float): the threshold."]
    ),
    "Softshrink": _activation(
        "softshrink", "Soft thresholding at ``lambd``.", ["lambd (float): the threshold."]
    ),
    "Tanhshrink": _activation("tanhshrink", ":math:`x - \\tanh(x)`."),
    "Softsign": _activation("softsign", ":math:`x / (1 + |x|)`."),
    "Softplus": _activation(
        "softplus",
        "Smooth ReLU :math:`\\frac{1}{\\beta} \\log(1 + e^{\\beta x})`.",
        ["beta (float): sharpness.", "threshold (float): linear above this."],
    ),
    "LogSigmoid": _activation("logsigmoid", ":math:`\\log \\sigma(x)`."),
    "Sigmoid": _activation("sigmoid", "Logistic sigmoid."),
    "Tanh": _activation("tanh", "Hyperbolic tangent."),
    "Threshold": _activation(
        "threshold",
        "Replaces values not above ``threshold`` with ``value``.",
        ["threshold (float): the threshold.", "value (float): the replacement.", _INPLACE],
    ),
    "RReLU": _activation(
        "rrelu",
        "Randomized leaky ReLU (random slopes in training, their mean in eval).",
        ["lower (float): lowest slope.", "upper (float): highest slope.", _INPLACE],
    ),
    "GLU": _activation(
        "glu",
        "Gated linear unit over ``dim`` (that dimension halves).",
        ["dim (int): the dimension to split."],
    ),
    "PReLU": _cls(
        "Parametric ReLU :math:`\\max(0, x) + a \\min(0, x)` with learnable slope(s) ``a``.",
        [
            "num_parameters (int): 1 (shared) or the number of channels.",
            "init (float): initial slope.",
            _DEVICE,
        ],
        _ANY,
        attrs="weight (Parameter): the slopes, shape (num_parameters,).",
    ),
    "Softmax": _cls(
        "Softmax along ``dim`` (each slice sums to 1). Module form of :func:`tensorcore.nn.functional.softmax`.",
        ["dim (int): the dimension."],
        _ANY,
        ">>> nn.Softmax(dim=0)(tc.tensor([0.0, 0.0]))\ntensor([0.5000, 0.5000])",
    ),
    "Softmin": _cls(
        "Softmin along ``dim``. Module form of :func:`tensorcore.nn.functional.softmin`.",
        ["dim (int): the dimension."],
        _ANY,
    ),
    "LogSoftmax": _cls(
        "Log-softmax along ``dim``. Module form of :func:`tensorcore.nn.functional.log_softmax`.",
        ["dim (int): the dimension."],
        _ANY,
    ),
    "Softmax2d": _cls(
        "Softmax over the channels (dim -3) at each spatial location of (N, C, H, W) or (C, H, W) inputs."
    ),
    "CosineSimilarity": _cls(
        "Cosine similarity along ``dim`` (see the functional form).",
        ["dim (int): the vector dimension.", "eps (float): lower bound of the norms."],
    ),
    "PairwiseDistance": _cls(
        "p-norm distance between rows (see :func:`tensorcore.nn.functional.pairwise_distance`).",
        [
            "p (float): the norm.",
            "eps (float): added to differences.",
            "keepdim (bool): keep the vector dimension.",
        ],
    ),
    "PixelShuffle": _cls(
        "Rearranges (N, C*r*r, H, W) into (N, C, H*r, W*r).", ["upscale_factor (int): r."]
    ),
    "PixelUnshuffle": _cls(
        "Rearranges (N, C, H*r, W*r) into (N, C*r*r, H, W).", ["downscale_factor (int): r."]
    ),
    "Fold": _cls(
        "Combines sliding blocks into a tensor (see :func:`tensorcore.nn.functional.fold`).",
        [
            "output_size (int or tuple): spatial output size.",
            "kernel_size (int or tuple): block size.",
            "dilation (int or tuple): block spacing.",
            "padding (int or tuple): implicit padding.",
            "stride (int or tuple): block step.",
        ],
    ),
    "Unfold": _cls(
        "Extracts sliding blocks as columns (see :func:`tensorcore.nn.functional.unfold`).",
        [
            "kernel_size (int or tuple): block size.",
            "dilation (int or tuple): block spacing.",
            "padding (int or tuple): implicit padding.",
            "stride (int or tuple): block step.",
        ],
    ),
    "Upsample": _cls(
        "Resizes by ``size`` or ``scale_factor`` with :func:`tensorcore.nn.functional.interpolate`.",
        [
            "size (int or tuple, optional): output spatial size.",
            "scale_factor (float or tuple, optional): multiplier of the size.",
            "mode (str): ``'nearest'``, ``'linear'``, ``'bilinear'``, ``'bicubic'`` or ``'trilinear'``.",
            "align_corners (bool, optional): corner alignment for the linear modes.",
            "recompute_scale_factor (bool, optional): as in ``interpolate``.",
        ],
    ),
    "UpsamplingNearest2d": _cls(
        "Nearest-neighbour 2-D upsampling (``Upsample(mode='nearest')``).",
        ["size (tuple, optional): output size.", "scale_factor (float, optional): multiplier."],
    ),
    "UpsamplingBilinear2d": _cls(
        "Bilinear 2-D upsampling with ``align_corners=True``.",
        ["size (tuple, optional): output size.", "scale_factor (float, optional): multiplier."],
    ),
    "LPPool1d": _cls(
        "1-D power-average pooling.",
        [
            "norm_type (float): p.",
            "kernel_size (int): window.",
            "stride (int, optional): step.",
            "ceil_mode (bool): round up.",
        ],
    ),
    "LPPool2d": _cls(
        "2-D power-average pooling.",
        [
            "norm_type (float): p.",
            "kernel_size (int or tuple): window.",
            "stride (int or tuple, optional): step.",
            "ceil_mode (bool): round up.",
        ],
    ),
    "ZeroPad2d": _pad("Zero", 2),
    # recurrent
    "RNNBase": _cls(
        "Base class of :class:`RNN`, :class:`LSTM` and :class:`GRU`: holds the per-layer weights ``weight_ih_l{k}``, ``weight_hh_l{k}`` (and biases, ``_reverse`` for the backward direction) and runs the layers.",
        ["mode (str): ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``."] + _RNN_ARGS,
    ),
    "RNN": _cls(
        "Multi-layer Elman RNN: :math:`h_t = \\tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh})` (or ReLU).",
        _RNN_ARGS + ["nonlinearity (str): ``'tanh'`` or ``'relu'``."],
        "Shape:\n    - Input: :math:`(L, N, H_{in})` (``batch_first``: :math:`(N, L, H_{in})`) or a PackedSequence; optional h_0 :math:`(D \\cdot num\\_layers, N, H)`.\n"
        "    - Output: ``(output, h_n)``; output :math:`(L, N, D \\cdot H)`.",
        ">>> rnn = nn.RNN(4, 8, num_layers=2)\n>>> out, h = rnn(tc.randn(5, 3, 4))\n>>> out.shape, h.shape\n(tensorcore.Size([5, 3, 8]), tensorcore.Size([2, 3, 8]))",
    ),
    "LSTM": _cls(
        "Multi-layer long short-term memory RNN with input, forget, cell and output gates.",
        _RNN_ARGS + ["proj_size (int): if > 0, project the hidden state to this size (LSTMP)."],
        "Shape:\n    - Input: :math:`(L, N, H_{in})` (``batch_first``: :math:`(N, L, H_{in})`) or a PackedSequence; optional ``(h_0, c_0)``.\n"
        "    - Output: ``(output, (h_n, c_n))``; output :math:`(L, N, D \\cdot H)`.",
        ">>> lstm = nn.LSTM(4, 8, batch_first=True)\n>>> out, (h, c) = lstm(tc.randn(3, 5, 4))\n>>> out.shape\ntensorcore.Size([3, 5, 8])",
    ),
    "GRU": _cls(
        "Multi-layer gated recurrent unit RNN (reset and update gates).",
        _RNN_ARGS,
        "Shape:\n    - Input: :math:`(L, N, H_{in})` (``batch_first``: :math:`(N, L, H_{in})`) or a PackedSequence; optional h_0.\n"
        "    - Output: ``(output, h_n)``.",
    ),
    "RNNCellBase": _cls(
        "Base class of the single-step cells (:class:`RNNCell`, :class:`LSTMCell`, :class:`GRUCell`); holds ``weight_ih``, ``weight_hh`` and the biases.",
        [
            "input_size (int): input features.",
            "hidden_size (int): hidden features.",
            "bias (bool): use biases.",
            "num_chunks (int): gates per cell (1, 4 or 3).",
        ],
    ),
    "RNNCell": _cls(
        "One step of an Elman RNN: ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` (or ReLU).",
        [
            "input_size (int): input features.",
            "hidden_size (int): hidden features.",
            "bias (bool): use biases.",
            "nonlinearity (str): ``'tanh'`` or ``'relu'``.",
            _DEVICE,
        ],
        "Shape:\n    - Input: :math:`(N, H_{in})` or :math:`(H_{in})`; optional h of :math:`(N, H)`.\n    - Output: h' of :math:`(N, H)`.",
    ),
    "LSTMCell": _cls(
        "One step of an LSTM.",
        [
            "input_size (int): input features.",
            "hidden_size (int): hidden features.",
            "bias (bool): use biases.",
            _DEVICE,
        ],
        "Shape:\n    - Input: :math:`(N, H_{in})`; optional ``(h, c)``.\n    - Output: ``(h', c')``, each :math:`(N, H)`.",
    ),
    "GRUCell": _cls(
        "One step of a GRU.",
        [
            "input_size (int): input features.",
            "hidden_size (int): hidden features.",
            "bias (bool): use biases.",
            _DEVICE,
        ],
        "Shape:\n    - Input: :math:`(N, H_{in})`; optional h.\n    - Output: h' of :math:`(N, H)`.",
    ),
    # attention
    "MultiheadAttention": _cls(
        "Multi-head scaled dot-product attention: projects query, key and value into ``num_heads`` heads, attends, and projects back.",
        [
            "embed_dim (int): model width (divisible by ``num_heads``).",
            "num_heads (int): attention heads.",
            "dropout (float): dropout on the attention weights.",
            "bias (bool): biases in the projections.",
            "add_bias_kv (bool): learn an extra key/value bias step.",
            "add_zero_attn (bool): append a zero key/value step.",
            "kdim (int, optional): key features.",
            "vdim (int, optional): value features.",
            "batch_first (bool): (N, L, E) instead of (L, N, E).",
            _DEVICE,
        ],
        "Shape:\n    - query :math:`(L, N, E)`, key and value :math:`(S, N, E)` (``batch_first`` swaps the first two); optional ``key_padding_mask`` (N, S) and ``attn_mask`` (L, S).\n"
        "    - Output: ``(attn_output, attn_weights)``: (L, N, E) and, with ``need_weights``, (N, L, S) averaged over heads.",
        ">>> mha = nn.MultiheadAttention(8, 2)\n>>> q = tc.randn(5, 3, 8)\n>>> out, w = mha(q, q, q)\n>>> out.shape, w.shape\n(tensorcore.Size([5, 3, 8]), tensorcore.Size([3, 5, 5]))",
    ),
    "TransformerEncoderLayer": _cls(
        "Self-attention followed by a feed-forward network, each with residual connection, dropout and layer norm (post-norm, or pre-norm with ``norm_first``).",
        _transformer_layer_args("S"),
        "Shape:\n    - src: :math:`(S, N, E)`; optional ``src_mask`` (S, S) and ``src_key_padding_mask`` (N, S).\n    - Output: the input's shape.",
    ),
    "TransformerDecoderLayer": _cls(
        "Self-attention, attention over the encoder output (memory), and a feed-forward network, each with residual connection, dropout and layer norm.",
        _transformer_layer_args("T"),
        "Shape:\n    - tgt :math:`(T, N, E)`, memory :math:`(S, N, E)`; optional masks.\n    - Output: tgt's shape.",
    ),
    "TransformerEncoder": _cls(
        "A stack of ``num_layers`` copies of an encoder layer, with an optional final norm.",
        [
            "encoder_layer (TransformerEncoderLayer): the layer to copy.",
            "num_layers (int): depth.",
            "norm (Module, optional): applied to the output.",
            "enable_nested_tensor (bool): accepted for torch compatibility.",
            "mask_check (bool): accepted for torch compatibility.",
        ],
    ),
    "TransformerDecoder": _cls(
        "A stack of ``num_layers`` copies of a decoder layer, with an optional final norm.",
        [
            "decoder_layer (TransformerDecoderLayer): the layer to copy.",
            "num_layers (int): depth.",
            "norm (Module, optional): applied to the output.",
        ],
    ),
    "Transformer": _cls(
        "The encoder-decoder transformer of 'Attention Is All You Need'.",
        [
            "d_model (int): model width.",
            "nhead (int): attention heads.",
            "num_encoder_layers (int): encoder depth.",
            "num_decoder_layers (int): decoder depth.",
            "dim_feedforward (int): feed-forward width.",
            "dropout (float): dropout rate.",
            "activation (str or callable): ``'relu'`` or ``'gelu'``.",
            "custom_encoder (Module, optional): replaces the encoder.",
            "custom_decoder (Module, optional): replaces the decoder.",
            "layer_norm_eps (float): eps of the layer norms.",
            "batch_first (bool): batch dimension first.",
            "norm_first (bool): pre-norm layers.",
            _DEVICE,
        ],
        "Shape:\n    - src :math:`(S, N, E)`, tgt :math:`(T, N, E)`, optional masks.\n    - Output: :math:`(T, N, E)`.",
    ),
    # lazy and parallel
    "LazyModuleMixin": _cls(
        "Mixin of the lazy modules: their parameters are :class:`UninitializedParameter` until the first forward call infers the input size, then the module becomes its regular class."
    ),
    "LazyLinear": _cls(
        "A :class:`Linear` whose ``in_features`` is inferred from the first input.",
        ["out_features (int): output size.", "bias (bool): add a learnable bias.", _DEVICE],
        example=">>> lin = nn.LazyLinear(3)\n>>> lin(tc.zeros(2, 5)).shape\ntensorcore.Size([2, 3])\n>>> lin.weight.shape\ntensorcore.Size([3, 5])",
    ),
    "LazyConv1d": _cls(
        "A :class:`Conv1d` whose ``in_channels`` is inferred from the first input.",
        [
            "out_channels (int): output channels.",
            "kernel_size, stride, padding, dilation, groups, bias, padding_mode: as for Conv1d.",
        ],
    ),
    "LazyConv2d": _cls(
        "A :class:`Conv2d` whose ``in_channels`` is inferred from the first input.",
        [
            "out_channels (int): output channels.",
            "kernel_size, stride, padding, dilation, groups, bias, padding_mode: as for Conv2d.",
        ],
    ),
    "LazyConv3d": _cls(
        "A :class:`Conv3d` whose ``in_channels`` is inferred from the first input.",
        [
            "out_channels (int): output channels.",
            "kernel_size, stride, padding, dilation, groups, bias, padding_mode: as for Conv3d.",
        ],
    ),
    "DataParallel": _cls(
        "Runs ``module`` on several devices: each forward splits the input along ``dim``, replicates the module and gathers the outputs on ``output_device``. With no CUDA devices it calls the module directly.",
        [
            "module (Module): the model.",
            "device_ids (list of int or device, optional): the devices (default: all).",
            "output_device (int or device, optional): where outputs are gathered (default: device_ids[0]).",
            "dim (int): the dimension to scatter along.",
        ],
    ),
    "DistributedDataParallel": _cls(
        "Data parallelism across processes: every process holds a replica, and gradients are averaged with all-reduce in buckets that overlap with backward. Requires :func:`tensorcore.distributed.init_process_group`.",
        [
            "module (Module): the model.",
            "device_ids (list, optional): the single device of this replica.",
            "output_device (optional): where the output goes.",
            "dim (int): scatter dimension (single-device: unused).",
            "broadcast_buffers (bool): sync buffers from rank 0 each forward.",
            "process_group (optional): the group (default: the world).",
            "bucket_cap_mb (float): gradient bucket size.",
            "find_unused_parameters (bool): tolerate parameters that get no gradient.",
            "check_reduction (bool): accepted for torch compatibility.",
            "gradient_as_bucket_view (bool): gradients are views into the buckets (saves memory).",
            "static_graph (bool): the set of used parameters never changes.",
        ],
    ),
}

for _n in (1, 2, 3):
    DOCS[f"Conv{_n}d"] = _conv(_n)
    DOCS[f"MaxPool{_n}d"] = _pool("max", _n)
    DOCS[f"AvgPool{_n}d"] = _pool("avg", _n)
    DOCS[f"BatchNorm{_n}d"] = _norm("batch", _n)
    DOCS[f"InstanceNorm{_n}d"] = _norm("instance", _n)
    for _kind in ("Constant", "Reflection", "Replication"):
        DOCS[f"{_kind}Pad{_n}d"] = _pad(_kind, _n)
for _n in (1, 2, 3):
    DOCS[f"ConvTranspose{_n}d"] = _conv(_n, transposed=True)
    DOCS[f"MaxUnpool{_n}d"] = _cls(
        f"Partial inverse of MaxPool{_n}d: puts each value back at its max position, zeros "
        f"elsewhere (see :func:`tensorcore.nn.functional.max_unpool{_n}d`).",
        [
            "kernel_size (int or tuple): window size.",
            "stride (int or tuple, optional): window step.",
            "padding (int or tuple): padding.",
        ],
    )
    DOCS[f"LazyConvTranspose{_n}d"] = _cls(
        f"A :class:`ConvTranspose{_n}d` whose ``in_channels`` is inferred from the first input.",
        [
            "out_channels (int): output channels.",
            "kernel_size, stride, padding, output_padding, groups, bias, dilation, padding_mode: "
            f"as for ConvTranspose{_n}d.",
        ],
    )
    for _kind, _defaults in (
        ("Batch", "affine and running statistics on"),
        ("Instance", "no affine parameters or running statistics"),
    ):
        DOCS[f"Lazy{_kind}Norm{_n}d"] = _cls(
            f"A :class:`{_kind}Norm{_n}d` whose ``num_features`` is inferred from the first "
            f"input's channel dimension (by default {_defaults}).",
            [
                "eps (float): added to the variance.",
                "momentum (float): running-statistics update factor.",
                "affine (bool): learnable scale and shift.",
                "track_running_stats (bool): keep running mean and variance.",
                _DEVICE,
            ],
        )
    for _kind in ("Avg", "Max"):
        DOCS[f"Adaptive{_kind}Pool{_n}d"] = _cls(
            f"{_n}-D adaptive {_kind.lower()} pooling to a fixed ``output_size`` (see the functional form).",
            ["output_size (int or tuple): the target size."]
            + (
                ["return_indices (bool): also return the argmax positions."]
                if _kind == "Max"
                else []
            ),
        )

DOCS.update(
    {
        "MSELoss": _loss(
            "mse_loss",
            "Mean squared error.",
            example=">>> nn.MSELoss()(tc.tensor([1.0, 2.0]), tc.tensor([1.0, 4.0]))\ntensor(2.)",
        ),
        "L1Loss": _loss("l1_loss", "Mean absolute error."),
        "SmoothL1Loss": _loss(
            "smooth_l1_loss",
            "Quadratic-then-linear regression loss.",
            ["beta (float): the switch point."],
        ),
        "HuberLoss": _loss(
            "huber_loss", "Huber regression loss.", ["delta (float): the switch point."]
        ),
        "NLLLoss": _loss(
            "nll_loss",
            "Negative log-likelihood of class indices given log-probabilities.",
            [
                "weight (Tensor, optional): per-class weights.",
                "ignore_index (int): targets with this value add nothing.",
            ],
        ),
        "CrossEntropyLoss": _cls(
            "Cross entropy between logits and class indices or class probabilities: "
            ":func:`log_softmax` followed by :class:`NLLLoss`, with optional label smoothing. "
            "Module form of :func:`tensorcore.nn.functional.cross_entropy`.",
            [
                "weight (Tensor, optional): per-class weights.",
                "ignore_index (int): targets with this value add nothing.",
                _RED,
                "label_smoothing (float): mix the targets with the uniform distribution by this amount.",
            ],
            "Shape:\n    - Input: :math:`(N, C)`, :math:`(C)` or :math:`(N, C, d_1, ...)` logits.\n    - Target: class indices :math:`(N)` / :math:`(N, d_1, ...)`, or probabilities of the input's shape.\n    - Output: scalar, or :math:`(N, ...)` with ``reduction='none'``.",
            ">>> loss = nn.CrossEntropyLoss()\n>>> loss(tc.tensor([[0.0, 0.0]]), tc.tensor([1]))\ntensor(0.6931)",
        ),
        "BCELoss": _loss(
            "binary_cross_entropy",
            "Binary cross entropy between probabilities and targets.",
            ["weight (Tensor, optional): rescales each element."],
        ),
        "BCEWithLogitsLoss": _loss(
            "binary_cross_entropy_with_logits",
            "Sigmoid plus binary cross entropy, stable for large logits.",
            [
                "weight (Tensor, optional): rescales each element.",
                "pos_weight (Tensor, optional): weight of positives per class.",
            ],
        ),
        "KLDivLoss": _loss(
            "kl_div",
            "Kullback-Leibler divergence with log-probability inputs.",
            ["log_target (bool): the target is given as log-probabilities."],
        ),
        "PoissonNLLLoss": _loss(
            "poisson_nll_loss",
            "Poisson negative log-likelihood.",
            [
                "log_input (bool): the input is the log-rate.",
                "full (bool): add the Stirling term.",
                "eps (float): avoids log(0).",
            ],
        ),
        "GaussianNLLLoss": _loss(
            "gaussian_nll_loss",
            "Gaussian negative log-likelihood with predicted variance.",
            ["full (bool): add the constant term.", "eps (float): lower bound of the variance."],
        ),
        "CosineEmbeddingLoss": _loss(
            "cosine_embedding_loss",
            "Cosine similarity embedding loss for pairs labelled 1 or -1.",
            ["margin (float): the margin."],
        ),
        "HingeEmbeddingLoss": _loss(
            "hinge_embedding_loss",
            "Hinge embedding loss on distances labelled 1 or -1.",
            ["margin (float): the margin."],
        ),
        "MarginRankingLoss": _loss(
            "margin_ranking_loss",
            "Ranking loss for score pairs labelled 1 or -1.",
            ["margin (float): the margin."],
        ),
        "MultiMarginLoss": _loss(
            "multi_margin_loss",
            "Multi-class hinge loss.",
            [
                "p (int): 1 or 2.",
                "margin (float): the margin.",
                "weight (Tensor, optional): per-class weights.",
            ],
        ),
        "MultiLabelMarginLoss": _loss("multilabel_margin_loss", "Multi-label hinge loss."),
        "MultiLabelSoftMarginLoss": _loss(
            "multilabel_soft_margin_loss",
            "Multi-label one-versus-all logistic loss.",
            ["weight (Tensor, optional): per-class weights."],
        ),
        "SoftMarginLoss": _loss("soft_margin_loss", "Two-class logistic loss."),
        "TripletMarginLoss": _loss(
            "triplet_margin_loss",
            "Triplet loss with a p-norm distance.",
            [
                "margin (float): the margin.",
                "p (float): the norm.",
                "eps (float): added to differences.",
                "swap (bool): distance swap.",
            ],
        ),
        "TripletMarginWithDistanceLoss": _cls(
            "Triplet loss with a custom distance. Module form of :func:`tensorcore.nn.functional.triplet_margin_with_distance_loss`.",
            [
                "distance_function (callable, optional): d(x1, x2) (default: pairwise distance).",
                "margin (float): the margin.",
                "swap (bool): distance swap.",
                "reduction (str): ``'none'``, ``'mean'`` or ``'sum'``.",
            ],
        ),
    }
)
