"""tensorcore.nn: modules, parameters, initialisation and functional layers (torch.nn's API)."""

from .parameter import Parameter, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import functional, init, utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel, DistributedDataParallel  # noqa: F401
