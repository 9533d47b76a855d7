"""torch.save's zip format for any picklable object (whole modules, NumPy arrays, classes).

The data-only path of tc.save/tc.load (C++, never runs code from a file) covers tensors and
containers. Objects beyond that are written here with Python's pickle, the way torch.save does:
tensors pickle as torch._utils._rebuild_tensor_v2 over persistent storage ids, each storage is
one zip entry, so torch.load reads our files and we read torch's. Reading such a file runs the
pickle, i.e. arbitrary code: tc.load only does it when called with weights_only=False.
"""

import collections
import io
import pickle
import zipfile

import numpy as np

from . import _C

__all__ = ["dump", "dumps", "load", "WeightsOnlyUnpicklingError"]


class WeightsOnlyUnpicklingError(pickle.UnpicklingError, RuntimeError):
    """A file holds more than weights and tc.load was asked (by default) for weights only."""


_STORAGE_NAMES = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
    "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}
_STORAGE_DTYPES = {v: k for k, v in _STORAGE_NAMES.items()}
# NumPy has no bfloat16: its bytes travel as int16 and are viewed back.
_NUMPY_CARRIER = {"bfloat16": np.int16}


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


class _TorchName:
    """A name in torch's namespace, written into the pickle as a GLOBAL without importing it."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle's save_reduce asks for a callable
        raise TypeError(f"{self.module}.{self.name} is a name for the pickle stream only")


_REBUILD_TENSOR = _TorchName("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _TorchName("torch._utils", "_rebuild_parameter")
_DEVICE = _TorchName("torch", "device")


class _StorageRef:
    def __init__(self, key, dtype_name, numel):
        self.key, self.dtype_name, self.numel = key, dtype_name, numel


class _Storages:
    """One zip entry per storage: tensors that share memory share the entry (and stay views)."""

    def __init__(self):
        self.refs = {}  # (storage address, dtype) -> (ref, first element offset, tensor)
        self.spans = {}

    def ref(self, t):
        if not t.is_cpu:
            t = t.cpu()
        key = (t.untyped_storage_ptr(), _dtype_name(t.dtype))
        lo, hi = self._span(t)
        if key in self.spans:
            old_lo, old_hi, base = self.spans[key]
            lo, hi = min(lo, old_lo), max(hi, old_hi)
        self.spans[key] = (lo, hi, t)
        if key not in self.refs:
            self.refs[key] = _StorageRef(str(len(self.refs)), key[1], 0)
        return self.refs[key], key

    @staticmethod
    def _span(t):
        if t.numel() == 0:
            return t.storage_offset(), t.storage_offset()
        last = t.storage_offset() + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
        return t.storage_offset(), last + 1

    def finish(self):
        """Sets each ref's size and returns [(ref, bytes, first offset)] to write."""
        out = []
        for key, ref in self.refs.items():
            lo, hi, t = self.spans[key]
            ref.numel = hi - lo
            span = _C.as_strided(t.detach(), (hi - lo,), (1,), lo)
            if ref.dtype_name in _NUMPY_CARRIER:
                span = span.view(_C.int16)
            out.append((ref, np.ascontiguousarray(span.numpy()).tobytes(), lo))
        return out


class _Pickler(pickle._Pickler):
    """Protocol-2 pickler writing tensors, dtypes and devices under torch's names.

    starts maps each storage entry to its first element; None on the pass that finds them.
    """

    def __init__(self, file, storages, starts=None):
        super().__init__(file, protocol=2)
        self._storages, self._starts = storages, starts

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _TorchName):
            return self._write_global(obj.module, obj.name, obj)
        return super().save(obj, save_persistent_id)

    def _write_global(self, module, name, obj):
        memo = self.memo.get(id(obj))
        if memo is not None:
            self.write(self.get(memo[0]))
            return
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
        self.memoize(obj)

    def save_global(self, obj, name=None):
        if isinstance(obj, _C.dtype):
            return self._write_global("torch", _dtype_name(obj), obj)
        return super().save_global(obj, name)

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            storage_type = _TorchName("torch", _STORAGE_NAMES[obj.dtype_name])
            return ("storage", storage_type, obj.key, "cpu", obj.numel)
        return None

    def reducer_override(self, obj):
        from .nn.parameter import Parameter

        if isinstance(obj, Parameter):
            data = obj.detach()
            return (_REBUILD_PARAMETER, (data, obj.requires_grad, collections.OrderedDict()))
        if isinstance(obj, _C.Tensor):
            if _dtype_name(obj.dtype) not in _STORAGE_NAMES:
                raise pickle.PicklingError(
                    f"tc.save: tensors of dtype {obj.dtype} have no torch storage type"
                )
            ref, _ = self._storages.ref(obj)
            offset = obj.storage_offset() - (self._starts[ref.key] if self._starts else 0)
            args = (ref, offset, tuple(obj.shape), tuple(obj.stride()), obj.requires_grad)
            return (_REBUILD_TENSOR, args + (collections.OrderedDict(),))
        if isinstance(obj, _C.device):
            return (_DEVICE, (str(obj),))
        return NotImplemented


def dumps(obj):
    """obj in torch.save's zip format, as bytes."""
    out = io.BytesIO()
    dump(obj, out)
    return out.getvalue()


def dump(obj, f):
    """Writes obj in torch.save's zip format to a binary file object."""
    storages = _Storages()
    # Two passes: the first finds every storage's extent, the second writes offsets relative
    # to it (a storage entry starts at the lowest element any saved view of it uses).
    _Pickler(io.BytesIO(), storages).dump(obj)
    entries = storages.finish()
    buf = io.BytesIO()
    _Pickler(buf, storages, {ref.key: lo for ref, _, lo in entries}).dump(obj)
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", buf.getvalue())
        for ref, data, _ in entries:
            z.writestr(f"archive/data/{ref.key}", data)
        z.writestr("archive/version", "3\n")


class _StorageType:
    def __init__(self, dtype_name):
        self.dtype_name = dtype_name


def _rebuild_tensor_v2(storage, offset, size, stride, requires_grad=False, hooks=None, *_):
    t = _C.as_strided(storage, tuple(size), tuple(stride), offset)
    return t.requires_grad_(True) if requires_grad else t


def _rebuild_parameter(data, requires_grad, hooks=None, *_):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, archive, prefix, restore):
        super().__init__(file)
        self._archive, self._prefix, self._restore = archive, prefix, restore
        self._loaded = {}

    def find_class(self, module, name):
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor_v2
        if module == "torch._utils" and name == "_rebuild_parameter":
            return _rebuild_parameter
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(_STORAGE_DTYPES[name])
        if module == "torch" and isinstance(getattr(_C, name, None), _C.dtype):
            return getattr(_C, name)
        if module == "torch" and name in ("device", "Size"):
            import tensorcore

            return getattr(tensorcore, name)
        if module == "torch" or module.startswith("torch."):
            # A torch class (a whole torch module saved by torch.save): ours of the same path.
            import importlib

            ours = "tensorcore" + module[len("torch") :]
            try:
                return getattr(importlib.import_module(ours), name)
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(
                    f"tc.load: the file needs '{module}.{name}', which tensorcore does not have "
                    f"(looked for '{ours}.{name}')"
                ) from None
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"tc.load: unknown persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        if key in self._loaded:
            return self._loaded[key]
        if isinstance(storage_type, _StorageType):
            dtype_name = storage_type.dtype_name
        else:
            raise pickle.UnpicklingError(f"tc.load: unsupported storage type {storage_type!r}")
        try:
            data = self._archive.read(f"{self._prefix}data/{key}")
        except KeyError:
            raise pickle.UnpicklingError(
                f"tc.load: the file lacks the storage record 'data/{key}'"
            ) from None
        carrier = _NUMPY_CARRIER.get(dtype_name) or np.dtype(dtype_name)
        array = np.frombuffer(data, dtype=carrier).copy()
        if array.size != numel:
            raise pickle.UnpicklingError(
                f"tc.load: storage 'data/{key}' holds {array.size} elements, expected {numel}"
            )
        t = _C.from_numpy(array)
        if dtype_name in _NUMPY_CARRIER:
            t = t.view(getattr(_C, dtype_name))
        t = self._restore(t, location)
        self._loaded[key] = t
        return t


def load(data, restore):
    """Unpickles a torch-format zip (bytes). Runs code from the file: for trusted files only."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    pickles = [n for n in archive.namelist() if n.endswith("data.pkl")]
    if not pickles:
        raise RuntimeError("tc.load: the zip file has no data.pkl record (not a torch file)")
    prefix = pickles[0][: -len("data.pkl")]
    with archive.open(pickles[0]) as f:
        return _Unpickler(f, archive, prefix, restore).load()
