"""torch.cpu.amp: autocast with device_type='cpu' (bfloat16 by default)."""

from ... import _C
from ...amp.autocast_mode import autocast as _autocast


class autocast(_autocast):
    """torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)."""

    def __init__(self, enabled=True, dtype=_C.bfloat16, cache_enabled=True):
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
