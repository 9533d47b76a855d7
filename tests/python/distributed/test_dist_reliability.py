"""A rank that dies or hangs makes the others raise an error naming the op and the rank within
the group's timeout (never a hang); mismatched collectives raise in debug mode."""

import pytest
from dist_harness import run_workers

import tensorcore.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without Gloo")


def _only_survivors(results, ws):
    bad = [(r, res) for r, res in enumerate(results[: ws - 1]) if res[0] != 0]
    assert not bad, "\n".join(f"rank {r}: {res[2][-2000:]}" for r, res in bad)


def test_dead_rank_fails_fast():
    from dist_harness import collect, start_workers

    results = collect(start_workers("dead_rank", 3), timeout=60)
    _only_survivors(results, 3)
    assert results[2][0] == -9  # the killed rank


def test_hung_rank_is_named_after_timeout():
    from dist_harness import collect, start_workers

    results = collect(start_workers("hung_rank", 3), timeout=60)
    _only_survivors(results, 3)


def test_mismatched_collectives_in_debug_mode():
    run_workers("mismatch", 2, env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"})
