"""Every collective against closed-form results, world sizes 2-4, every dtype (multi-process,
Gloo over localhost)."""

import pytest
from dist_harness import run_workers

import tensorcore.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without Gloo")


@pytest.mark.parametrize("world_size", [2, 3, 4])
def test_collectives_closed_form(world_size, tmp_path):
    # World size 2 rendezvouses through file://, the others through tcp://.
    init = f"file://{tmp_path}/rendezvous" if world_size == 2 else None
    outs = run_workers("collectives", world_size, init_method=init, timeout=120)
    assert all(o.strip().startswith("ok") for o in outs)
