"""The nccl backend: collectives on CUDA tensors (skipped without a GPU) and its device checks
(which need no GPU)."""

from datetime import timedelta

import pytest
from dist_harness import free_port, run_workers

import tensorcore as tc
import tensorcore.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_nccl_available(), reason="built without NCCL")


def test_nccl_rejects_cpu_tensors():
    dist.init_process_group(
        "nccl", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1,
        timeout=timedelta(seconds=10),
    )  # fmt: skip
    try:
        with pytest.raises(ValueError, match="nccl backend takes CUDA tensors"):
            dist.all_reduce(tc.ones(2))
    finally:
        dist.destroy_process_group()


@pytest.mark.skipif(not tc.cuda.is_available(), reason="needs a CUDA device")
def test_nccl_collectives():
    ws = min(tc.cuda.device_count(), 2)
    run_workers("nccl_collectives", ws, timeout=120)
