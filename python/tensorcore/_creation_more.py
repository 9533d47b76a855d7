"""torch 1.13 creation functions over memory users already have: asarray, frombuffer,
from_file; and the functional fill, Tensor.new_empty_strided, Tensor.to_dense and
is_distributed. Installed by tensorcore/__init__.py."""

import warnings

import numpy as _np

from . import _C
from ._C import Tensor
from ._tensor import tensor as _tensor


def _numpy_dtype(dtype, op):
    """The NumPy dtype with the same bytes as `dtype` (bfloat16 travels as int16)."""
    if dtype == _C.bfloat16:
        return _np.dtype(_np.int16)
    try:
        return _C.empty([0], dtype=dtype).numpy().dtype
    except Exception:
        raise TypeError(f"{op}: dtype {dtype} has no buffer representation") from None


def _from_array(array, dtype):
    t = _C.from_numpy(array)
    return t.view(dtype) if dtype == _C.bfloat16 else t


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor that shares the memory of an object implementing the buffer protocol
    (bytes, bytearray, memoryview, array.array, mmap ...): no copy, so writes show through.

    Args:
        buffer: the object whose memory the tensor uses.
        dtype (tensorcore.dtype): element type.
        count (int): number of elements (-1: all that fit after offset).
        offset (int): bytes to skip at the start.
        requires_grad (bool): track gradients.

    Example::

        >>> import array
        >>> a = array.array("i", [1, 2, 3])
        >>> tc.frombuffer(a, dtype=tc.int32)
        tensor([1, 2, 3], dtype=tensorcore.int32)
    """
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(
            f"frombuffer: expected an object with the buffer protocol, got {type(buffer).__name__}"
        ) from None
    nbytes = view.nbytes
    itemsize = _C.empty([0], dtype=dtype).element_size()
    if not isinstance(offset, int) or offset < 0 or offset > nbytes - (count > 0):
        raise ValueError(
            f"frombuffer: offset ({offset} bytes) must be a non-negative int smaller than the "
            f"buffer's length ({nbytes} bytes)"
        )
    if count == 0 or (count < 0 and nbytes == offset):
        raise ValueError(
            f"frombuffer: both buffer length ({nbytes}) and count ({count}) must not be 0"
        )
    if count < 0:
        if (nbytes - offset) % itemsize:
            raise ValueError(
                f"frombuffer: buffer length ({nbytes - offset} bytes after offset) must be a "
                f"multiple of the element size ({itemsize} bytes)"
            )
        count = (nbytes - offset) // itemsize
    elif offset + count * itemsize > nbytes:
        raise ValueError(
            f"frombuffer: requested buffer length ({count} * {itemsize} bytes) after offset "
            f"({offset} bytes) must not be greater than actual buffer length ({nbytes} bytes)"
        )
    if view.readonly:
        warnings.warn(
            "frombuffer: the given buffer is not writable; writing to the tensor changes memory "
            "Python considers immutable. Copy the buffer first if you need to write.",
            UserWarning,
            stacklevel=2,
        )
    array = _np.frombuffer(
        view, dtype=_numpy_dtype(dtype, "frombuffer"), count=count, offset=offset
    )
    out = _from_array(array, dtype)
    if requires_grad:
        out.requires_grad_(True)
    return out


def from_file(
    filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False
):
    """A 1-D tensor of `size` elements read from a file. shared=True maps the file, so the
    tensor's writes go to it (the file must hold size elements); otherwise the data is copied
    into memory."""
    if dtype is None:
        dtype = _C.get_default_dtype()
    np_dtype = _numpy_dtype(dtype, "from_file")
    if not isinstance(size, int) or size < 0:
        raise ValueError(f"from_file: size must be a non-negative int, got {size!r}")
    import os

    available = os.path.getsize(filename) // np_dtype.itemsize
    if size > available:
        raise RuntimeError(
            f"from_file: file {filename!r} holds {available} elements of {dtype}, "
            f"{size} were requested"
        )
    if shared:
        array = (
            _np.memmap(filename, dtype=np_dtype, mode="r+", shape=(size,))
            if size
            else _np.zeros(0, np_dtype)
        )
    else:
        array = _np.fromfile(filename, dtype=np_dtype, count=size)
    out = _from_array(array, dtype)
    return out if device is None else out.to(device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Converts obj (a tensor, a NumPy array, an object with the buffer or DLPack protocol, a
    number or nested sequences) to a tensor, sharing memory when dtype and device allow and
    copy is not True; copy=False raises where a copy would be needed."""
    if isinstance(obj, Tensor):
        out = obj
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, _np.ndarray):
        out = _C.from_dlpack(obj)
    elif isinstance(obj, _np.ndarray):
        out = _C.from_numpy(obj) if obj.dtype.kind in "biufc" and obj.dtype.isnative else None
        if out is None:
            if copy is False:
                raise ValueError(f"asarray: a NumPy array of dtype {obj.dtype} needs a copy")
            out = _tensor(obj)
    else:
        if copy is False:
            raise ValueError(f"asarray: {type(obj).__name__} cannot be shared without a copy")
        out = _tensor(obj, dtype=dtype, device=device)
        copy = False  # already a fresh tensor
    converted = out.to(
        device=out.device if device is None else device, dtype=out.dtype if dtype is None else dtype
    )
    if converted is not out and copy is False:
        raise ValueError(
            f"asarray: converting to dtype={dtype}, device={device} needs a copy, but copy=False"
        )
    if copy and converted is out:
        converted = out.clone()
    if requires_grad:
        # An alias of the caller's tensor gets its own autograd identity (same memory).
        converted = converted.detach() if converted is obj else converted
        converted.requires_grad_(True)
    return converted


def fill(input, value):
    """A new tensor shaped like input with every element value (the functional ``fill_``)."""
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(
            f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} "
            "dimensions."
        )
    return input.clone().fill_(value)


def is_distributed(input):
    """False: a tensorcore tensor lives on one device (torch's answer for every tensor)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"is_distributed(): argument 'input' must be a Tensor, got {type(input).__name__}"
        )
    return False


def _new_empty_strided(
    self,
    size,
    stride,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    """An uninitialised tensor with the given size and stride, on self's dtype and device unless
    given."""
    out = _C.empty_strided(
        list(size),
        list(stride),
        dtype=self.dtype if dtype is None else dtype,
        device=self.device if device is None else device,
    )
    return out.requires_grad_(True) if requires_grad else out


def _to_dense(self, dtype=None):
    """self: tensorcore tensors are strided (dense) already; with dtype, a converted copy."""
    return self if dtype is None or dtype == self.dtype else self.to(dtype)


_FUNCTIONS = (frombuffer, from_file, asarray, fill, is_distributed)
_METHODS = {
    "new_empty_strided": _new_empty_strided,
    "to_dense": _to_dense,
    "is_distributed": is_distributed,
}
