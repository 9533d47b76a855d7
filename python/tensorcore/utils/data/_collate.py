"""default_collate / default_convert: stack samples into batches, recursing into containers."""

import collections.abc
import numbers

import numpy as np

from ... import _C
from ..._C import Tensor


def _from_numpy(a):
    if a.dtype.kind in "SaUO":
        raise TypeError(
            f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
            f"a numpy array of dtype {a.dtype}"
        )
    return _C.from_numpy(np.ascontiguousarray(a))


def default_convert(data):
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if data.dtype.kind in "SaUO" else _from_numpy(data)
    if isinstance(data, np.generic):
        return _from_numpy(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return (
            type(data)({k: default_convert(v) for k, v in data.items()})
            if not isinstance(data, dict)
            else {k: default_convert(v) for k, v in data.items()}
        )
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """Tensors/arrays are stacked on a new dim 0; Python numbers become tensors (float64/int64);
    strings are kept as a list; dicts, namedtuples, tuples and lists are collated per field."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        shapes = {tuple(b.shape) for b in batch}
        if len(shapes) != 1:
            raise RuntimeError(
                f"default_collate: stack expects each tensor to be equal size, but got shapes "
                f"{sorted(shapes)}"
            )
        return _C.stack(list(batch))
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "SaUO":
            raise TypeError(
                f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                f"found {elem.dtype}"
            )
        return default_collate([_from_numpy(b) for b in batch])
    if isinstance(elem, np.generic):
        return _from_numpy(np.asarray(batch))
    if isinstance(elem, bool):
        return _C.from_numpy(np.asarray(batch, dtype=np.bool_))
    if isinstance(elem, numbers.Integral):
        return _C.from_numpy(np.asarray(batch, dtype=np.int64))
    if isinstance(elem, numbers.Real):
        return _C.from_numpy(np.asarray(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        return [default_collate(s) for s in transposed]
    if elem is None:
        return list(batch)
    raise TypeError(
        f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
        f"{type(elem).__name__}"
    )
