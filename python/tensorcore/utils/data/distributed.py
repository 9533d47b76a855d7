"""tensorcore.utils.data.distributed (torch.utils.data.distributed): DistributedSampler."""

from .sampler import DistributedSampler  # noqa: F401

__all__ = ["DistributedSampler"]
