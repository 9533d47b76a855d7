"""`generate librimix`: two-speaker mixtures in LibriMix's layout from a LibriSpeech corpus.

    <out>/Libri2Mix/wav{8k,16k}/{min,max}/<subset>/{mix_clean,s1,s2}/<id>.wav
        with --noise also {mix_both,mix_single,noise}/<id>.wav
    <out>/Libri2Mix/wav{8k,16k}/{min,max}/metadata/mixture_<subset>_<mix>.csv
    <out>/Libri2Mix/metadata/libri2mix_<subset>.csv     (sources, gains, noise: the recipe)

The mixture id is `<utterance 1>_<utterance 2>` as in LibriMix. Source 1 is scaled to a random
level, source 2 to a random source-to-source ratio (--snr-range), the noise (coloured noise,
--noise) to a random speech-to-noise ratio; everything is scaled down together if a mixture
would clip. LibriSpeech subsets map to LibriMix's: train-clean-100 -> train-100,
train-clean-360 -> train-360, dev-clean -> dev, test-clean -> test. Without --librispeech a
LibriSpeech corpus is generated first (same seed, --hours) under <out>/LibriSpeech.
"""

import csv
import os
import random

import numpy as np

SUBSET_NAMES = {
    "train-clean-100": "train-100",
    "train-clean-360": "train-360",
    "dev-clean": "dev",
    "test-clean": "test",
}


def add_arguments(parser):
    parser.add_argument(
        "--librispeech",
        default=None,
        help="folder holding LibriSpeech/ (default: generate one into --out)",
    )
    parser.add_argument(
        "--hours",
        type=float,
        default=0.05,
        help="size of the LibriSpeech generated when --librispeech is not given",
    )
    parser.add_argument(
        "--mixtures",
        type=int,
        default=0,
        help="mixtures per subset (default: one per utterance of the subset)",
    )
    parser.add_argument("--sample-rates", default="8000,16000")
    parser.add_argument("--modes", default="min,max")
    parser.add_argument(
        "--snr-range",
        type=float,
        nargs=2,
        default=(-5.0, 5.0),
        metavar=("LOW", "HIGH"),
        help="source 1 over source 2, dB",
    )
    parser.add_argument(
        "--noise",
        action="store_true",
        help="also write noise, mix_both and mix_single (sep_noisy, enh_*)",
    )
    parser.add_argument(
        "--noise-snr-range",
        type=float,
        nargs=2,
        default=(0.0, 15.0),
        metavar=("LOW", "HIGH"),
        help="speech over noise, dB",
    )
    parser.add_argument(
        "--jobs", type=int, default=0, help="worker processes for the LibriSpeech generation"
    )


def _rms(x):
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)) + 1e-12))


def coloured_noise(rng, n, sample_rate):
    """Gaussian noise with a 1/f^alpha spectrum (alpha in [0, 2]: white to brown) and, half of
    the time, a mains hum - a stand-in for WHAM!'s recorded ambience."""
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.fft.rfftfreq(n, 1.0 / sample_rate)
    freqs[0] = freqs[1] if n > 1 else 1.0
    spectrum /= freqs ** (rng.uniform(0.0, 2.0) / 2.0)
    noise = np.fft.irfft(spectrum, n)
    if rng.random() < 0.5:
        t = np.arange(n) / sample_rate
        hum = rng.choice([50.0, 60.0])
        noise += 0.3 * _rms(noise) * np.sqrt(2) * np.sin(2 * np.pi * hum * t + rng.uniform(0, 6))
    return noise / _rms(noise)


def _utterances(libri_root, subset):
    """{speaker: [relative flac paths]} of one LibriSpeech subset."""
    folder = os.path.join(libri_root, subset)
    by_speaker = {}
    for speaker in sorted(os.listdir(folder), key=lambda s: int(s) if s.isdigit() else s):
        sp = os.path.join(folder, speaker)
        if not os.path.isdir(sp):
            continue
        for chapter in sorted(os.listdir(sp)):
            for name in sorted(os.listdir(os.path.join(sp, chapter))):
                if name.endswith(".flac"):
                    by_speaker.setdefault(speaker, []).append(
                        os.path.join(subset, speaker, chapter, name)
                    )
    return by_speaker


def _pairs(rng, by_speaker, count):
    utts = [(spk, u) for spk, us in by_speaker.items() for u in us]
    if len(by_speaker) < 2:
        raise SystemExit("librimix: a subset needs at least two speakers")
    count = count or len(utts)
    seen, pairs = set(), []
    for _ in range(count * 20):
        if len(pairs) == count:
            break
        (s1, u1), (s2, u2) = rng.sample(utts, 2)
        if s1 != s2 and frozenset((u1, u2)) not in seen:
            seen.add(frozenset((u1, u2)))
            pairs.append((u1, u2))
    return pairs


def _save(path, x, sample_rate):
    import tensorcore as tc
    import tensorcore.audio as ta

    pcm = np.clip(np.round(x * 32768.0), -32768, 32767).astype(np.int16)[None, :]
    ta.save(path, tc.from_numpy(pcm), sample_rate)


def generate(args):
    import tensorcore as tc
    import tensorcore.audio as ta
    from tqdm import tqdm

    rates = sorted({int(r) for r in args.sample_rates.split(",")})
    modes = [m for m in args.modes.split(",") if m]
    if not set(rates) <= {8000, 16000} or not rates:
        raise SystemExit("--sample-rates: 8000 and/or 16000")
    if not set(modes) <= {"min", "max"} or not modes:
        raise SystemExit("--modes: min and/or max")
    source_root = args.librispeech
    if source_root is None:
        from . import librispeech
        import argparse

        ls_args = argparse.Namespace(
            out=args.out,
            seed=args.seed,
            hours=args.hours,
            splits=librispeech.DEFAULT_SPLITS,
            speakers_per_split=None,
            train_speakers=None,
            min_seconds=3.0,
            max_seconds=12.0,
            text=None,
            jobs=args.jobs,
        )
        librispeech.generate(ls_args)
        source_root = args.out
    libri_root = os.path.join(source_root, "LibriSpeech")
    subsets = [s for s in SUBSET_NAMES if os.path.isdir(os.path.join(libri_root, s))]
    if not subsets:
        raise SystemExit(
            f"librimix: no clean LibriSpeech subset ({', '.join(SUBSET_NAMES)}) under {libri_root}"
        )
    rng = random.Random(args.seed)
    root = os.path.join(args.out, "Libri2Mix")
    for subset in subsets:
        name = SUBSET_NAMES[subset]
        pairs = _pairs(rng, _utterances(libri_root, subset), args.mixtures)
        recipe = []
        metadata = {
            (sr, mode, mix): []
            for sr in rates
            for mode in modes
            for mix in (("mix_clean", "mix_both", "mix_single") if args.noise else ("mix_clean",))
        }
        for u1, u2 in tqdm(pairs, desc=f"librimix {name}", unit="mix"):
            mix_id = f"{os.path.basename(u1)[:-5]}_{os.path.basename(u2)[:-5]}"
            sources16 = []
            for u in (u1, u2):
                wave, sr = ta.load(os.path.join(libri_root, u))
                if sr != 16000:
                    raise SystemExit(f"librimix: {u} is {sr} Hz, expected 16000")
                sources16.append(wave.numpy()[0].astype(np.float64))
            level = 10 ** (rng.uniform(-33, -25) / 20)
            gain1 = level / _rms(sources16[0])
            gain2 = (
                gain1
                * _rms(sources16[0])
                / _rms(sources16[1])
                / 10 ** (rng.uniform(*args.snr_range) / 20)
            )
            noise_snr = rng.uniform(*args.noise_snr_range)
            noise_seed = rng.randrange(2**32)
            recipe.append((mix_id, u1, gain1, u2, gain2, noise_seed, noise_snr))
            for sr in rates:
                srcs = [s for s in sources16]
                if sr != 16000:
                    srcs = [
                        ta.functional.resample(tc.from_numpy(s.astype(np.float32)), 16000, sr)
                        .numpy()
                        .astype(np.float64)
                        for s in srcs
                    ]
                srcs = [srcs[0] * gain1, srcs[1] * gain2]
                longest = max(len(s) for s in srcs)
                noise = coloured_noise(np.random.default_rng(noise_seed), longest, sr)
                for mode in modes:
                    n = min(len(s) for s in srcs) if mode == "min" else longest
                    s1, s2 = (np.pad(s[:n], (0, n - len(s[:n]))) for s in srcs)
                    outputs = {"s1": s1, "s2": s2, "mix_clean": s1 + s2}
                    if args.noise:
                        nz = noise[:n] * _rms(s1 + s2) / 10 ** (noise_snr / 20)
                        outputs.update(noise=nz, mix_both=s1 + s2 + nz, mix_single=s1 + nz)
                    peak = max(float(np.max(np.abs(x))) for x in outputs.values())
                    scale = 0.9 / peak if peak > 0.9 else 1.0
                    base = os.path.join(root, f"wav{sr // 1000}k", mode)
                    paths = {}
                    for kind, x in outputs.items():
                        folder = os.path.join(base, name, kind)
                        os.makedirs(folder, exist_ok=True)
                        paths[kind] = os.path.join(folder, mix_id + ".wav")
                        _save(paths[kind], x * scale, sr)
                    for (msr, mmode, mix), rows in metadata.items():
                        if msr == sr and mmode == mode:
                            rows.append(_metadata_row(mix, mix_id, paths, n))
        for (sr, mode, mix), rows in metadata.items():
            folder = os.path.join(root, f"wav{sr // 1000}k", mode, "metadata")
            os.makedirs(folder, exist_ok=True)
            header = {
                "mix_clean": [
                    "mixture_ID",
                    "mixture_path",
                    "source_1_path",
                    "source_2_path",
                    "length",
                ],
                "mix_both": [
                    "mixture_ID",
                    "mixture_path",
                    "source_1_path",
                    "source_2_path",
                    "noise_path",
                    "length",
                ],
                "mix_single": [
                    "mixture_ID",
                    "mixture_path",
                    "source_1_path",
                    "noise_path",
                    "length",
                ],
            }[mix]
            _write_csv(os.path.join(folder, f"mixture_{name}_{mix}.csv"), header, rows)
        os.makedirs(os.path.join(root, "metadata"), exist_ok=True)
        _write_csv(
            os.path.join(root, "metadata", f"libri2mix_{name}.csv"),
            [
                "mixture_ID",
                "source_1_path",
                "source_1_gain",
                "source_2_path",
                "source_2_gain",
                "noise_seed",
                "noise_snr_db",
            ],
            [
                (m, u1, f"{g1:.6f}", u2, f"{g2:.6f}", ns, f"{snr:.3f}")
                if args.noise
                else (m, u1, f"{g1:.6f}", u2, f"{g2:.6f}", "", "")
                for m, u1, g1, u2, g2, ns, snr in recipe
            ],
        )
    return root


def _metadata_row(mix, mix_id, paths, n):
    paths = {k: os.path.abspath(v) for k, v in paths.items()}  # LibriMix's CSVs hold full paths
    if mix == "mix_clean":
        return [mix_id, paths["mix_clean"], paths["s1"], paths["s2"], n]
    if mix == "mix_both":
        return [mix_id, paths["mix_both"], paths["s1"], paths["s2"], paths["noise"], n]
    return [mix_id, paths["mix_single"], paths["s1"], paths["noise"], n]


def _write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
