"""tensorcore.utils: benchmark helpers (data loading arrives with the nn/data issue)."""
from . import benchmark  # noqa: F401
