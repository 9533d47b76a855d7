import collections
import io
import os
import time

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    DistributedSampler,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    get_worker_info,
    random_split,
)
from tensorcore.utils.progress import tqdm

Point = collections.namedtuple("Point", ["x", "label"])


class Squares(Dataset):
    def __init__(self, n, fail_at=None, sleep=0.0):
        self.n, self.fail_at, self.sleep = n, fail_at, sleep

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise KeyError(f"bad sample {i}")
        if self.sleep:
            time.sleep(self.sleep)
        info = get_worker_info()
        return {
            "x": tc.full((3,), float(i * i)),
            "i": i,
            "worker": -1 if info is None else info.id,
            "big": np.full((200, 100), i, dtype=np.float32),
        }


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


def test_default_collate_structures():
    batch = default_collate([Point(np.ones(2), 1), Point(np.zeros(2), 0)])
    assert (
        isinstance(batch, Point)
        and tuple(batch.x.shape) == (2, 2)
        and batch.label.dtype == tc.int64
    )
    d = default_collate(
        [{"a": 1.5, "s": "u", "t": (tc.ones(1), 2)}, {"a": 2.5, "s": "v", "t": (tc.zeros(1), 3)}]
    )
    assert d["a"].dtype == tc.float64 and d["s"] == ["u", "v"]
    assert tuple(d["t"][0].shape) == (2, 1) and d["t"][1].tolist() == [2, 3]
    assert default_collate([True, False]).dtype == tc.bool
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([tc.ones(2), tc.ones(3)])


def test_datasets_and_split():
    ds = TensorDataset(tc.arange(10), tc.arange(10) * 2)
    assert len(ds) == 10 and ds[3][1].item() == 6
    with pytest.raises(ValueError, match="Size mismatch"):
        TensorDataset(tc.zeros(3), tc.zeros(4))
    cat = ConcatDataset([ds, Subset(ds, [7, 8])])
    assert len(cat) == 12 and cat[11][0].item() == 8 and cat[-1][0].item() == 8
    g = tc.Generator()
    g.manual_seed(1)
    a, b = random_split(ds, [0.7, 0.3], generator=g)
    assert (len(a), len(b)) == (7, 3)
    assert sorted(a.indices + b.indices) == list(range(10))
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(ds, [3, 3])


def test_samplers(torch_ref):
    torch = torch_ref
    data = list(range(10))
    assert list(SequentialSampler(data)) == data
    g1, g2 = tc.Generator(), tc.Generator()
    g1.manual_seed(5)
    g2.manual_seed(5)
    first = list(RandomSampler(data, generator=g1))
    assert sorted(first) == data and first == list(RandomSampler(data, generator=g2))
    assert len(list(RandomSampler(data, replacement=True, num_samples=70))) == 70
    assert sorted(SubsetRandomSampler([3, 5, 9])) == [3, 5, 9]
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(range(7), 3, True)) == 2
    w = WeightedRandomSampler([0.0, 1.0, 3.0], 4000)
    counts = np.bincount(list(w), minlength=3)
    assert counts[0] == 0 and abs(counts[2] / counts[1] - 3) < 0.4
    for drop_last in (False, True):
        for rank in range(3):
            ours = DistributedSampler(
                list(range(11)), num_replicas=3, rank=rank, shuffle=False, drop_last=drop_last
            )
            ref = torch.utils.data.DistributedSampler(
                list(range(11)), num_replicas=3, rank=rank, shuffle=False, drop_last=drop_last
            )
            assert list(ours) == list(ref) and len(ours) == len(ref)
    parts = []
    for rank in range(2):
        s = DistributedSampler(list(range(10)), num_replicas=2, rank=rank, seed=3)
        s.set_epoch(4)
        parts += list(s)
    assert sorted(parts) == list(range(10))


def test_loader_single_process_matches_worker_processes():
    ds = Squares(23)
    ref = list(DataLoader(ds, batch_size=4))
    assert len(ref) == 6 and ref[-1]["x"].shape[0] == 3
    got = list(DataLoader(ds, batch_size=4, num_workers=2, prefetch_factor=3))
    assert len(got) == 6
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(r["x"].numpy(), g["x"].numpy())
        np.testing.assert_array_equal(r["big"].numpy(), g["big"].numpy())  # shared-memory path
        assert r["i"].tolist() == g["i"].tolist()
    workers = {w for b in got for w in b["worker"].tolist()}
    assert workers == {0, 1}
    assert len(list(DataLoader(ds, batch_size=4, drop_last=True, num_workers=2))) == 5


def test_shuffle_reproducible_with_generator_and_seed():
    ds = TensorDataset(tc.arange(40))

    def order(**kw):
        return [
            int(v) for b in DataLoader(ds, batch_size=5, shuffle=True, **kw) for v in b[0].tolist()
        ]

    g = tc.Generator()
    g.manual_seed(7)
    a = order(generator=g)
    g.manual_seed(7)
    assert order(generator=g) == a and sorted(a) == list(range(40)) and a != list(range(40))
    tc.manual_seed(3)
    b = order(num_workers=2)
    tc.manual_seed(3)
    assert order(num_workers=2) == b


def test_worker_seeds_and_init_fn():
    class RandomDs(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return tc.rand(1)

    seen = []
    tc.manual_seed(0)
    a = tc.cat(
        list(
            DataLoader(
                RandomDs(), batch_size=2, num_workers=2, worker_init_fn=lambda wid: seen.append(wid)
            )
        )
    ).numpy()
    tc.manual_seed(0)
    b = tc.cat(list(DataLoader(RandomDs(), batch_size=2, num_workers=2))).numpy()
    np.testing.assert_array_equal(a, b)
    assert len(set(a.ravel().tolist())) == 8  # the two workers draw different streams


def test_worker_error_reraised_with_traceback():
    loader = DataLoader(Squares(10, fail_at=6), batch_size=2, num_workers=2)
    with pytest.raises(KeyError) as err:
        list(loader)
    msg = str(err.value)
    assert "Caught KeyError in DataLoader worker process" in msg and "bad sample 6" in msg
    assert "__getitem__" in msg  # the worker's traceback
    with pytest.raises(KeyError, match="bad sample 6"):
        list(DataLoader(Squares(10, fail_at=6), batch_size=2))


def test_worker_init_error_and_timeout():
    def bad_init(wid):
        raise ValueError("init failed")

    with pytest.raises(ValueError, match="init failed"):
        list(DataLoader(Squares(4), batch_size=2, num_workers=1, worker_init_fn=bad_init))
    with pytest.raises(RuntimeError, match="timed out after 0.2 seconds"):
        list(DataLoader(Squares(4, sleep=1.0), batch_size=1, num_workers=1, timeout=0.2))


def test_iterable_dataset_split_across_workers():
    single = [v for b in DataLoader(Stream(17), batch_size=4) for v in b.tolist()]
    assert single == list(range(17))
    multi = [v for b in DataLoader(Stream(17), batch_size=4, num_workers=3) for v in b.tolist()]
    assert sorted(multi) == list(range(17))
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(Stream(3), shuffle=True)


def test_persistent_workers_reuse_processes():
    loader = DataLoader(Squares(12), batch_size=3, num_workers=2, persistent_workers=True)
    first = [b["i"].tolist() for b in loader]
    pids = [w.pid for w in loader._iterator._workers]
    second = [b["i"].tolist() for b in loader]
    assert first == second == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    assert [w.pid for w in loader._iterator._workers] == pids
    loader._iterator._shutdown_workers()


def test_loader_argument_errors_and_batch_sampler():
    ds = TensorDataset(tc.arange(6))
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="prefetch_factor"):
        DataLoader(ds, prefetch_factor=2)
    out = [b[0].tolist() for b in DataLoader(ds, batch_sampler=[[5, 0], [1]])]
    assert out == [[5, 0], [1]]
    unbatched = list(DataLoader(ds, batch_size=None))
    assert len(unbatched) == 6 and unbatched[2][0].item() == 2
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no CUDA device" on machines without a GPU
        pinned = next(iter(DataLoader(ds, batch_size=2, pin_memory=True)))
    assert pinned[0].tolist() == [0, 1]


def test_progress_bar_output():
    buf = io.StringIO()
    total = 0
    bar = tqdm(range(5), desc="train", file=buf, mininterval=0)
    for i in bar:
        total += i
        bar.set_postfix(loss=0.5 / (i + 1))
    text = buf.getvalue()
    assert total == 10 and "train: 100%|" in text and "5/5" in text and "loss=0.1" in text
    buf = io.StringIO()
    with tqdm(total=None, file=buf, unit="batch") as manual:
        manual.update(3)
    assert "3batch" in buf.getvalue()


def test_early_break_shuts_workers_down():
    it = iter(DataLoader(Squares(200), batch_size=4, num_workers=2))
    next(it)
    workers = list(it._workers)
    del it
    import gc

    gc.collect()
    for w in workers:
        w.join(timeout=10)
    assert not any(w.is_alive() for w in workers)


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm to inspect")
def test_no_shared_memory_left_behind():
    """Every batch's shared-memory block is unlinked: read ones, in-flight ones and ones that
    arrived ahead of their turn when an iterator is dropped early."""
    import gc

    def blocks():
        return {n for n in os.listdir("/dev/shm") if n.startswith("tc_dl_")}

    before = blocks()
    for _ in range(8):
        it = iter(DataLoader(Squares(200), batch_size=4, num_workers=2))
        next(it)
        del it
        gc.collect()
    assert sum(float(b["big"].sum()) for b in DataLoader(Squares(40), batch_size=4, num_workers=2))
    assert blocks() - before == set()


def test_spawn_context_pickles_dataset_tensors():
    ds = TensorDataset(tc.arange(20.0).reshape(10, 2), tc.arange(10))
    out = list(DataLoader(ds, batch_size=4, num_workers=1, multiprocessing_context="spawn"))
    assert [b[1].tolist() for b in out] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    np.testing.assert_array_equal(out[2][0].numpy(), [[16.0, 17.0], [18.0, 19.0]])


class DiesInWorker(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        import os

        if get_worker_info() is not None and i == 3:
            os._exit(3)
        return i


def test_worker_that_dies_is_reported():
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(DataLoader(DiesInWorker(), batch_size=2, num_workers=1))


def test_persistent_workers_with_iterable_dataset():
    loader = DataLoader(Stream(10), batch_size=3, num_workers=2, persistent_workers=True)
    for _ in range(3):
        assert sorted(v for b in loader for v in b.tolist()) == list(range(10))
    loader._iterator._shutdown_workers()


def test_abandoned_iterator_with_large_batches_in_flight_shuts_down():
    # Workers blocked writing big batches into a full pipe must still be shut down cleanly when
    # the iterator is dropped after one batch (this used to hang in the drain after terminate()).
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import tensorcore as tc
        from tensorcore.utils.data import DataLoader, Dataset

        class Big(Dataset):
            def __len__(self):
                return 64

            def __getitem__(self, i):
                return [tc.zeros(3, 112, 112, dtype=tc.uint8) for _ in range(4)]

        it = iter(DataLoader(Big(), batch_size=4, num_workers=2, collate_fn=lambda b: b))
        assert len(next(it)) == 4
        del it
        print("clean")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "clean", proc.stderr[-2000:]
