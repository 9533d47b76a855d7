"""torch 1.13 math functions composed from native ops: gradient (numpy.gradient's scheme),
histogram / histogramdd (numpy's binning), mvlgamma, result_type, and the in-place forms
Tensor.gcd_/lcm_/polygamma_/mvlgamma_ plus the hardshrink/prelu methods. Installed by
tensorcore/__init__.py."""

import builtins
import math

from . import _C
from ._C import Tensor
from ._extra_ops import inplace_update


def _check_tensor(x, op, name="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(x).__name__}")


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on the two arguments (tensors or Python numbers) returns,
    with torch's promotion rules: dimensioned tensors rank above 0-d tensors above numbers."""

    def probe(x, name):
        if isinstance(x, Tensor):
            return _C.empty([] if x.dim() == 0 else [0], dtype=x.dtype)
        if isinstance(x, (bool, int, float, complex)):
            return x
        raise TypeError(
            f"result_type(): argument '{name}' must be a Tensor or a number, got {type(x).__name__}"
        )

    a, b = probe(tensor1, "tensor1"), probe(tensor2, "tensor2")
    if _is_bool(a) and _is_bool(b):
        return _C.bool
    if not isinstance(a, Tensor):
        a, b = b, a  # promotion is symmetric; add() wants the tensor first
    if not isinstance(a, Tensor):  # two numbers: the dtype a tensor of the first would get
        from ._tensor import tensor as _tensor

        a = _tensor(a)
        a = _C.empty([] if isinstance(b, (bool, int, float, complex)) else [0], dtype=a.dtype)
    return _C.add(a, b).dtype


def _is_bool(x):
    return (isinstance(x, Tensor) and x.dtype == _C.bool) or isinstance(x, bool)


def mvlgamma(input, p):
    """Multivariate log-gamma of dimension p, elementwise:
    sum_{j<p} lgamma(input - j/2) + p(p-1)/4 * log(pi). Every element must exceed (p-1)/2.

    Example::

        >>> tc.mvlgamma(tc.tensor([2.5]), 2)
        tensor([0.8570])
    """
    _check_tensor(input, "mvlgamma")
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(f"mvlgamma(): p has to be greater than or equal to 1, got {p}")
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    if x.numel() and not bool((x > (p - 1) / 2).all()):
        raise RuntimeError(f"mvlgamma(): all elements must be greater than (p-1)/2 = {(p - 1) / 2}")
    offsets = _C.arange(p, dtype=x.dtype, device=x.device) / 2
    terms = _C.lgamma(x.unsqueeze(-1) - offsets)
    return terms.sum(-1) + p * (p - 1) / 4 * math.log(math.pi)


def _mvlgamma_(self, p):
    return inplace_update(self, mvlgamma, p)


def _gcd_(self, other):
    from ._more_ops import gcd

    return inplace_update(self, gcd, other)


def _lcm_(self, other):
    from ._more_ops import lcm

    return inplace_update(self, lcm, other)


def _polygamma_(self, n):
    return inplace_update(self, Tensor.polygamma, n)


def frexp(input):
    """Splits each element into a mantissa in [0.5, 1) (by magnitude) and an int32 power of two:
    input = mantissa * 2 ** exponent. Zeros, infinities and NaN keep their value with exponent 0.

    Example::

        >>> mantissa, exponent = tc.frexp(tc.tensor([8.0, -0.75]))
        >>> mantissa
        tensor([ 0.5000, -0.7500])
        >>> exponent
        tensor([4, 0], dtype=tensorcore.int32)
    """
    from .return_types import frexp as _result

    _check_tensor(input, "frexp")
    if not input.is_floating_point():
        raise TypeError(f"frexp(): only supports floating-point dtypes, got {input.dtype}")
    # float64 holds every reduced-precision value exactly and its exponent range covers them.
    x = input.double()
    ordinary = _C.isfinite(x) & (x != 0)
    safe = _C.where(ordinary, x.abs(), _C.ones_like(x))
    exponent = (_C.floor(_C.log2(safe)) + 1).to(_C.int32)
    # 2**-e in two halves: for subnormals 2**1074 alone would overflow.
    half = exponent // 2
    scale_a = _C.pow(2.0, (-half).double())
    scale_b = _C.pow(2.0, (half - exponent).double())
    mantissa = x * scale_a * scale_b
    # log2 can round across a power of two: bring |mantissa| back into [0.5, 1).
    big = mantissa.abs() >= 1.0
    mantissa = _C.where(big, mantissa / 2, mantissa)
    exponent = _C.where(big, exponent + 1, exponent)
    small = ordinary & (mantissa.abs() < 0.5)
    mantissa = _C.where(small, mantissa * 2, mantissa)
    exponent = _C.where(small, exponent - 1, exponent)
    mantissa = _C.where(ordinary, mantissa, x)
    exponent = _C.where(ordinary, exponent, _C.zeros_like(exponent))
    return _result(mantissa.to(input.dtype), exponent)


def _gradient_1d(f, d, h, coords, edge_order):
    """Derivative of f along dim d; h a float spacing or coords a 1-D coordinate tensor."""
    n = f.shape[d]
    if n < edge_order + 1:
        raise RuntimeError(
            f"gradient(): expected each dimension size to be at least edge_order+1 "
            f"({edge_order + 1}), got {n} along dim {d}"
        )
    g = f.movedim(d, -1)
    out = _C.empty_like(g)
    if coords is None:
        out[..., 1:-1] = (g[..., 2:] - g[..., :-2]) / (2 * h)
        if edge_order == 1:
            out[..., 0] = (g[..., 1] - g[..., 0]) / h
            out[..., -1] = (g[..., -1] - g[..., -2]) / h
        else:
            out[..., 0] = (-1.5 * g[..., 0] + 2 * g[..., 1] - 0.5 * g[..., 2]) / h
            out[..., -1] = (0.5 * g[..., -3] - 2 * g[..., -2] + 1.5 * g[..., -1]) / h
        return out.movedim(-1, d)
    x = coords.to(g.dtype)
    dx = x[1:] - x[:-1]
    hl, hr = dx[:-1], dx[1:]  # spacing left and right of each interior point
    a = -hr / (hl * (hl + hr))
    b = (hr - hl) / (hl * hr)
    c = hl / (hr * (hl + hr))
    out[..., 1:-1] = a * g[..., :-2] + b * g[..., 1:-1] + c * g[..., 2:]
    if edge_order == 1:
        out[..., 0] = (g[..., 1] - g[..., 0]) / dx[0]
        out[..., -1] = (g[..., -1] - g[..., -2]) / dx[-1]
    else:
        h1, h2 = dx[0], dx[1]
        out[..., 0] = (
            -(2 * h1 + h2) / (h1 * (h1 + h2)) * g[..., 0]
            + (h1 + h2) / (h1 * h2) * g[..., 1]
            - h1 / (h2 * (h1 + h2)) * g[..., 2]
        )
        h1, h2 = dx[-2], dx[-1]
        out[..., -1] = (
            h2 / (h1 * (h1 + h2)) * g[..., -3]
            - (h2 + h1) / (h1 * h2) * g[..., -2]
            + (2 * h2 + h1) / (h2 * (h1 + h2)) * g[..., -1]
        )
    return out.movedim(-1, d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates the derivative of input along each dim with second-order accurate central
    differences inside and first- or second-order (edge_order) one-sided differences at the
    edges, as numpy.gradient. spacing: a number, one number per dim, or one 1-D coordinate
    tensor per dim. Returns a tuple with one tensor per dim.

    Example::

        >>> tc.gradient(tc.tensor([1.0, 4.0, 9.0, 16.0]))
        (tensor([3., 4., 6., 7.]),)
    """
    _check_tensor(input, "gradient")
    if edge_order not in (1, 2):
        raise ValueError(f"gradient(): edge_order must be 1 or 2, got {edge_order}")
    if dim is None:
        dims = list(range(input.dim()))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = [d % max(input.dim(), 1) for d in dims]
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"gradient(): dim {dim} holds a dimension twice")
    if isinstance(spacing, (int, float)) or (isinstance(spacing, Tensor) and spacing.dim() == 0):
        spacings = [float(spacing)] * len(dims)
    else:
        spacings = list(spacing)
        if len(spacings) == 1 and len(dims) > 1 and not isinstance(spacings[0], Tensor):
            spacings = spacings * len(dims)
        if len(spacings) != len(dims):
            raise RuntimeError(
                f"gradient(): expected spacing to be unspecified, a scalar, or a list of length "
                f"{len(dims)} (one per dim), got a list of length {len(spacings)}"
            )
    f = input if input.is_floating_point() or input.is_complex() else input.double()
    results = []
    for d, s in zip(dims, spacings):
        if isinstance(s, Tensor) and s.dim() == 1:
            if s.numel() != input.shape[d]:
                raise RuntimeError(
                    f"gradient(): coordinates for dim {d} have {s.numel()} entries, the input "
                    f"has {input.shape[d]}"
                )
            results.append(_gradient_1d(f, d, None, s, edge_order))
        else:
            results.append(_gradient_1d(f, d, float(s), None, edge_order))
    return tuple(results)


def _bin_edges(values, bins, lo_hi, op, dim_name=""):
    """Edges as a tensor: given, or bins equal-width bins over lo_hi (or the data's range)."""
    if isinstance(bins, Tensor):
        if bins.dim() != 1 or bins.numel() < 2:
            raise ValueError(f"{op}(): bins{dim_name} must be a 1-D tensor of at least 2 edges")
        edges = bins.to(values.dtype)
        if bool((edges[1:] < edges[:-1]).any()):
            raise ValueError(f"{op}(): bin edges{dim_name} must increase monotonically")
        return edges
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ValueError(f"{op}(): bins{dim_name} must be a positive int, got {bins!r}")
    if lo_hi is None:
        if values.numel():
            lo, hi = float(values.min()), float(values.max())
        else:
            lo, hi = 0.0, 1.0
    else:
        lo, hi = float(lo_hi[0]), float(lo_hi[1])
        if lo > hi:
            raise ValueError(f"{op}(): range{dim_name} min {lo} must not exceed max {hi}")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"{op}(): range{dim_name} [{lo}, {hi}] is not finite")
    if lo == hi:  # numpy widens an empty range by half a unit on each side
        lo, hi = lo - 0.5, hi + 0.5
    return _C.linspace(lo, hi, bins + 1, dtype=values.dtype, device=values.device)


def _bin_index(values, edges):
    """Bin of each value (-1 outside); the last bin includes its right edge, as numpy."""
    idx = _C.searchsorted(edges, values.contiguous(), right=True) - 1
    nbins = edges.numel() - 1
    idx = _C.where(values == edges[-1], _C.full_like(idx, nbins - 1), idx)
    inside = (idx >= 0) & (idx < nbins)
    return idx, inside


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """Histogram of input's values: (hist, bin_edges), as numpy.histogram. bins: a count of
    equal-width bins over range (default: the data's min and max) or a 1-D tensor of edges.
    weight (same shape as input) weights each value; density=True normalises to a density.

    Example::

        >>> hist, edges = tc.histogram(tc.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0))
        >>> hist
        tensor([0., 2., 1., 0.])
    """
    from .return_types import histogram as _result

    _check_tensor(input, "histogram")
    if weight is not None:
        _check_tensor(weight, "histogram", "weight")
    hist, edges = histogramdd(
        input.reshape(-1, 1),
        [bins] if not isinstance(bins, Tensor) else [bins],
        range=None if range is None else list(range),
        weight=None if weight is None else weight.reshape(-1),
        density=density,
        _op="histogram",
    )
    return _result(hist, edges[0])


def histogramdd(input, bins=10, *, range=None, weight=None, density=False, _op="histogramdd"):
    """D-dimensional histogram of the points input (..., D): (hist, bin_edges) with hist of
    shape (bins_0, ..., bins_{D-1}) and one edge tensor per dimension, as numpy.histogramdd.
    bins: an int, one int per dimension, or one edge tensor per dimension; range: a flat
    sequence (min_0, max_0, min_1, max_1, ...)."""
    from .return_types import histogramdd as _result

    _check_tensor(input, _op)
    if not input.is_floating_point():
        raise TypeError(f"{_op}(): input must be a floating-point tensor, got {input.dtype}")
    if input.dim() < 1:
        raise ValueError(f"{_op}(): input must have at least one dimension (..., D)")
    d = input.shape[-1]
    points = input.reshape(-1, d)
    per_dim = bins if isinstance(bins, (list, tuple)) else [bins] * d
    if len(per_dim) != d:
        raise ValueError(f"{_op}(): {len(per_dim)} bin specifications for {d}-D points")
    if range is not None and len(range) != 2 * d:
        raise ValueError(f"{_op}(): range must hold 2*D = {2 * d} numbers, got {len(range)}")
    if weight is not None:
        _check_tensor(weight, _op, "weight")
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise ValueError(
                f"{_op}(): weight {list(weight.shape)} must match the input without its last "
                f"dimension {list(input.shape[:-1])}"
            )
    edges, flat, keep, sizes = [], None, None, []
    for k in builtins.range(d):
        values = points[:, k]
        lo_hi = None if range is None else range[2 * k : 2 * k + 2]
        e = _bin_edges(values, per_dim[k], lo_hi, _op, f"[{k}]" if d > 1 else "")
        idx, inside = _bin_index(values, e)
        n = e.numel() - 1
        flat = idx if flat is None else flat * n + idx
        keep = inside if keep is None else keep & inside
        edges.append(e)
        sizes.append(n)
    total = 1
    for n in sizes:
        total *= n
    w = (
        _C.ones([points.shape[0]], dtype=input.dtype, device=input.device)
        if weight is None
        else weight.reshape(-1).to(input.dtype)
    )
    hist = _C.zeros([total], dtype=input.dtype, device=input.device)
    hist.index_put_((flat[keep],), w[keep], True)
    hist = hist.reshape(sizes)
    if density:
        cell = None
        for k, e in enumerate(edges):
            widths = (e[1:] - e[:-1]).reshape([-1 if j == k else 1 for j in builtins.range(d)])
            cell = widths if cell is None else cell * widths
        hist = hist / (hist.sum() * cell)
    return _result(hist, edges)


def _hardshrink(self, lambd=0.5):
    from .nn import functional as F

    return F.hardshrink(self, lambd)


def _prelu(self, weight):
    from .nn import functional as F

    return F.prelu(self, weight)


_FUNCTIONS = (result_type, mvlgamma, gradient, histogram, histogramdd, frexp)
_METHODS = {
    "mvlgamma": mvlgamma,
    "mvlgamma_": _mvlgamma_,
    "gcd_": _gcd_,
    "lcm_": _lcm_,
    "polygamma_": _polygamma_,
    "histogram": histogram,
    "frexp": frexp,
    "hardshrink": _hardshrink,
    "prelu": _prelu,
}
