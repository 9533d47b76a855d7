"""Sentences of real books for the speech generators.

The books are Jane Austen's "Pride and Prejudice", "Persuasion" and "Northanger Abbey" (public
domain, Project Gutenberg transcriptions), taken from Debian's `r-cran-janeaustenr` package and
kept in text/ so that generation needs nothing but this package. `--text FILE` uses any other
plain-text book instead. A book is split into its chapters (a LibriSpeech "chapter" is read
from one), each chapter into sentences.
"""

import gzip
import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))
BOOKS = {  # LibriSpeech-style book ids: Project Gutenberg's ebook numbers
    1342: ("Pride and Prejudice", "pride_and_prejudice.txt.gz"),
    105: ("Persuasion", "persuasion.txt.gz"),
    121: ("Northanger Abbey", "northanger_abbey.txt.gz"),
}

_CHAPTER = re.compile(r"^\s*(chapter|CHAPTER|Chapter)\s+([0-9IVXLC]+)\b.*$", re.M)
# A sentence ends at . ! ? (optionally followed by closing quotes) before whitespace, unless
# the period ends a title abbreviation.
_ABBREVIATIONS = ("Mr", "Mrs", "Dr", "St", "Col", "Capt", "Gen", "Rev", "Messrs", "Esq")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)]*\s+")


def read_book(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read()


def _sentences(paragraph_text):
    text = " ".join(paragraph_text.split())
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        head = text[start : m.start()].rstrip("\"'\u201d\u2019)")
        last_word = head.rsplit(" ", 1)[-1].rstrip(".")
        if last_word in _ABBREVIATIONS:
            continue
        out.append(text[start : m.end()].strip())
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def chapters(text):
    """List of chapters, each a list of sentences (at least 3 words of letters each)."""
    marks = list(_CHAPTER.finditer(text))
    bodies = [
        text[m.end() : (marks[i + 1].start() if i + 1 < len(marks) else len(text))]
        for i, m in enumerate(marks)
    ] or [text]
    result = []
    for body in bodies:
        sentences = []
        for paragraph in re.split(r"\n\s*\n", body):
            for s in _sentences(paragraph):
                if len(re.findall(r"[A-Za-z]+", s)) >= 3:
                    sentences.append(s)
        if sentences:
            result.append(sentences)
    return result


def load_books(text_path=None):
    """[(book_id, title, chapters)] from the bundled books, or from one `text_path`."""
    if text_path:
        title = os.path.splitext(os.path.basename(text_path))[0]
        found = chapters(read_book(text_path))
        if not found:
            raise ValueError(f"{text_path}: no sentences found in the text")
        return [(1, title, found)]
    return [
        (book_id, title, chapters(read_book(os.path.join(_HERE, "text", name))))
        for book_id, (title, name) in sorted(BOOKS.items())
    ]


_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n):
    """English words for a non-negative integer below a billion."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " and " + number_words(rest))
    for size, name in ((1000000, "million"), (1000, "thousand")):
        if n >= size:
            rest = n % size
            joiner = " and " if 0 < rest < 100 else " "
            return (
                number_words(n // size)
                + " "
                + name
                + ("" if rest == 0 else joiner + number_words(rest))
            )
    raise ValueError(n)


_EXPANSIONS = {
    "Mr.": "Mister",
    "Mrs.": "Missus",
    "Dr.": "Doctor",
    "St.": "Saint",
    "Col.": "Colonel",
    "Capt.": "Captain",
    "Gen.": "General",
    "Rev.": "Reverend",
    "Messrs.": "Messieurs",
    "Esq.": "Esquire",
}


def _year_words(n):
    """1811 -> "eighteen eleven", 1800 -> "eighteen hundred", 1805 -> "eighteen oh five"."""
    high, low = divmod(n, 100)
    if low == 0:
        return number_words(high) + " hundred"
    return number_words(high) + " " + ("oh " + _ONES[low] if low < 10 else number_words(low))


def _spell_numbers(text):
    def spell(m):
        raw = m.group(0)
        digits = raw.replace(",", "")
        if "," not in raw and len(digits) == 4 and 1100 <= int(digits) <= 1999:
            return _year_words(int(digits))
        return (
            number_words(int(digits))
            if len(digits) < 10
            else " ".join(_ONES[int(d)] for d in digits)
        )

    return re.sub(r"\d[\d,]*(?<!,)", spell, text)


def normalized(sentence):
    """LibriTTS's normalized text: numbers and title abbreviations spelled out, typographic
    quotes and dashes made plain, case and punctuation kept."""
    text = (
        sentence.replace("\u201c", '"')
        .replace("\u201d", '"')
        .replace("\u2018", "'")
        .replace("\u2019", "'")
        .replace("--", " - ")
        .replace("_", "")
    )
    for short, long in _EXPANSIONS.items():
        text = re.sub(r"(?<![A-Za-z])" + re.escape(short), long, text)
    return " ".join(_spell_numbers(text).split())


def librispeech_transcript(sentence):
    """LibriSpeech's transcript style: upper case letters, apostrophes inside words, single
    spaces; numbers and abbreviations spelled out."""
    text = normalized(sentence).upper().replace("-", " ")
    words = re.findall(r"[A-Z]+(?:'[A-Z]+)*", text)
    return " ".join(words)


def phrases(sentence, max_words=35):
    """A long sentence cut at clause marks (; : and then ,) into pieces of at most about
    `max_words` words, so no utterance runs far past LibriSpeech's ~35 s."""
    words = sentence.split()
    if len(words) <= max_words:
        return [sentence]
    for mark in (";", ":", ","):
        parts = [p.strip() for p in re.split(r"(?<=" + re.escape(mark) + r")\s+", sentence)]
        if len(parts) > 1:
            out, current = [], ""
            for part in parts:
                candidate = (current + " " + part).strip()
                if current and len(candidate.split()) > max_words:
                    out.append(current)
                    current = part
                else:
                    current = candidate
            out.append(current)
            if all(len(p.split()) <= max_words for p in out):
                return out
            return [q for p in out for q in phrases(p, max_words)]
    return [" ".join(words[i : i + max_words]) for i in range(0, len(words), max_words)]


def speakable(sentence):
    """What espeak-ng is given: the normalized text (so audio and transcript say the same)."""
    return normalized(sentence)
