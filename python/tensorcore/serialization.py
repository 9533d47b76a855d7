"""tc.save / tc.load in PyTorch's checkpoint format, plus safetensors files.

Files written by tc.save load with torch.load and vice versa (the zip format PyTorch uses since
1.6). Only data is stored: tensors, numbers, strings, None, and lists/tuples/dicts of them.
Unlike torch.load, loading never runs code from the file, so untrusted checkpoints are safe.
"""
import os as _os

from . import _C

_S = _C._serialize

__all__ = ["save", "load", "save_safetensors", "load_safetensors"]


def _is_path(f):
    return isinstance(f, (str, _os.PathLike))


def save(obj, f):
    """Saves obj (e.g. a state_dict) to a path or a writable binary file object."""
    if _is_path(f):
        _S.dump_file(obj, _os.fsdecode(f))
        return
    if not hasattr(f, "write"):
        raise TypeError(f"tc.save: expected a path or a writable file object, got {type(f).__name__}")
    f.write(_S.dumps(obj))


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
                    "not available; pass map_location='cpu' to load it on the CPU")
        return tensor.to(_device(target))

    return restore


def load(f, map_location=None, weights_only=True):
    """Loads what tc.save or torch.save wrote, from a path, a binary file object or bytes.

    map_location: None (tensors go where they were saved), a device or string ('cpu',
    'cuda:0'), a dict {saved_location: new_location}, or a callable (tensor, location) -> tensor.
    weights_only is accepted for torch compatibility; loading is always data-only.
    A safetensors file given by path loads as a dict of tensors.
    """
    del weights_only  # always data-only
    restore = _restorer(map_location)
    if _is_path(f):
        path = _os.fsdecode(f)
        with open(path, "rb") as fh:
            magic = fh.read(4)
        if magic != b"PK\x03\x04" and len(magic) == 4:
            tensors = _S.load_safetensors(path)
            return {k: restore(v, "cpu") for k, v in tensors.items()}
        return _S.load_file(path, restore)
    if isinstance(f, (bytes, bytearray, memoryview)):
        return _S.loads(bytes(f), restore)
    if not hasattr(f, "read"):
        raise TypeError(f"tc.load: expected a path, bytes or a readable file object, got {type(f).__name__}")
    return _S.loads(f.read(), restore)


def save_safetensors(tensors, path, metadata=None):
    """Writes a dict {name: tensor} as a safetensors file (metadata: dict of str -> str)."""
    if not isinstance(tensors, dict):
        raise TypeError(f"save_safetensors: expected a dict of tensors, got {type(tensors).__name__}")
    _S.save_safetensors(list(tensors.items()), _os.fsdecode(path), dict(metadata or {}))


def load_safetensors(path):
    """Reads a safetensors file into a dict {name: tensor} (CPU)."""
    return _S.load_safetensors(_os.fsdecode(path))
