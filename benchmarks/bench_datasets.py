"""LIBRISPEECH + MFCC through a DataLoader with workers: tensorcore vs torchaudio, one run.

Run: .venv/bin/python benchmarks/bench_datasets.py [--root DIR] [--hours H] [--workers N]
         [--batch-size B] [--epochs E]

Generates a small LibriSpeech corpus (espeak-ng, `--hours`, default 0.1 h) unless `--root`
points at one (a real LibriSpeech works too), then times full passes over `train-clean-100`:
each item is decoded (FLAC) and turned into MFCC(n_mfcc=40, n_fft=400, hop 160, 80 mels) in
the workers; batches of B feature tensors come back to the main process. Ours:
tensorcore.audio.datasets.LIBRISPEECH + tensorcore.audio.transforms.MFCC in
tensorcore.utils.data.DataLoader; reference: torchaudio.datasets.LIBRISPEECH +
torchaudio.transforms.MFCC in torch.utils.data.DataLoader, same workers and batch size.
Passes alternate between the two; prints the median items/s and items per CPU-second (main
process + workers: steadier than wall time on a shared machine) and the ratios (> 1:
tensorcore delivers more).
"""

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

try:  # torchaudio before tensorcore's SoX use (both share libsox; docs/audio.md)
    import torch
    import torchaudio
except Exception:  # pragma: no cover - reference absent
    torch = torchaudio = None

import tensorcore.audio as ta  # noqa: E402
from tensorcore.utils.data import DataLoader, Dataset  # noqa: E402

MEL = {"n_fft": 400, "hop_length": 160, "n_mels": 80}


class Features(Dataset):
    """(MFCC features, transcript) per item: the work a speech pipeline's loader does."""

    def __init__(self, dataset, mfcc):
        self.dataset, self.mfcc = dataset, mfcc

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, n):
        item = self.dataset[n]
        return self.mfcc(item[0]), item[2]


def as_list(batch):
    return batch


def one_pass(make_loader):
    """(items/s, items per CPU-second) of one full pass. CPU time counts the main process and
    the (joined) workers, so it holds up on a machine that other jobs share."""
    loader = make_loader()
    c0, t0 = os.times(), time.perf_counter()
    n = 0
    for batch in loader:
        n += len(batch)
    del batch, loader
    gc.collect()  # joins the workers so their CPU time is counted
    wall, c1 = time.perf_counter() - t0, os.times()
    cpu = sum(c1[:4]) - sum(c0[:4])
    return n / wall, n / cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=None, help="folder holding LibriSpeech/train-clean-100")
    parser.add_argument("--hours", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    root = args.root
    if root is None:
        root = tempfile.mkdtemp(prefix="bench_librispeech_")
        sys.path.insert(0, os.path.join(HERE, "..", "python"))
        from tensorcore.datasets.generate import main as generate

        generate(
            [
                "librispeech",
                "--out",
                root,
                "--seed",
                "0",
                "--hours",
                str(args.hours),
                "--splits",
                "train-clean-100",
            ]
        )
    ours_ds = ta.datasets.LIBRISPEECH(root, "train-clean-100")
    seconds = sum(ours_ds.num_frames(i) for i in range(len(ours_ds))) / 16000
    print(
        f"corpus: {len(ours_ds)} utterances, {seconds / 60:.1f} min of audio; "
        f"workers {args.workers}, batch {args.batch_size}"
    )

    ours_features = Features(ours_ds, ta.transforms.MFCC(16000, n_mfcc=40, melkwargs=MEL))
    loaders = {
        "tensorcore": lambda: DataLoader(
            ours_features, batch_size=args.batch_size, num_workers=args.workers, collate_fn=as_list
        )
    }
    if torchaudio is not None:
        ref_features = Features(
            torchaudio.datasets.LIBRISPEECH(root, "train-clean-100"),
            torchaudio.transforms.MFCC(16000, n_mfcc=40, melkwargs=MEL),
        )
        loaders["torchaudio"] = lambda: torch.utils.data.DataLoader(
            ref_features, batch_size=args.batch_size, num_workers=args.workers, collate_fn=as_list
        )
    results = {name: [] for name in loaders}
    for epoch in range(args.epochs + 1):  # alternate, so both see the same machine load
        for name, make in loaders.items():
            result = one_pass(make)
            if epoch:  # the first pass warms the page cache and is dropped
                results[name].append(result)
    med = {}
    for name, runs in results.items():
        med[name] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
        print(
            f"{name}: {med[name][0]:.1f} items/s, {med[name][1]:.1f} items per CPU-second "
            f"(passes: {', '.join(f'{r[0]:.1f}' for r in runs)} items/s)"
        )
    if "torchaudio" not in med:
        print("torchaudio: not installed, no ratio")
        return
    print(
        f"ratio tensorcore/torchaudio: {med['tensorcore'][0] / med['torchaudio'][0]:.2f}x items/s, "
        f"{med['tensorcore'][1] / med['torchaudio'][1]:.2f}x items per CPU-second"
    )


if __name__ == "__main__":
    main()
