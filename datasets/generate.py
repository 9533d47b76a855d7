"""Command line: python -m tensorcore.datasets.generate <kind> --out DIR --seed N [options]

Kinds: librispeech, libritts, librimix, coco (`<kind> --help` lists each one's options). The
output is a function of the arguments alone: the same seed gives the same files.
"""

import argparse
import importlib
import sys

KINDS = {
    "librispeech": "LibriSpeech layout: FLAC + .trans.txt, speaker-disjoint splits (espeak-ng)",
    "libritts": "LibriTTS layout: 24 kHz WAV + .original.txt / .normalized.txt (espeak-ng)",
    "librimix": "LibriMix layout: two-speaker mixtures + metadata CSVs from a LibriSpeech",
    "coco": "COCO layout: JPEG images of shapes + instances_<split>.json",
}


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m tensorcore.datasets.generate", description=__doc__.split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="kind", required=True, metavar="kind")
    for kind, help_text in KINDS.items():
        p = sub.add_parser(kind, help=help_text, description=help_text)
        p.add_argument("--out", required=True, help="output folder (created if missing)")
        p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
        _module(kind).add_arguments(p)
    return parser


def _module(kind):
    return importlib.import_module(f"{__package__}.{kind}")


def main(argv=None):
    args = build_parser().parse_args(argv)
    root = _module(args.kind).generate(args)
    print(f"{args.kind}: written to {root}")
    return root


if __name__ == "__main__":
    main(sys.argv[1:])
