"""The training engine shared by the pipelines (docs/pipelines.md): Trainer (engine), Task (what
a pipeline provides), checkpoints, data plumbing, optimizer/schedule, reports and metrics."""

from .engine import Trainer  # noqa: F401
from .errors import NonFiniteLossError, PipelineError  # noqa: F401
from .task import Task  # noqa: F401
