"""A small tqdm-style progress bar for training loops: `for batch in tqdm(loader, desc="epoch 1")`."""

import sys
import time


def _fmt_time(seconds):
    seconds = int(seconds)
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return f"{h:d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class tqdm:
    """Wraps an iterable (or counts manual update() calls) and redraws one status line:
    `desc: 42%|████      | 42/100 [00:03<00:04, 12.1it/s, loss=0.31]`."""

    def __init__(
        self,
        iterable=None,
        desc=None,
        total=None,
        leave=True,
        file=None,
        ncols=None,
        mininterval=0.1,
        disable=False,
        unit="it",
        initial=0,
        postfix=None,
    ):
        self.iterable, self.desc, self.leave, self.unit = iterable, desc, leave, unit
        if total is None and iterable is not None:
            try:
                total = len(iterable)
            except (TypeError, NotImplementedError):
                total = None
        self.total, self.n = total, initial
        self.file = file if file is not None else sys.stderr
        self.width = ncols or 80
        self.mininterval, self.disable = mininterval, disable
        self.start = self._last_print = time.monotonic()
        self._postfix = ""
        self._closed = False
        if postfix:
            self.set_postfix(postfix, refresh=False)

    def __iter__(self):
        if self.iterable is None:
            raise TypeError("tqdm object was created without an iterable")
        try:
            for item in self.iterable:
                yield item
                self.update(1)
        finally:
            self.close()

    def __len__(self):
        return self.total if self.total is not None else 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def update(self, n=1):
        self.n += n
        now = time.monotonic()
        if now - self._last_print >= self.mininterval or (
            self.total is not None and self.n >= self.total
        ):
            self._last_print = now
            self.refresh()

    def set_description(self, desc=None, refresh=True):
        self.desc = desc
        if refresh:
            self.refresh()

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        items = dict(ordered_dict or {}, **kwargs)
        parts = []
        for k, v in items.items():
            if isinstance(v, float):
                v = f"{v:.4g}"
            elif hasattr(v, "item") and callable(v.item):
                v = f"{v.item():.4g}"
            parts.append(f"{k}={v}")
        self._postfix = ", ".join(parts)
        if refresh:
            self.refresh()

    def format_meter(self):
        elapsed = time.monotonic() - self.start
        rate = self.n / elapsed if elapsed > 0 else 0.0
        prefix = f"{self.desc}: " if self.desc else ""
        rate_s = f"{rate:.2f}{self.unit}/s" if rate else f"?{self.unit}/s"
        extra = f", {self._postfix}" if self._postfix else ""
        if self.total:
            frac = min(1.0, self.n / self.total)
            remaining = (self.total - self.n) / rate if rate else 0
            stats = f"| {self.n}/{self.total} [{_fmt_time(elapsed)}<{_fmt_time(remaining)}, {rate_s}{extra}]"
            head = f"{prefix}{int(frac * 100):3d}%|"
            bar_width = max(1, self.width - len(head) - len(stats))
            filled = int(frac * bar_width)
            return head + "█" * filled + " " * (bar_width - filled) + stats
        return f"{prefix}{self.n}{self.unit} [{_fmt_time(elapsed)}, {rate_s}{extra}]"

    def refresh(self):
        if self.disable or self._closed:
            return
        self.file.write("\r" + self.format_meter())
        self.file.flush()

    def close(self):
        if self._closed:
            return
        self.refresh()
        self._closed = True
        if not self.disable:
            self.file.write("\n" if self.leave else "\r")
            self.file.flush()

    def write(self, s):
        self.file.write("\r" + s + "\n")
        self.refresh()


def trange(*args, **kwargs):
    return tqdm(range(*args), **kwargs)
