"""Tensor construction from Python data and Python-only Tensor methods."""

import numbers

import numpy as np

from . import _C
from ._C import Tensor


def _infer_dtype(data):
    """The dtype torch.tensor would pick for nested Python data."""
    kinds = set()

    def walk(x):
        if isinstance(x, Tensor):
            kinds.add(x.dtype)
        elif isinstance(x, (list, tuple, range)):
            for v in x:
                walk(v)
        elif isinstance(x, bool):
            kinds.add("bool")
        elif isinstance(x, numbers.Integral):
            kinds.add("int")
        elif isinstance(x, complex):
            kinds.add("complex")
        elif isinstance(x, numbers.Real):
            kinds.add("float")
        else:
            raise TypeError(f"tensor(): could not infer dtype of {type(x).__name__}")

    walk(data)
    if "complex" in kinds:
        return _C.complex64 if _C.get_default_dtype() == _C.float32 else _C.complex128
    if "float" in kinds:
        return _C.get_default_dtype()
    if "int" in kinds:
        return _C.int64
    if "bool" in kinds:
        return _C.bool
    dtypes = [k for k in kinds if not isinstance(k, str)]
    if dtypes:
        out = dtypes[0]
        for d in dtypes[1:]:
            out = _C.promote_types(out, d)
        return out
    return _C.get_default_dtype()


def _nested_to_numpy(data):
    if isinstance(data, Tensor):
        return data.detach().cpu().numpy()
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        return np.stack([_nested_to_numpy(x) for x in data])
    return np.array(data)


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Copies `data` (nested lists, numbers, NumPy arrays, Tensors) into a new tensor."""
    if isinstance(data, range):  # torch.tensor(range(3)), x[range(2)]
        data = list(data)
    if isinstance(data, Tensor):
        out = data.detach().clone()
    elif isinstance(data, np.ndarray):
        out = _C.from_numpy(np.ascontiguousarray(data).reshape(data.shape)).clone()
    else:
        inferred = _infer_dtype(data)
        arr = _nested_to_numpy(data)
        if arr.dtype == object:
            raise ValueError(
                "tensor(): ragged nested sequence (the sub-lists have different lengths)"
            )
        if inferred == _C.bfloat16:
            arr = arr.astype(np.float32)
        elif inferred.is_complex:
            arr = arr.astype(np.complex64 if inferred == _C.complex64 else np.complex128)
        # ascontiguousarray turns 0-d into 1-d (NumPy < 2): reshape back.
        # Straight to the requested dtype: tensor([0.3], dtype=float64) must not round through
        # the inferred float32.
        target = inferred if dtype is None else dtype
        out = _C.from_numpy(np.ascontiguousarray(arr).reshape(arr.shape)).to(target, copy=True)
    if dtype is not None or device is not None:
        out = out.to(dtype=dtype, device=device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory with a Tensor or NumPy array when it can."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device)
    if isinstance(data, np.ndarray) and data.dtype.kind in "biufc":
        try:
            t = _C.from_numpy(data)
        except (ValueError, TypeError):
            t = _C.from_numpy(np.ascontiguousarray(data))
        return t.to(dtype=dtype, device=device) if (dtype or device) else t
    return tensor(data, dtype=dtype, device=device)


def _tolist(self):
    t = self.detach().cpu()
    if t.dtype == _C.bfloat16:
        t = t.float()
    return t.numpy().tolist()


def _register_hook(self, hook):
    self._register_hook(hook)

    class _Handle:
        def remove(self_inner):
            raise NotImplementedError("removing tensor hooks is not supported yet")

    return _Handle()


def _bool(self):
    if self.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self.select(0, i) for i in range(self.shape[0]))


Tensor.tolist = _tolist
Tensor.register_hook = _register_hook
Tensor.__bool__ = _bool
Tensor.__float__ = lambda self: float(self.item())
Tensor.__int__ = lambda self: int(self.item())
Tensor.__index__ = lambda self: (
    int(self.item())
    if not self.is_floating_point()
    else (_ for _ in ()).throw(
        TypeError("only integer tensors of a single element can be converted to an index")
    )
)
Tensor.__complex__ = lambda self: complex(self.item())
Tensor.__iter__ = _iter
Tensor.__hash__ = lambda self: id(self)
Tensor.__array_priority__ = 1000
Tensor.data = property(lambda self: self.detach(), lambda self, v: self.detach().copy_(v))


def _share_memory_(self):
    """Moves the storage into shared memory (in place; views follow), as torch's."""
    from .multiprocessing import _sharing

    return _sharing.share_memory_(self)


def _is_shared(self):
    from .multiprocessing import _sharing

    return _sharing.is_shared(self)


Tensor.share_memory_ = _share_memory_
Tensor.is_shared = _is_shared
# Devices pickle as their string form (torch.device pickles the same way).
_C.device.__reduce__ = lambda self: (_C.device, (str(self),))


def _rebuild_tensor(array, dtype_name, requires_grad):
    t = _C.from_numpy(np.array(array)).to(getattr(_C, dtype_name))
    return t.requires_grad_(True) if requires_grad else t


def _reduce_ex(self, protocol):
    # Pickle (DataLoader spawn workers, saving objects that hold tensors) through NumPy.
    t = self.detach().cpu()
    dtype_name = str(t.dtype).split(".")[-1]
    arr = (t.float() if t.dtype == _C.bfloat16 else t).numpy()
    return (_rebuild_tensor, (arr, dtype_name, self.requires_grad and self.is_leaf))


def _deepcopy(self, memo):
    # copy.deepcopy(module) copies buffers and parameters; only leaves can be deep-copied.
    if id(self) in memo:
        return memo[id(self)]
    if not self.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment"
        )
    out = self.detach().clone()
    if self.requires_grad:
        out.requires_grad_(True)
    memo[id(self)] = out
    return out


Tensor.__reduce_ex__ = _reduce_ex
Tensor.__deepcopy__ = _deepcopy
