"""tensorcore.utils: benchmark helpers, data loading (tensorcore.utils.data) and a progress bar."""
from . import benchmark  # noqa: F401
from . import data  # noqa: F401
from . import progress  # noqa: F401
