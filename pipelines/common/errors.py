"""The error a pipeline reports to its user as one clear line (the CLI exits with status 2)."""


class PipelineError(RuntimeError):
    """A problem with the run's input, output folder or checkpoint, described for the user."""


class NonFiniteLossError(PipelineError):
    """The loss became NaN or infinite; the run stops, keeping the last good checkpoint."""
