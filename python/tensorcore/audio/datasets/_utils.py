"""What the audio dataset classes share: locating the corpus (or downloading it), listing files
in a stable order, decoding audio with errors that name the file, and parsing text files with
errors that name the file and line."""

import os

from ..._C import DecodeError
from ...utils._download import download_url, extract_archive
from ...utils.data import Dataset
from .._io import info, load

# LibriSpeech's subsets (openslr.org resource 12); LibriTTS (resource 60), cut from it, keeps them.
LIBRISPEECH_SUBSETS = [
    "dev-clean",
    "dev-other",
    "test-clean",
    "test-other",
    "train-clean-100",
    "train-clean-360",
    "train-other-500",
]


def fetch(url, root, checksum=None, extract_to=None):
    """download=True: the archive is fetched into `root` (kept when it is already whole there)
    and unpacked into `extract_to` (default `root`)."""
    archive = download_url(url, root, checksum=checksum)
    extract_archive(archive, root if extract_to is None else extract_to)


def require_dir(path, name, download_hint=True):
    if not os.path.isdir(path):
        hint = (
            " Please check the `root` path or set `download=True` to download it."
            if download_hint
            else ""
        )
        raise RuntimeError(f"{name}: dataset not found at {path}.{hint}")


def require_file(path, name):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{name}: expected file {path} does not exist")


def check_index(n, length, name):
    if not isinstance(n, int):
        try:
            n = n.__index__()
        except AttributeError:
            raise TypeError(f"{name} indices must be integers, got {type(n).__name__}") from None
    if not -length <= n < length:
        raise IndexError(f"{name}: index {n} is out of range for {length} items")
    return n


def walk_files(path, depth, suffix):
    """Paths (relative to `path`) of files ending in `suffix` exactly `depth` folders down, in
    the order torchaudio lists them (sorted by file stem)."""
    found = []

    def visit(folder, rel, level):
        with os.scandir(folder) as it:
            entries = list(it)
        for e in entries:
            if level < depth:
                if e.is_dir():
                    visit(e.path, os.path.join(rel, e.name), level + 1)
            elif e.name.endswith(suffix) and e.is_file():
                found.append(os.path.join(rel, e.name))

    visit(path, "", 0)
    found.sort(key=lambda p: os.path.basename(p)[: -len(suffix)] if suffix else p)
    return found


def load_audio(path, expected_sample_rate=None):
    """Decodes a file to (waveform, sample_rate); a missing file raises FileNotFoundError and
    an unreadable or truncated one RuntimeError, both naming the file."""
    try:
        waveform, sample_rate = load(path)
    except DecodeError as e:
        if not os.path.exists(path):
            raise FileNotFoundError(f"audio file {path} does not exist") from None
        raise RuntimeError(f"cannot decode audio file {path}: {e}") from None
    if expected_sample_rate is not None and sample_rate != expected_sample_rate:
        raise ValueError(
            f"{path}: sample rate should be {expected_sample_rate}, but got {sample_rate}"
        )
    return waveform, sample_rate


def num_frames(path):
    """Length in frames from the file header (no decoding)."""
    try:
        return info(path).num_frames
    except DecodeError as e:
        if not os.path.exists(path):
            raise FileNotFoundError(f"audio file {path} does not exist") from None
        raise RuntimeError(f"cannot read the header of audio file {path}: {e}") from None


def _read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"text file {path} does not exist") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ValueError(f"{path}:{line}: not valid UTF-8 text ({e.reason})") from None


def read_lines(path):
    """(line number, text) pairs of a UTF-8 text file, with clear errors for missing or
    undecodable files."""
    return [(i + 1, line) for i, line in enumerate(_read_text(path).splitlines())]


def read_first_line(path):
    """The first line of a one-line text file (LibriTTS, VCTK) as torchaudio returns it: with
    its line break, if the file has one."""
    text = _read_text(path).replace("\r\n", "\n")
    if not text:
        raise ValueError(f"{path}:1: the text file is empty")
    return text.splitlines(keepends=True)[0]


def parse_id_text_file(path, check_id):
    """Parses `<id> <text>` lines (LibriSpeech .trans.txt) into {id: text}.

    `check_id(id)` returns None for a valid id or a reason why it is not; a line without a
    space, an invalid id or a repeated id raises ValueError naming the file and line."""
    table = {}
    for number, line in read_lines(path):
        line = line.strip()
        if not line:
            continue
        key, sep, text = line.partition(" ")
        if not sep or not text.strip():
            raise ValueError(
                f"{path}:{number}: malformed transcript line {line[:60]!r} "
                f"(expected '<utterance id> <text>')"
            )
        reason = check_id(key)
        if reason:
            raise ValueError(f"{path}:{number}: malformed transcript line: {reason}")
        if key in table:
            raise ValueError(f"{path}:{number}: utterance {key} appears twice")
        table[key] = text.strip()
    return table


class AudioFileDataset(Dataset):
    """A corpus of one audio file per item: get_metadata(n) gives (the file's path relative to
    self._audio_root, sample_rate, ...); the item is the decoded waveform, its sample rate and the
    rest of the metadata, and num_frames(n) reads the file's header only (for length bucketing).
    A corpus with one sample rate (_sample_rate) checks each file against it."""

    _sample_rate = None

    @property
    def _audio_root(self):
        return self._archive

    def num_frames(self, n):
        """Length of item n in samples, read from the file header only."""
        return num_frames(os.path.join(self._audio_root, self.get_metadata(n)[0]))

    def __getitem__(self, n):
        metadata = self.get_metadata(n)
        path = os.path.join(self._audio_root, metadata[0])
        waveform, sample_rate = load_audio(path, self._sample_rate)
        return (waveform, sample_rate) + tuple(metadata[2:])
