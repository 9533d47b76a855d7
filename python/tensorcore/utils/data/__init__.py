"""tensorcore.utils.data: datasets, samplers, collation and the DataLoader (torch.utils.data's API)."""

from .dataset import (  # noqa: F401
    Dataset,
    IterableDataset,
    TensorDataset,
    ConcatDataset,
    ChainDataset,
    Subset,
    random_split,
)
from .sampler import (  # noqa: F401
    Sampler,
    SequentialSampler,
    RandomSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
    BatchSampler,
    DistributedSampler,
)
from ._collate import default_collate, default_convert  # noqa: F401
from ._worker import get_worker_info, WorkerInfo  # noqa: F401
from .dataloader import DataLoader  # noqa: F401
from .. import progress  # noqa: F401
from ..progress import tqdm  # noqa: F401
