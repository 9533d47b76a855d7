"""tensorcore.random (torch.random): the default CPU generator's seed and state, and fork_rng."""

import contextlib
import sys

from . import _C
from ._C import default_generator, get_rng_state, initial_seed, set_rng_state

__all__ = [
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]


def manual_seed(seed):
    """Seeds every device's default generator (tensorcore.manual_seed)."""
    return sys.modules[__package__].manual_seed(seed)


def seed():
    """Seeds the default generator from a non-deterministic source and returns the seed."""
    return sys.modules[__package__].seed()


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True):
    """Restores the CPU generator's state (and that of the given CUDA devices, by default all
    that are in use) when the block ends, so random draws inside it do not shift the ones after."""
    if not enabled:
        yield
        return
    from . import cuda

    if devices is None:
        devices = range(cuda.device_count()) if cuda.is_available() else []
    devices = list(devices)
    cpu_state = _C.get_rng_state()
    cuda_states = [cuda.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        _C.set_rng_state(cpu_state)
        for device, state in zip(devices, cuda_states):
            cuda.set_rng_state(state, device)
