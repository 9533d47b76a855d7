"""More torch 1.13 functions and Tensor methods composed from native ops (issue 22, point 5):
meshgrid, tril/triu_indices, cdist, dist, isin, gcd/lcm, cov/corrcoef, quantile/nanquantile,
Tensor.unfold, fill_diagonal_, trapezoid/trapz/cumulative_trapezoid, atleast_3d, dstack,
column_stack, row_stack, block_diag, cartesian_prod, combinations, renorm, ldexp, range,
frobenius_norm, nuclear_norm and the conj/neg-bit queries. Installed by tensorcore/__init__.py;
names the package already has are left alone."""

import itertools
import math

import numpy as _np

from . import _C
from ._C import Tensor
from ._extra_ops import inplace_update
from ._tensor import tensor as _tensor


def _t(x, like=None):
    if isinstance(x, Tensor):
        return x
    if like is not None:
        return (
            _C.full([], x, dtype=like.dtype, device=like.device)
            if not isinstance(x, (list, tuple))
            else _tensor(list(x), dtype=like.dtype, device=like.device)
        )
    return _tensor(x)


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.dim()}D"
            )
    ts = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.shape[0] for t in ts]
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = shape[i]
        out.append(t.reshape(view).expand(shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def _tri_indices(row, col, offset, dtype, device, upper):
    r, c = (_np.triu_indices if upper else _np.tril_indices)(row, offset, col)
    out = _C.from_numpy(_np.stack([r, c]).astype(_np.int64).reshape(2, -1))
    return out.to(dtype or _C.int64) if device is None else out.to(device, dtype or _C.int64)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(row, col, offset, dtype, device, False)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices(row, col, offset, dtype, device, True)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    from .linalg import vector_norm

    return vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, (-1,))


def dist(input, other, p=2):
    from .linalg import vector_norm

    return vector_norm(input - other, p)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    like = elements if isinstance(elements, Tensor) else test_elements
    e = _t(elements, like)
    t = _t(test_elements, like).reshape(-1)
    if t.numel() == 0:
        r = _C.zeros(list(e.shape), dtype=_C.bool, device=e.device)
    else:
        s = t.sort().values
        idx = _C.searchsorted(s, e.reshape(-1)).clamp(0, s.numel() - 1)
        r = (s[idx] == e.reshape(-1)).reshape(list(e.shape))
    return r.logical_not() if invert else r


def gcd(input, other):
    if input.dtype.is_floating_point or input.dtype.is_complex:
        raise RuntimeError(f"\"gcd_cpu\" not implemented for '{str(input.dtype).split('.')[-1]}'")
    a, b = (
        _C.broadcast_tensors(input.abs(), other.abs())
        if hasattr(_C, "broadcast_tensors")
        else (input.abs(), other.abs())
    )
    a, b = a.clone(), b.clone()
    while (b != 0).any().item():
        nz = b != 0
        r = _C.where(nz, a % _C.where(nz, b, _C.ones_like(b)), _C.zeros_like(a))
        a, b = _C.where(nz, b, a), r
    return a


def lcm(input, other):
    g = gcd(input, other)
    prod = (input * other).abs()
    return _C.where(g == 0, _C.zeros_like(g), prod // _C.where(g == 0, _C.ones_like(g), g))


def cov(input, *, correction=1, fweights=None, aweights=None):
    if input.dim() > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions"
        )
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(_C.float32)
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights.to(x.dtype if not x.dtype.is_complex else x.dtype.to_real())
    if aweights is not None:
        aw = aweights.to(x.dtype if not x.dtype.is_complex else x.dtype.to_real())
        w = aw if w is None else w * aw
    if w is None:
        w_sum = _C.full(
            [], float(n), dtype=x.dtype if not x.dtype.is_complex else x.dtype.to_real()
        )
        avg = x.mean(1)
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
    if w is None:
        norm = w_sum - correction
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    norm = norm.clamp(min=0)
    xm = x - avg.unsqueeze(1)
    xw = xm * w if w is not None else xm
    c = _C.matmul(xw, xm.transpose(0, 1).conj() if xm.dtype.is_complex else xm.transpose(0, 1))
    c = c / norm
    return c.reshape([]) if input.dim() < 2 else c


def corrcoef(input):
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = _C.diagonal(c, 0, 0, 1)
    if c.dtype.is_complex:
        d = d.real
    std = d.sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c.dtype.is_complex:
        return _C.complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, op):
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(
            f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got {interpolation}"
        )
    scalar_q = not isinstance(q, Tensor)
    qt = _C.full([1], float(q), dtype=input.dtype) if scalar_q else q.to(input.dtype).reshape(-1)
    if scalar_q is False and q.dim() > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
    if ((qt < 0) | (qt > 1)).any().item():
        raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        d = dim % max(input.dim(), 1)
        x = input if input.dim() else input.reshape(1)
    x = x.movedim(d, -1)
    if x.shape[-1] == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    s = x.sort(-1).values  # NaNs sort last
    isnan = s.isnan()
    n_valid = (
        (~isnan).sum(-1, keepdim=True).to(input.dtype)
        if ignore_nan
        else _C.full(list(s.shape[:-1]) + [1], float(s.shape[-1]), dtype=input.dtype)
    )
    pos = qt.reshape([1] * (s.dim() - 1) + [-1]) * (n_valid - 1).clamp(min=0)  # [..., nq]
    if interpolation == "lower":
        pos = pos.floor()
    elif interpolation == "higher":
        pos = pos.ceil()
    elif interpolation == "nearest":
        pos = pos.round()
    lo = pos.floor().clamp(min=0)
    hi = pos.ceil().clamp(min=0)
    last = s.shape[-1] - 1
    lo_v = s.gather(-1, lo.to(_C.int64).clamp(max=last))
    hi_v = s.gather(-1, hi.to(_C.int64).clamp(max=last))
    if interpolation == "midpoint":
        frac = _C.where(hi > lo, _C.full_like(pos, 0.5), _C.zeros_like(pos))
    else:
        frac = pos - lo
    out = lo_v + (hi_v - lo_v) * frac
    out = _C.where(lo == hi, lo_v, out)
    nan_mask = (n_valid == 0) if ignore_nan else isnan.any(-1, keepdim=True)
    out = _C.where(nan_mask.expand(list(out.shape)), _C.full_like(out, float("nan")), out)
    out = out.movedim(-1, 0)  # [nq, ...]
    if keepdim:
        if dim is None:
            out = out.reshape([out.shape[0]] + [1] * input.dim())
        else:
            out = out.unsqueeze(d + 1)
    return out[0] if scalar_q else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def unfold(self, dimension, size, step):
    """Tensor.unfold: a view with all slices of `size` along `dimension`, `step` apart."""
    nd = max(self.dim(), 1)
    d = dimension % nd
    length = self.shape[d] if self.dim() else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if self.dim() == 0:
        return self.reshape(1)
    shape, strides = list(self.shape), list(self.stride())
    shape[d] = (length - size) // step + 1
    from .autograd.grad_mode import is_grad_enabled

    if self.requires_grad and is_grad_enabled():
        # as_strided's backward does not add up overlapping windows: gather instead (a copy,
        # not a view, while recording gradients)
        idx = _C.arange(shape[d], device=self.device).unsqueeze(1) * step + _C.arange(
            size, device=self.device
        ).unsqueeze(0)
        picked = self.index_select(d, idx.reshape(-1))
        picked = picked.reshape(shape[:d] + [shape[d], size] + shape[d + 1 :])
        return picked.movedim(d + 1, -1)
    new_strides = strides[:]
    new_strides[d] = strides[d] * step
    return _C.as_strided(self, shape + [size], new_strides + [strides[d]], self.storage_offset())


def fill_diagonal_(self, fill_value, wrap=False):
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.dim() > 2:
        n = self.shape[0]
        diag = _C.as_strided(self, [n], [sum(self.stride())], self.storage_offset())
        diag.fill_(fill_value)
        return self
    rows, cols = self.shape
    if not wrap or rows <= cols:
        self.diagonal().fill_(fill_value)
        return self
    start = 0
    while start < rows:
        self[start : start + cols].diagonal().fill_(fill_value)
        start += cols + 1
    return self


def trapezoid(y, x=None, *, dx=None, dim=-1):
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: cannot pass both x and dx")
    n = y.shape[dim]
    if n == 0:
        return y.sum(dim) * 0
    a, b = y.narrow(dim, 0, n - 1), y.narrow(dim, 1, n - 1)
    if x is None:
        return (a + b).sum(dim) * ((1.0 if dx is None else dx) / 2.0)
    dxs = x.diff(dim=dim if x.dim() > 1 else -1)
    if x.dim() == 1:
        view = [1] * y.dim()
        view[dim % y.dim()] = n - 1
        dxs = dxs.reshape(view)
    return ((a + b) * dxs).sum(dim) / 2.0


def trapz(y, x=None, *, dx=None, dim=-1):
    if isinstance(x, (int, float)) and dx is None:
        x, dx = None, x
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    n = y.shape[dim]
    a, b = y.narrow(dim, 0, max(n - 1, 0)), y.narrow(dim, 1, max(n - 1, 0))
    if x is None:
        parts = (a + b) * ((1.0 if dx is None else dx) / 2.0)
    else:
        dxs = x.diff(dim=dim if x.dim() > 1 else -1)
        if x.dim() == 1:
            view = [1] * y.dim()
            view[dim % y.dim()] = n - 1
            dxs = dxs.reshape(view)
        parts = (a + b) * dxs / 2.0
    return parts.cumsum(dim)


def atleast_3d(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_3d(t) for t in tensors[0])
    if len(tensors) > 1:
        return tuple(atleast_3d(t) for t in tensors)
    t = tensors[0]
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.reshape(1, -1, 1)
    if t.dim() == 2:
        return t.unsqueeze(-1)
    return t


def dstack(tensors):
    return _C.cat([atleast_3d(t) for t in tensors], 2)


def column_stack(tensors):
    return _C.hstack([t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors])


def row_stack(tensors):
    return _C.vstack(list(tensors))


def block_diag(*tensors):
    mats = [
        t.reshape(1, -1) if t.dim() == 1 else (t.reshape(1, 1) if t.dim() == 0 else t)
        for t in tensors
    ]
    for i, m in enumerate(mats):
        if m.dim() != 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {m.dim()} dimensions"
            )
    if not mats:
        return _C.empty([1, 0])
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = _C.promote_types(dtype, m.dtype)
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    out = _C.zeros([rows, cols], dtype=dtype, device=mats[0].device)
    r = c = 0
    blocks = []
    for m in mats:
        h, w = m.shape
        left = _C.zeros([h, c], dtype=dtype, device=m.device)
        right = _C.zeros([h, cols - c - w], dtype=dtype, device=m.device)
        blocks.append(_C.cat([left, m.to(dtype), right], 1))
        r += h
        c += w
    return _C.cat(blocks, 0) if blocks else out


def cartesian_prod(*tensors):
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _C.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    n = input.shape[0]
    if not isinstance(r, int) or r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    count = math.comb(n + r - 1, r) if with_replacement else (math.comb(n, r) if r <= n else 0)
    if count * max(r, 1) > 2**31:
        raise ValueError(f"combinations(): {count} combinations of length {r} is too large")
    if count == 0:
        return _C.empty([0, r], dtype=input.dtype, device=input.device)
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(gen(range(n), r))
    if not idx:
        return _C.empty([0, r] if r > 0 else [0], dtype=input.dtype, device=input.device)
    index = _tensor([list(i) for i in idx], dtype=_C.int64, device=input.device)
    return input[index.reshape(-1)].reshape(len(idx), r)


def renorm(input, p, dim, maxnorm):
    d = dim % input.dim()
    x = input.movedim(d, 0)
    from .linalg import vector_norm

    norms = vector_norm(x.reshape(x.shape[0], -1), p, (1,))
    factor = _C.where(norms > maxnorm, maxnorm / (norms + 1e-7), _C.ones_like(norms))
    view = [1] * input.dim()
    view[d] = -1
    return input * factor.reshape(view)


def renorm_(self, p, dim, maxnorm):
    return inplace_update(self, renorm, p, dim, maxnorm)


def ldexp(input, other):
    out = input * _C.pow(
        2.0, other.to(input.dtype if input.dtype.is_floating_point else _C.float32)
    )
    return out


def ldexp_(self, other):
    return inplace_update(self, ldexp, other)


def _torch_range(
    start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None
):
    """torch.range (deprecated in torch): like arange, but the end is included."""
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    r = start + _C.arange(0, max(n, 0), dtype=dtype or _C.float32, device=device) * step
    return r.requires_grad_(requires_grad) if requires_grad else r


_torch_range.__name__ = "range"


def frobenius_norm(input, dim=(-2, -1), keepdim=False):
    from .linalg import vector_norm

    return vector_norm(input, 2, dim, keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    from .linalg import matrix_norm

    if isinstance(dim, bool):
        dim, keepdim = None, dim
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def is_complex(input):
    return input.dtype.is_complex


def is_floating_point(input):
    return input.dtype.is_floating_point


def is_conj(input):
    """tensorcore has no lazy conjugate bit: conj() results are materialized."""
    return False


def is_neg(input):
    return False


def resolve_conj(input):
    return input


def resolve_neg(input):
    return input


def conj_physical(input):
    return _C.conj(input) if input.dtype.is_complex else input.clone()


def conj_physical_(self):
    if self.dtype.is_complex:
        self.copy_(_C.conj(self))
    return self


_FUNCTIONS = [
    meshgrid,
    tril_indices,
    triu_indices,
    cdist,
    dist,
    isin,
    gcd,
    lcm,
    cov,
    corrcoef,
    quantile,
    nanquantile,
    trapezoid,
    trapz,
    cumulative_trapezoid,
    atleast_3d,
    dstack,
    column_stack,
    row_stack,
    block_diag,
    cartesian_prod,
    combinations,
    renorm,
    ldexp,
    _torch_range,
    frobenius_norm,
    nuclear_norm,
    is_complex,
    is_floating_point,
    is_conj,
    is_neg,
    resolve_conj,
    resolve_neg,
    conj_physical,
    conj_physical_,
]
_METHODS = {
    "dist": dist,
    "isin": None,
    "gcd": gcd,
    "lcm": lcm,
    "cov": cov,
    "corrcoef": corrcoef,
    "quantile": quantile,
    "nanquantile": nanquantile,
    "unfold": unfold,
    "fill_diagonal_": fill_diagonal_,
    "renorm": renorm,
    "renorm_": renorm_,
    "ldexp": ldexp,
    "ldexp_": ldexp_,
    "is_conj": is_conj,
    "is_neg": is_neg,
    "resolve_conj": resolve_conj,
    "resolve_neg": resolve_neg,
    "conj_physical": conj_physical,
    "conj_physical_": conj_physical_,
}


def install(namespace):
    from ._argcheck import harden

    table = {fn.__name__: fn for fn in _FUNCTIONS}
    harden(table, "tensorcore")
    for name, fn in table.items():
        namespace.setdefault(name, fn)
    methods = {k: v for k, v in _METHODS.items() if v is not None}
    harden(methods, "Tensor")
    for name, fn in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
