"""LibriMix: `<root>/Libri<N>Mix/wav{8k,16k}/{min,max}/<subset>/{mix_clean,mix_both,mix_single,
s1..sN,noise}/<id>.wav`, the layout LibriMix's scripts write (torchaudio 0.13's class)."""

import os

from ...utils.data import Dataset
from . import _utils

_TASKS_TO_MIXTURE = {
    "sep_clean": "mix_clean",
    "enh_single": "mix_single",
    "enh_both": "mix_both",
    "sep_noisy": "mix_both",
}


class LibriMix(Dataset):
    """LibriMix: items are (sample_rate, mixture, [source_1, ..., source_N]).

    Args:
        root: folder holding `Libri<num_speakers>Mix`.
        subset: "train-360", "train-100", "dev" or "test".
        num_speakers: sources per mixture (folders s1..sN).
        sample_rate: 8000 or 16000 (picks wav8k / wav16k).
        task: "sep_clean", "sep_noisy", "enh_single" or "enh_both".
        mode: "min" (cut to the shortest source) or "max" (padded to the longest).
    """

    def __init__(
        self,
        root,
        subset="train-360",
        num_speakers=2,
        sample_rate=8000,
        task="sep_clean",
        mode="min",
    ):
        self.root = os.path.join(os.fspath(root), f"Libri{num_speakers}Mix")
        if mode not in ("max", "min"):
            raise ValueError(f'Expect ``mode`` to be one in ["min", "max"]. Found {mode}.')
        if sample_rate not in (8000, 16000):
            raise ValueError(f"Unsupported sample rate. Found {sample_rate}.")
        if task not in _TASKS_TO_MIXTURE:
            raise ValueError(
                f"Unsupported task {task!r}; expected one of {list(_TASKS_TO_MIXTURE)}"
            )
        mix_dir = os.path.join(self.root, f"wav{sample_rate // 1000}k", mode, subset)
        self.sample_rate = sample_rate
        self.task = task
        self.mix_dir = os.path.join(mix_dir, _TASKS_TO_MIXTURE[task])
        if task == "enh_both":
            self.src_dirs = [os.path.join(mix_dir, "mix_clean")]
        else:
            self.src_dirs = [os.path.join(mix_dir, f"s{i + 1}") for i in range(num_speakers)]
        if not os.path.isdir(self.mix_dir):
            raise RuntimeError(
                f"LibriMix: {self.mix_dir} does not exist. Check `root`, `subset`, "
                f"`sample_rate`, `mode` and `task` (LibriMix is generated, not "
                f"downloaded: see datasets/README.md)"
            )
        for d in self.src_dirs:
            _utils.require_dir(d, "LibriMix", download_hint=False)
        self.files = sorted(f for f in os.listdir(self.mix_dir) if f.endswith(".wav"))

    def get_metadata(self, key):
        """(sample_rate, mixture path, [source paths]), paths relative to `Libri<N>Mix`."""
        filename = self.files[_utils.check_index(key, len(self.files), "LibriMix")]
        mixed = os.path.relpath(os.path.join(self.mix_dir, filename), self.root)
        sources = [os.path.relpath(os.path.join(d, filename), self.root) for d in self.src_dirs]
        return self.sample_rate, mixed, sources

    def num_frames(self, key):
        return _utils.num_frames(os.path.join(self.root, self.get_metadata(key)[1]))

    def __getitem__(self, key):
        sample_rate, mixed_path, source_paths = self.get_metadata(key)
        mixed, _ = _utils.load_audio(os.path.join(self.root, mixed_path), sample_rate)
        sources = []
        for i, path in enumerate(source_paths):
            path = os.path.join(self.root, path)
            src, _ = _utils.load_audio(path, sample_rate)
            if tuple(src.shape) != tuple(mixed.shape):
                raise ValueError(
                    f"Different waveform shapes. mixed: {tuple(mixed.shape)}, "
                    f"src[{i}] ({path}): {tuple(src.shape)}"
                )
            sources.append(src)
        return sample_rate, mixed, sources

    def __len__(self):
        return len(self.files)
