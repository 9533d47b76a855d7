"""Tensor functions of torch 1.6-1.8 that are compositions of the native ops.

Each is differentiable through the ops it is built from. `install` exports them as `tc.<name>`
and, where torch has one, as a Tensor method.
"""

import math

from . import _C
from ._C import Tensor


def _check_tensor(x, op, name="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(x).__name__}")


def _dim(x, dim, op):
    n = max(x.dim(), 1)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{op}(): dim must be an int, got {type(dim).__name__}")
    if not -n <= dim < n:
        raise IndexError(f"{op}(): dim {dim} is out of range for a {x.dim()}-d tensor")
    return dim % n


def broadcast_shapes(*shapes):
    """The shape that tensors of these shapes broadcast to (torch's rules)."""
    out = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for i, s in enumerate(reversed(shape)):
            if i == len(out):
                out.append(s)
            elif out[i] == 1 or s == out[i]:
                out[i] = s
            elif s != 1:
                raise RuntimeError(
                    f"broadcast_shapes(): shape {tuple(shape)} does not broadcast with "
                    f"{tuple(reversed(out))} (size {s} vs {out[i]} at dim {-1 - i})"
                )
    from ._size import Size

    return Size(tuple(reversed(out)))


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        _check_tensor(t, "broadcast_tensors", f"tensors[{i}]")
    shape = tuple(broadcast_shapes(*(tuple(t.shape) for t in tensors)))
    return tuple(t.expand(shape) for t in tensors)


# ------------------------------------------------------------------------- elementwise


def _log_add_exp(input, other, op, exp_fn, log_scale):
    """max + log1p(exp_fn(-|a - b|)) * log_scale: no overflow for large operands."""
    _check_tensor(input, op)
    m = _C.maximum(input, other)
    d = _C.abs(input - other)
    # Equal infinities give inf - inf = nan in d; their sum is that infinity.
    d = _C.where(_C.isnan(d) & ~_C.isnan(m), _C.zeros_like(d), d)
    tail = _C.log1p(exp_fn(-d))
    return m + (tail * log_scale if log_scale != 1.0 else tail)


def logaddexp(input, other):
    """log(exp(a) + exp(b))."""
    return _log_add_exp(input, other, "logaddexp", _C.exp, 1.0)


def logaddexp2(input, other):
    """log2(2^a + 2^b)."""
    return _log_add_exp(input, other, "logaddexp2", _C.exp2, 1.0 / math.log(2.0))


def xlogy(input, other):
    """input * log(other), 0 where input == 0 (unless other is NaN)."""
    if not isinstance(input, Tensor):
        _check_tensor(other, "xlogy", "other")
        input = _C.full_like(other, input)
    if not isinstance(other, Tensor):
        other = _C.full_like(input, other)
    prod = input * _C.log(other)
    if not prod.is_floating_point() and not prod.is_complex():
        prod = prod.to(_C.get_default_dtype())
    zero = (input == 0) & ~_C.isnan(other)
    return _C.where(zero, _C.zeros_like(prod), prod)


def sinc(input):
    """sin(pi x) / (pi x), 1 at 0."""
    _check_tensor(input, "sinc")
    x = (
        input
        if input.is_floating_point() or input.is_complex()
        else input.to(_C.get_default_dtype())
    )
    px = x * math.pi
    safe = _C.where(x == 0, _C.ones_like(px), px)
    return _C.where(x == 0, _C.ones_like(px), _C.sin(safe) / safe)


def rad2deg(input):
    _check_tensor(input, "rad2deg")
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    return x * (180.0 / math.pi)


def deg2rad(input):
    _check_tensor(input, "deg2rad")
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    return x * (math.pi / 180.0)


def logit(input, eps=None):
    """log(p / (1 - p)); with eps, p is first clamped to [eps, 1 - eps]."""
    _check_tensor(input, "logit")
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    if eps is not None:
        x = _C.clamp(x, eps, 1.0 - eps)
    return _C.log(x / (1.0 - x))


def addcmul(input, tensor1, tensor2, *, value=1):
    _check_tensor(input, "addcmul")
    return input + value * (tensor1 * tensor2) if value != 1 else input + tensor1 * tensor2


def addcdiv(input, tensor1, tensor2, *, value=1):
    _check_tensor(input, "addcdiv")
    for t, name in ((tensor1, "tensor1"), (tensor2, "tensor2")):
        if isinstance(t, Tensor) and not t.is_floating_point() and not t.is_complex():
            raise RuntimeError(
                "addcdiv(): integer division of tensors using div or / is no longer supported; "
                f"'{name}' has dtype {t.dtype}"
            )
    return input + value * (tensor1 / tensor2) if value != 1 else input + tensor1 / tensor2


# ------------------------------------------------------------------------- shape and reductions


def trace(input):
    _check_tensor(input, "trace")
    if input.dim() != 2:
        raise RuntimeError(f"trace(): expected a matrix (2-d tensor), got {input.dim()}-d")
    return _C.diagonal(input, 0, 0, 1).sum()


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along dim, with optional values prepended/appended first."""
    _check_tensor(input, "diff")
    if input.dim() == 0:
        raise RuntimeError("diff(): expects input to be at least one-dimensional")
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"diff(): order n must be a non-negative int, got {n!r}")
    d = _dim(input, dim, "diff")
    parts = [t for t in (prepend, input, append) if t is not None]
    x = _C.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = _C.logical_xor(hi, lo) if x.dtype == _C.bool else hi - lo
    return x


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeats each element (or each slice along dim) repeats[i] times; with a single tensor
    argument, returns the indices repeated by their counts (torch's one-argument form)."""
    if repeats is None:
        _check_tensor(input, "repeat_interleave", "repeats")
        counts = input
        if counts.dim() != 1 or counts.is_floating_point():
            raise RuntimeError("repeat_interleave(): repeats must be a 1-d integer tensor")
        return repeat_interleave(
            _C.arange(counts.shape[0], dtype=_C.int64, device=counts.device),
            counts,
            0,
            output_size=output_size,
        )
    _check_tensor(input, "repeat_interleave")
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = _dim(input, dim, "repeat_interleave")
    size = input.shape[d] if input.dim() else 1
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1 or repeats.is_floating_point():
            raise RuntimeError(
                "repeat_interleave(): repeats must be an int or a 0-d/1-d integer tensor"
            )
        if repeats.dim() == 0 or repeats.shape[0] == 1:
            repeats = int(repeats.reshape(-1)[0].item())
    if isinstance(repeats, Tensor):
        if repeats.shape[0] != size:
            raise RuntimeError(
                f"repeat_interleave(): repeats must have the same size as input along dim ({size}), "
                f"got {repeats.shape[0]}"
            )
        if size and bool((repeats < 0).any()):
            raise RuntimeError("repeat_interleave(): repeats can not be negative")
        ends = _C.cumsum(repeats.to(_C.int64), 0)
        total = int(ends[-1].item()) if size else 0
        if output_size is not None and output_size != total:
            raise RuntimeError(
                f"repeat_interleave(): output_size {output_size} does not match the repeats' sum {total}"
            )
        index = _C.searchsorted(
            ends, _C.arange(total, dtype=_C.int64, device=ends.device), right=True
        )
    else:
        if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 0:
            raise ValueError(
                f"repeat_interleave(): repeats must be a non-negative int, got {repeats!r}"
            )
        index = (
            _C.arange(size * repeats, dtype=_C.int64, device=input.device) // repeats
            if repeats
            else _C.zeros([0], dtype=_C.int64, device=input.device)
        )
    return input.index_select(d, index) if input.dim() else input.reshape(1).index_select(0, index)


def cross(input, other, dim=None):
    """Cross product of 3-vectors along dim (torch 1.13: the first dim of size 3 when None)."""
    _check_tensor(input, "cross")
    _check_tensor(other, "cross", "other")
    a, b = broadcast_tensors(input, other)
    if dim is None:
        dims = [i for i, s in enumerate(a.shape) if s == 3]
        if not dims:
            raise RuntimeError(
                f"cross(): no dimension of size 3 in input of shape {tuple(a.shape)}"
            )
        d = dims[0]
    else:
        d = _dim(a, dim, "cross")
        if a.shape[d] != 3:
            raise RuntimeError(
                f"cross(): inputs dimension {dim} must have length 3, got {a.shape[d]}"
            )
    return _cross_along(a, b, d)


def _cross_along(a, b, d):
    """a x b for same-shape a and b whose dim d has size 3 (torch.cross and linalg.cross)."""
    a0, a1, a2 = (a.select(d, i) for i in range(3))
    b0, b1, b2 = (b.select(d, i) for i in range(3))
    return _C.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def rot90(input, k=1, dims=(0, 1)):
    _check_tensor(input, "rot90")
    if len(dims) != 2:
        raise RuntimeError(f"rot90(): expected 2 dims, got {len(dims)}")
    d0, d1 = _dim(input, dims[0], "rot90"), _dim(input, dims[1], "rot90")
    if d0 == d1:
        raise RuntimeError(f"rot90(): dims must differ, got {tuple(dims)}")
    k %= 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


def _split_spec(name, indices_or_sections, sections, indices, tensor_indices_or_sections):
    """The one split specification among torch's keyword names for it."""
    given = [
        v
        for v in (indices_or_sections, sections, indices, tensor_indices_or_sections)
        if v is not None
    ]
    if len(given) != 1:
        raise TypeError(
            f"{name}(): give exactly one of indices_or_sections, sections, indices or "
            f"tensor_indices_or_sections (got {len(given)})"
        )
    return given[0]


def tensor_split(
    input,
    indices_or_sections=None,
    dim=0,
    *,
    sections=None,
    indices=None,
    tensor_indices_or_sections=None,
):
    """Splits into sections of near-equal size (int) or at the given indices (list/tuple/tensor)."""
    indices_or_sections = _split_spec(
        "tensor_split", indices_or_sections, sections, indices, tensor_indices_or_sections
    )
    _check_tensor(input, "tensor_split")
    d = _dim(input, dim, "tensor_split")
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.dim() == 0:
            indices_or_sections = int(indices_or_sections.item())
        else:
            indices_or_sections = [int(v) for v in indices_or_sections.tolist()]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"tensor_split(): number of sections must be larger than 0, got {n}")
        if n > size + (1 << 20):  # all but `size` of them would be empty views
            raise ValueError(
                f"tensor_split(): {n} sections of a dim of size {size} is too many to create"
            )
        big, rest = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            start += big + (1 if i < rest else 0)
            bounds.append(start)
        bounds = bounds[:-1]
    else:
        bounds = [int(i) for i in indices_or_sections]
    # Python slice semantics: piece i is input[bounds[i-1]:bounds[i]] along d (empty if reversed).
    out, prev = [], 0
    for b in bounds + [size]:
        b = min(max(b + size if b < 0 else b, 0), size)
        out.append(input.narrow(d, prev, max(b - prev, 0)))
        prev = b
    return tuple(out)


def _directional_split(name, dim, min_dims):
    def split(input, indices_or_sections=None, *, sections=None, indices=None):
        indices_or_sections = _split_spec(name, indices_or_sections, sections, indices, None)
        _check_tensor(input, name)
        if input.dim() < min_dims:
            raise RuntimeError(
                f"{name}(): requires a tensor with at least {min_dims} dimensions, "
                f"got {input.dim()}"
            )
        d = 0 if (name == "hsplit" and input.dim() == 1) else dim
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(
                f"{name}(): dimension {d} of size {input.shape[d]} is not divisible by "
                f"{indices_or_sections}"
            )
        return tensor_split(input, indices_or_sections, d)

    split.__name__ = name
    return split


hsplit = _directional_split("hsplit", 1, 1)
vsplit = _directional_split("vsplit", 0, 2)
dsplit = _directional_split("dsplit", 2, 3)


def ravel(input):
    _check_tensor(input, "ravel")
    return input.reshape(-1)


def positive(input):
    _check_tensor(input, "positive")
    if input.dtype == _C.bool:
        raise TypeError("positive(): not supported for bool tensors")
    return input


def is_signed(input):
    _check_tensor(input, "is_signed")
    return input.dtype not in (_C.bool, _C.uint8)


def is_nonzero(input):
    _check_tensor(input, "is_nonzero")
    if input.numel() != 1:
        raise RuntimeError(f"is_nonzero(): a tensor with {input.numel()} elements is ambiguous")
    return bool(input.reshape(-1)[0].item() != 0)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """The last dim of input becomes the diagonal (at offset) of new dims dim1, dim2."""
    _check_tensor(input, "diag_embed")
    n = input.shape[-1] + abs(offset) if input.dim() else 1 + abs(offset)
    out_dim = input.dim() + 1
    d1 = dim1 % out_dim
    d2 = dim2 % out_dim
    if d1 == d2:
        raise RuntimeError("diag_embed(): diagonal dimensions cannot be identical")
    batch = tuple(input.shape[:-1])
    out = _C.zeros(batch + (n, n), dtype=input.dtype, device=input.device)
    # Written through the diagonal view: one zero fill and n strided writes (an out-of-place
    # index_add copied the whole n x n result again).
    out.diagonal(offset, -2, -1).copy_(input)
    # Move the two matrix dims (currently last) to dim1 < dim2 order as requested.
    return _C.movedim(out, (out_dim - 2, out_dim - 1), (d1, d2))


def diagflat(input, offset=0):
    _check_tensor(input, "diagflat")
    return diag_embed(input.reshape(-1), offset)


def msort(input):
    _check_tensor(input, "msort")
    return _C.sort(input, 0)[0]


def aminmax(input, *, dim=None, keepdim=False):
    _check_tensor(input, "aminmax")
    if dim is None:
        return _C.amin(input), _C.amax(input)
    return _C.amin(input, dim, keepdim), _C.amax(input, dim, keepdim)


def copysign(input, other):
    """``|input|`` with the sign bit of other (negative zero counts as negative)."""
    _check_tensor(input, "copysign")
    x = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    if not isinstance(other, Tensor):
        other = _C.full_like(x, float(other))
    return _C.where(signbit(other), -_C.abs(x), _C.abs(x))


def signbit(input):
    """True where the sign bit is set (also for -0.0 and negative NaNs' sign, as torch)."""
    _check_tensor(input, "signbit")
    if input.dtype == _C.bool or input.dtype == _C.uint8:
        return _C.zeros_like(input, dtype=_C.bool)
    if not input.is_floating_point():
        return input < 0
    # 1/x is -inf for -0.0; comparisons alone cannot see the sign of zero.
    return (input < 0) | ((input == 0) & (1.0 / input < 0))


def heaviside(input, values):
    _check_tensor(input, "heaviside")
    at_zero = values.to(input.dtype) if isinstance(values, Tensor) else _C.full_like(input, values)
    return _C.where(input == 0, at_zero, (input > 0).to(input.dtype))


def float_power(input, exponent):
    """pow computed in float64 (complex128 for complex operands)."""
    cplx = (
        (isinstance(input, Tensor) and input.is_complex())
        or (isinstance(exponent, Tensor) and exponent.is_complex())
        or isinstance(exponent, complex)
    )
    dt = _C.complex128 if cplx else _C.float64
    base = input.to(dt) if isinstance(input, Tensor) else input
    exp = exponent.to(dt) if isinstance(exponent, Tensor) else exponent
    return _C.pow(base, exp)


# ------------------------------------------------------------------------- Tensor-only methods


def _new(self, make, dtype, device, requires_grad):
    """A factory call with self's dtype and device unless given (the Tensor.new_* methods)."""
    out = make(dtype=dtype or self.dtype, device=device or self.device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _new_factory(factory):
    def method(
        self,
        *sizes,
        size=None,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        pin_memory=False,
    ):
        if size is not None:  # new_zeros(size=(2, 3)), as torch names it
            if sizes:
                raise TypeError(f"new_{factory.__name__}: size given both positionally and by name")
            sizes = (size,)
        if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
            sizes = tuple(sizes[0])
        size = sizes
        return _new(self, lambda **opts: factory(size, **opts), dtype, device, requires_grad)

    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _new(
        self, lambda **opts: _C.full(tuple(size), fill_value, **opts), dtype, device, requires_grad
    )


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A copy of data with self's dtype and device unless given (also for tensor data, as torch)."""
    from ._tensor import tensor

    if isinstance(data, Tensor):
        return _new(
            self, lambda **opts: data.detach().clone().to(**opts), dtype, device, requires_grad
        )
    return _new(self, lambda **opts: tensor(data, **opts), dtype, device, requires_grad)


def _type_as(self, other):
    _check_tensor(other, "type_as", "other")
    return self.to(dtype=other.dtype, device=other.device)


def _softmax_method(self, dim, dtype=None):
    from .nn import functional as F

    return F.softmax(self, dim, dtype=dtype)


def _log_softmax_method(self, dim, dtype=None):
    from .nn import functional as F

    return F.log_softmax(self, dim, dtype=dtype)


def _get_device(self):
    return self.device.index if self.is_cuda else -1


def _is_same_size(self, other):
    _check_tensor(other, "is_same_size", "other")
    return tuple(self.shape) == tuple(other.shape)


def inplace_update(self, compute, *args, **kwargs):
    """self.copy_(compute(self, *args, **kwargs)) for in-place forms built from out-of-place ops.

    When autograd records the update, compute reads a clone of self: the graph it builds may
    save its input, and saving self itself would close a reference cycle (self's new history ->
    compute's node -> saved self) that is never freed."""
    needs_graph = _C._autograd.is_grad_enabled() and (
        self.requires_grad
        or any(isinstance(a, Tensor) and a.requires_grad for a in args)
        or any(isinstance(a, Tensor) and a.requires_grad for a in kwargs.values())
    )
    source = self.clone() if needs_graph else self
    return self.copy_(compute(source, *args, **kwargs))


def _inplace_of(name):
    def inplace(self, *args, **kwargs):
        return inplace_update(self, getattr(Tensor, name), *args, **kwargs)

    inplace.__name__ = name + "_"
    return inplace


_FUNCTIONS = [
    broadcast_shapes,
    broadcast_tensors,
    logaddexp,
    logaddexp2,
    xlogy,
    sinc,
    rad2deg,
    deg2rad,
    logit,
    addcmul,
    addcdiv,
    trace,
    diff,
    repeat_interleave,
    cross,
    rot90,
    tensor_split,
    hsplit,
    vsplit,
    dsplit,
    ravel,
    positive,
    is_signed,
    is_nonzero,
    diag_embed,
    diagflat,
    msort,
    aminmax,
    copysign,
    signbit,
    heaviside,
    float_power,
]


def install(namespace):
    from ._argcheck import harden

    table = {f.__name__: f for f in _FUNCTIONS}
    harden(table, "tensorcore")
    for name, fn in table.items():
        if name not in namespace:
            namespace[name] = fn
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    methods = {
        "new_zeros": _new_factory(_C.zeros),
        "new_ones": _new_factory(_C.ones),
        "new_empty": _new_factory(_C.empty),
        "new_full": _new_full,
        "new_tensor": _new_tensor,
        "type_as": _type_as,
        "softmax": _softmax_method,
        "log_softmax": _log_softmax_method,
        "get_device": _get_device,
        "is_same_size": _is_same_size,
        # torch's alias names of existing in-place methods.
        "divide_": Tensor.div_,
        "true_divide_": Tensor.div_,
        "multiply_": Tensor.mul_,
        "subtract_": Tensor.sub_,
    }
    for name in (
        "addcmul",
        "addcdiv",
        "logit",
        "xlogy",
        "sinc",
        "rad2deg",
        "deg2rad",
        "copysign",
        "heaviside",
        "float_power",
        "cumsum",
        "cumprod",
        "floor_divide",
    ):
        methods.setdefault(name + "_", _inplace_of(name))
    for name, fn in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
