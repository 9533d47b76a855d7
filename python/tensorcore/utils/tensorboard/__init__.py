"""TensorBoard logging with torch.utils.tensorboard's API.

Event files are written with the `tensorboard` package's own protobufs and event writer, so
TensorBoard (and its EventAccumulator) reads them as its own.
"""

try:
    import tensorboard  # noqa: F401
    from tensorboard.summary.writer.event_file_writer import EventFileWriter  # noqa: F401
except ImportError as e:
    raise ImportError(
        "tensorcore.utils.tensorboard needs the tensorboard package "
        "(pip install --no-deps tensorboard protobuf absl-py; scripts/setup.sh does this)"
    ) from e

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "SummaryWriter"]
