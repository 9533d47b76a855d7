"""DistributedDataParallel over 2-4 processes leaves the same parameters as one process training
on the whole batch (buckets, unused parameters, no_sync, bucket views, comm hooks, join)."""

import pytest
from dist_harness import run_workers

import tensorcore.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without Gloo")


VARIANTS_2 = (
    "plain",
    "find_unused",
    "static_graph",
    "bucket_view",
    "no_sync",
    "hook_allreduce",
    "hook_python",
    "hook_fp16",
)


def test_ddp_matches_single_process_2_ranks():
    # One launch runs every variant (process start-up dominates on a small machine).
    run_workers("ddp", 2, args=VARIANTS_2, timeout=120)


@pytest.mark.parametrize("world_size,variants", [(3, ("small_buckets",)), (4, ("plain",))])
def test_ddp_matches_single_process_more_ranks(world_size, variants):
    run_workers("ddp", world_size, args=variants, timeout=120)


def test_ddp_error_names_unused_parameters():
    run_workers("ddp_unused_error", 2)


def test_ddp_powersgd_converges():
    run_workers("ddp_powersgd", 2, timeout=120)


@pytest.mark.parametrize("world_size", [2, 3])
def test_ddp_join_uneven_inputs(world_size):
    run_workers("ddp_join", world_size, timeout=120)
