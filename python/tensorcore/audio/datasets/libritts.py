"""LIBRITTS: `<root>/LibriTTS/<subset>/<speaker>/<chapter>/<spk>_<chap>_<seg>_<utt>.wav` with a
`.original.txt` and a `.normalized.txt` beside each file (24 kHz; torchaudio 0.13's class)."""

import os

from . import _utils

URL = "train-clean-100"
FOLDER_IN_ARCHIVE = "LibriTTS"
SAMPLE_RATE = 24000
_BASE_URL = "http://www.openslr.org/resources/60/"
_DATA_SUBSETS = _utils.LIBRISPEECH_SUBSETS
_CHECKSUMS = {  # sha256 of the official archives (openslr.org resource 60)
    "dev-clean": "da0864e1bd26debed35da8a869dd5c04dfc27682921936de7cff9c8a254dbe1a",
    "dev-other": "d413eda26f3a152ac7c9cf3658ef85504dfb1b625296e5fa83727f5186cca79c",
    "test-clean": "234ea5b25859102a87024a4b9b86641f5b5aaaf1197335c95090cde04fe9a4f5",
    "test-other": "33a5342094f3bba7ccc2e0500b9e72d558f72eb99328ac8debe1d9080402f10d",
    "train-clean-100": "c5608bf1ef74bb621935382b8399c5cdd51cd3ee47cec51f00f885a64c6c7f6b",
    "train-clean-360": "ce7cff44dcac46009d18379f37ef36551123a1dc4e5c8e4eb73ae57260de4886",
    "train-other-500": "e35f7e34deeb2e2bdfe4403d88c8fdd5fbf64865cae41f027a185a6965f0a5df",
}


class LIBRITTS(_utils.AudioFileDataset):
    """LibriTTS: items are (waveform, sample_rate, original_text, normalized_text, speaker_id,
    chapter_id, utterance_id).

    Args:
        root: folder holding `folder_in_archive` (or where the archive is downloaded to).
        url: the subset ("dev-clean", ...) or the URL of a `<subset>.tar.gz`.
        folder_in_archive: the top folder of the corpus ("LibriTTS").
        download: fetch and unpack the subset when it is not on disk.
    """

    _ext_original_txt = ".original.txt"
    _ext_normalized_txt = ".normalized.txt"
    _ext_audio = ".wav"

    def __init__(self, root, url=URL, folder_in_archive=FOLDER_IN_ARCHIVE, download=False):
        if url in _DATA_SUBSETS:
            checksum = _CHECKSUMS[url]
            url = _BASE_URL + url + ".tar.gz"
        else:
            checksum = None
        root = os.fspath(root)
        subset = os.path.basename(url).split(".")[0]
        self._archive = os.path.join(root, folder_in_archive)
        self._path = os.path.join(self._archive, subset)
        if not os.path.isdir(self._path) and download:
            _utils.fetch(url, root, checksum)
        _utils.require_dir(self._path, "LIBRITTS")
        files = _utils.walk_files(self._path, 2, self._ext_audio)
        self._walker = []
        for f in files:
            fileid = os.path.basename(f)[: -len(self._ext_audio)]
            parts = fileid.split("_")
            if len(parts) != 4 or os.path.dirname(f).split(os.sep) != parts[:2]:
                raise ValueError(
                    f"LIBRITTS: {os.path.join(self._path, f)} does not follow "
                    f"<speaker>/<chapter>/<speaker>_<chapter>_<segment>_<utt>.wav"
                )
            self._walker.append(fileid)

    def _file(self, fileid, ext):
        speaker, chapter = fileid.split("_")[:2]
        return os.path.join(self._path, speaker, chapter, fileid + ext)

    def get_metadata(self, n):
        """(audio path relative to `<root>/<folder_in_archive>`, sample_rate, original_text,
        normalized_text, speaker_id, chapter_id, utterance_id) without decoding the audio."""
        fileid = self._walker[_utils.check_index(n, len(self._walker), "LIBRITTS")]
        speaker, chapter = fileid.split("_")[:2]
        original = _utils.read_first_line(self._file(fileid, self._ext_original_txt))
        normalized = _utils.read_first_line(self._file(fileid, self._ext_normalized_txt))
        relpath = os.path.relpath(self._file(fileid, self._ext_audio), self._archive)
        return relpath, SAMPLE_RATE, original, normalized, int(speaker), int(chapter), fileid

    def __len__(self):
        return len(self._walker)
