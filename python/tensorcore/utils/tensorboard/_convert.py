"""Turning the values users log (tensors, arrays, numbers) into NumPy arrays."""

import numbers

import numpy as np


def make_np(value):
    """A NumPy array from a tensorcore Tensor, a NumPy array, a torch tensor or a number."""
    from ... import _C

    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, _C.Tensor):
        t = value.detach().cpu()
        # NumPy has no bfloat16 (and half is widened for the summaries anyway).
        if t.dtype in (_C.bfloat16, _C.float16):
            t = t.to(_C.float32)
        return t.numpy()
    if isinstance(value, (numbers.Number, np.generic)):
        return np.array([value])
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor
        return value.detach().cpu().numpy()
    if isinstance(value, (list, tuple)):
        return np.asarray(value)
    raise TypeError(
        f"tensorboard: expected a Tensor, NumPy array or number, got {type(value).__name__}"
    )


def scalar_of(value, what):
    """One Python float from a number or a one-element tensor/array."""
    arr = make_np(value)
    if arr.size != 1:
        raise ValueError(
            f"{what}: the value must be a scalar or one-element tensor, got shape "
            f"{tuple(arr.shape)}"
        )
    return arr.reshape(()).item()


def to_hwc(array, dataformats):
    """Reorders an image array given in `dataformats` (a permutation of CHW/HWC/HW/NCHW...)
    into HWC; a batch (N in the format) is tiled into a grid first."""
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt) or not set(fmt) <= set("NCHW") or not {"H", "W"} <= set(fmt):
        raise ValueError(
            f"dataformats must be a permutation of letters from NCHW holding H and W, "
            f"got {dataformats!r}"
        )
    if array.ndim != len(fmt):
        raise ValueError(
            f"the image has {array.ndim} dimensions but dataformats={dataformats!r} "
            f"names {len(fmt)}"
        )
    if "N" in fmt:
        order = [fmt.index(c) for c in "NCHW" if c in fmt]
        array = array.transpose(order)
        if "C" not in fmt:
            array = array[:, None]
        return make_grid(array).transpose(1, 2, 0)
    order = [fmt.index(c) for c in "HWC" if c in fmt]
    array = array.transpose(order)
    if "C" not in fmt:
        array = array[:, :, None]
    return array


def make_grid(images, ncols=None):
    """Tiles N images (N, C, H, W) into one (C, rows*H, cols*W) image, as torch does."""
    n, c, h, w = images.shape
    if c == 1:
        images = np.repeat(images, 3, axis=1)
        c = 3
    elif c not in (3, 4):
        raise ValueError(f"images need 1, 3 or 4 channels, got {c}")
    if ncols is None:
        ncols = min(n, int(np.ceil(np.sqrt(n))))
    nrows = int(np.ceil(n / ncols)) if n else 0
    canvas = np.zeros((c, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        r, col = divmod(i, ncols)
        canvas[:, r * h : (r + 1) * h, col * w : (col + 1) * w] = images[i]
    return canvas
