"""tensorcore.nn.parallel (torch.nn.parallel): DataParallel, DistributedDataParallel."""

from .data_parallel import DataParallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401
