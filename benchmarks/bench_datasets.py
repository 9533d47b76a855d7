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
Prints items/s for both and the ratio (> 1: tensorcore delivers more items per second).
"""
import argparse
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

import tensorcore as tc  # noqa: E402
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


def passes(make_loader, epochs):
    """Items/s of each full pass (the first one warms the workers' caches and is dropped)."""
    rates = []
    for _ in range(epochs + 1):
        loader = make_loader()
        t0 = time.perf_counter()
        n = sum(len(batch) for batch in loader)
        rates.append(n / (time.perf_counter() - t0))
    return rates[1:]


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
        generate(["librispeech", "--out", root, "--seed", "0", "--hours", str(args.hours),
                  "--splits", "train-clean-100"])
    ours_ds = ta.datasets.LIBRISPEECH(root, "train-clean-100")
    seconds = sum(ours_ds.num_frames(i) for i in range(len(ours_ds))) / 16000
    print(f"corpus: {len(ours_ds)} utterances, {seconds / 60:.1f} min of audio; "
          f"workers {args.workers}, batch {args.batch_size}")

    ours_features = Features(ours_ds, ta.transforms.MFCC(16000, n_mfcc=40, melkwargs=MEL))
    ours = passes(lambda: DataLoader(ours_features, batch_size=args.batch_size,
                                     num_workers=args.workers, collate_fn=as_list), args.epochs)
    ours_rate = statistics.median(ours)
    print(f"tensorcore: {ours_rate:.1f} items/s  (passes: "
          f"{', '.join(f'{r:.1f}' for r in ours)})")
    if torchaudio is None:
        print("torchaudio: not installed, no ratio")
        return
    ref_features = Features(torchaudio.datasets.LIBRISPEECH(root, "train-clean-100"),
                            torchaudio.transforms.MFCC(16000, n_mfcc=40, melkwargs=MEL))
    ref = passes(lambda: torch.utils.data.DataLoader(
        ref_features, batch_size=args.batch_size, num_workers=args.workers,
        collate_fn=as_list), args.epochs)
    ref_rate = statistics.median(ref)
    print(f"torchaudio: {ref_rate:.1f} items/s  (passes: {', '.join(f'{r:.1f}' for r in ref)})")
    print(f"ratio (tensorcore / torchaudio items/s): {ours_rate / ref_rate:.2f}x")


if __name__ == "__main__":
    main()
