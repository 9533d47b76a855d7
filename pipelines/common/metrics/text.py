"""Speech recognition metrics and CTC decoding: CER/WER, greedy decoding, and a CTC prefix beam
search with an optional lexicon (words outside it are never produced)."""

import math

import numpy as np


def edit_distance(ref, hyp):
    """Levenshtein distance between two sequences (characters or words)."""
    ref, hyp = list(ref), list(hyp)
    if not ref:
        return len(hyp)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            cur = min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
            prev, row[j] = row[j], cur
    return row[-1]


class ErrorRate:
    """Accumulates CER and WER over utterances (errors / reference length, corpus level)."""

    def __init__(self):
        self.char_errors = self.chars = self.word_errors = self.words = 0

    def add(self, ref, hyp):
        self.char_errors += edit_distance(ref, hyp)
        self.chars += len(ref)
        self.word_errors += edit_distance(ref.split(), hyp.split())
        self.words += len(ref.split())

    @property
    def cer(self):
        return self.char_errors / max(self.chars, 1)

    @property
    def wer(self):
        return self.word_errors / max(self.words, 1)


class Alphabet:
    """Characters <-> class indices; index 0 is the CTC blank."""

    def __init__(self, characters):
        self.characters = list(characters)
        self.index = {c: i + 1 for i, c in enumerate(self.characters)}
        self.space = self.index.get(" ")

    @property
    def num_classes(self):
        return len(self.characters) + 1

    def encode(self, text):
        return [self.index[c] for c in text if c in self.index]

    def decode(self, indices):
        return "".join(self.characters[i - 1] for i in indices if i > 0)


def greedy_decode(log_probs, alphabet):
    """log_probs: (frames, classes) array. Best class per frame, repeats merged, blanks dropped."""
    best = np.asarray(log_probs).argmax(axis=1)
    collapsed = [int(c) for k, c in enumerate(best) if c != 0 and (k == 0 or c != best[k - 1])]
    return _clean(alphabet.decode(collapsed))


def _clean(text):
    return " ".join(text.split())


class Lexicon:
    """A word list as a prefix set: which partial words can still become a word."""

    def __init__(self, words):
        self.words = set(w for w in words if w)
        self.prefixes = {w[:k] for w in self.words for k in range(len(w) + 1)}

    @classmethod
    def from_file(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls(line.split()[0].upper() for line in f if line.strip())

    @classmethod
    def from_transcripts(cls, texts):
        return cls(w for t in texts for w in t.split())


def _logsumexp(a, b):
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    m = max(a, b)
    return m + math.log(math.exp(a - m) + math.exp(b - m))


def prefix_beam_search(log_probs, alphabet, beam_width=16, lexicon=None, prune=-12.0):
    """CTC prefix beam search (Hannun et al. 2014) over (frames, classes) log probabilities.

    Each prefix keeps the probability of ending in a blank and in a non-blank, so repeated
    characters and merges are scored exactly. With a lexicon, a prefix may only grow into a
    word of the lexicon: a character is allowed when the current partial word plus it is a
    prefix of some word, a space only after a complete word, and at the end the last word must
    be complete. Classes below `prune` (log prob) in a frame are not tried.
    """
    log_probs = np.asarray(log_probs, dtype=np.float64)
    space = alphabet.space
    # prefix (tuple of classes) -> [log p ending in blank, log p ending in non-blank]
    beams = {(): [0.0, -math.inf]}
    words = {(): ""}  # prefix -> its partial last word (lexicon mode)
    neg = -math.inf
    for frame in log_probs:
        # Blank is always tried: every prefix may stay as it is, so the beam never empties
        # (the lexicon or the space rules may forbid every other class of a frame).
        candidates = np.union1d(np.nonzero(frame >= prune)[0], [0])
        nxt = {}

        def add(prefix, pb, pnb):
            entry = nxt.setdefault(prefix, [neg, neg])
            entry[0] = _logsumexp(entry[0], pb)
            entry[1] = _logsumexp(entry[1], pnb)

        for prefix, (pb, pnb) in beams.items():
            total = _logsumexp(pb, pnb)
            for c in candidates:
                c = int(c)
                p = frame[c]
                if c == 0:
                    add(prefix, total + p, neg)
                    continue
                last = prefix[-1] if prefix else None
                if lexicon is not None:
                    partial = words[prefix]
                    if c == space:
                        if not partial or partial not in lexicon.words:
                            continue
                        new_partial = ""
                    else:
                        new_partial = partial + alphabet.characters[c - 1]
                        if new_partial not in lexicon.prefixes:
                            continue
                elif c == space and (last is None or last == space):
                    # A leading or second space adds nothing to the text: its path stays on
                    # this prefix (as a merged repeat would) instead of being dropped.
                    add(prefix, neg, total + p)
                    continue
                new = prefix + (c,)
                if lexicon is not None and new not in words:
                    words[new] = new_partial
                if c == last:
                    add(new, neg, pb + p)  # a repeat needs a blank in between
                    add(prefix, neg, pnb + p)  # or it merges into the same character
                else:
                    add(new, neg, total + p)
        beams = dict(
            sorted(nxt.items(), key=lambda kv: _logsumexp(*kv[1]), reverse=True)[:beam_width]
        )
    ranked = sorted(beams.items(), key=lambda kv: _logsumexp(*kv[1]), reverse=True)
    if lexicon is not None:
        complete = [(p, s) for p, s in ranked if not words.get(p) or words[p] in lexicon.words]
        ranked = complete or ranked
    return _clean(alphabet.decode(ranked[0][0]))
