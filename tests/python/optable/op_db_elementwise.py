"""Op table entries: elementwise unary/binary/ternary ops and complex helpers."""

import math

import numpy as np

import tensorcore as tc
from op_db import (
    BOOL,
    CPLX,
    FLOAT,
    GRAD_ALL,
    GRAD_REAL,
    HALF,
    INT,
    SMALLINT,
    Idx,
    OpInfo,
    SampleInput,
    is_int,
    make_arr,
)

UNARY_SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 2)]
BINARY_SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 1), (1, 4)),
    ((2, 3, 2), (2,)),
    ((3, 4), ()),
    ((0, 4), (4,)),
]


def unary_samples(domain="any", **kwargs):
    def gen(dtype, rng):
        return [SampleInput(make_arr(rng, s, dtype, domain), **kwargs) for s in UNARY_SHAPES]

    return gen


def binary_samples(da="any", db="any", scalar=True):
    def gen(dtype, rng):
        out = [
            SampleInput(make_arr(rng, sa, dtype, da), make_arr(rng, sb, dtype, db))
            for sa, sb in BINARY_SHAPES
        ]
        if scalar and dtype != "bool":
            v = make_arr(rng, (), dtype, db).item()
            if isinstance(v, float) and not is_int(dtype):
                out.append(SampleInput(make_arr(rng, (2, 3), dtype, da), float(v)))
            elif is_int(dtype):
                out.append(SampleInput(make_arr(rng, (2, 3), dtype, da), int(v)))
        return out

    return gen


def _vec(f):
    return np.vectorize(f, otypes=[np.float64])


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _sgn(a):
    if np.iscomplexobj(a):
        m = np.abs(a)
        return np.where(m == 0, 0, a / np.where(m == 0, 1, m))
    return np.sign(a)


def _round(a, decimals=0):
    return np.round(a, decimals)


def _erfinv(y):
    # Newton on erf from a crude start: a reference independent of tc's implementation.
    x = np.zeros_like(y, dtype=np.float64)
    erf = _vec(math.erf)
    for _ in range(60):
        x = x - (erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


def _nan_to_num(a, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)


def _unary(name, ref, dtypes, domain="any", out="float", grad=GRAD_REAL, **kw):
    return OpInfo(
        name,
        getattr(tc, name),
        ref,
        unary_samples(domain),
        dtypes,
        method=name,
        grad_dtypes=grad,
        out=out,
        family="elementwise",
        **kw,
    )


def _binary(
    name,
    ref,
    dtypes,
    da="any",
    db="any",
    out="same",
    grad=GRAD_REAL,
    scalar=True,
    method=True,
    **kw,
):
    return OpInfo(
        name,
        getattr(tc, name),
        ref,
        binary_samples(da, db, scalar),
        dtypes,
        method=name if method else None,
        grad_dtypes=grad,
        out=out,
        family="elementwise",
        **kw,
    )


F = FLOAT
FI = FLOAT + INT
ALLNUM = FLOAT + INT + CPLX
LOWTOL = {"float32": (1e-4, 1e-5)}

OPS = [
    _unary("abs", np.abs, F + HALF + INT + SMALLINT + CPLX, out="real", grad=GRAD_ALL),
    _unary("neg", np.negative, F + HALF + INT + CPLX, out="same", grad=GRAD_ALL),
    _unary("sign", np.sign, F + INT, out="same"),
    _unary("sgn", _sgn, F + INT + CPLX, out="same", grad=GRAD_ALL),
    _unary("exp", np.exp, F + HALF + INT + CPLX, grad=GRAD_ALL),
    _unary("exp2", np.exp2, F + INT),
    _unary("expm1", np.expm1, F + INT),
    _unary("log", np.log, F + HALF + INT + CPLX, "pos", grad=GRAD_ALL),
    _unary("log2", np.log2, F + INT + CPLX, "pos", grad=GRAD_ALL),
    _unary("log10", np.log10, F + INT + CPLX, "pos", grad=GRAD_ALL),
    _unary("log1p", np.log1p, F + INT + CPLX, "pos", grad=GRAD_ALL),
    _unary("sqrt", np.sqrt, F + HALF + INT + CPLX, "pos", grad=GRAD_ALL),
    _unary("rsqrt", lambda a: 1 / np.sqrt(a), F + INT + CPLX, "pos", grad=GRAD_ALL),
    _unary("sin", np.sin, F + HALF + INT + CPLX, grad=GRAD_ALL),
    _unary("cos", np.cos, F + INT + CPLX, grad=GRAD_ALL),
    _unary("tan", np.tan, F + CPLX, "unit", grad=GRAD_ALL),
    _unary("asin", np.arcsin, F + CPLX, "unit", grad=GRAD_ALL),
    _unary("acos", np.arccos, F + CPLX, "unit", grad=GRAD_ALL),
    _unary("atan", np.arctan, F + INT + CPLX, grad=GRAD_ALL),
    _unary("sinh", np.sinh, F + CPLX, grad=GRAD_ALL),
    _unary("cosh", np.cosh, F + CPLX, grad=GRAD_ALL),
    _unary("tanh", np.tanh, F + HALF + INT + CPLX, grad=GRAD_ALL),
    _unary("asinh", np.arcsinh, F + CPLX, grad=GRAD_ALL),
    _unary("acosh", np.arccosh, F + CPLX, "ge1", grad=GRAD_ALL),
    _unary("atanh", np.arctanh, F + CPLX, "unit", grad=GRAD_ALL),
    _unary("sigmoid", _sigmoid, F + HALF + INT + CPLX, grad=GRAD_ALL),
    _unary("erf", _vec(math.erf), F + INT),
    _unary("erfc", _vec(math.erfc), F + INT),
    _unary("erfinv", _erfinv, F, "unit", tol={"float64": (1e-8, 1e-8)}),
    _unary("lgamma", _vec(math.lgamma), F, "pos", tol=LOWTOL),
    _unary("floor", np.floor, F + INT, out="same"),
    _unary("ceil", np.ceil, F + INT, out="same"),
    _unary("round", _round, F + INT, out="same"),
    _unary("trunc", np.trunc, F + INT, out="same"),
    _unary("frac", lambda a: a - np.trunc(a), F, out="same"),
    _unary("reciprocal", lambda a: 1 / a, F + CPLX, "pos", grad=GRAD_ALL),
    _unary("square", np.square, F + INT + CPLX, out="same", grad=GRAD_ALL),
    _unary("relu", lambda a: np.maximum(a, 0), F + INT, out="same"),
    _unary("bitwise_not", np.invert, INT + SMALLINT + BOOL, out="same", grad=()),
    _unary("logical_not", np.logical_not, F + INT + BOOL + CPLX, out="bool", grad=()),
    _unary("isnan", np.isnan, F + INT + CPLX, out="bool", grad=()),
    _unary("isinf", np.isinf, F + INT + CPLX, out="bool", grad=()),
    _unary("isfinite", np.isfinite, F + INT + CPLX, out="bool", grad=()),
    _unary("nan_to_num", _nan_to_num, F, out="same"),
    OpInfo(
        "round_decimals",
        lambda t: tc.round(t, decimals=2),
        lambda a: np.round(a, 2),
        unary_samples(),
        F,
        out="same",
        grad_dtypes=GRAD_REAL,
        family="elementwise",
    ),
    OpInfo(
        "nan_to_num_special",
        lambda t: tc.nan_to_num(t, nan=1.5, posinf=9.0, neginf=-9.0),
        lambda a: np.nan_to_num(a, nan=1.5, posinf=9.0, neginf=-9.0),
        lambda dt, rng: [SampleInput(np.array([np.nan, np.inf, -np.inf, 2.5, -0.5], dt))],
        F,
        out="same",
        family="elementwise",
    ),
    OpInfo(
        "clamp",
        lambda t: tc.clamp(t, -1.0, 1.5),
        lambda a: np.clip(a, -1.0, 1.5),
        unary_samples(),
        F,
        method=None,
        grad_dtypes=GRAD_REAL,
        family="elementwise",
    ),
    OpInfo(
        "clamp_int",
        lambda t: tc.clamp(t, -2, 3),
        lambda a: np.clip(a, -2, 3),
        unary_samples(),
        INT,
        family="elementwise",
    ),
    OpInfo(
        "clamp_tensor",
        tc.clamp,
        lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi),
        lambda dt, rng: [
            SampleInput(
                make_arr(rng, (3, 4), dt),
                make_arr(rng, (4,), dt) - 1,
                make_arr(rng, (3, 1), dt, "pos"),
            )
        ],
        F,
        method="clamp",
        grad_dtypes=GRAD_REAL,
        family="elementwise",
    ),
    # arithmetic
    _binary("add", np.add, F + HALF + INT + SMALLINT + CPLX, grad=GRAD_ALL),
    _binary("sub", np.subtract, F + HALF + INT + CPLX, grad=GRAD_ALL),
    _binary("mul", np.multiply, F + HALF + INT + CPLX + BOOL, grad=GRAD_ALL),
    _binary("div", np.true_divide, F + HALF + INT + CPLX, db="nonzero", out="float", grad=GRAD_ALL),
    OpInfo(
        "div_floor",
        lambda a, b: tc.div(a, b, rounding_mode="floor"),
        np.floor_divide,
        binary_samples("any", "nonzero", scalar=False),
        F + INT,
        grad_dtypes=GRAD_REAL,
        family="elementwise",
    ),
    OpInfo(
        "div_trunc",
        lambda a, b: tc.div(a, b, rounding_mode="trunc"),
        lambda a, b: np.trunc(a / b).astype(np.result_type(a, b)),
        binary_samples("any", "nonzero", scalar=False),
        F + INT,
        grad_dtypes=GRAD_REAL,
        family="elementwise",
    ),
    _binary("floor_divide", np.floor_divide, F + INT, db="nonzero"),
    OpInfo(
        "add_alpha",
        lambda a, b: tc.add(a, b, alpha=2),
        lambda a, b: a + 2 * b,
        binary_samples(scalar=False),
        F + INT,
        grad_dtypes=GRAD_REAL,
        family="elementwise",
    ),
    _binary("remainder", np.mod, F + INT, db="nonzero"),
    _binary("fmod", np.fmod, F + INT, db="nonzero"),
    _binary("pow", np.power, F + CPLX, da="pos", db="small", grad=GRAD_ALL),
    OpInfo(
        "pow_int",
        tc.pow,
        np.power,
        binary_samples("any", "small", scalar=True),
        INT,
        method="pow",
        family="elementwise",
    ),
    _binary("atan2", np.arctan2, F + INT, out="float"),
    _binary("hypot", np.hypot, F),
    _binary("maximum", np.maximum, F + INT + BOOL, scalar=False),
    _binary("minimum", np.minimum, F + INT + BOOL, scalar=False),
    _binary("fmax", np.fmax, F + INT, scalar=False),
    _binary("fmin", np.fmin, F + INT, scalar=False),
    OpInfo(
        "lerp",
        tc.lerp,
        lambda s, e, w: s + w * (e - s),
        lambda dt, rng: [
            SampleInput(
                make_arr(rng, (3, 4), dt),
                make_arr(rng, (4,), dt),
                make_arr(rng, (3, 1), dt, "unit"),
            ),
            SampleInput(make_arr(rng, (2, 3), dt), make_arr(rng, (2, 3), dt), 0.3),
        ],
        F + CPLX,
        method="lerp",
        grad_dtypes=GRAD_ALL,
        family="elementwise",
    ),
    # comparisons, logical, bitwise
    _binary("eq", np.equal, F + INT + BOOL + CPLX, out="bool", grad=()),
    _binary("ne", np.not_equal, F + INT + BOOL + CPLX, out="bool", grad=()),
    _binary("lt", np.less, F + INT + BOOL, out="bool", grad=()),
    _binary("le", np.less_equal, F + INT + BOOL, out="bool", grad=()),
    _binary("gt", np.greater, F + HALF + INT + BOOL, out="bool", grad=()),
    _binary("ge", np.greater_equal, F + INT + BOOL, out="bool", grad=()),
    _binary("logical_and", np.logical_and, F + INT + BOOL + CPLX, out="bool", grad=()),
    _binary("logical_or", np.logical_or, F + INT + BOOL + CPLX, out="bool", grad=()),
    _binary("logical_xor", np.logical_xor, F + INT + BOOL + CPLX, out="bool", grad=()),
    _binary("bitwise_and", np.bitwise_and, INT + SMALLINT + BOOL, grad=()),
    _binary("bitwise_or", np.bitwise_or, INT + SMALLINT + BOOL, grad=()),
    _binary("bitwise_xor", np.bitwise_xor, INT + SMALLINT + BOOL, grad=()),
    _binary("bitwise_left_shift", np.left_shift, INT, da="small", db="small", grad=()),
    _binary("bitwise_right_shift", np.right_shift, INT, db="small", grad=()),
    # predicates
    _unary("isposinf", np.isposinf, F + INT, out="bool", grad=()),
    _unary("isneginf", np.isneginf, F + INT, out="bool", grad=()),
    # complex helpers
    OpInfo(
        "real",
        tc.real,
        np.real,
        unary_samples(),
        F + CPLX,
        out="real",
        grad_dtypes=GRAD_ALL,
        family="complex",
    ),
    OpInfo(
        "imag",
        tc.imag,
        np.imag,
        unary_samples(),
        CPLX,
        out="real",
        grad_dtypes=("complex128",),
        family="complex",
    ),
    _unary("conj", np.conj, F + CPLX, out="same", grad=GRAD_ALL),
    _unary("angle", np.angle, F + CPLX, out="real", grad=GRAD_ALL),
    OpInfo(
        "polar",
        tc.polar,
        lambda r, th: r * np.exp(1j * th),
        binary_samples("pos", "any", scalar=False),
        F,
        out="complex",
        grad_dtypes=GRAD_REAL,
        family="complex",
    ),
    OpInfo(
        "complex",
        tc.complex,
        lambda r, i: r + 1j * i,
        binary_samples(scalar=False),
        F,
        out="complex",
        grad_dtypes=GRAD_REAL,
        family="complex",
    ),
    OpInfo(
        "view_as_real",
        tc.view_as_real,
        lambda z: np.stack([z.real, z.imag], -1),
        unary_samples(),
        CPLX,
        out="real",
        grad_dtypes=("complex128",),
        family="complex",
        layouts=("contiguous", "expanded"),
    ),
    OpInfo(
        "view_as_complex",
        tc.view_as_complex,
        lambda a: a[..., 0] + 1j * a[..., 1],
        lambda dt, rng: [SampleInput(make_arr(rng, s + (2,), dt)) for s in [(), (3,), (2, 3)]],
        F,
        out="complex",
        grad_dtypes=GRAD_REAL,
        family="complex",
        layouts=("contiguous",),
    ),
]

# ternary where (condition is an index-like bool argument)
OPS.append(
    OpInfo(
        "where",
        lambda c, a, b: tc.where(c, a, b),
        lambda c, a, b: np.where(c, a, b),
        lambda dt, rng: [
            SampleInput(
                Idx(rng.random((3, 4)) > 0.5), make_arr(rng, (3, 4), dt), make_arr(rng, (4,), dt)
            ),
            SampleInput(
                Idx(rng.random((3, 1)) > 0.5), make_arr(rng, (1, 4), dt), make_arr(rng, (), dt)
            ),
        ],
        F + INT + BOOL + CPLX,
        grad_dtypes=GRAD_ALL,
        family="indexing",
    )
)

# Python operators: the dunder forms must agree with NumPy's operators too.
import operator as _opmod  # noqa: E402

for _name, _f, _dts, _db, _out in [
    ("op_add", _opmod.add, F + INT + CPLX, "any", "same"),
    ("op_sub", _opmod.sub, F + INT + CPLX, "any", "same"),
    ("op_mul", _opmod.mul, F + INT + CPLX, "any", "same"),
    ("op_truediv", _opmod.truediv, F + INT + CPLX, "nonzero", "float"),
    ("op_floordiv", _opmod.floordiv, F + INT, "nonzero", "same"),
    ("op_mod", _opmod.mod, F + INT, "nonzero", "same"),
    ("op_pow", _opmod.pow, F, "small", "same"),
    ("op_and", _opmod.and_, INT + BOOL, "any", "same"),
    ("op_or", _opmod.or_, INT + BOOL, "any", "same"),
    ("op_xor", _opmod.xor, INT + BOOL, "any", "same"),
    ("op_lshift", _opmod.lshift, INT, "small", "same"),
    ("op_rshift", _opmod.rshift, INT, "small", "same"),
    ("op_eq", _opmod.eq, F + INT + BOOL, "any", "bool"),
    ("op_lt", _opmod.lt, F + INT, "any", "bool"),
    ("op_ge", _opmod.ge, F + INT, "any", "bool"),
]:
    OPS.append(
        OpInfo(
            _name,
            _f,
            _f,
            binary_samples("small" if _name in ("op_pow", "op_lshift") else "any", _db),
            _dts,
            out=_out,
            grad_dtypes=tuple(
                d
                for d in GRAD_ALL
                if d in _dts and _out != "bool" and _name not in ("op_floordiv", "op_mod")
            ),
            family="elementwise",
        )
    )

for _name, _f, _dts in [
    ("op_neg", _opmod.neg, F + INT + CPLX),
    ("op_invert", _opmod.invert, INT + BOOL),
    ("op_abs", abs, F + INT + CPLX),
    ("op_pos", _opmod.pos, F + INT),
]:
    OPS.append(
        OpInfo(
            _name,
            _f,
            _f,
            unary_samples(),
            _dts,
            out="real" if _name == "op_abs" else "same",
            grad_dtypes=tuple(d for d in GRAD_ALL if d in _dts),
            family="elementwise",
        )
    )
