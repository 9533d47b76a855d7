"""tensorcore.multiprocessing: Python's multiprocessing with tensors that travel through shared
memory (torch.multiprocessing).

Importing it registers reducers with multiprocessing's pickler: a tensor put on a Queue or
passed to a Process moves its storage into shared memory (share_memory_(), in place, as torch
does) and the receiver maps the same memory, so in-place updates on either side are seen by
both (Hogwild training). Two sharing strategies, as torch's:

- "file_descriptor" (default): an anonymous memory file (memfd); its descriptor is passed to
  the receiver. Nothing is left behind in /dev/shm; the memory lives while any process maps it.
- "file_system": a named POSIX shared-memory block (/dev/shm); the receiver opens it by name.
  The creator unlinks the name when its tensor dies, so it must outlive the hand-over.
"""

import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from ._sharing import (  # noqa: F401
    get_all_sharing_strategies,
    get_sharing_strategy,
    set_sharing_strategy,
    share_memory_,
    is_shared,
)
from ._spawn import (
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)  # noqa: F401

__all__ = multiprocessing.__all__ + [
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessRaisedException",
    "ProcessExitedException",
]

from . import _sharing as _s  # noqa: E402

_s.install()
