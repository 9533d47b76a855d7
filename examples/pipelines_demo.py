"""The main job: the four training pipelines end to end on freshly generated data, in a few
minutes on 2 cores.

    python examples/pipelines_demo.py --out runs/demo [--minutes-per-pipeline 1.0]

1. generates small corpora (LibriSpeech, LibriTTS, LibriMix, COCO layouts) with
   `python -m tensorcore.datasets.generate`;
2. trains each pipeline briefly (`python -m tensorcore.pipelines.<name>`, small model settings,
   a wall-time limit) and evaluates it on held-out data of unseen speakers / images;
3. prints the held-out metrics and leaves, per pipeline, runs/demo/<name>/: curves.png,
   examples.png, metrics.json, config.json, TensorBoard events and the checkpoint.

Short runs show the machinery working, not converged models: docs/pipelines.md has the recipe
commands for real training.
"""

import argparse
import json
import os
import subprocess
import sys
import time

PIPELINE_SETTINGS = {
    "wav2letter": [
        "--train-split", "train-clean-100", "--eval-split", "dev-clean",
        "--hidden-channels", "96", "--wide-channels", "192", "--optimizer", "adam",
        "--learning-rate", "2e-3", "--scheduler", "none", "--batch-size", "8",
        "--freq-mask", "3", "--time-mask", "20", "--beam-width", "8", "--max-eval-items", "12",
    ],
    "wavernn": [
        "--sample-rate", "16000", "--n-fft", "1024", "--win-length", "800", "--hop-length", "200",
        "--upsample-scales", "5", "5", "8", "--f-max", "8000", "--n-rnn", "96", "--n-fc", "96",
        "--n-res-block", "2", "--n-hidden-resblock", "32", "--n-output-melresnet", "32",
        "--batch-size", "16", "--learning-rate", "2e-3", "--max-eval-items", "2",
        "--eval-seconds", "0.5", "--griffin-lim-iters", "32",
    ],
    "convtasnet": [
        "--train-subset", "train-100", "--eval-subset", "dev", "--enc-num-feats", "64",
        "--msk-num-feats", "32", "--msk-num-hidden-feats", "64", "--msk-num-layers", "4",
        "--msk-num-stacks", "1", "--crop-length", "1.0", "--batch-size", "4",
        "--max-eval-items", "6",
    ],
    "retinanet": [
        "--backbone", "resnet18", "--min-size", "128", "--max-size", "128", "--batch-size", "4",
        "--optimizer", "adam", "--learning-rate", "1e-3", "--scheduler", "none",
        "--warmup-iters", "10", "--max-eval-items", "12",
    ],
}  # fmt: skip

DATA = {
    "wav2letter": "speech",
    "wavernn": "tts",
    "convtasnet": "mix",
    "retinanet": "coco/coco",
}

HEADLINE = {
    "wav2letter": [("cer", "CER greedy"), ("wer", "WER greedy"), ("beam_wer", "WER beam"),
                   ("lexicon_wer", "WER beam+lexicon")],
    "wavernn": [("log_mel_l1", "log-mel L1"), ("gl_log_mel_l1", "Griffin-Lim"), ("mcd", "MCD dB"),
                ("gl_mcd", "Griffin-Lim MCD")],
    "convtasnet": [("si_snri", "SI-SNRi dB"), ("sdri", "SDRi dB")],
    "retinanet": [("map", "mAP@[.5:.95]"), ("map_50", "AP50"), ("ar_100", "AR@100")],
}  # fmt: skip


def sh(*argv):
    print("$", " ".join(str(a) for a in argv), flush=True)
    subprocess.run([str(a) for a in argv], check=True)


def generate(data):
    gen = [sys.executable, "-m", "tensorcore.datasets.generate"]
    if not os.path.isdir(os.path.join(data, "speech", "LibriSpeech")):
        sh(*gen, "librispeech", "--out", f"{data}/speech", "--hours", "0.12", "--max-seconds", "6")
    if not os.path.isdir(os.path.join(data, "tts", "LibriTTS")):
        sh(*gen, "libritts", "--out", f"{data}/tts", "--hours", "0.04", "--max-seconds", "4")
    if not os.path.isdir(os.path.join(data, "mix", "Libri2Mix")):
        sh(*gen, "librimix", "--out", f"{data}/mix", "--librispeech", f"{data}/speech",
           "--sample-rates", "8000", "--modes", "min")  # fmt: skip
    if not os.path.isdir(os.path.join(data, "coco", "coco")):
        sh(*gen, "coco", "--out", f"{data}/coco", "--images", "64", "--min-size", "96",
           "--max-size", "128", "--max-objects", "3", "--splits", "train2017,val2017")  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="runs/demo")
    parser.add_argument("--minutes-per-pipeline", type=float, default=1.0)
    parser.add_argument("--pipelines", nargs="+", default=list(PIPELINE_SETTINGS))
    args = parser.parse_args(argv)
    data = os.path.join(args.out, "data")
    start = time.monotonic()
    generate(data)
    results = {}
    for name in args.pipelines:
        out = os.path.join(args.out, name)
        sh(
            sys.executable, "-m", f"tensorcore.pipelines.{name}",
            "--data-root", os.path.join(data, DATA[name]), "--output-dir", out,
            "--epochs", "1000", "--max-minutes", args.minutes_per_pipeline, "--no-progress",
            *PIPELINE_SETTINGS[name],
        )  # fmt: skip
        with open(os.path.join(out, "metrics.json")) as f:
            results[name] = json.load(f)
    print(f"\nheld-out metrics after {args.minutes_per_pipeline:g} min of training each "
          f"(total {(time.monotonic() - start) / 60:.1f} min):")  # fmt: skip
    for name, metrics in results.items():
        final = metrics["final"]
        shown = ", ".join(
            f"{label} {final[key]:.3f}" for key, label in HEADLINE[name] if key in final
        )
        print(f"  {name:<11} {metrics['steps']:>5} steps  {shown}")
        print(f"  {'':<11} plots: {os.path.join(args.out, name, 'curves.png')}, examples.png")
    return results


if __name__ == "__main__":
    main()
