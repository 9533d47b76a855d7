"""DDP communication hooks (torch.distributed.algorithms.ddp_comm_hooks)."""

from enum import Enum
from functools import partial

from . import default_hooks, powerSGD_hook  # noqa: F401


class DDPCommHookType(Enum):
    ALLREDUCE = partial(default_hooks.allreduce_hook)
    FP16_COMPRESS = partial(default_hooks.fp16_compress_hook)


def register_ddp_comm_hook(comm_hook_type, model, state=None):
    model.register_comm_hook(state, comm_hook_type.value.func)
