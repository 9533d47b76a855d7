"""Docstrings of tensorcore's pointwise math and comparison functions."""

from ._style import INPUT, fn

TARGET = "tensorcore"

_OTHER = "other (Tensor or Number): the second operand; broadcasts with ``input``."

# name: (description, example)
_UNARY = {
    "abs": (
        "Absolute value of each element, :math:`|x|` (the modulus for complex inputs).",
        ">>> tc.abs(tc.tensor([-1.5, 0.0, 2.0]))\ntensor([1.5000, 0.0000, 2.0000])",
    ),
    "neg": (
        "Negation of each element, :math:`-x`.",
        ">>> tc.neg(tc.tensor([1, -2]))\ntensor([-1,  2])",
    ),
    "exp": (
        "Exponential of each element, :math:`e^{x}`.",
        ">>> tc.exp(tc.tensor([0.0, 1.0]))\ntensor([1.0000, 2.7183])",
    ),
    "exp2": (
        "Base-2 exponential of each element, :math:`2^{x}`.",
        ">>> tc.exp2(tc.tensor([0.0, 3.0]))\ntensor([1., 8.])",
    ),
    "expm1": (
        ":math:`e^{x} - 1` for each element, accurate for small :math:`x` where ``exp(x) - 1``"
        " loses digits.",
        "",
    ),
    "log": (
        "Natural logarithm of each element. Negative inputs give NaN and zero gives -inf.",
        ">>> tc.log(tc.tensor([1.0, 2.718281828]))\ntensor([0., 1.])",
    ),
    "log2": (
        "Base-2 logarithm of each element.",
        ">>> tc.log2(tc.tensor([1.0, 8.0]))\ntensor([0., 3.])",
    ),
    "log10": (
        "Base-10 logarithm of each element.",
        ">>> tc.log10(tc.tensor([10.0, 1000.0]))\ntensor([1., 3.])",
    ),
    "log1p": (
        ":math:`\\log(1 + x)` for each element, accurate for small :math:`x`.",
        "",
    ),
    "sqrt": (
        "Square root of each element; negative real inputs give NaN.",
        ">>> tc.sqrt(tc.tensor([4.0, 9.0]))\ntensor([2., 3.])",
    ),
    "rsqrt": (
        "Reciprocal of the square root of each element, :math:`1 / \\sqrt{x}`.",
        ">>> tc.rsqrt(tc.tensor([4.0, 0.25]))\ntensor([0.5000, 2.0000])",
    ),
    "sin": ("Sine of each element (in radians).", ">>> tc.sin(tc.tensor([0.0]))\ntensor([0.])"),
    "cos": ("Cosine of each element (in radians).", ">>> tc.cos(tc.tensor([0.0]))\ntensor([1.])"),
    "tan": ("Tangent of each element (in radians).", ""),
    "asin": ("Arcsine of each element, in radians; inputs outside [-1, 1] give NaN.", ""),
    "acos": ("Arccosine of each element, in radians; inputs outside [-1, 1] give NaN.", ""),
    "atan": ("Arctangent of each element, in radians, in :math:`(-\\pi/2, \\pi/2)`.", ""),
    "sinh": ("Hyperbolic sine of each element.", ""),
    "cosh": ("Hyperbolic cosine of each element.", ""),
    "tanh": (
        "Hyperbolic tangent of each element, in (-1, 1).",
        ">>> tc.tanh(tc.tensor([0.0, 100.0]))\ntensor([0., 1.])",
    ),
    "asinh": ("Inverse hyperbolic sine of each element.", ""),
    "acosh": ("Inverse hyperbolic cosine of each element; inputs below 1 give NaN.", ""),
    "atanh": ("Inverse hyperbolic tangent of each element; inputs outside [-1, 1] give NaN.", ""),
    "sigmoid": (
        "Logistic sigmoid of each element, :math:`1 / (1 + e^{-x})`.",
        ">>> tc.sigmoid(tc.tensor([0.0]))\ntensor([0.5000])",
    ),
    "erf": ("Gauss error function of each element.", ""),
    "erfc": ("Complementary error function of each element, :math:`1 - \\mathrm{erf}(x)`.", ""),
    "erfinv": ("Inverse error function of each element; defined on (-1, 1).", ""),
    "lgamma": (
        "Natural logarithm of the absolute value of the gamma function of each element.",
        "",
    ),
    "digamma": (
        "Logarithmic derivative of the gamma function, :math:`\\psi(x)`, of each element.",
        "",
    ),
    "i0": (
        "Modified Bessel function of the first kind of order zero, :math:`I_0(x)`, of each "
        "element (even; differentiable, with derivative :math:`I_1(x)`).",
        ">>> tc.i0(tc.tensor([0.0, 1.0]))\ntensor([1.0000, 1.2661])",
    ),
    "floor": (
        "Largest integer not greater than each element (integers are returned unchanged).",
        ">>> tc.floor(tc.tensor([-1.5, 1.5]))\ntensor([-2.,  1.])",
    ),
    "ceil": (
        "Smallest integer not less than each element.",
        ">>> tc.ceil(tc.tensor([-1.5, 1.5]))\ntensor([-1.,  2.])",
    ),
    "trunc": (
        "Each element rounded toward zero.",
        ">>> tc.trunc(tc.tensor([-1.7, 1.7]))\ntensor([-1.,  1.])",
    ),
    "frac": ("Fractional part of each element, ``x - trunc(x)`` (keeps the sign).", ""),
    "sign": (
        "Sign of each element: -1, 0 or 1.",
        ">>> tc.sign(tc.tensor([-3.0, 0.0, 2.0]))\ntensor([-1.,  0.,  1.])",
    ),
    "sgn": ("Sign of each element; for complex inputs :math:`x / |x|` (0 for 0).", ""),
    "reciprocal": (
        "Reciprocal :math:`1 / x` of each element; integer inputs give a float result.",
        "",
    ),
    "square": ("Square of each element.", ">>> tc.square(tc.tensor([2, -3]))\ntensor([4, 9])"),
    "angle": (
        "Argument (phase) of each element in radians; 0 or :math:`\\pi` for real inputs.",
        "",
    ),
    "isfinite": ("Boolean tensor: True where the element is neither infinite nor NaN.", ""),
    "isinf": ("Boolean tensor: True where the element is positive or negative infinity.", ""),
    "isnan": (
        "Boolean tensor: True where the element is NaN.",
        ">>> tc.isnan(tc.tensor([1.0, float('nan')]))\ntensor([False,  True])",
    ),
    "isneginf": ("Boolean tensor: True where the element is negative infinity.", ""),
    "isposinf": ("Boolean tensor: True where the element is positive infinity.", ""),
    "isreal": (
        "Boolean tensor: True where the element has a zero imaginary part (always for real dtypes).",
        "",
    ),
    "logical_not": ("Boolean tensor: True where the element is zero (logical negation).", ""),
    "bitwise_not": ("Bitwise NOT of each element of an integer or bool tensor.", ""),
    "deg2rad": ("Each element converted from degrees to radians.", ""),
    "rad2deg": ("Each element converted from radians to degrees.", ""),
    "positive": ("Returns ``input`` itself (the unary plus operator); errors on bool tensors.", ""),
    "conj_physical": ("Complex conjugate of each element, materialized in new memory.", ""),
    "fix": ("Each element rounded toward zero (same as :func:`tensorcore.trunc`).", ""),
}

# name: (extra params, description, extra args, example)
_BINARY = {
    "sub": (
        ["*", "alpha=1"],
        "Subtracts ``other``, scaled by ``alpha``, from ``input``: :math:`input - alpha \\times other`.",
        ["alpha (Number): multiplier of ``other``."],
        ">>> tc.sub(tc.tensor([5, 6]), 1)\ntensor([4, 5])",
    ),
    "mul": (
        [],
        "Multiplies ``input`` by ``other`` element-wise (broadcasting, with type promotion).",
        [],
        ">>> tc.mul(tc.tensor([1.0, 2.0]), 3)\ntensor([3., 6.])",
    ),
    "div": (
        ["*", "rounding_mode=None"],
        "Divides ``input`` by ``other`` element-wise. Integer inputs give a floating result unless "
        "``rounding_mode`` is ``'trunc'`` (round toward zero) or ``'floor'`` (round down).",
        ["rounding_mode (str, optional): None (true division), ``'trunc'`` or ``'floor'``."],
        ">>> tc.div(tc.tensor([7, -7]), 2)\ntensor([ 3.5000, -3.5000])\n"
        ">>> tc.div(tc.tensor([7, -7]), 2, rounding_mode='floor')\ntensor([ 3, -4])",
    ),
    "true_divide": (
        [],
        "Division that always gives a floating result (``div`` without rounding).",
        [],
        "",
    ),
    "floor_divide": (
        [],
        "Element-wise division rounded down (toward negative infinity), like Python's ``//``.",
        [],
        "",
    ),
    "remainder": (
        [],
        "Python-style modulus: the remainder has the sign of the divisor ``other``.",
        [],
        ">>> tc.remainder(tc.tensor([-3, 3]), 2)\ntensor([1, 1])",
    ),
    "fmod": (
        [],
        "C-style remainder of the division: the result has the sign of the dividend ``input``.",
        [],
        ">>> tc.fmod(tc.tensor([-3, 3]), 2)\ntensor([-1,  1])",
    ),
    "atan2": (
        [],
        "Element-wise arctangent of ``input / other`` using the signs of both to pick the quadrant; "
        "the result is in :math:`[-\\pi, \\pi]`.",
        [],
        "",
    ),
    "igamma": (
        [],
        "Regularized lower incomplete gamma function :math:`P(a, x)` with ``a = input`` and "
        "``x = other`` (differentiable in ``other`` only, as torch).",
        [],
        ">>> tc.igamma(tc.tensor([1.0]), tc.tensor([1.0]))\ntensor([0.6321])",
    ),
    "igammac": (
        [],
        "Regularized upper incomplete gamma function :math:`Q(a, x) = 1 - P(a, x)` with "
        "``a = input`` and ``x = other``.",
        [],
        "",
    ),
    "nextafter": (
        [],
        "The next representable floating-point value after ``input`` in the direction of "
        "``other`` (float32 and float64).",
        [],
        "",
    ),
    "maximum": (
        [],
        "Element-wise maximum of ``input`` and ``other``; NaN propagates.",
        [],
        ">>> tc.maximum(tc.tensor([1, 5]), tc.tensor([3, 2]))\ntensor([3, 5])",
    ),
    "minimum": ([], "Element-wise minimum of ``input`` and ``other``; NaN propagates.", [], ""),
    "fmax": ([], "Element-wise maximum that ignores NaN: a NaN loses to a number.", [], ""),
    "fmin": ([], "Element-wise minimum that ignores NaN: a NaN loses to a number.", [], ""),
    "heaviside": (
        [],
        "Heaviside step: 0 where ``input`` < 0, 1 where > 0 and ``other`` where it is 0.",
        [],
        "",
    ),
    "gcd": ([], "Element-wise greatest common divisor of two integer tensors.", [], ""),
    "lcm": ([], "Element-wise least common multiple of two integer tensors.", [], ""),
    "ldexp": ([], ":math:`input \\times 2^{other}` element-wise.", [], ""),
    "bitwise_and": ([], "Bitwise AND of integer or bool tensors.", [], ""),
    "bitwise_or": ([], "Bitwise OR of integer or bool tensors.", [], ""),
    "bitwise_xor": ([], "Bitwise XOR of integer or bool tensors.", [], ""),
    "bitwise_left_shift": ([], "Shifts the bits of ``input`` left by ``other``.", [], ""),
    "bitwise_right_shift": (
        [],
        "Shifts the bits of ``input`` right by ``other`` (arithmetic shift).",
        [],
        "",
    ),
    "logical_and": ([], "Boolean tensor: True where both elements are non-zero.", [], ""),
    "logical_or": ([], "Boolean tensor: True where either element is non-zero.", [], ""),
    "logical_xor": (
        [],
        "Boolean tensor: True where exactly one of the elements is non-zero.",
        [],
        "",
    ),
}

_COMPARE = {
    "eq": "equal to",
    "ne": "not equal to",
    "lt": "less than",
    "le": "less than or equal to",
    "gt": "greater than",
    "ge": "greater than or equal to",
}

DOCS = {}
for _name, (_desc, _example) in _UNARY.items():
    DOCS[_name] = fn(_name, ["input"], _desc, [INPUT], example=_example)
for _name, (_params, _desc, _kw, _example) in _BINARY.items():
    DOCS[_name] = fn(
        _name,
        ["input", "other"] + _params,
        _desc,
        ["input (Tensor): the first operand.", _OTHER],
        _kw,
        _example,
    )
for _name, _words in _COMPARE.items():
    DOCS[_name] = fn(
        _name,
        ["input", "other"],
        f"Boolean tensor: True where ``input`` is {_words} ``other`` (broadcasting).",
        ["input (Tensor): the tensor to compare.", _OTHER],
        example=f">>> tc.{_name}(tc.tensor([1, 2, 3]), 2)\n"
        + {
            "eq": "tensor([False,  True, False])",
            "ne": "tensor([ True, False,  True])",
            "lt": "tensor([ True, False, False])",
            "le": "tensor([ True,  True, False])",
            "gt": "tensor([False, False,  True])",
            "ge": "tensor([False,  True,  True])",
        }[_name],
    )

DOCS.update(
    {
        "pow": fn(
            "pow",
            ["input", "exponent"],
            "``input`` raised to the power ``exponent``, element-wise. Either may be a number; "
            "tensors broadcast.",
            ["input (Tensor or Number): the base.", "exponent (Tensor or Number): the exponent."],
            example=">>> tc.pow(tc.tensor([1.0, 2.0, 3.0]), 2)\ntensor([1., 4., 9.])",
        ),
        "clamp": fn(
            "clamp",
            ["input", "min=None", "max=None"],
            "Limits each element to ``[min, max]``. Either bound may be omitted; bounds may be "
            "numbers or tensors that broadcast with ``input``. If ``min > max`` the result is ``max``.",
            [
                INPUT,
                "min (Number or Tensor, optional): lower bound.",
                "max (Number or Tensor, optional): upper bound.",
            ],
            example=">>> tc.clamp(tc.tensor([-2.0, 0.5, 3.0]), min=-1, max=1)\ntensor([-1.0000,  0.5000,  1.0000])",
        ),
        "clamp_min": fn(
            "clamp_min",
            ["input", "min"],
            "Limits each element from below: ``max(input, min)``.",
            [INPUT, "min (Number or Tensor): lower bound."],
        ),
        "clamp_max": fn(
            "clamp_max",
            ["input", "max"],
            "Limits each element from above: ``min(input, max)``.",
            [INPUT, "max (Number or Tensor): upper bound."],
        ),
        "lerp": fn(
            "lerp",
            ["input", "end", "weight"],
            "Linear interpolation :math:`input + weight \\times (end - input)`.",
            [
                "input (Tensor): start points.",
                "end (Tensor): end points.",
                "weight (float or Tensor): interpolation weight.",
            ],
            example=">>> tc.lerp(tc.tensor([0.0, 10.0]), tc.tensor([10.0, 20.0]), 0.5)\ntensor([ 5., 15.])",
        ),
        "where": fn(
            "where",
            ["condition", "input", "other"],
            "Picks ``input`` where ``condition`` is True and ``other`` elsewhere; the three "
            "broadcast. With only ``condition``, the same as ``nonzero(condition, as_tuple=True)``.",
            [
                "condition (Tensor): boolean selector.",
                "input (Tensor or Number): values where ``condition`` holds.",
                "other (Tensor or Number): values elsewhere.",
            ],
            example=">>> x = tc.tensor([-1.0, 2.0, -3.0])\n>>> tc.where(x > 0, x, tc.zeros(3))\ntensor([0., 2., 0.])",
        ),
        "round": fn(
            "round",
            ["input", "*", "decimals=0"],
            "Rounds each element to the nearest integer (halves to even), or to ``decimals`` decimal places.",
            [INPUT],
            ["decimals (int): number of decimal places."],
            example=">>> tc.round(tc.tensor([0.5, 1.5, 2.567]))\ntensor([0., 2., 3.])",
        ),
        "nan_to_num": fn(
            "nan_to_num",
            ["input", "nan=0.0", "posinf=None", "neginf=None"],
            "Replaces NaN with ``nan`` and infinities with ``posinf``/``neginf`` (default: the "
            "largest/lowest finite value of the dtype).",
            [
                INPUT,
                "nan (float): value for NaN.",
                "posinf (float, optional): value for +inf.",
                "neginf (float, optional): value for -inf.",
            ],
        ),
        "isclose": fn(
            "isclose",
            ["input", "other", "rtol=1e-05", "atol=1e-08", "equal_nan=False"],
            "Boolean tensor: True where :math:`|input - other| \\le atol + rtol \\times |other|`.",
            [
                "input (Tensor): first tensor.",
                "other (Tensor): second tensor.",
                "rtol (float): relative tolerance.",
                "atol (float): absolute tolerance.",
                "equal_nan (bool): whether two NaNs count as close.",
            ],
            example=">>> tc.isclose(tc.tensor([1.0, 2.0]), tc.tensor([1.0 + 1e-9, 2.1]))\ntensor([ True, False])",
        ),
        "allclose": fn(
            "allclose",
            ["input", "other", "rtol=1e-05", "atol=1e-08", "equal_nan=False"],
            "True when every element pair is close in the sense of :func:`tensorcore.isclose`.",
            [
                "input (Tensor): first tensor.",
                "other (Tensor): second tensor.",
                "rtol (float): relative tolerance.",
                "atol (float): absolute tolerance.",
                "equal_nan (bool): whether two NaNs count as close.",
            ],
            returns="bool",
            example=">>> tc.allclose(tc.tensor([1.0, 2.0]), tc.tensor([1.0, 2.0 + 1e-7]))\nTrue",
        ),
        "equal": fn(
            "equal",
            ["input", "other"],
            "True when both tensors have the same shape and the same elements.",
            ["input (Tensor): first tensor.", "other (Tensor): second tensor."],
            returns="bool",
        ),
        "addcmul": fn(
            "addcmul",
            ["input", "tensor1", "tensor2", "*", "value=1"],
            ":math:`input + value \\times tensor1 \\times tensor2`, element-wise with broadcasting.",
            [INPUT, "tensor1 (Tensor): first factor.", "tensor2 (Tensor): second factor."],
            ["value (Number): multiplier of the product."],
        ),
        "addcdiv": fn(
            "addcdiv",
            ["input", "tensor1", "tensor2", "*", "value=1"],
            ":math:`input + value \\times tensor1 / tensor2`, element-wise with broadcasting.",
            [INPUT, "tensor1 (Tensor): numerator.", "tensor2 (Tensor): denominator."],
            ["value (Number): multiplier of the quotient."],
        ),
        "polygamma": fn(
            "polygamma",
            ["n", "input"],
            "The ``n``-th derivative of the digamma function of each element.",
            ["n (int): order of the derivative (n >= 0).", INPUT],
        ),
        "rsub": fn(
            "rsub",
            ["input", "other", "*", "alpha=1"],
            "Reversed subtraction: :math:`other - alpha \\times input`.",
            [INPUT, _OTHER],
            ["alpha (Number): multiplier of ``input``."],
        ),
        "complex": fn(
            "complex",
            ["real", "imag"],
            "Complex tensor with real part ``real`` and imaginary part ``imag`` (both float32 or both float64).",
            ["real (Tensor): real parts.", "imag (Tensor): imaginary parts."],
            example=">>> tc.complex(tc.tensor([1.0]), tc.tensor([2.0]))\ntensor([1.+2.j], dtype=tensorcore.complex64)",
        ),
        "polar": fn(
            "polar",
            ["abs", "angle"],
            "Complex tensor :math:`abs \\times (\\cos(angle) + i \\sin(angle))` from polar coordinates.",
            ["abs (Tensor): magnitudes.", "angle (Tensor): angles in radians."],
        ),
        "real": fn(
            "real",
            ["input"],
            "Real part of a complex tensor, as a view; a real tensor is returned as is.",
            [INPUT],
        ),
        "imag": fn(
            "imag",
            ["input"],
            "Imaginary part of a complex tensor, as a view (errors on real tensors).",
            [INPUT],
        ),
        "conj": fn(
            "conj",
            ["input"],
            "Complex conjugate of ``input``; a real tensor is returned unchanged.",
            [INPUT],
        ),
    }
)

# Aliases: the same operation under torch's other name.
ALIASES = {
    "absolute": "abs",
    "negative": "neg",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "arctan2": "atan2",
    "subtract": "sub",
    "multiply": "mul",
    "divide": "div",
    "clip": "clamp",
    "greater": "gt",
    "greater_equal": "ge",
    "less": "lt",
    "less_equal": "le",
    "not_equal": "ne",
}
