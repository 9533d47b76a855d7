"""DistributedSampler: disjoint shards that cover the dataset, torch's order without shuffling,
the default replicas/rank from the initialized process group."""

from datetime import timedelta

import pytest
from dist_harness import free_port

import tensorcore.distributed as dist
from tensorcore.utils.data.distributed import DistributedSampler


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (8, 4, False)])
def test_shards_cover_dataset(n, replicas, drop_last):
    data = list(range(n))
    shards = []
    for rank in range(replicas):
        s = DistributedSampler(data, num_replicas=replicas, rank=rank, drop_last=drop_last)
        s.set_epoch(2)
        shards.append(list(s))
        assert len(shards[-1]) == len(s)
    flat = [i for sh in shards for i in sh]
    if drop_last:
        assert len(set(flat)) == len(flat) == (n // replicas) * replicas
    else:
        assert set(flat) == set(data)
    other_epoch = DistributedSampler(data, num_replicas=replicas, rank=0, drop_last=drop_last)
    other_epoch.set_epoch(3)
    assert list(other_epoch) != shards[0] or n < 4


def test_matches_torch_without_shuffle():
    torch = pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    data = list(range(11))
    for rank in range(3):
        ours = DistributedSampler(data, num_replicas=3, rank=rank, shuffle=False)
        ref = TorchSampler(data, num_replicas=3, rank=rank, shuffle=False)
        assert list(ours) == list(ref)
    assert torch is not None


def test_defaults_from_process_group():
    dist.init_process_group(
        "gloo", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1,
        timeout=timedelta(seconds=10),
    )  # fmt: skip
    try:
        s = DistributedSampler(list(range(5)))
        assert s.num_replicas == 1 and s.rank == 0 and sorted(s) == list(range(5))
    finally:
        dist.destroy_process_group()
    with pytest.raises(ValueError, match="Invalid rank 3"):
        DistributedSampler(list(range(5)), num_replicas=2, rank=3)
