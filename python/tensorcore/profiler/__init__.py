"""tc.profiler: torch.profiler's API over tensorcore's native recorder.

Every op called through tensorcore's bindings is a span (aten::add, aten::conv2d, ...), with
input shapes (record_shapes), the CPU allocator's allocations and frees (profile_memory) and
the calling Python frames (with_stack); autograd nodes run by backward are spans linked to
their forward op by sequence number; record_function marks regions; DataLoader iteration,
DataLoader worker fetches and optimizer steps appear as spans of their own::

    with tc.profiler.profile(
        schedule=tc.profiler.schedule(wait=1, warmup=1, active=3),
        on_trace_ready=tc.profiler.tensorboard_trace_handler("./log"),
        record_shapes=True, profile_memory=True, with_stack=True,
    ) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
"""

import contextlib
import enum
import os
import socket
import time
import warnings

from .. import _C
from ._events import EventList, FunctionEvent, FunctionEventAvg, build_events

_native = _C._profiler

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1


def supported_activities():
    """The activities this build can record: CPU, and CUDA when a GPU is usable (its kernels
    are timed with CUDA events)."""
    acts = {ProfilerActivity.CPU}
    try:
        from .. import cuda

        if cuda.is_available() and _native._has_device_timer():
            acts.add(ProfilerActivity.CUDA)
    except Exception:  # noqa: BLE001 - no CUDA module in a CPU build
        pass
    return acts


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """Cycles of `wait` idle steps, `warmup` steps (profiling on, results dropped) and `active`
    recorded steps, the last of which saves (on_trace_ready); `repeat` cycles (0: forever)
    after `skip_first` idle steps."""
    for name, v in (
        ("wait", wait),
        ("warmup", warmup),
        ("repeat", repeat),
        ("skip_first", skip_first),
    ):
        if not isinstance(v, int) or v < 0:
            raise ValueError(f"schedule(): {name} must be an int >= 0, got {v!r}")
    if not isinstance(active, int) or active <= 0:
        raise ValueError(
            f"schedule(): active must be an int > 0 (a schedule with no active step records "
            f"nothing), got {active!r}"
        )
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise ValueError(f"schedule: step must be >= 0, got {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule(_step):
    return ProfilerAction.RECORD


class record_function(contextlib.ContextDecorator):
    """Marks a region (`with record_function("name"):` or `@record_function("name")`); it
    becomes a span in the profile (a user annotation), as tc::profiler::RecordFunction in C++."""

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise TypeError(f"record_function: name must be a str, got {type(name).__name__}")
        self.name = name if args is None else f"{name}({args})"
        self._tokens = []

    def __enter__(self):
        self._tokens.append(_native._begin(self.name, 1))
        return self

    def __exit__(self, *exc):
        _native._end(self._tokens.pop())
        return False


def _check_trace_dir(dir_name):
    if os.path.exists(dir_name) and not os.path.isdir(dir_name):
        raise RuntimeError(f"tensorboard_trace_handler: {dir_name!r} exists and is not a folder")
    try:
        os.makedirs(dir_name, exist_ok=True)
    except OSError as e:
        raise RuntimeError(f"Can't create directory: {dir_name} ({e.strerror})") from e
    if not os.access(dir_name, os.W_OK):
        raise RuntimeError(f"tensorboard_trace_handler: the folder {dir_name!r} is not writable")


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """on_trace_ready handler writing `<dir>/<worker>.<ms>.pt.trace.json` (.gz with use_gzip),
    the files TensorBoard's profiler plugin (torch-tb-profiler) loads."""
    dir_name = os.fspath(dir_name)
    _check_trace_dir(dir_name)

    def handler(prof):
        _check_trace_dir(dir_name)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{int(time.time() * 1000)}.pt.trace.json"
        if use_gzip:
            name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler


class profile:
    """torch.profiler.profile: a context manager (or start()/stop()) recording the ops run in
    it; with a schedule, step() advances it and on_trace_ready receives each saved window."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        use_cuda=None,
    ):
        acts = set(activities) if activities is not None else supported_activities()
        for a in acts:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"profile: activities must be ProfilerActivity values, got {a!r}")
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        if ProfilerActivity.CUDA in acts and ProfilerActivity.CUDA not in supported_activities():
            warnings.warn("profile: CUDA activity requested but no GPU is usable; recording CPU")
            acts.discard(ProfilerActivity.CUDA)
        if not acts:
            raise ValueError("profile: no activity to record (activities is empty)")
        self.activities = acts
        self.record_steps = schedule is not None
        self.schedule = schedule or _default_schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = bool(record_shapes or with_flops)
        self.profile_memory = bool(profile_memory)
        self.with_stack = bool(with_stack)
        self.with_flops = bool(with_flops)
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self._running = False  # the native session
        self._record_from_ns = None  # warm-up spans before this are dropped
        self._step_token = 0
        self._events = None
        self._started = False

    # -- native session -------------------------------------------------------------------
    def _native_start(self):
        if not self._running:
            _native._start(
                self.record_shapes,
                self.profile_memory,
                self.with_stack,
                ProfilerActivity.CUDA in self.activities,
            )
            self._running = True

    def _native_stop(self):
        if not self._running:
            return None
        self._end_step_span()
        self._running = False
        return _native._stop()

    def _begin_step_span(self):
        if self.record_steps and self._running:
            self._step_token = _native._begin(f"ProfilerStep#{self.step_num}", 1)

    def _end_step_span(self):
        if self._step_token:
            _native._end(self._step_token)
            self._step_token = 0

    def _collect(self, raw):
        events = build_events(raw, profile_memory=self.profile_memory, with_flops=self.with_flops)
        if self._record_from_ns is not None:
            cut = (self._record_from_ns - events.start_ns) / 1000.0
            kept = [e for e in events if e.start_us >= cut or getattr(e, "_loose_memory", False)]
            kept_ids = {e.id for e in kept}
            for e in kept:
                e.cpu_children = [c for c in e.cpu_children if c.id in kept_ids]
            memory = [m for m in events.memory if m.ts_us >= cut]
            device = [k for k in events.device_events if k.op_id in kept_ids]
            events = EventList(
                kept,
                memory=memory,
                start_ns=events.start_ns,
                profile_memory=self.profile_memory,
                with_flops=self.with_flops,
                device_events=device,
            )
        events._use_cuda = ProfilerActivity.CUDA in self.activities
        self._events = events
        self._record_from_ns = None

    def _save(self):
        raw = self._native_stop()
        if raw is not None:
            self._collect(raw)
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _enter_action(self, prev, cur):
        """torch's transitions between schedule actions."""
        A = ProfilerAction
        if prev in (A.RECORD, A.RECORD_AND_SAVE) and cur in (A.NONE, A.WARMUP):
            if prev == A.RECORD:
                warnings.warn(
                    "Incorrect schedule: RECORD followed by " + cur.name + "; saving the trace"
                )
            self._save()
        elif prev == A.RECORD_AND_SAVE and cur in (A.RECORD, A.RECORD_AND_SAVE):
            self._save()
        if cur == A.WARMUP and not self._running:
            self._native_start()
            self._record_from_ns = None  # set when recording begins
        if cur in (A.RECORD, A.RECORD_AND_SAVE):
            if not self._running:
                self._native_start()
                self._record_from_ns = _native._now_ns()
            elif prev == A.WARMUP:
                self._record_from_ns = _native._now_ns()
        if cur == A.NONE and self._running:
            self._native_stop()  # warm-up that was never recorded

    def start(self):
        if self._started:
            raise RuntimeError("profile.start(): this profiler is already running")
        self._started = True
        self.current_action = self.schedule(self.step_num)
        try:
            self._enter_action(ProfilerAction.NONE, self.current_action)
        except Exception:
            self._started = False
            raise
        self._begin_step_span()
        return self

    def stop(self):
        if not self._started:
            return
        self._started = False
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._save()
        else:
            self._native_stop()
        self.current_action = ProfilerAction.NONE

    def step(self):
        """Marks the end of a training step: advances the schedule (ProfilerStep#N spans)."""
        if not self._started:
            raise RuntimeError("profile.step(): the profiler is not running")
        self._end_step_span()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._enter_action(prev, self.current_action)
        self._begin_step_span()

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        # Also on an exception: the trace of what ran is still saved.
        self.stop()
        return False

    # -- results --------------------------------------------------------------------------
    def events(self):
        if self._events is None:
            raise RuntimeError("profile: no results yet (the profiler has not saved a trace)")
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError(
                "key_averages(group_by_input_shape=True) needs profile(record_shapes=True)"
            )
        if group_by_stack_n > 0 and not self.with_stack:
            raise RuntimeError("key_averages(group_by_stack_n=...) needs profile(with_stack=True)")
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        return self.events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        if not self.with_stack:
            raise RuntimeError("export_stacks needs profile(with_stack=True)")
        return self.events().export_stacks(path, metric)

    def table(self, *args, **kwargs):
        return self.key_averages().table(*args, **kwargs)
