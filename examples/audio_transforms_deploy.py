"""Saves an audio front end (resampling, log-mel features, SpecAugment masking) for the C++
example and prints the checksum Python computes for it.

Run: .venv/bin/python examples/audio_transforms_deploy.py /tmp/frontend.json [seed]
then build/audio_transforms_deploy /tmp/frontend.json [seed] prints the same numbers.
"""

import math
import sys

import numpy as np

import tensorcore as tc
from tensorcore.audio import transforms as T


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "frontend.json"
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    g = tc.Generator()
    g.manual_seed(seed)
    pipe = T.Compose(
        [
            T.Resample(22050, 16000),
            T.MelSpectrogram(sample_rate=16000, n_fft=400, hop_length=160, n_mels=80),
            T.AmplitudeToDB(top_db=80),
            T.FrequencyMasking(15, generator=g),
            T.TimeMasking(40, p=0.2, generator=g),
        ]
    )
    pipe.save(path)
    # Two channels of 2 s at 22.05 kHz: a chirp-like tone per channel (same formula in C++).
    # math.sin is the C library's sin, as in the C++ program (numpy's SIMD sin may differ by an ulp).
    wave = np.array(
        [
            [
                math.sin(2 * math.pi * (200 + 150 * c) * (i / 22050) * (1 + i / 22050)) * 0.5
                for i in range(2 * 22050)
            ]
            for c in range(2)
        ],
        dtype=np.float32,
    )
    out = pipe(tc.from_numpy(wave))
    print("output", list(out.shape))
    flat = out.numpy().astype(np.float64).reshape(-1)
    # Sequential sums (np.cumsum), the same order as the C++ loop, so the digits agree.
    weighted = np.cumsum(flat * (np.arange(flat.size) % 997))[-1]
    print(f"checksum {np.cumsum(flat)[-1]:.6f} {weighted:.6f}")


if __name__ == "__main__":
    main()
