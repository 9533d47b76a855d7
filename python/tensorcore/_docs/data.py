"""Docstrings of tensorcore.utils.data."""

from ._style import doc

TARGET = "tensorcore.utils.data"

_GEN = "generator (Generator, optional): the random source."

DOCS = {
    "DataLoader": doc(
        "DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None, ...)",
        "Iterates over a dataset in batches: draws indices from a sampler (sequential, or random with "
        "``shuffle``), loads the samples (in ``num_workers`` worker processes when > 0) and collates "
        "them into batched tensors.",
        [
            "dataset (Dataset): map-style (``__getitem__``/``__len__``) or iterable-style.",
            "batch_size (int, optional): samples per batch (None: no batching).",
            "shuffle (bool): reshuffle every epoch.",
            "sampler (Sampler or iterable, optional): the index order (excludes ``shuffle``).",
            "batch_sampler (Sampler, optional): yields lists of indices.",
            "num_workers (int): loader processes (0: load in the main process).",
            "collate_fn (callable, optional): merges samples into a batch.",
            "pin_memory (bool): page-lock batches for faster host-to-GPU copies.",
            "drop_last (bool): drop the last incomplete batch.",
            "timeout (float): seconds to wait for a worker's batch.",
            "worker_init_fn (callable, optional): called with the worker id in each worker.",
        ],
        example=">>> ds = tc.utils.data.TensorDataset(tc.arange(5))\n>>> [b[0].tolist() for b in tc.utils.data.DataLoader(ds, batch_size=2)]\n[[0, 1], [2, 3], [4]]",
    ),
    "TensorDataset": doc(
        "TensorDataset(*tensors)",
        "Dataset of tensors sharing their first dimension: item ``i`` is the tuple of their ``i``-th slices.",
        ["*tensors (Tensor): same size along dim 0."],
    ),
    "ConcatDataset": doc(
        "ConcatDataset(datasets)",
        "The concatenation of several map-style datasets.",
        ["datasets (sequence): the datasets."],
    ),
    "ChainDataset": doc(
        "ChainDataset(datasets)",
        "Chains iterable-style datasets one after another.",
        ["datasets (iterable): the datasets."],
    ),
    "Subset": doc(
        "Subset(dataset, indices)",
        "The items of ``dataset`` at ``indices``.",
        ["dataset (Dataset): the whole dataset.", "indices (sequence): selected indices."],
    ),
    "Sampler": doc(
        "Sampler(data_source=None)",
        "Base class of samplers: iterables of dataset indices (``__iter__``, optionally ``__len__``).",
    ),
    "SequentialSampler": doc(
        "SequentialSampler(data_source)",
        "Yields ``0 .. len(data_source) - 1`` in order.",
        ["data_source (Dataset): the dataset."],
    ),
    "RandomSampler": doc(
        "RandomSampler(data_source, replacement=False, num_samples=None, generator=None)",
        "Yields indices in random order (a permutation, or draws with replacement).",
        [
            "data_source (Dataset): the dataset.",
            "replacement (bool): draw with replacement.",
            "num_samples (int, optional): how many (default: the dataset size).",
            _GEN,
        ],
    ),
    "SubsetRandomSampler": doc(
        "SubsetRandomSampler(indices, generator=None)",
        "Yields the given indices in random order.",
        ["indices (sequence): the indices.", _GEN],
    ),
    "WeightedRandomSampler": doc(
        "WeightedRandomSampler(weights, num_samples, replacement=True, generator=None)",
        "Draws ``num_samples`` indices with probabilities proportional to ``weights``.",
        [
            "weights (sequence): non-negative weights.",
            "num_samples (int): number of draws.",
            "replacement (bool): draw with replacement.",
            _GEN,
        ],
    ),
    "BatchSampler": doc(
        "BatchSampler(sampler, batch_size, drop_last)",
        "Groups another sampler's indices into lists of ``batch_size``.",
        [
            "sampler (Sampler or iterable): the index source.",
            "batch_size (int): batch size.",
            "drop_last (bool): drop the last short batch.",
        ],
    ),
    "WorkerInfo": doc(
        "WorkerInfo(id, num_workers, seed, dataset)",
        "Information about the current DataLoader worker, returned by ``get_worker_info()`` inside a worker: its ``id``, ``num_workers``, ``seed`` and its copy of the ``dataset``.",
    ),
    "default_convert": doc(
        "default_convert(data)",
        "Converts NumPy arrays (also inside lists, tuples and dicts) to tensors without batching; the collate function used when ``batch_size`` is None.",
        ["data: a sample."],
    ),
}
