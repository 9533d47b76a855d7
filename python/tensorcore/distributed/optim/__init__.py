"""tensorcore.distributed.optim: ZeroRedundancyOptimizer."""

from .zero_redundancy_optimizer import ZeroRedundancyOptimizer  # noqa: F401
