"""`generate libritts`: LibriTTS's layout, synthesized at 24 kHz.

    <out>/LibriTTS/<split>/<speaker>/<chapter>/<spk>_<chap>_<paragraph:06d>_<sentence:06d>.wav
        ... .original.txt    the book's sentence as printed (no line break, as LibriTTS)
        ... .normalized.txt  numbers and abbreviations spelled out
    <out>/LibriTTS/<split>/<speaker>/<chapter>/<spk>_<chap>.trans.tsv / .book.tsv
    <out>/LibriTTS/speakers.tsv

Utterances are single sentences (or clauses of very long ones), as LibriTTS cuts them.
"""

import os

from . import _speech, _text
from .librispeech import add_corpus_arguments, plan_corpus

SAMPLE_RATE = 24000


def add_arguments(parser):
    add_corpus_arguments(
        parser,
        "LibriTTS",
        "train-clean-100,dev-clean,test-clean",
        min_seconds=1.0,
        max_seconds=12.0,
        max_help="longer sentences are cut at clause marks",
    )


def _write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def generate(args):
    rng, _, plans = plan_corpus(args, sentence_level=True)
    root = os.path.join(args.out, "LibriTTS")
    jobs, speakers = [], []
    for split in plans:
        for speaker, chapters in split.speakers:
            speakers.append((speaker.id, speaker.sex, split.name, speaker.name))
            effects = _speech.channel_effects(rng, split.name)
            for chapter in chapters:
                folder = os.path.join(root, split.name, str(speaker.id), str(chapter.id))
                os.makedirs(folder, exist_ok=True)
                trans, book = [], []
                for utt in chapter.utterances:
                    fileid = f"{speaker.id}_{chapter.id}_{utt.paragraph:06d}_{utt.sentence:06d}"
                    original = " ".join(utt.phrases)
                    norm = _text.normalized(original)
                    base = os.path.join(folder, fileid)
                    _write(base + ".original.txt", original)
                    _write(base + ".normalized.txt", norm)
                    trans.append(f"{fileid}\t{original}\t{norm}")
                    book.append(f"{fileid}\t{original}")
                    jobs.append(
                        (_text.speakable(original), speaker, base + ".wav", SAMPLE_RATE, effects)
                    )
                prefix = os.path.join(folder, f"{speaker.id}_{chapter.id}")
                _write(prefix + ".trans.tsv", "\n".join(trans) + "\n")
                _write(prefix + ".book.tsv", "\n".join(book) + "\n")
    _speech.run_jobs(jobs, args.jobs, "libritts")
    lines = ["READER\tGENDER\tSUBSET\tNAME"] + [
        f"{sid}\t{sex}\t{subset}\t{name}" for sid, sex, subset, name in sorted(speakers)
    ]
    _write(os.path.join(root, "speakers.tsv"), "\n".join(lines) + "\n")
    return root
