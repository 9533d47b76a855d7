"""YESNO: `<root>/waves_yesno/<0_1_...>.wav`, eight yes (1) / no (0) labels per file name
(8 kHz; torchaudio 0.13's class)."""

import os

from . import _utils

_URL = "http://www.openslr.org/resources/1/waves_yesno.tar.gz"
_CHECKSUM = "c3f49e0cca421f96b75b41640749167b52118f232498667ca7a5f9416aef8e73"
SAMPLE_RATE = 8000


class YESNO(_utils.AudioFileDataset):
    """YesNo: items are (waveform, sample_rate, labels) with labels a list of 0/1 ints.

    Args:
        root: folder holding `folder_in_archive` (or where the archive is downloaded to).
        url: the archive's URL.
        folder_in_archive: the corpus folder ("waves_yesno").
        download: fetch and unpack the archive when it is not on disk.
    """

    @property
    def _audio_root(self):  # get_metadata's paths start at the corpus folder
        return self._path

    def __init__(self, root, url=_URL, folder_in_archive="waves_yesno", download=False):
        root = os.fspath(root)
        self._path = os.path.join(root, folder_in_archive)
        if not os.path.isdir(self._path) and download:
            _utils.fetch(url, root, _CHECKSUM if url == _URL else None)
        _utils.require_dir(self._path, "YESNO")
        self._walker = [f[:-4] for f in _utils.walk_files(self._path, 0, ".wav")]
        for fileid in self._walker:
            if not all(c in ("0", "1") for c in fileid.split("_")):
                raise ValueError(
                    f"YESNO: {os.path.join(self._path, fileid)}.wav: the file name "
                    f"must be 0/1 labels joined by '_'"
                )

    def get_metadata(self, n):
        """(audio path relative to the corpus folder, sample_rate, labels)."""
        fileid = self._walker[_utils.check_index(n, len(self._walker), "YESNO")]
        return fileid + ".wav", SAMPLE_RATE, [int(c) for c in fileid.split("_")]

    def __len__(self):
        return len(self._walker)
