"""Profiler results: FunctionEvent per recorded span, EventList with key_averages(), table(),
export_chrome_trace() and export_stacks(), as torch.autograd.profiler_util has them."""

import json
import os
from collections import defaultdict

from ._flops import flops_of

# The native recorder's event types (tensorcore/profiler/profiler.h).
OP, USER_ANNOTATION, BACKWARD, EXTERNAL = 0, 1, 2, 3
# Memory records' device types (tensorcore DeviceType, the trace's "Device Type").
DEVICE_CPU, DEVICE_CUDA = 0, 1
# Kineto draws the legacy default stream as stream 7.
_DEFAULT_STREAM_LANE = 7
_TRACE_CATEGORY = {
    OP: "cpu_op",
    USER_ANNOTATION: "user_annotation",
    BACKWARD: "cpu_op",
    EXTERNAL: "user_annotation",
}

_SORT_KEYS = (
    "cpu_time",
    "cpu_time_total",
    "self_cpu_time_total",
    "cpu_memory_usage",
    "self_cpu_memory_usage",
    "count",
    "flops",
    "cuda_time",
    "cuda_time_total",
    "self_cuda_time_total",
    "cuda_memory_usage",
    "self_cuda_memory_usage",
)


def _trace_label(kind, pid, tid, label):
    """A Chrome-trace metadata event naming a process ("process_name") or thread lane."""
    return {"name": kind, "ph": "M", "pid": pid, "tid": tid, "args": {"name": label}}


class FunctionEvent:
    """One span: an op, a record_function scope, an autograd node or a DataLoader worker fetch.
    Times are in microseconds from the profiler's start, memory in bytes."""

    def __init__(
        self, id, name, thread, start_us, end_us, kind, sequence_nr, input_shapes, dtypes, stack
    ):
        self.id = id
        self.name = name
        self.key = name
        self.thread = thread
        self.start_us = start_us
        self.end_us = end_us
        self.kind = kind
        self.sequence_nr = sequence_nr
        self.input_shapes = input_shapes
        self.input_dtypes = dtypes
        self.stack = stack
        self.cpu_parent = None
        self.cpu_children = []
        self.self_cpu_memory_usage = 0
        self.self_allocated = 0  # bytes allocated by the op itself (frees not subtracted)
        self.self_freed = 0
        self.count = 1
        self.is_async = kind == EXTERNAL
        self.device_type = "CPU"
        self.flops = 0
        self.forward = None  # for a backward node: its forward op (same sequence number)
        # Device work this span launched itself (DeviceKernel; ProfilerActivity.CUDA) and the
        # CUDA caching allocator's bytes it allocated minus freed (profile_memory).
        self.kernels = []
        self.self_cuda_memory_usage = 0

    @property
    def time_range(self):
        return (self.start_us, self.end_us)

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def cpu_time(self):
        return self.cpu_time_total

    @property
    def self_cpu_time_total(self):
        if self.is_async:
            return self.cpu_time_total
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_memory_usage(self):
        return self.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_cuda_time_total(self):
        return sum(k.duration_us for k in self.kernels)

    @property
    def cuda_time_total(self):
        """Device time of the kernels this span and the spans inside it launched (us)."""
        return self.self_cuda_time_total + sum(c.cuda_time_total for c in self.cpu_children)

    @property
    def cuda_time(self):
        return self.cuda_time_total

    @property
    def cuda_memory_usage(self):
        return self.self_cuda_memory_usage + sum(c.cuda_memory_usage for c in self.cpu_children)

    def __repr__(self):
        return (
            f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
            f"cpu_time_total={self.cpu_time_total:.1f}us "
            f"self_cpu_time_total={self.self_cpu_time_total:.1f}us "
            f"cpu_memory_usage={self.cpu_memory_usage} input_shapes={self.input_shapes}>"
        )


class FunctionEventAvg:
    """Totals over the events of one key (name, and input shapes / stack when grouped)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.flops = 0
        self.is_async = False
        self.cuda_time_total = 0
        self.self_cuda_time_total = 0
        self.cuda_memory_usage = 0
        self.self_cuda_memory_usage = 0
        self.device_type = "CPU"

    def add(self, ev):
        if self.key is None:
            self.key = ev.key
            self.input_shapes = ev.input_shapes
            self.stack = ev.stack
            self.is_async = ev.is_async
        self.count += ev.count
        self.cpu_time_total += ev.cpu_time_total
        self.self_cpu_time_total += ev.self_cpu_time_total
        self.cpu_memory_usage += ev.cpu_memory_usage
        self.self_cpu_memory_usage += ev.self_cpu_memory_usage
        self.cuda_time_total += ev.cuda_time_total
        self.self_cuda_time_total += ev.self_cuda_time_total
        self.cuda_memory_usage += ev.cuda_memory_usage
        self.self_cuda_memory_usage += ev.self_cuda_memory_usage
        self.flops += ev.flops
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    @property
    def cuda_time(self):
        return self.cuda_time_total / max(self.count, 1)

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key} count={self.count} "
            f"cpu_time_total={self.cpu_time_total:.1f}us "
            f"self_cpu_time_total={self.self_cpu_time_total:.1f}us "
            f"cpu_memory_usage={self.cpu_memory_usage}>"
        )


class MemoryRecord:
    """One allocation (bytes > 0) or free (bytes < 0) of the CPU allocator (device_type 0) or
    the CUDA caching allocator (device_type 1, device = its index)."""

    __slots__ = (
        "ts_us",
        "bytes",
        "total_allocated",
        "total_reserved",
        "addr",
        "thread",
        "event_id",
        "device",
        "device_type",
    )

    def __init__(
        self,
        ts_us,
        nbytes,
        total_allocated,
        addr,
        thread,
        event_id,
        device,
        device_type=DEVICE_CPU,
        total_reserved=None,
    ):
        self.ts_us = ts_us
        self.bytes = nbytes
        self.total_allocated = total_allocated
        self.total_reserved = total_allocated if total_reserved is None else total_reserved
        self.addr = addr
        self.thread = thread
        self.event_id = event_id
        self.device = device
        self.device_type = device_type


class DeviceKernel:
    """Device work one kernel call queued (the kernels of one kernel-table call, timed with a
    CUDA event pair on its stream). Times in microseconds from the profiler's start; the launch
    is the call's CPU interval on the launching thread."""

    __slots__ = (
        "name",
        "device",
        "stream",
        "start_us",
        "end_us",
        "correlation",
        "op_id",
        "thread",
        "launch_start_us",
        "launch_end_us",
    )

    def __init__(self, name, device, stream, start_us, end_us, correlation, op_id, thread, ls, le):
        self.name = name
        self.device = device
        self.stream = stream
        self.start_us = start_us
        self.end_us = end_us
        self.correlation = correlation
        self.op_id = op_id
        self.thread = thread
        self.launch_start_us = ls
        self.launch_end_us = le

    @property
    def duration_us(self):
        return self.end_us - self.start_us

    @property
    def duration(self):  # torch's Kernel.duration
        return self.duration_us

    def __repr__(self):
        return (
            f"<DeviceKernel {self.name} cuda:{self.device} stream={self.stream} "
            f"{self.duration_us:.1f}us op={self.op_id}>"
        )


class EventList(list):
    """The events of a session (a list of FunctionEvent) with the aggregation and export
    methods; key_averages() gives an EventList of FunctionEventAvg."""

    def __init__(
        self,
        *args,
        memory=None,
        start_ns=0,
        profile_memory=False,
        with_flops=False,
        steps=None,
        pid=None,
        device_events=None,
    ):
        super().__init__(*args)
        self.memory = memory or []
        self.device_events = device_events or []
        self.start_ns = start_ns
        self.profile_memory = profile_memory
        self.with_flops = with_flops
        self.steps = steps or []
        self.pid = os.getpid() if pid is None else pid

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self if not e.is_async)

    @property
    def self_cuda_time_total(self):
        return sum(e.self_cuda_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        groups = defaultdict(FunctionEventAvg)
        for ev in self:
            key = [ev.key]
            if group_by_input_shape:
                key.append(str(ev.input_shapes))
            if group_by_stack_n > 0:
                key += list(ev.stack[:group_by_stack_n])
            groups[tuple(key)].add(ev)
        out = EventList(
            groups.values(), profile_memory=self.profile_memory, with_flops=self.with_flops
        )
        out._use_cuda = bool(self.device_events) or getattr(self, "_use_cuda", False)
        out._grouped_by_shape = group_by_input_shape
        out._stack_n = group_by_stack_n
        return out

    def total_average(self):
        total = FunctionEventAvg()
        for ev in self:
            total.add(ev)
        total.key = "Total"
        return total

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        header=None,
        top_level_events_only=False,
    ):
        from ._table import build_table

        if sort_by is not None and sort_by not in _SORT_KEYS:
            raise ValueError(
                f"table(): unknown sort_by {sort_by!r}; use one of {', '.join(_SORT_KEYS)}"
            )
        return build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
        )

    def __str__(self):
        return self.table()

    def _trace_events(self):
        pid = self.pid
        out = []
        threads = set()
        for ev in self:
            if not isinstance(ev, FunctionEvent):
                raise TypeError("export_chrome_trace needs the raw events, not key_averages()")
            if getattr(ev, "_loose_memory", False):
                continue  # the "[memory]" table row; its records are exported below
            threads.add(ev.thread)
            args = {"External id": ev.id}
            if ev.input_shapes is not None and any(s for s in ev.input_shapes) or ev.input_dtypes:
                args["Input Dims"] = [list(s) for s in ev.input_shapes or []]
                args["Input type"] = list(ev.input_dtypes or [])
            if ev.sequence_nr >= 0:
                args["Sequence number"] = ev.sequence_nr
                args["Fwd thread id"] = ev.forward.thread if ev.forward else ev.thread
            if ev.stack:
                args["Call stack"] = ";".join(ev.stack)
            if ev.flops:
                args["flops"] = ev.flops
            out.append(
                {
                    "ph": "X",
                    "cat": _TRACE_CATEGORY[ev.kind],
                    "name": ev.name,
                    "pid": pid,
                    "tid": ev.thread,
                    "ts": round(ev.start_us, 3),
                    "dur": round(ev.cpu_time_total, 3),
                    "args": args,
                }
            )
            if ev.kind == BACKWARD and ev.forward is not None:
                # The flow arrow from the forward op to its backward node.
                fwd = ev.forward
                for ph, src in (("s", fwd), ("f", ev)):
                    flow = {
                        "ph": ph,
                        "id": ev.sequence_nr,
                        "pid": pid,
                        "tid": src.thread,
                        "ts": round(src.start_us, 3),
                        "cat": "forward_backward",
                        "name": "fwd_bwd",
                    }
                    if ph == "f":
                        flow["bp"] = "e"
                    out.append(flow)
        for m in self.memory:
            threads.add(m.thread)
            out.append(
                {
                    "ph": "i",
                    "s": "t",
                    "cat": "cpu_instant_event",
                    "name": "[memory]",
                    "pid": pid,
                    "tid": m.thread,
                    "ts": round(m.ts_us, 3),
                    "args": {
                        "Device Type": m.device_type,
                        "Device Id": m.device,
                        "Addr": m.addr,
                        "Bytes": m.bytes,
                        "Total Allocated": m.total_allocated,
                        "Total Reserved": m.total_reserved,
                    },
                }
            )
        out += self._device_trace_events(threads)
        out.append(_trace_label("process_name", pid, 0, "CPU"))
        out += [_trace_label("thread_name", pid, tid, f"thread {tid}") for tid in sorted(threads)]
        return out

    def _device_trace_events(self, threads):
        """Kineto's layout of GPU work: a "Kernel" event on the device's lane (pid = device,
        tid = stream), a "Runtime" event for its launch on the CPU thread, both carrying the
        correlation id and the op's id ("external id"), and an "ac2g" flow arrow from the
        launch to the kernel. The categories are the ones torch-tb-profiler's parser maps
        (its EventTypeMap knows "runtime", not newer kineto's "cuda_runtime")."""
        pid = self.pid
        out = []
        lanes = {}  # (device, stream) -> tid
        for k in self.device_events:
            lane = lanes.get((k.device, k.stream))
            if lane is None:  # other streams: numbered after the default one, in order of use
                others = sum(1 for d, st in lanes if d == k.device and st != 0)
                lane = _DEFAULT_STREAM_LANE + (0 if k.stream == 0 else 1 + others)
                lanes[(k.device, k.stream)] = lane
            threads.add(k.thread)
            ids = {"correlation": k.correlation, "external id": k.op_id}
            out.append(
                {
                    "ph": "X",
                    "cat": "Kernel",
                    "name": k.name,
                    "pid": k.device,
                    "tid": lane,
                    "ts": round(k.start_us, 3),
                    "dur": round(k.duration_us, 3),
                    "args": {"device": k.device, "stream": lane, "stream handle": k.stream, **ids},
                }
            )
            out.append(
                {
                    "ph": "X",
                    "cat": "Runtime",
                    "name": "kernel launch",
                    "pid": pid,
                    "tid": k.thread,
                    "ts": round(k.launch_start_us, 3),
                    "dur": round(k.launch_end_us - k.launch_start_us, 3),
                    "args": dict(ids),
                }
            )
            out.append(
                {
                    "ph": "s",
                    "id": k.correlation,
                    "pid": pid,
                    "tid": k.thread,
                    "ts": round(k.launch_start_us, 3),
                    "cat": "ac2g",
                    "name": "ac2g",
                }
            )
            out.append(
                {
                    "ph": "f",
                    "id": k.correlation,
                    "pid": k.device,
                    "tid": lane,
                    "ts": round(k.start_us, 3),
                    "cat": "ac2g",
                    "name": "ac2g",
                    "bp": "e",
                }
            )
        for device in sorted({d for d, _ in lanes}):
            out.append(_trace_label("process_name", device, 0, f"GPU {device}"))
        for (device, _stream), lane in sorted(lanes.items(), key=lambda x: x[1]):
            out.append(_trace_label("thread_name", device, lane, f"stream {lane}"))
        return out

    def _device_properties(self):
        devices = {k.device for k in self.device_events}
        devices |= {m.device for m in self.memory if m.device_type == DEVICE_CUDA}
        if not devices:
            return []
        try:
            from .. import cuda

            if not cuda.is_available():
                return []
            props = []
            for i in range(max(devices) + 1):
                p = cuda.get_device_properties(i)
                props.append(
                    {
                        "id": i,
                        "name": p.name,
                        "totalGlobalMem": p.total_memory,
                        "computeMajor": p.major,
                        "computeMinor": p.minor,
                        "numSms": p.multi_processor_count,
                    }
                )
            return props
        except Exception:  # noqa: BLE001 - the properties are decoration; the trace stands
            return []

    def chrome_trace(self):
        """The trace as a dict (Chrome trace event format, torch's kineto layout)."""
        return {
            "schemaVersion": 1,
            "deviceProperties": self._device_properties(),
            "displayTimeUnit": "ms",
            "baseTimeNanoseconds": self.start_ns,
            "traceEvents": self._trace_events(),
        }

    def export_chrome_trace(self, path):
        path = os.fspath(path)
        trace = self.chrome_trace()
        trace["traceName"] = path
        opener = open
        if path.endswith(".gz"):
            import gzip

            opener = gzip.open
        with opener(path, "wt", encoding="utf-8") as f:
            json.dump(trace, f)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Collapsed stacks ("outer;...;inner value" per line) for flamegraph.pl / speedscope:
        each event's Python frames (recorded with with_stack=True) then its name, weighted by
        its self time in microseconds."""
        if metric not in ("self_cpu_time_total", "self_cuda_time_total"):
            raise ValueError(f"export_stacks: metric must be 'self_cpu_time_total', got {metric!r}")
        lines = defaultdict(float)
        for ev in self:
            if not ev.stack:
                continue
            frames = [f.replace(";", ",").replace(" ", "_") for f in reversed(ev.stack)]
            value = getattr(ev, metric)
            if value <= 0:
                continue
            lines[";".join(frames + [ev.name.replace(" ", "_")])] += value
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            for stack, value in lines.items():
                f.write(f"{stack} {int(round(value))}\n")


def build_events(raw, profile_memory=False, with_flops=False):
    """FunctionEvents from the native recorder's (events, memory, start_ns, end_ns)."""
    events, memory, start_ns, _end_ns = raw[:4]
    device = raw[4] if len(raw) > 4 else []
    by_id = {}
    out = EventList(start_ns=start_ns, profile_memory=profile_memory, with_flops=with_flops)
    for name, s, e, tid, eid, parent, seq, kind, shapes, dtypes, stack, int_args in events:
        ev = FunctionEvent(
            eid,
            name,
            tid,
            (s - start_ns) / 1000.0,
            (e - start_ns) / 1000.0,
            kind,
            seq,
            [tuple(x) for x in shapes] if shapes else [],
            list(dtypes),
            list(stack),
        )
        ev._int_args = int_args
        by_id[eid] = ev
        out.append(ev)
    for ev, raw_ev in zip(out, events):
        parent = by_id.get(raw_ev[5])
        if parent is not None and parent.thread == ev.thread:
            ev.cpu_parent = parent
            parent.cpu_children.append(ev)
    forward_by_seq = {}
    for ev in out:
        if ev.sequence_nr >= 0 and ev.kind != BACKWARD:
            forward_by_seq[ev.sequence_nr] = ev
    for ev in out:
        if ev.kind == BACKWARD and ev.sequence_nr >= 0:
            ev.forward = forward_by_seq.get(ev.sequence_nr)
    for rec_raw in memory:
        ts, nbytes, total, addr, tid, eid, dev_type, dev_index = rec_raw[:8]
        reserved = rec_raw[8] if len(rec_raw) > 8 else None
        rec = MemoryRecord(
            (ts - start_ns) / 1000.0, nbytes, total, addr, tid, eid, dev_index, dev_type, reserved
        )
        out.memory.append(rec)
        owner = by_id.get(eid)
        if owner is None:
            continue
        if dev_type == DEVICE_CUDA:
            owner.self_cuda_memory_usage += nbytes
            continue
        owner.self_cpu_memory_usage += nbytes
        if nbytes > 0:
            owner.self_allocated += nbytes
        else:
            owner.self_freed -= nbytes
    for name, dev, stream, s, e, corr, op_id, tid, ls, le in device:
        k = DeviceKernel(
            name,
            dev,
            stream,
            (s - start_ns) / 1000.0,
            (e - start_ns) / 1000.0,
            corr,
            op_id,
            tid,
            (ls - start_ns) / 1000.0,
            (le - start_ns) / 1000.0,
        )
        out.device_events.append(k)
        owner = by_id.get(op_id)
        if owner is not None:
            owner.kernels.append(k)
    if profile_memory:
        # Allocations and frees outside every span: torch's "[memory]" row.
        loose = [m for m in out.memory if m.event_id not in by_id]
        if loose:
            ev = FunctionEvent(-1, "[memory]", 0, 0.0, 0.0, USER_ANNOTATION, -1, [], [], [])
            ev.self_cpu_memory_usage = sum(m.bytes for m in loose if m.device_type != DEVICE_CUDA)
            ev.self_cuda_memory_usage = sum(m.bytes for m in loose if m.device_type == DEVICE_CUDA)
            ev.count = len(loose)
            ev._loose_memory = True
            out.append(ev)
    if with_flops:
        for ev in out:
            if ev.kind == OP:
                ev.flops = flops_of(ev.name, ev.input_shapes, ev._int_args)
    return out
