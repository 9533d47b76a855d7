"""`generate librispeech`: LibriSpeech's exact layout, synthesized.

    <out>/LibriSpeech/<split>/<speaker>/<chapter>/<speaker>-<chapter>-<utt:04d>.flac
    <out>/LibriSpeech/<split>/<speaker>/<chapter>/<speaker>-<chapter>.trans.txt
    <out>/LibriSpeech/{SPEAKERS,CHAPTERS,BOOKS}.TXT
    <out>/librispeech-vocab.txt  (the books' words, as OpenSLR's SLR11 resources)

16 kHz 16-bit mono FLAC; transcripts in LibriSpeech's style (upper case, no punctuation).
"""

import os
import random

from tensorcore.audio.datasets._utils import LIBRISPEECH_SUBSETS

from . import _speech, _text

DEFAULT_SPLITS = "train-clean-100,dev-clean,test-clean"
SAMPLE_RATE = 16000


def add_arguments(parser):
    add_corpus_arguments(parser, "LibriSpeech", DEFAULT_SPLITS, min_seconds=3.0, max_seconds=16.0)


def add_corpus_arguments(parser, corpus, default_splits, min_seconds, max_seconds, max_help=None):
    """The options of the LibriSpeech-layout generators (this one and libritts)."""
    parser.add_argument(
        "--hours",
        type=float,
        default=0.1,
        help="total length over all splits (train 80%%, dev/test the rest)",
    )
    parser.add_argument(
        "--splits",
        default=default_splits,
        help=f"comma-separated {corpus} subset names (default: %(default)s)",
    )
    parser.add_argument(
        "--speakers-per-split",
        type=int,
        default=None,
        help="default: about one per 8 minutes, at least 2",
    )
    parser.add_argument(
        "--train-speakers",
        type=int,
        default=None,
        help="speakers of each train-* split, overriding --speakers-per-split there: more "
        "training voices than held-out ones, for models that must generalize to unseen voices",
    )
    parser.add_argument("--min-seconds", type=float, default=min_seconds)
    parser.add_argument("--max-seconds", type=float, default=max_seconds, help=max_help)
    parser.add_argument(
        "--text", default=None, help="a plain-text book to read from instead of the bundled ones"
    )
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (0: all cores)")


def validate(args, subsets):
    if not args.hours > 0:
        raise SystemExit("--hours must be > 0")
    for flag, count in (("--speakers-per-split", args.speakers_per_split),
                        ("--train-speakers", args.train_speakers)):  # fmt: skip
        if count is not None and count < 1:
            raise SystemExit(f"{flag} must be >= 1")
    if not 0 < args.min_seconds <= args.max_seconds:
        raise SystemExit("--min-seconds must be > 0 and <= --max-seconds")
    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    bad = [s for s in splits if s not in subsets]
    if not splits or bad or len(set(splits)) != len(splits):
        raise SystemExit(f"--splits: {args.splits!r}; use distinct names from {subsets}")
    return splits


SUBSETS = LIBRISPEECH_SUBSETS


def plan_corpus(args, sentence_level=False):
    """Checks the tools and --splits, then plans the speakers, chapters and utterances from the
    command line; returns (rng, books, plans), rng (seeded by --seed) to be drawn on next."""
    _speech.check_tools()
    splits = validate(args, SUBSETS)
    rng = random.Random(args.seed)
    books = _text.load_books(args.text)
    plans = _speech.plan(
        rng,
        books,
        splits,
        args.hours,
        args.min_seconds,
        args.max_seconds,
        args.speakers_per_split,
        train_speakers=args.train_speakers,
        sentence_level=sentence_level,
    )
    return rng, books, plans


def generate(args):
    rng, books, plans = plan_corpus(args)
    root = os.path.join(args.out, "LibriSpeech")
    jobs = []
    for split in plans:
        for speaker, chapters in split.speakers:
            effects = _speech.channel_effects(rng, split.name)
            for chapter in chapters:
                folder = os.path.join(root, split.name, str(speaker.id), str(chapter.id))
                os.makedirs(folder, exist_ok=True)
                lines = []
                for utt in chapter.utterances:
                    fileid = f"{speaker.id}-{chapter.id}-{utt.index:04d}"
                    spoken = " ".join(_text.speakable(p) for p in utt.phrases)
                    lines.append(f"{fileid} {_text.librispeech_transcript(' '.join(utt.phrases))}")
                    jobs.append(
                        (
                            spoken,
                            speaker,
                            os.path.join(folder, fileid + ".flac"),
                            SAMPLE_RATE,
                            effects,
                        )
                    )
                with open(os.path.join(folder, f"{speaker.id}-{chapter.id}.trans.txt"), "w") as f:
                    f.write("\n".join(lines) + "\n")
    _speech.run_jobs(jobs, args.jobs, "librispeech")
    write_index_files(root, plans, books)
    write_vocabulary(os.path.join(args.out, VOCABULARY), books)
    return root


# OpenSLR's LibriSpeech resources (SLR11) ship the word list of the books the corpus was read
# from next to the LM texts; a lexicon-constrained decoder uses it instead of the training
# transcripts' words, which miss many held-out words.
VOCABULARY = "librispeech-vocab.txt"


def write_vocabulary(path, books):
    """Every word of the source books in transcript form, sorted, one per line."""
    words = set()
    for _, _, chapters in books:
        for sentences in chapters:
            for sentence in sentences:
                words.update(_text.librispeech_transcript(sentence).split())
    with open(path, "w") as f:
        f.write("\n".join(sorted(words)) + "\n")


def write_index_files(root, plans, books):
    """SPEAKERS.TXT / CHAPTERS.TXT / BOOKS.TXT in LibriSpeech's pipe-separated format, with
    minutes measured from the written files' headers."""
    import tensorcore.audio as ta

    speakers, chapters = [], []
    for split in plans:
        for speaker, chs in split.speakers:
            total = 0.0
            for ch in chs:
                folder = os.path.join(root, split.name, str(speaker.id), str(ch.id))
                seconds = sum(
                    ta.info(os.path.join(folder, f)).num_frames / SAMPLE_RATE
                    for f in os.listdir(folder)
                    if f.endswith(".flac")
                )
                total += seconds
                chapters.append(
                    (
                        ch.id,
                        speaker.id,
                        seconds / 60,
                        split.name,
                        ch.book_id,
                        f"Chapter {ch.book_chapter}",
                        ch.book_title,
                    )
                )
            speakers.append((speaker.id, speaker.sex, split.name, total / 60, speaker.name))
    with open(os.path.join(root, "SPEAKERS.TXT"), "w") as f:
        f.write(";ID  |SEX| SUBSET           |MINUTES| NAME\n")
        for sid, sex, subset, minutes, name in sorted(speakers):
            f.write(f"{sid:<5}| {sex} | {subset:<17}| {minutes:5.2f} | {name}\n")
    with open(os.path.join(root, "CHAPTERS.TXT"), "w") as f:
        f.write(
            ";ID    |READER|MINUTES| SUBSET           | PROJ.|BOOK ID| CH. TITLE | PROJECT TITLE\n"
        )
        for cid, reader, minutes, subset, book, title, book_title in sorted(chapters):
            f.write(
                f"{cid:<7}| {reader:<5}| {minutes:5.2f} | {subset:<17}| {0:<5}| {book:<6}| "
                f"{title} | {book_title}\n"
            )
    with open(os.path.join(root, "BOOKS.TXT"), "w") as f:
        f.write(";ID     |BOOK TITLE|BOOK AUTHOR\n")
        for book_id, title, _ in books:
            author = "Jane Austen" if book_id in _text.BOOKS else "unknown"
            f.write(f"{book_id:<8}| {title} | {author}\n")
