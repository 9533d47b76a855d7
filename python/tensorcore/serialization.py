"""tc.save / tc.load: checkpoints as safetensors (default) or in PyTorch's .pt format.

tc.save writes a safetensors file by default, so any safetensors reader gets the tensors (named
by their dotted path in the saved object, e.g. "model.fc.weight"); the object's structure
(nesting, numbers, strings) is kept as JSON in the file's metadata, so tc.load rebuilds the
exact object. format="pt" writes PyTorch's zip format instead (torch.load reads it, and views of
one storage stay shared). tc.load reads both, plus any torch.save checkpoint.

Data (tensors, numbers, strings, None, and lists/tuples/dicts of them) is stored without
pickle, and tc.load reads it by default (weights_only=True) without running code from the file,
so untrusted checkpoints are safe to open. Anything else (a whole module, NumPy arrays, any
picklable object) is pickled in torch's zip format, as torch.save does; loading such a file runs
code from it, so tc.load asks for an explicit weights_only=False (as torch 2 does).
"""

import json as _json
import os as _os

from . import _C

_S = _C._serialize

__all__ = ["save", "load", "save_safetensors", "load_safetensors"]


def _is_path(f):
    return isinstance(f, (str, _os.PathLike))


_STRUCTURE_KEY = "tensorcore.structure"


def _flatten(obj, path, tensors, depth=0):
    """The JSON description of obj; tensors are appended to `tensors` as (name, tensor)."""
    from . import Tensor

    if depth > 500:
        raise ValueError("tc.save: object nests more than 500 levels deep")
    if isinstance(obj, Tensor):
        name = path or "tensor"
        taken = {n for n, _ in tensors}
        unique, k = name, 1
        while unique in taken:  # e.g. key "a.b" next to {"a": {"b": ...}}
            unique, k = f"{name}#{k}", k + 1
        tensors.append((unique, obj.detach()))
        return {"tensor": unique, "requires_grad": bool(obj.requires_grad)}
    if obj is None or isinstance(obj, (bool, str)):
        return {"v": obj}
    if isinstance(obj, int):
        return {"int": str(obj)}  # exact for any size
    if isinstance(obj, float):
        return {"float": repr(obj)}  # keeps inf/nan and every bit
    join = (lambda k: f"{path}.{k}") if path else str
    if isinstance(obj, dict):
        # Keys are scalars or tuples of them; _flatten describes them (tensors are not keys).
        return {
            "dict": [
                [_flatten(k, "", [], depth + 1), _flatten(v, join(k), tensors, depth + 1)]
                for k, v in obj.items()
            ]
        }
    if isinstance(obj, (list, tuple)):
        kind = "list" if isinstance(obj, list) else "tuple"
        return {kind: [_flatten(v, join(i), tensors, depth + 1) for i, v in enumerate(obj)]}
    if hasattr(obj, "__index__"):
        return {"int": str(obj.__index__())}
    if hasattr(obj, "__float__"):
        return {"float": repr(float(obj))}
    raise TypeError(
        f"tc.save: cannot serialize an object of type '{type(obj).__qualname__}' (supported: "
        "Tensor, int, float, bool, str, None, and lists, tuples and dicts of these; save a "
        "module's state_dict() rather than the module)"
    )


def _rebuild(node, tensors):
    if "tensor" in node:
        t = tensors[node["tensor"]]
        return t.requires_grad_(True) if node.get("requires_grad") else t
    if "v" in node:
        return node["v"]
    if "int" in node:
        return int(node["int"])
    if "float" in node:
        return float(node["float"])
    if "dict" in node:
        return {_hashable(_rebuild(k, tensors)): _rebuild(v, tensors) for k, v in node["dict"]}
    if "list" in node:
        return [_rebuild(v, tensors) for v in node["list"]]
    if "tuple" in node:
        return tuple(_rebuild(v, tensors) for v in node["tuple"])
    raise RuntimeError(
        f"tc.load: unrecognized structure entry {sorted(node)} in the file's metadata"
    )


def _hashable(k):
    return tuple(_hashable(x) for x in k) if isinstance(k, list) else k


def save(obj, f, format="safetensors", pickle_module=None, pickle_protocol=2):
    """Saves obj to a path or a binary file object.

    Data (a tensor, a state_dict, nested containers) goes to a safetensors file by default
    (readable by every safetensors reader) or, with format="pt", to PyTorch's zip format.
    Other objects (a whole module, NumPy arrays, any picklable object) are pickled in PyTorch's
    zip format whatever the format, as torch.save does; tc.load then needs weights_only=False.
    pickle_module/pickle_protocol are accepted for torch compatibility (protocol 2 is written).
    """
    if format not in ("safetensors", "pt"):
        raise ValueError(f"tc.save: format must be 'safetensors' or 'pt', got {format!r}")
    if not _is_path(f):
        _writer(f)
    if format == "pt":
        try:
            data = _S.dumps(obj)
        except (TypeError, ValueError):
            return _save_pickled(obj, f)
        if _is_path(f):
            with open(_os.fsdecode(f), "wb") as fh:
                fh.write(data)
        else:
            f.write(data)
        return
    tensors = []
    try:
        structure = _flatten(obj, "", tensors)
    except (TypeError, ValueError):
        return _save_pickled(obj, f)
    metadata = {"format": "pt", _STRUCTURE_KEY: _json.dumps(structure, separators=(",", ":"))}
    if _is_path(f):
        _S.save_safetensors(tensors, _os.fsdecode(f), metadata)
    else:
        _writer(f).write(_S.dumps_safetensors(tensors, metadata))


def _save_pickled(obj, f):
    import pickle

    from . import _pickle_format

    try:
        data = _pickle_format.dumps(obj)  # all or nothing: no half-written file on error
    except (pickle.PicklingError, AttributeError, TypeError) as e:
        raise TypeError(
            f"tc.save: cannot serialize an object of type '{type(obj).__qualname__}': it holds "
            f"something pickle cannot store ({e})"
        ) from None
    if _is_path(f):
        with open(_os.fsdecode(f), "wb") as fh:
            fh.write(data)
    else:
        f.write(data)


def _writer(f):
    if not hasattr(f, "write"):
        raise TypeError(
            f"tc.save: expected a path or a writable file object, got {type(f).__name__}"
        )
    return f


def _restorer(map_location):
    from . import device as _device

    def restore(tensor, location):
        if map_location is None:
            target = location
        elif callable(map_location):
            out = map_location(tensor, location)
            return tensor if out is None else out
        elif isinstance(map_location, dict):
            target = map_location.get(location, location)
        else:
            target = str(map_location)
        if target == "cpu":
            return tensor
        if target.startswith("cuda"):
            cuda = getattr(__import__("tensorcore"), "cuda", None)
            if cuda is None or not cuda.is_available():
                raise RuntimeError(
                    f"tc.load: the checkpoint holds a tensor saved on '{location}', but CUDA is "
                    "not available; pass map_location='cpu' to load it on the CPU"
                )
        return tensor.to(_device(target))

    return restore


def load(f, map_location=None, weights_only=True):
    """Loads what tc.save or torch.save wrote, from a path, a binary file object or bytes.

    map_location: None (tensors go where they were saved), a device or string ('cpu',
    'cuda:0'), a dict {saved_location: new_location}, or a callable (tensor, location) -> tensor.
    weights_only=True (default) reads data only and never runs code from the file; a file that
    holds other objects (a pickled module, NumPy arrays) needs weights_only=False, which runs
    the file's pickle: use it only for files from a trusted source.
    A safetensors file written by another tool loads as a dict {name: tensor}.
    """
    restore = _restorer(map_location)
    if _is_path(f):
        path = _os.fsdecode(f)
        with open(path, "rb") as fh:
            magic = fh.read(4)
            if magic == b"PK\x03\x04" and not weights_only:
                fh.seek(0)
                return _load_pickled(fh.read(), restore)
        if magic == b"PK\x03\x04":
            return _weights_only(lambda: _S.load_file(path, restore))
        tensors, metadata = _S.load_safetensors(path), _S.safetensors_metadata(path)
    else:
        if isinstance(f, (bytes, bytearray, memoryview)):
            data = bytes(f)
        elif hasattr(f, "read"):
            data = f.read()
        else:
            raise TypeError(
                f"tc.load: expected a path, bytes or a readable file object, got {type(f).__name__}"
            )
        if data[:4] == b"PK\x03\x04":
            if not weights_only:
                return _load_pickled(data, restore)
            return _weights_only(lambda: _S.loads(data, restore))
        tensors, metadata = _S.loads_safetensors(data)
    tensors = {k: restore(v, "cpu") for k, v in tensors.items()}
    structure = metadata.get(_STRUCTURE_KEY)
    if structure is None:
        return tensors
    try:
        structure = _json.loads(structure)
    except ValueError as e:
        raise RuntimeError(
            f"tc.load: the file's {_STRUCTURE_KEY} metadata is not valid JSON ({e})"
        ) from None
    return _rebuild(structure, tensors)


def _load_pickled(data, restore):
    from . import _pickle_format

    return _pickle_format.load(data, restore)


def _weights_only(read):
    try:
        return read()
    except RuntimeError as e:
        if "refusing to load unsupported global" not in str(e):
            raise
        from ._pickle_format import WeightsOnlyUnpicklingError

        raise WeightsOnlyUnpicklingError(
            f"tc.load: weights only load failed: {e}. The file holds objects beyond tensors and "
            "containers (e.g. a whole module or NumPy arrays). Re-running tc.load with "
            "weights_only=False will load it, but runs code from the file: do it only if you "
            "trust its source."
        ) from None


def save_safetensors(tensors, path, metadata=None):
    """Writes a dict {name: tensor} as a safetensors file (metadata: dict of str -> str)."""
    if not isinstance(tensors, dict):
        raise TypeError(
            f"save_safetensors: expected a dict of tensors, got {type(tensors).__name__}"
        )
    _S.save_safetensors(list(tensors.items()), _os.fsdecode(path), dict(metadata or {}))


def load_safetensors(path):
    """Reads a safetensors file into a dict {name: tensor} (CPU)."""
    return _S.load_safetensors(_os.fsdecode(path))
