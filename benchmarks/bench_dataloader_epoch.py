"""DataLoader epoch of 1,000 small items with 2 workers, tensorcore vs torch 1.13 in the same
process, interleaved: first epoch (worker start-up included) and later epochs with
persistent_workers=True. Median of repeats; ratio = tensorcore / torch (< 1 is faster).

    python benchmarks/bench_dataloader_epoch.py [--items 1000] [--repeats 5]
"""

import argparse
import statistics
import time

import numpy as np

import tensorcore as tc

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


class Items:
    """Small items: a 3x8x8 float image and an int label, made from the index."""

    def __init__(self, lib, n):
        self.lib, self.n = lib, n
        self.base = np.random.default_rng(0).random((n, 3, 8, 8), dtype=np.float32)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.lib.from_numpy(self.base[i]), i % 10


def epoch(loader):
    count = 0
    for x, y in loader:
        count += x.shape[0]
    return count


def run(lib, n, batch, persistent, repeats):
    data = Items(lib, n)
    first, later = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        loader = lib.utils.data.DataLoader(
            data, batch_size=batch, num_workers=2, persistent_workers=persistent
        )
        assert epoch(loader) == n
        first.append(time.perf_counter() - t)
        if persistent:
            t = time.perf_counter()
            epoch(loader)
            later.append(time.perf_counter() - t)
        del loader
    return first, later


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = {}
    for round_ in range(2):  # interleaved rounds
        for name, lib in (("tensorcore", tc), ("torch", torch)):
            if lib is None:
                continue
            for persistent in (False, True):
                f, l = run(lib, args.items, args.batch, persistent, args.repeats)
                rows.setdefault((name, persistent), ([], []))
                rows[(name, persistent)][0].extend(f)
                rows[(name, persistent)][1].extend(l)
    print(f"{'case':<44}{'tensorcore s':>13}{'torch s':>10}{'ratio':>8}")
    for persistent in (False, True):
        for k, label in (
            (0, "first epoch (workers start)"),
            (1, "later epoch (persistent workers)"),
        ):
            if k == 1 and not persistent:
                continue
            ours = statistics.median(rows[("tensorcore", persistent)][k])
            theirs = statistics.median(rows[("torch", persistent)][k]) if torch else float("nan")
            case = f"{label}, persistent={persistent}"
            print(f"{case:<44}{ours:>13.3f}{theirs:>10.3f}{ours / theirs:>8.2f}")


if __name__ == "__main__":
    main()
