"""Data plumbing shared by the pipelines: a resumable batch sampler and bad-file handling.

Resuming bit-exactly needs the data order of an epoch to be a function of (seed, epoch) alone,
and the position inside the epoch to be part of the checkpoint. EpochBatchSampler draws each
epoch's order from its own NumPy generator seeded with (seed, epoch) - never from the global
generators a training step uses - and can start at any batch. Random per-item choices (crops)
get their own generator from (seed, epoch, index) through the (epoch, index) keys it yields, so
they are the same in any worker process and after a resume.
"""

import warnings

import numpy as np

from .distributed import shard
from .errors import PipelineError


class EpochBatchSampler:
    """Batches of (epoch, index) keys for one epoch.

    rank, world_size: in a multi-process run each rank takes DistributedSampler's share of the
    epoch's order (order[rank::world_size], padded by repetition) and forms its batches from it,
    so ranks of batch B together take the items one process of batch world_size * B would.

    group_ids: optional group of each item (aspect-ratio grouping, length buckets): batches are
    then formed within groups, in the shuffled order (torchvision's GroupedBatchSampler rule),
    and the leftovers of each group form the last batches.
    """

    def __init__(
        self,
        num_items,
        batch_size,
        seed,
        shuffle=True,
        drop_last=False,
        group_ids=None,
        rank=0,
        world_size=1,
    ):
        if num_items <= 0:
            raise PipelineError("the training set is empty")
        if batch_size <= 0:
            raise PipelineError(f"--batch-size must be positive, got {batch_size}")
        if world_size < 1 or not 0 <= rank < world_size:
            raise PipelineError(f"rank {rank} is out of range for a world of {world_size}")
        self.num_items, self.batch_size, self.seed = num_items, batch_size, seed
        self.shuffle, self.drop_last = shuffle, drop_last
        self.group_ids = None if group_ids is None else np.asarray(group_ids)
        self.rank, self.world_size = rank, world_size
        self.epoch, self.start = 0, 0
        self._cached = (None, None)

    def set_epoch(self, epoch, start_batch=0):
        self.epoch, self.start = epoch, start_batch

    def batches(self, epoch):
        """This rank's batches of the epoch (lists of item indices)."""
        if self._cached[0] == epoch:
            return self._cached[1]
        if self.shuffle:
            order = np.random.default_rng([self.seed, epoch]).permutation(self.num_items)
        else:
            order = np.arange(self.num_items)
        if self.world_size == 1:
            mine = self._form(order)
        else:
            # Every rank forms every rank's batches (cheap, no communication) to learn the
            # largest count: grouping can leave one rank a batch more than another, and a rank
            # that ran out would leave the others waiting in DDP's all-reduce. Shorter lists
            # repeat their first batches, as DistributedSampler pads with repeated items.
            per_rank = [
                self._form(shard(order, r, self.world_size)) for r in range(self.world_size)
            ]
            mine, most = per_rank[self.rank], max(len(b) for b in per_rank)
            if not mine and most:
                raise PipelineError(
                    f"rank {self.rank} has no full batch this epoch; lower --batch-size"
                )
            while len(mine) < most:
                mine = mine + mine[: most - len(mine)]
        self._cached = (epoch, mine)
        return mine

    def _form(self, order):
        if self.group_ids is None:
            batches = [
                order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)
            ]
        else:
            pending, batches = {}, []
            for index in order:
                bucket = pending.setdefault(self.group_ids[index], [])
                bucket.append(index)
                if len(bucket) == self.batch_size:
                    batches.append(np.array(bucket))
                    bucket.clear()
            batches += [np.array(b) for b in pending.values() if b]
        if self.drop_last:
            batches = [b for b in batches if len(b) == self.batch_size]
        return [[int(i) for i in b] for b in batches]

    def __len__(self):
        return max(0, len(self.batches(self.epoch)) - self.start)

    def __iter__(self):
        for batch in self.batches(self.epoch)[self.start :]:
            yield [(self.epoch, i) for i in batch]


def item_rng(seed, epoch, index):
    """The generator for one item's random choices in one epoch."""
    return np.random.default_rng([seed, epoch, index, 0x5EED])


class _BadItem:
    def __init__(self, index, message):
        self.index, self.message = index, message


class KeyedDataset:
    """Maps (epoch, index) keys to items through load(dataset, index, rng).

    A file that cannot be read raises (on_bad_file="error", naming it) or becomes a placeholder
    that CollateSkipping drops and reports (on_bad_file="skip")."""

    def __init__(self, dataset, load, seed, on_bad_file="error"):
        if on_bad_file not in ("error", "skip"):
            raise PipelineError(f"--on-bad-file must be 'error' or 'skip', got {on_bad_file!r}")
        self.dataset, self.load, self.seed, self.on_bad_file = dataset, load, seed, on_bad_file

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, key):
        epoch, index = key if isinstance(key, tuple) else (0, key)
        try:
            return self.load(self.dataset, index, item_rng(self.seed, epoch, index))
        except (RuntimeError, OSError, ValueError) as e:
            if self.on_bad_file == "error":
                raise PipelineError(
                    f"item {index} of the corpus could not be read: {e} (pass --on-bad-file skip "
                    "to skip such files with a warning)"
                ) from None
            return _BadItem(index, str(e))


class Batch:
    """A collated batch plus what was skipped while loading it."""

    def __init__(self, data, skipped, size):
        self.data, self.skipped, self.size = data, skipped, size


class CollateSkipping:
    def __init__(self, collate):
        self.collate = collate

    def __call__(self, items):
        good = [x for x in items if not isinstance(x, _BadItem)]
        skipped = [(x.index, x.message) for x in items if isinstance(x, _BadItem)]
        return Batch(self.collate(good) if good else None, skipped, len(good))


def warn_skipped(skipped):
    for index, message in skipped:
        warnings.warn(f"skipped item {index}: {message}", stacklevel=2)


class Subset:
    """The items of a dataset at `indices` (--max-train-items / --max-eval-items, a task's own
    filtering), keeping the per-index helpers the tasks use (num_frames, get_metadata, ids)."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        return self.dataset[self.indices[i]]

    def num_frames(self, i):
        return self.dataset.num_frames(self.indices[i])

    def get_metadata(self, i):
        return self.dataset.get_metadata(self.indices[i])

    @property
    def ids(self):
        return [self.dataset.ids[i] for i in self.indices]
