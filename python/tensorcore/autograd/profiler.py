"""The autograd profiler of torch 1.6-1.8 (torch.autograd.profiler.profile), over the same
native recorder as tc.profiler.

    with tc.autograd.profiler.profile(profile_memory=True, record_shapes=True) as prof:
        model(x).sum().backward()
    print(prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=10))
"""

import warnings

from ..profiler import EventList, FunctionEvent, FunctionEventAvg, record_function  # noqa: F401
from ..profiler import _native
from ..profiler._events import build_events

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]


class profile:
    def __init__(
        self,
        enabled=True,
        *,
        use_cuda=False,
        record_shapes=False,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        use_kineto=False,
        use_cpu=True,
    ):
        self.enabled = enabled
        self.use_cuda = use_cuda
        self.record_shapes = bool(record_shapes or with_flops)
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.function_events = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        cuda = bool(self.use_cuda)
        if cuda:
            from ..profiler import ProfilerActivity, supported_activities

            if ProfilerActivity.CUDA not in supported_activities():
                warnings.warn("profile(use_cuda=True): no GPU is usable; recording CPU only")
                cuda = False
        _native._start(self.record_shapes, self.profile_memory, self.with_stack, cuda)
        self._cuda = cuda
        self.entered = True
        return self

    def __exit__(self, exc_type, exc, tb):
        if not self.enabled or not self.entered:
            return False
        raw = _native._stop()
        self.entered = False
        self.function_events = build_events(
            raw, profile_memory=self.profile_memory, with_flops=self.with_flops
        )
        self.function_events._use_cuda = self._cuda
        return False

    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        header=None,
        top_level_events_only=False,
    ):
        self._check_finished()
        return self.function_events.key_averages().table(
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
        )

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        self._check_finished()
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError(
                "key_averages(group_by_input_shape=True) needs profile(record_shapes=True)"
            )
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self):
        self._check_finished()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        self._check_finished()
        return self.function_events.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._check_finished()
        if not self.with_stack:
            raise RuntimeError("export_stacks needs profile(with_stack=True)")
        return self.function_events.export_stacks(path, metric)

    def __str__(self):
        self._check_finished()
        return self.table()

    __repr__ = object.__repr__
