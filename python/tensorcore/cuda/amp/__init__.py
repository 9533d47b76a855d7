"""torch.cuda.amp: autocast with device_type='cuda' (float16 by default) and GradScaler."""

import functools as _functools

from ... import _C
from ...amp.autocast_mode import (
    autocast as _autocast,
    custom_fwd as _custom_fwd,
    custom_bwd as _custom_bwd,
)
from ...amp.grad_scaler import GradScaler  # noqa: F401


class autocast(_autocast):
    """torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)."""

    def __init__(self, enabled=True, dtype=_C.float16, cache_enabled=True):
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


custom_fwd = _functools.partial(_custom_fwd, device_type="cuda")
custom_bwd = _functools.partial(_custom_bwd, device_type="cuda")
