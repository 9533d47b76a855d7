"""Read-speech corpora planned from a seed and synthesized with espeak-ng.

A speaker is one espeak-ng accent x voice variant with its own speaking rate, pitch, loudness,
word gap and tone (bass/treble) - distinct voices to a speaker-ID model. Planning (who reads
which chapter of which book, how sentences group into utterances) happens up front from one
random.Random(seed); synthesis then runs in worker processes, each job a fixed espeak-ng | sox
pipeline, so the files are the same whatever the number of jobs. Splits get disjoint speakers.
"""

import math
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from multiprocessing import get_context

from . import _text

ACCENTS = [
    "en-us",
    "en-gb",
    "en-gb-scotland",
    "en-gb-x-rp",
    "en-gb-x-gbclan",
    "en-gb-x-gbcwmd",
    "en-029",
    "en-us-nyc",
]
# espeak-ng voice variants that sound like plausible readers (no robots, whispers or effects)
VARIANTS = {
    "M": [
        "m1",
        "m2",
        "m3",
        "m4",
        "m5",
        "m6",
        "m7",
        "m8",
        "adam",
        "Alex",
        "Andy",
        "benjamin",
        "caleb",
        "david",
        "ed",
        "edward",
        "john",
        "max",
        "michel",
        "paul",
        "quincy",
        "rob",
        "robert",
        "travis",
        "victor",
        "zac",
        "klatt",
        "klatt2",
        "klatt3",
        "norbert",
        "Lee",
        "Mike",
    ],
    "F": [
        "f1",
        "f2",
        "f3",
        "f4",
        "f5",
        "Alicia",
        "Andrea",
        "Annie",
        "aunty",
        "belinda",
        "linda",
        "steph",
        "steph2",
        "steph3",
        "anika",
    ],
}


@dataclass
class Speaker:
    id: int
    sex: str
    voice: str  # accent+variant as espeak-ng's -v takes it
    wpm: int  # -s
    pitch: int  # -p
    amplitude: int  # -a
    gap: int  # -g, extra pause between words (10 ms units)
    bass: float  # sox bass gain, dB
    treble: float  # sox treble gain, dB

    @property
    def name(self):
        return self.voice.replace("+", " ")


@dataclass
class Utterance:
    index: int
    phrases: list  # the book's text, one or more sentences/clauses
    paragraph: int = 0  # LibriTTS-style segment numbering
    sentence: int = 0


@dataclass
class Chapter:
    id: int
    book_id: int
    book_title: str
    book_chapter: int
    utterances: list = field(default_factory=list)


@dataclass
class SplitPlan:
    name: str
    speakers: list  # [(Speaker, [Chapter])]


def split_shares(splits):
    """Fraction of the hours per split: train splits share 80 %, dev/test the rest."""
    train = [s for s in splits if s.startswith("train")]
    other = [s for s in splits if not s.startswith("train")]
    if not train or not other:
        return {s: 1.0 / len(splits) for s in splits}
    shares = {s: 0.8 / len(train) for s in train}
    shares.update({s: 0.2 / len(other) for s in other})
    return shares


def _speakers(rng, count):
    pool = [(a, sex, v) for a in ACCENTS for sex, vs in VARIANTS.items() for v in vs]
    if count > len(pool):
        raise ValueError(
            f"asked for {count} speakers; espeak-ng offers {len(pool)} distinct "
            f"accent/voice pairs here (lower --hours, --speakers-per-split or --train-speakers)"
        )
    picks = rng.sample(pool, count)
    ids = rng.sample(range(10, 9000), count)
    speakers = []
    for sid, (accent, sex, variant) in zip(ids, picks):
        speakers.append(
            Speaker(
                id=sid,
                sex=sex,
                voice=f"{accent}+{variant}",
                wpm=rng.randint(125, 195),
                pitch=rng.randint(25, 75),
                amplitude=rng.randint(70, 130),
                gap=rng.randint(0, 3),
                bass=round(rng.uniform(-4, 4), 1),
                treble=round(rng.uniform(-4, 4), 1),
            )
        )
    return speakers


def seconds_of(words, speaker):
    """Planning estimate of the spoken length (espeak-ng's rate plus pauses)."""
    return words * 60.0 / speaker.wpm * 1.08 + 0.4


def plan(
    rng,
    books,
    splits,
    hours,
    min_seconds,
    max_seconds,
    speakers_per_split=None,
    train_speakers=None,
    sentence_level=False,
):
    """Decides every split's speakers, chapters and utterances; returns [SplitPlan]."""
    shares = split_shares(splits)
    minutes = {s: hours * 60.0 * shares[s] for s in splits}
    counts = {s: speakers_per_split or max(2, min(40, math.ceil(minutes[s] / 8.0))) for s in splits}
    if train_speakers:
        counts.update({s: train_speakers for s in splits if s.startswith("train")})
    everyone = _speakers(rng, sum(counts.values()))
    chapter_ids = iter(rng.sample(range(1000, 400000), sum(counts.values()) * 3))
    plans, start = [], 0
    for split in splits:
        chosen = everyone[start : start + counts[split]]
        start += counts[split]
        per_speaker = minutes[split] * 60.0 / len(chosen)
        readers = []
        for speaker in chosen:
            n_chapters = 1 if per_speaker < 120 else rng.randint(1, 3)
            chapters = []
            for _ in range(n_chapters):
                book_id, title, book_chapters = books[rng.randrange(len(books))]
                which = rng.randrange(len(book_chapters))
                chapter = Chapter(next(chapter_ids), book_id, title, which + 1)
                _fill(
                    rng,
                    chapter,
                    book_chapters,
                    which,
                    speaker,
                    per_speaker / n_chapters,
                    min_seconds,
                    max_seconds,
                    sentence_level,
                )
                chapters.append(chapter)
            readers.append((speaker, chapters))
        plans.append(SplitPlan(split, readers))
    return plans


def _fill(
    rng, chapter, book_chapters, which, speaker, seconds, min_seconds, max_seconds, sentence_level
):
    """Reads on from a random sentence of the book chapter until `seconds` are planned.

    LibriSpeech-style utterances take consecutive phrases while they stay under a length drawn
    from [min_seconds, max_seconds]; LibriTTS-style (sentence_level) ones are one phrase each,
    numbered by paragraph and sentence."""
    state = {
        "which": which,
        "sentences": book_chapters[which],
        "position": rng.randrange(len(book_chapters[which])),
        "pending": [],
    }
    max_words = int(max_seconds * 2.4)

    def peek():
        if not state["pending"]:
            if state["position"] >= len(state["sentences"]):  # continue in the next chapter
                state["which"] = (state["which"] + 1) % len(book_chapters)
                state["sentences"], state["position"] = book_chapters[state["which"]], 0
            state["pending"] = _text.phrases(state["sentences"][state["position"]], max_words)
            state["position"] += 1
        return state["pending"][0]

    planned, paragraph, in_paragraph, paragraph_len = 0.0, 1, 0, rng.randint(3, 8)
    while planned < seconds or not chapter.utterances:
        if sentence_level:
            phrase = state["pending"].pop(0) if peek() else None
            in_paragraph += 1
            if in_paragraph > paragraph_len:
                paragraph, in_paragraph, paragraph_len = paragraph + 1, 1, rng.randint(3, 8)
            group, words = [phrase], len(phrase.split())
            chapter.utterances.append(
                Utterance(len(chapter.utterances), group, paragraph, in_paragraph)
            )
        else:
            target = rng.uniform(min_seconds, max_seconds)
            group, words = [], 0
            while True:
                nxt = len(peek().split())
                if group and seconds_of(words + nxt, speaker) > target:
                    break
                group.append(state["pending"].pop(0))
                words += nxt
            chapter.utterances.append(Utterance(len(chapter.utterances), group))
        planned += seconds_of(words, speaker)


def check_tools():
    missing = [tool for tool in ("espeak-ng", "sox") if shutil.which(tool) is None]
    if missing:
        raise RuntimeError(
            f"the speech generators need {' and '.join(missing)} on PATH "
            f"(Debian: apt-get install espeak-ng sox libsox-fmt-all)"
        )


def synthesize(job):
    """One utterance: espeak-ng writes 22.05 kHz WAV to a pipe, sox resamples (no dither, so
    the output is reproducible), applies the speaker's tone and the split's channel effects,
    and encodes by the output file's extension. Returns the output path."""
    text, speaker, path, sample_rate, effects = job
    espeak = [
        "espeak-ng",
        "-v",
        speaker.voice,
        "-s",
        str(speaker.wpm),
        "-p",
        str(speaker.pitch),
        "-a",
        str(speaker.amplitude),
        "-g",
        str(speaker.gap),
        "--stdout",
    ]
    sox = (
        [
            "sox",
            "-D",
            "-t",
            "wav",
            "-",
            "-r",
            str(sample_rate),
            "-c",
            "1",
            "-b",
            "16",
            path,
            "bass",
            str(speaker.bass),
            "treble",
            str(speaker.treble),
        ]
        + list(effects)
        + ["gain", "-n", "-1"]
    )
    tmp = path + ".tmp" + os.path.splitext(path)[1]
    sox[sox.index(path)] = tmp
    p1 = subprocess.Popen(
        espeak, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    p2 = subprocess.Popen(sox, stdin=p1.stdout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p1.stdout.close()
    p1.stdin.write(text.encode("utf-8"))
    p1.stdin.close()
    err2 = p2.communicate()[1]
    err1 = p1.stderr.read()
    p1.wait()
    if p1.returncode or p2.returncode:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise RuntimeError(
            f"synthesis of {path} failed: espeak-ng exit {p1.returncode} "
            f"({err1.decode(errors='replace').strip()}), sox exit {p2.returncode} "
            f"({err2.decode(errors='replace').strip()})"
        )
    os.replace(tmp, path)
    return path


def run_jobs(jobs, workers, desc):
    """Runs synthesize() over jobs with a tqdm progress bar; order does not matter."""
    from tqdm import tqdm

    workers = max(1, workers or os.cpu_count() or 1)
    with tqdm(total=len(jobs), desc=desc, unit="utt") as bar:
        if workers == 1:
            for job in jobs:
                synthesize(job)
                bar.update(1)
            return
        with get_context("fork").Pool(workers) as pool:
            for _ in pool.imap_unordered(synthesize, jobs, chunksize=4):
                bar.update(1)


def channel_effects(rng, split):
    """ "other" splits sound worse, as in LibriSpeech: room reverb and a narrower band."""
    if "other" not in split:
        return []
    return [
        "highpass",
        str(rng.randint(80, 300)),
        "lowpass",
        str(rng.randint(3000, 6000)),
        "reverb",
        str(rng.randint(20, 60)),
        str(rng.randint(30, 70)),
        str(rng.randint(30, 100)),
    ]
