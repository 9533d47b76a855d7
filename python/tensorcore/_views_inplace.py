"""torch's in-place view methods (t_, transpose_, swapaxes_, swapdims_, squeeze_, unsqueeze_):
each gives self the geometry of the matching view through the native as_strided_ (which also
refuses tensors that require grad). Installed by tensorcore/__init__.py."""


def _take_geometry(self, view):
    return self.as_strided_(list(view.shape), list(view.stride()), view.storage_offset())


def _t_(self):
    """In-place t(): self becomes its transpose (at most 2-D)."""
    return _take_geometry(self, self.t())


def _transpose_(self, dim0, dim1):
    """In-place transpose(dim0, dim1)."""
    return _take_geometry(self, self.transpose(dim0, dim1))


def _swapaxes_(self, axis0, axis1):
    """In-place swapaxes(axis0, axis1): ``transpose_`` with NumPy's argument names."""
    return _take_geometry(self, self.transpose(axis0, axis1))


def _squeeze_(self, dim=None):
    """In-place squeeze(dim): drops size-1 dimensions (all, or dim)."""
    return _take_geometry(self, self.squeeze() if dim is None else self.squeeze(dim))


def _unsqueeze_(self, dim):
    """In-place unsqueeze(dim): inserts a size-1 dimension at dim."""
    return _take_geometry(self, self.unsqueeze(dim))


_METHODS = {
    "t_": _t_,
    "transpose_": _transpose_,
    "swapaxes_": _swapaxes_,
    "swapdims_": _transpose_,
    "squeeze_": _squeeze_,
    "unsqueeze_": _unsqueeze_,
}
