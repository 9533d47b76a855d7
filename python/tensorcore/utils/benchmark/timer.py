"""Timer: runs a statement many times and reports robust statistics (median, IQR).

Mirrors torch.utils.benchmark.Timer: `timeit(number)` for a fixed count, `blocked_autorange()`
to pick a block size that makes each measurement long enough to trust the clock.
"""

import statistics
import textwrap
import timeit as _timeit

from ... import _C


def _fmt_time(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:.2f} {unit}", scale, unit
    return f"{seconds / 1e-9:.2f} ns", 1e-9, "ns"


class Measurement:
    """Times per run (seconds) of `number_per_run` executions each."""

    def __init__(self, number_per_run, raw_times, task_spec):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.times = [t / number_per_run for t in self.raw_times]

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def mean(self):
        return statistics.fmean(self.times)

    def _quantile(self, q):
        s = sorted(self.times)
        if len(s) == 1:
            return s[0]
        pos = q * (len(s) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(s) - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)

    @property
    def iqr(self):
        return self._quantile(0.75) - self._quantile(0.25)

    @property
    def title(self):
        spec = self.task_spec
        return spec["label"] or spec["stmt"]

    def __repr__(self):
        spec = self.task_spec
        med, scale, unit = _fmt_time(self.median)
        lines = [f"<tensorcore.utils.benchmark.Measurement object at {hex(id(self))}>"]
        if spec["label"]:
            lines.append(f"{spec['label']}: {spec['sub_label'] or ''}".rstrip(": "))
        lines.append(
            textwrap.indent(spec["stmt"], "") if not spec["description"] else spec["description"]
        )
        lines.append(f"  Median: {med}")
        q1, q3 = self._quantile(0.25) / scale, self._quantile(0.75) / scale
        lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({q1:.2f} to {q3:.2f})")
        threads = spec["num_threads"]
        lines.append(
            f"  {len(self.times)} measurement{'s' if len(self.times) != 1 else ''}, "
            f"{self.number_per_run} runs per measurement, {threads} thread{'s' if threads != 1 else ''}"
        )
        return "\n".join(lines)


class Timer:
    def __init__(
        self,
        stmt="pass",
        setup="pass",
        globals=None,
        label=None,
        sub_label=None,
        description=None,
        num_threads=1,
        timer=_timeit.default_timer,
    ):
        self._stmt = textwrap.dedent(stmt).strip() if isinstance(stmt, str) else stmt
        self._num_threads = num_threads
        self._globals = dict(globals or {})
        self._globals.setdefault("tc", __import__("tensorcore"))
        self._timer = _timeit.Timer(
            stmt=self._stmt, setup=setup, timer=timer, globals=self._globals
        )
        self._spec = {
            "stmt": self._stmt if isinstance(self._stmt, str) else repr(self._stmt),
            "label": label,
            "sub_label": sub_label,
            "description": description,
            "num_threads": num_threads,
        }

    def _run(self, number):
        prev = _C.get_num_threads()
        _C.set_num_threads(self._num_threads)
        try:
            return self._timer.timeit(number)
        finally:
            _C.set_num_threads(prev)

    def timeit(self, number=1000000):
        self._run(max(1, number // 100))  # warm-up
        return Measurement(number, [self._run(number)], self._spec)

    def repeat(self, repeat=3, number=1000000):
        return [self._run(number) for _ in range(repeat)]

    def autorange(self, callback=None):
        number = 1
        while True:
            t = self._run(number)
            if callback:
                callback(number, t)
            if t >= 0.2:
                return number, t
            number *= 10

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        # Pick a block size so one block takes >= 10 ms, then collect blocks for min_run_time.
        number = 1
        while True:
            t = self._run(number)
            if t >= 0.01 or number >= 10**9:
                break
            number *= 10
        times = []
        total = 0.0
        while total < min_run_time or len(times) < 3:
            t = self._run(number)
            if callback:
                callback(number, t)
            times.append(t)
            total += t
        return Measurement(number, times, self._spec)
