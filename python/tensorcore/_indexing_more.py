"""torch 1.13's out-of-place scatter forms (select/slice/diagonal/as_strided_scatter), put,
index_reduce, Tensor.masked_scatter_ and the unsafe_* splits, composed from native views,
copy_, index_put_ and scatter_reduce (so they are differentiable through those and run on every
device). Installed by tensorcore/__init__.py."""

from . import _C
from ._C import Tensor
from ._extra_ops import inplace_update


def _check_tensor(x, op, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(x).__name__}")


def _embed(op, input, src, view_of):
    """A copy of input whose view `view_of(copy)` holds src (shapes must match exactly)."""
    _check_tensor(input, op, "input")
    _check_tensor(src, op, "src")
    out = input.clone()
    view = view_of(out)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(
            f"{op}(): expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(view.shape)}"
        )
    view.copy_(src)
    return out


def select_scatter(input, src, dim, index):
    """input with input.select(dim, index) replaced by src (out of place)."""
    return _embed("select_scatter", input, src, lambda t: t.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with the slice start:end:step along dim replaced by src (out of place)."""
    if step <= 0:
        raise ValueError(f"slice_scatter(): step must be positive, got {step}")

    def view_of(t):
        index = [slice(None)] * t.dim()
        index[dim] = slice(start, end, step)
        return t[tuple(index)]

    return _embed("slice_scatter", input, src, view_of)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its diagonal (offset, dim1, dim2) replaced by src (out of place)."""
    return _embed("diagonal_scatter", input, src, lambda t: t.diagonal(offset, dim1, dim2))


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input with the elements of input.as_strided(size, stride, storage_offset) replaced by src
    (out of place; input must be contiguous so the strides address it as in torch)."""
    _check_tensor(input, "as_strided_scatter", "input")
    if not input.is_contiguous():
        raise RuntimeError("as_strided_scatter(): input must be contiguous")
    return _embed(
        "as_strided_scatter", input, src, lambda t: t.as_strided(size, stride, storage_offset)
    )


def _flat_index(op, self, index):
    _check_tensor(index, op, "index")
    if index.dtype != _C.int64:
        raise TypeError(f"{op}(): index must be an int64 tensor, got {index.dtype}")
    n = self.numel()
    flat = index.reshape(-1)
    if flat.numel() and (bool((flat >= n).any()) or bool((flat < -n).any())):
        bad = int(flat[(flat >= n) | (flat < -n)][0])
        raise IndexError(f"{op}(): index {bad} is out of bounds for a tensor of {n} elements")
    return flat


def _put_(self, index, source, accumulate=False):
    """Writes source's elements at the flat (row-major) positions index of self, in place;
    accumulate=True adds instead (repeated indices add up)."""
    flat_index = _flat_index("put_", self, index)
    _check_tensor(source, "put_", "source")
    if source.numel() != flat_index.numel():
        raise RuntimeError(
            f"put_(): expected source ({source.numel()} elements) and index "
            f"({flat_index.numel()} elements) to have the same number of elements"
        )
    if self.is_contiguous():
        self.view(-1).index_put_((flat_index,), source.reshape(-1), accumulate)
        return self
    flat = self.reshape(-1).clone()
    flat.index_put_((flat_index,), source.reshape(-1), accumulate)
    return self.copy_(flat.view(self.shape))


def put(input, index, source, accumulate=False):
    """Out-of-place ``put_``: a copy of input with source written at the flat positions index."""
    _check_tensor(input, "put", "input")
    return _put_(input.clone(), index, source, accumulate)


_REDUCE = ("prod", "mean", "amax", "amin")


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """Reduces source's slices along dim into self's slices index[i] with reduce ('prod',
    'mean', 'amax', 'amin'), in place; include_self=False leaves self's values out of the
    slices that receive something."""
    if reduce not in _REDUCE:
        raise RuntimeError(
            f"index_reduce_(): reduce argument must be one of {_REDUCE}, got {reduce!r}"
        )
    _check_tensor(index, "index_reduce_", "index")
    _check_tensor(source, "index_reduce_", "source")
    if index.dim() > 1 or index.dtype not in (_C.int64, _C.int32):
        raise TypeError("index_reduce_(): index must be a 1-D int64 or int32 tensor")
    d = dim % max(self.dim(), 1)
    if source.dim() != self.dim() or source.shape[d] != index.numel():
        raise RuntimeError(
            f"index_reduce_(): source {list(source.shape)} must have self's rank and "
            f"index.numel() ({index.numel()}) entries along dim {dim}"
        )
    # scatter_reduce wants an index shaped like source: index[i] along dim, broadcast elsewhere.
    shape = [1] * source.dim()
    shape[d] = index.numel()
    expanded = index.long().reshape(shape).expand(list(source.shape))
    return inplace_update(
        self,
        lambda base, src: _C.scatter_reduce(
            base, d, expanded, src, reduce, include_self=include_self
        ),
        source,
    )


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """A copy of input whose slices index[i] along dim are reduced with source's slices i.

    Args:
        input (Tensor): the tensor to reduce into (not modified).
        dim (int): the dimension index addresses.
        index (Tensor): 1-D int64/int32, one entry per slice of source along dim.
        source (Tensor): the values, input's shape except source.size(dim) == len(index).
        reduce (str): 'prod', 'mean', 'amax' or 'amin'.
        include_self (bool): whether input's own values take part in the reduction.

    Example::

        >>> tc.index_reduce(tc.ones(2), 0, tc.tensor([0, 0]), tc.tensor([2.0, 3.0]), "prod")
        tensor([6., 1.])
    """
    _check_tensor(input, "index_reduce", "input")
    return _index_reduce_(input.clone(), dim, index, source, reduce, include_self=include_self)


def _masked_scatter_(self, mask, source):
    """Copies source's leading elements into self where mask is True, in place."""
    return inplace_update(self, Tensor.masked_scatter, mask, source)


def unsafe_chunk(input, chunks, dim=0):
    """chunk without the view bookkeeping torch skips for unsafe_*; the same pieces."""
    return input.chunk(chunks, dim)


def unsafe_split(input, split_size, dim=0):
    """split, as torch's unsafe_split (the same pieces)."""
    return input.split(split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """split_with_sizes, as torch's unsafe_split_with_sizes (the same pieces)."""
    return input.split_with_sizes(split_sizes, dim)


_FUNCTIONS = (
    select_scatter,
    slice_scatter,
    diagonal_scatter,
    as_strided_scatter,
    put,
    index_reduce,
    unsafe_chunk,
    unsafe_split,
    unsafe_split_with_sizes,
)
_METHODS = {
    "put_": _put_,
    "index_reduce_": _index_reduce_,
    "masked_scatter_": _masked_scatter_,
}
# torch also has each of these as a Tensor method.
_AS_METHODS = True
