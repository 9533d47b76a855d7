"""tensorcore.nn.parallel (torch.nn.parallel): DataParallel."""

from .data_parallel import DataParallel  # noqa: F401
