"""torch's legacy typed constructors (torch.FloatTensor, torch.LongTensor, ...), still common in
older programs: `FloatTensor([1, 2])` copies data, `FloatTensor(2, 3)` or `FloatTensor(size)`
allocates uninitialized memory, and `isinstance(x, FloatTensor)` checks dtype and CPU device."""

from . import _C
from ._C import Tensor
from ._size import Size
from ._tensor import tensor as _tensor


class _LegacyTensorMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.device.type == "cpu"


def _make(name, dtype):
    def __new__(cls, *args, device=None):
        if device is not None and str(device) != "cpu":
            raise RuntimeError(
                f"legacy constructor {name} expects device type cpu but got {device}; "
                f"use tensorcore.tensor(..., dtype={dtype}, device=...)"
            )
        if not args:
            return _C.empty(0, dtype=dtype)
        if len(args) == 1 and isinstance(args[0], Tensor):
            return args[0].to(dtype)
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return _C.empty(*args, dtype=dtype)
        if len(args) == 1 and isinstance(args[0], Size):
            return _C.empty(*args[0], dtype=dtype)
        if len(args) == 1:
            return _tensor(args[0], dtype=dtype)
        raise TypeError(
            f"{name}(): expected sizes (ints), a sequence of data or a tensor, got "
            f"{', '.join(type(a).__name__ for a in args)}"
        )

    return _LegacyTensorMeta(
        name, (), {"__new__": __new__, "dtype": dtype, "__module__": "tensorcore"}
    )


FloatTensor = _make("FloatTensor", _C.float32)
DoubleTensor = _make("DoubleTensor", _C.float64)
HalfTensor = _make("HalfTensor", _C.float16)
BFloat16Tensor = _make("BFloat16Tensor", _C.bfloat16)
ByteTensor = _make("ByteTensor", _C.uint8)
CharTensor = _make("CharTensor", _C.int8)
ShortTensor = _make("ShortTensor", _C.int16)
IntTensor = _make("IntTensor", _C.int32)
LongTensor = _make("LongTensor", _C.int64)
BoolTensor = _make("BoolTensor", _C.bool)
