"""LJSPEECH: `<root>/LJSpeech-1.1/metadata.csv` (`id|transcript|normalized transcript`) and
`<root>/LJSpeech-1.1/wavs/<id>.wav` (22.05 kHz; torchaudio 0.13's class)."""

import os

from . import _utils

_URL = "https://data.keithito.com/data/speech/LJSpeech-1.1.tar.bz2"
_CHECKSUM = "be1a30453f28eb8dd26af4101ae40cbf2c50413b1bb21936cbcdc6fae3de8aa5"
SAMPLE_RATE = 22050


class LJSPEECH(_utils.AudioFileDataset):
    """LJSpeech: items are (waveform, sample_rate, transcript, normalized_transcript).

    Args:
        root: folder holding `LJSpeech-1.1` (or where the archive is downloaded to).
        url: the archive's URL (its name without `.tar.bz2` is the corpus folder).
        folder_in_archive: the audio folder inside the corpus ("wavs").
        download: fetch and unpack the archive when it is not on disk.
    """

    def __init__(self, root, url=_URL, folder_in_archive="wavs", download=False):
        root = os.fspath(root)
        basename = os.path.basename(url)
        corpus = basename[: -len(".tar.bz2")] if basename.endswith(".tar.bz2") else basename
        self._archive = os.path.join(root, corpus)
        self._path = os.path.join(self._archive, folder_in_archive)
        self._metadata_path = os.path.join(self._archive, "metadata.csv")
        if not os.path.isdir(self._path) and download:
            _utils.fetch(url, root, _CHECKSUM if url == _URL else None)
        _utils.require_dir(self._path, "LJSPEECH")
        _utils.require_file(self._metadata_path, "LJSPEECH")
        self._flist = []
        for number, line in _utils.read_lines(self._metadata_path):
            if not line.strip():
                continue
            fields = line.split("|")
            if len(fields) != 3 or not fields[0]:
                raise ValueError(
                    f"{self._metadata_path}:{number}: malformed metadata line "
                    f"{line[:60]!r} (expected 'id|transcript|normalized transcript', "
                    f"got {len(fields)} field(s))"
                )
            self._flist.append(fields)

    def get_metadata(self, n):
        """(audio path relative to the corpus folder, sample_rate, transcript,
        normalized_transcript) without decoding the audio."""
        fileid, transcript, normalized = self._flist[
            _utils.check_index(n, len(self._flist), "LJSPEECH")
        ]
        relpath = os.path.relpath(os.path.join(self._path, fileid + ".wav"), self._archive)
        return relpath, SAMPLE_RATE, transcript, normalized

    def __len__(self):
        return len(self._flist)
