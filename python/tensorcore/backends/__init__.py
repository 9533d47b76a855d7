"""tensorcore.backends: backend switches (torch.backends names)."""
from . import cuda  # noqa: F401
