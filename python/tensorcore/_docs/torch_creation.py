"""Docstrings of tensorcore's tensor factories and random sampling functions."""

from ._style import FACTORY_KWARGS, GENERATOR, INPUT, fn

TARGET = "tensorcore"

_SIZE = "size (int...): the shape, as separate ints or one list/tuple."
_LIKE_KWARGS = (
    "dtype (tensorcore.dtype, optional): the dtype of the result (default: ``input``'s).",
    "device (tensorcore.device or str, optional): the device of the result (default: ``input``'s).",
    "requires_grad (bool): whether autograd records operations on the result.",
    "memory_format (optional): accepted for torch compatibility; the result is contiguous.",
)
_LIKE_INPUT = "input (Tensor): the tensor whose shape (and by default dtype and device) is used."


def _filled(name, what, example):
    return fn(
        name,
        ["*size", "*", "dtype=None", "device=None", "requires_grad=False"],
        f"A tensor of the given shape {what}.",
        [_SIZE],
        FACTORY_KWARGS,
        example,
    )


def _like(name, what):
    return fn(
        name,
        ["input", "*", "dtype=None", "device=None", "requires_grad=False", "memory_format=None"],
        f"A tensor of ``input``'s shape {what}.",
        [_LIKE_INPUT],
        _LIKE_KWARGS,
    )


DOCS = {
    "zeros": _filled(
        "zeros",
        "filled with 0",
        ">>> tc.zeros(2, 3)\ntensor([[0., 0., 0.],\n        [0., 0., 0.]])",
    ),
    "ones": _filled("ones", "filled with 1", ">>> tc.ones(2, dtype=tc.int64)\ntensor([1, 1])"),
    "empty": _filled(
        "empty", "with uninitialized contents (fast when every element is written next)", ""
    ),
    "zeros_like": _like("zeros_like", "filled with 0"),
    "ones_like": _like("ones_like", "filled with 1"),
    "empty_like": _like("empty_like", "with uninitialized contents"),
    "rand_like": _like("rand_like", "filled with uniform samples from [0, 1)"),
    "randn_like": _like("randn_like", "filled with standard normal samples"),
    "full": fn(
        "full",
        ["size", "fill_value", "*", "dtype=None", "device=None", "requires_grad=False"],
        "A tensor of shape ``size`` filled with ``fill_value``. Without ``dtype``, the dtype is "
        "inferred from the value (bool, int64, the default float dtype or complex).",
        [
            "size (list or tuple of ints): the shape.",
            "fill_value (Number): the value of every element.",
        ],
        FACTORY_KWARGS,
        ">>> tc.full((2, 2), 7)\ntensor([[7, 7],\n        [7, 7]])",
    ),
    "full_like": fn(
        "full_like",
        ["input", "fill_value", "*", "dtype=None", "device=None", "requires_grad=False"],
        "A tensor of ``input``'s shape filled with ``fill_value``.",
        [_LIKE_INPUT, "fill_value (Number): the value of every element."],
        _LIKE_KWARGS[:3],
    ),
    "arange": fn(
        "arange",
        ["start=0", "end", "step=1", "*", "dtype=None", "device=None", "requires_grad=False"],
        "A 1-D tensor of the values ``start, start + step, ...`` up to but excluding ``end``. "
        "With one argument it is ``end``. Integer arguments give int64, otherwise the default float dtype.",
        [
            "start (Number): first value (default 0).",
            "end (Number): the end of the interval (excluded).",
            "step (Number): the gap between values (may be negative).",
        ],
        FACTORY_KWARGS,
        ">>> tc.arange(5)\ntensor([0, 1, 2, 3, 4])\n>>> tc.arange(1, 2, 0.25)\ntensor([1.0000, 1.2500, 1.5000, 1.7500])",
    ),
    "linspace": fn(
        "linspace",
        ["start", "end", "steps", "*", "dtype=None", "device=None", "requires_grad=False"],
        "A 1-D tensor of ``steps`` evenly spaced values from ``start`` to ``end``, both included.",
        [
            "start (Number): first value.",
            "end (Number): last value.",
            "steps (int): number of values.",
        ],
        FACTORY_KWARGS,
        ">>> tc.linspace(0, 1, 5)\ntensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])",
    ),
    "logspace": fn(
        "logspace",
        [
            "start",
            "end",
            "steps",
            "base=10.0",
            "*",
            "dtype=None",
            "device=None",
            "requires_grad=False",
        ],
        "A 1-D tensor of ``steps`` values :math:`base^{t}` with ``t`` evenly spaced from ``start`` to ``end``.",
        [
            "start (Number): first exponent.",
            "end (Number): last exponent.",
            "steps (int): number of values.",
            "base (float): the base.",
        ],
        FACTORY_KWARGS,
        ">>> tc.logspace(0, 2, 3)\ntensor([  1.,  10., 100.])",
    ),
    "eye": fn(
        "eye",
        ["n", "m=None", "*", "dtype=None", "device=None", "requires_grad=False"],
        "A 2-D tensor with ones on the diagonal and zeros elsewhere.",
        ["n (int): number of rows.", "m (int, optional): number of columns (default ``n``)."],
        FACTORY_KWARGS,
        ">>> tc.eye(2)\ntensor([[1., 0.],\n        [0., 1.]])",
    ),
    "scalar_tensor": fn(
        "scalar_tensor",
        ["s", "*", "dtype=None", "device=None"],
        "A 0-dimensional tensor holding the number ``s`` (default float dtype).",
        ["s (Number): the value."],
        FACTORY_KWARGS[:2],
    ),
    "empty_strided": fn(
        "empty_strided",
        ["size", "stride", "*", "dtype=None", "device=None", "requires_grad=False"],
        "An uninitialized tensor with the given shape and strides (in elements).",
        [
            "size (tuple of ints): the shape.",
            "stride (tuple of ints): the stride of each dimension.",
        ],
        FACTORY_KWARGS,
    ),
    "tril_indices": fn(
        "tril_indices",
        ["row", "col", "offset=0", "*", "dtype=None", "device=None"],
        "The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix, as a 2 x N tensor.",
        [
            "row (int): rows.",
            "col (int): columns.",
            "offset (int): diagonal offset (positive: above the main diagonal).",
        ],
        example=">>> tc.tril_indices(2, 2)\ntensor([[0, 1, 1],\n        [0, 0, 1]])",
    ),
    "triu_indices": fn(
        "triu_indices",
        ["row", "col", "offset=0", "*", "dtype=None", "device=None"],
        "The (row, column) indices of the upper triangle of a ``row`` x ``col`` matrix, as a 2 x N tensor.",
        [
            "row (int): rows.",
            "col (int): columns.",
            "offset (int): diagonal offset (positive: above the main diagonal).",
        ],
    ),
    "from_numpy": fn(
        "from_numpy",
        ["ndarray"],
        "A tensor sharing memory with a NumPy array: writes through either are seen by the other. "
        "The array must have a supported dtype (bool, integers, float16/32/64, complex64/128).",
        ["ndarray (numpy.ndarray): the array to wrap."],
        example=">>> import numpy as np\n>>> tc.from_numpy(np.array([1, 2]))\ntensor([1, 2])",
    ),
    "rand": fn(
        "rand",
        ["*size", "*", "generator=None", "dtype=None", "device=None", "requires_grad=False"],
        "A tensor of samples from the uniform distribution on [0, 1).",
        [_SIZE],
        (GENERATOR,) + FACTORY_KWARGS,
        ">>> tc.rand(2, 3).shape\ntensorcore.Size([2, 3])",
    ),
    "randn": fn(
        "randn",
        ["*size", "*", "generator=None", "dtype=None", "device=None", "requires_grad=False"],
        "A tensor of samples from the standard normal distribution (mean 0, variance 1).",
        [_SIZE],
        (GENERATOR,) + FACTORY_KWARGS,
        ">>> x = tc.randn(1000)\n>>> bool(abs(x.mean()) < 0.2)\nTrue",
    ),
    "randint": fn(
        "randint",
        [
            "low=0",
            "high",
            "size",
            "*",
            "generator=None",
            "dtype=None",
            "device=None",
            "requires_grad=False",
        ],
        "A tensor of integers drawn uniformly from ``[low, high)`` (int64 by default).",
        [
            "low (int): lowest value (default 0).",
            "high (int): one above the highest value.",
            "size (tuple): the shape.",
        ],
        (GENERATOR,) + FACTORY_KWARGS,
        ">>> x = tc.randint(3, 10, (5,))\n>>> bool(((x >= 3) & (x < 10)).all())\nTrue",
    ),
    "randint_like": fn(
        "randint_like",
        ["input", "low=0", "high", "*", "dtype=None", "device=None", "requires_grad=False"],
        "A tensor of ``input``'s shape with integers drawn uniformly from ``[low, high)``.",
        [_LIKE_INPUT, "low (int): lowest value.", "high (int): one above the highest value."],
        _LIKE_KWARGS[:3],
    ),
    "randperm": fn(
        "randperm",
        ["n", "*", "generator=None", "dtype=None", "device=None", "requires_grad=False"],
        "A random permutation of the integers ``0 .. n-1`` (int64 by default).",
        ["n (int): the number of elements."],
        (GENERATOR,) + FACTORY_KWARGS,
        ">>> sorted(tc.randperm(4).tolist())\n[0, 1, 2, 3]",
    ),
    "normal": fn(
        "normal",
        ["mean", "std=1.0", "size=None", "*", "generator=None", "out=None"],
        "Samples from normal distributions. ``mean`` and ``std`` are numbers or tensors (which "
        "broadcast and give one sample per element); with two numbers, ``size`` gives the shape.",
        [
            "mean (float or Tensor): the mean(s).",
            "std (float or Tensor): the standard deviation(s), >= 0.",
            "size (tuple, optional): the shape when both are numbers.",
        ],
        (GENERATOR, "out (Tensor, optional): the output tensor."),
        ">>> tc.normal(0.0, 1.0, size=(2, 2)).shape\ntensorcore.Size([2, 2])",
    ),
    "bernoulli": fn(
        "bernoulli",
        ["input", "p=None", "*", "generator=None", "out=None"],
        "Draws 0 or 1 for each element, 1 with probability given by the element of ``input`` "
        "(or by ``p`` when given). The result has ``input``'s dtype.",
        [
            "input (Tensor): probabilities in [0, 1].",
            "p (float, optional): one probability for all elements.",
        ],
        (GENERATOR, "out (Tensor, optional): the output tensor."),
        ">>> tc.bernoulli(tc.tensor([0.0, 1.0]))\ntensor([0., 1.])",
    ),
    "multinomial": fn(
        "multinomial",
        ["input", "num_samples", "replacement=False", "*", "generator=None"],
        "Draws ``num_samples`` category indices per row from the (unnormalized, non-negative) "
        "weights in ``input`` (1-D or 2-D). Without replacement, each category appears at most once.",
        [
            "input (Tensor): weights, one row per distribution.",
            "num_samples (int): number of draws.",
            "replacement (bool): whether a category can be drawn again.",
        ],
        (GENERATOR,),
        ">>> tc.multinomial(tc.tensor([0.0, 1.0, 0.0]), 2, replacement=True)\ntensor([1, 1])",
    ),
    "manual_seed": fn(
        "manual_seed",
        ["seed"],
        "Seeds the default random number generator (and each CUDA device's); returns the generator.",
        ["seed (int): the seed."],
        returns="Generator",
    ),
    "seed": fn(
        "seed",
        [],
        "Seeds the default generator with a non-deterministic value and returns it.",
        returns="int",
    ),
    "initial_seed": fn(
        "initial_seed", [], "The seed the default generator was last seeded with.", returns="int"
    ),
    "get_rng_state": fn(
        "get_rng_state",
        [],
        "The state of the default generator, as a uint8 tensor to pass to :func:`set_rng_state`.",
        returns="Tensor",
    ),
    "set_rng_state": fn(
        "set_rng_state",
        ["new_state"],
        "Restores the default generator to a state from :func:`get_rng_state`, so the same samples follow.",
        ["new_state (Tensor): a saved state."],
        returns="None",
        example=">>> s = tc.get_rng_state()\n>>> a = tc.rand(2)\n>>> tc.set_rng_state(s)\n>>> bool((tc.rand(2) == a).all())\nTrue",
    ),
}

for _name, _kind in (
    ("bartlett_window", "Bartlett (triangular)"),
    ("blackman_window", "Blackman"),
    ("hamming_window", "Hamming"),
    ("hann_window", "Hann"),
):
    DOCS[_name] = fn(
        _name,
        ["window_length", "periodic=True", "*", "dtype=None", "device=None", "requires_grad=False"],
        f"The {_kind} window of ``window_length`` points. A periodic window (the default, for "
        "spectral analysis with :func:`tensorcore.stft`) is the symmetric window of "
        "``window_length + 1`` points without its last point.",
        [
            "window_length (int): number of points.",
            "periodic (bool): periodic (True) or symmetric (False) window.",
        ],
        FACTORY_KWARGS,
    )
DOCS["kaiser_window"] = fn(
    "kaiser_window",
    [
        "window_length",
        "periodic=True",
        "beta=12.0",
        "*",
        "dtype=None",
        "device=None",
        "requires_grad=False",
    ],
    "The Kaiser window of ``window_length`` points with shape parameter ``beta``.",
    [
        "window_length (int): number of points.",
        "periodic (bool): periodic (True) or symmetric (False) window.",
        "beta (float): shape parameter; larger values give a wider main lobe and lower side lobes.",
    ],
    FACTORY_KWARGS,
)
del INPUT
