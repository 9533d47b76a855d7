"""LIBRISPEECH: `<root>/LibriSpeech/<subset>/<speaker>/<chapter>/<speaker>-<chapter>-<utt>.flac`
with one `<speaker>-<chapter>.trans.txt` per chapter folder (torchaudio 0.13's class)."""

import os

from . import _utils

URL = "train-clean-100"
FOLDER_IN_ARCHIVE = "LibriSpeech"
SAMPLE_RATE = 16000
_BASE_URL = "http://www.openslr.org/resources/12/"
_DATA_SUBSETS = _utils.LIBRISPEECH_SUBSETS
# sha256 of the official archives (openslr.org resource 12)
_CHECKSUMS = {
    "dev-clean": "76f87d090650617fca0cac8f88b9416e0ebf80350acb97b343a85fa903728ab3",
    "dev-other": "12661c48e8c3fe1de2c1caa4c3e135193bfb1811584f11f569dd12645aa84365",
    "test-clean": "39fde525e59672dc6d1551919b1478f724438a95aa55f874b576be21967e6c23",
    "test-other": "d09c181bba5cf717b3dee7d4d592af11a3ee3a09e08ae025c5506f6ebe961c29",
    "train-clean-100": "d4ddd1d5a6ab303066f14971d768ee43278a5f2a0aa43dc716b0e64ecbbbf6e2",
    "train-clean-360": "146a56496217e96c14334a160df97fffedd6e0a04e66b9c5af0d40be3c792ecf",
    "train-other-500": "ddb22f27f96ec163645d53215559df6aa36515f26e01dd70798188350adcb6d2",
}


def _subset_and_url(url):
    """`url` is a subset name or the URL of a `<subset>.tar.gz` (a mirror)."""
    if url in _DATA_SUBSETS:
        return url, _BASE_URL + url + ".tar.gz", _CHECKSUMS[url]
    if "://" in str(url):
        name = os.path.basename(url)
        subset = name[: -len(".tar.gz")] if name.endswith(".tar.gz") else name
        if subset in _DATA_SUBSETS:
            return subset, url, None
    raise ValueError(
        f"Invalid url '{url}' given; please provide one of {_DATA_SUBSETS} "
        f"(or the URL of a mirror's <subset>.tar.gz)."
    )


def _check_utterance_id(key):
    parts = key.split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return f"utterance id {key!r} is not <speaker>-<chapter>-<utterance> (digits)"
    return None


class LIBRISPEECH(_utils.AudioFileDataset):
    """LibriSpeech: items are (waveform, sample_rate, transcript, speaker_id, chapter_id,
    utterance_id); audio is decoded lazily in __getitem__.

    Args:
        root: folder holding `folder_in_archive` (or where the archive is downloaded to).
        url: the subset ("dev-clean", ..., "train-other-500"), or a mirror's `<subset>.tar.gz` URL.
        folder_in_archive: the top folder of the corpus ("LibriSpeech").
        download: fetch and unpack the subset when it is not on disk.
    """

    _sample_rate = SAMPLE_RATE

    _ext_txt = ".trans.txt"
    _ext_audio = ".flac"

    def __init__(self, root, url=URL, folder_in_archive=FOLDER_IN_ARCHIVE, download=False):
        subset, archive_url, checksum = _subset_and_url(url)
        self._url = subset
        root = os.fspath(root)
        self._archive = os.path.join(root, folder_in_archive)
        self._path = os.path.join(self._archive, subset)
        if not os.path.isdir(self._path) and download:
            _utils.fetch(archive_url, root, checksum)
        _utils.require_dir(self._path, "LIBRISPEECH")
        files = _utils.walk_files(self._path, 2, self._ext_audio)
        self._walker = [os.path.basename(f)[: -len(self._ext_audio)] for f in files]
        for f, fileid in zip(files, self._walker):
            reason = _check_utterance_id(fileid)
            speaker, chapter = os.path.dirname(f).split(os.sep)
            if reason or not fileid.startswith(f"{speaker}-{chapter}-"):
                raise ValueError(
                    f"LIBRISPEECH: {os.path.join(self._path, f)} does not follow "
                    f"<speaker>/<chapter>/<speaker>-<chapter>-<utterance>.flac"
                )
        self._transcripts = {}  # per chapter file, filled on first use (and per worker)

    def _transcript(self, speaker, chapter, fileid):
        path = os.path.join(self._path, speaker, chapter, f"{speaker}-{chapter}{self._ext_txt}")
        table = self._transcripts.get(path)
        if table is None:
            table = _utils.parse_id_text_file(path, _check_utterance_id)
            self._transcripts[path] = table
        try:
            return table[fileid]
        except KeyError:
            raise FileNotFoundError(f"{path}: no transcript line for utterance {fileid}") from None

    def get_metadata(self, n):
        """(path relative to `<root>/<folder_in_archive>`, sample_rate, transcript, speaker_id,
        chapter_id, utterance_id) without decoding the audio."""
        fileid = self._walker[_utils.check_index(n, len(self._walker), "LIBRISPEECH")]
        speaker, chapter, utterance = fileid.split("-")
        relpath = os.path.join(self._url, speaker, chapter, fileid + self._ext_audio)
        transcript = self._transcript(speaker, chapter, fileid)
        return relpath, SAMPLE_RATE, transcript, int(speaker), int(chapter), int(utterance)

    def __len__(self):
        return len(self._walker)
