"""SyncBatchNorm (convert_sync_batchnorm) and ZeroRedundancyOptimizer over several processes
against single-process references."""

import pytest
from dist_harness import run_workers

import tensorcore.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without Gloo")


def test_sync_batch_norm_matches_whole_batch():
    run_workers("sync_bn", 2, timeout=120)


def test_zero_redundancy_optimizer_matches_adam():
    run_workers("zero", 2, timeout=120)
