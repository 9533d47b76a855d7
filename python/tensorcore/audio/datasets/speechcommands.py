"""SPEECHCOMMANDS: `<root>/SpeechCommands/speech_commands_v0.0N/<label>/<speaker>_nohash_<k>.wav`
with `validation_list.txt` / `testing_list.txt` defining the splits (torchaudio 0.13's class)."""

import os

from . import _utils

FOLDER_IN_ARCHIVE = "SpeechCommands"
URL = "speech_commands_v0.02"
HASH_DIVIDER = "_nohash_"
EXCEPT_FOLDER = "_background_noise_"
SAMPLE_RATE = 16000
_BASE_URL = "http://download.tensorflow.org/data/"
_CHECKSUMS = {
    "speech_commands_v0.01": "743935421bb51cccdb6bdd152e04c5c70274e935c82119ad7faeec31780d811d",
    "speech_commands_v0.02": "af14739ee7dc311471de98f5f9d2c9191b18aedfe957f4a6ff791c709868ff58",
}


class SPEECHCOMMANDS(_utils.AudioFileDataset):
    """Speech Commands: items are (waveform, sample_rate, label, speaker_id, utterance_number).

    Args:
        root: folder holding `folder_in_archive`.
        url: "speech_commands_v0.01", "speech_commands_v0.02" or an archive URL.
        folder_in_archive: the top folder ("SpeechCommands").
        download: fetch and unpack the archive when it is not on disk.
        subset: None (everything), "training", "validation" or "testing".
    """

    _sample_rate = SAMPLE_RATE

    def __init__(
        self, root, url=URL, folder_in_archive=FOLDER_IN_ARCHIVE, download=False, subset=None
    ):
        if subset is not None and subset not in ("training", "validation", "testing"):
            raise ValueError(
                "When `subset` is not None, it must be one of "
                "['training', 'validation', 'testing']."
            )
        checksum = _CHECKSUMS.get(url)
        if url in _CHECKSUMS:
            url = _BASE_URL + url + ".tar.gz"
        root = os.fspath(root)
        self._archive = os.path.join(root, folder_in_archive)
        version = os.path.basename(url).rsplit(".", 2)[0]
        self._path = os.path.join(self._archive, version)
        if not os.path.isdir(self._path) and download:
            # the archive has no top folder: it unpacks straight into the version folder
            _utils.fetch(url, root, checksum, extract_to=self._path)
        _utils.require_dir(self._path, "SPEECHCOMMANDS")
        files = [os.path.join(self._path, f) for f in _utils.walk_files(self._path, 1, ".wav")]
        files.sort()  # torchaudio sorts the full paths here, not the stems
        files = [f for f in files if HASH_DIVIDER in f and EXCEPT_FOLDER not in f]
        if subset == "validation":
            self._walker = self._load_list("validation_list.txt")
        elif subset == "testing":
            self._walker = self._load_list("testing_list.txt")
        elif subset == "training":
            excluded = set(self._load_list("validation_list.txt", "testing_list.txt"))
            self._walker = [f for f in files if os.path.normpath(f) not in excluded]
        else:
            self._walker = files

    def _load_list(self, *names):
        out = []
        for name in names:
            path = os.path.join(self._path, name)
            for number, line in _utils.read_lines(path):
                line = line.strip()
                if not line:
                    continue
                label, _, filename = line.partition("/")
                if not filename or HASH_DIVIDER not in filename:
                    raise ValueError(
                        f"{path}:{number}: malformed list line {line[:60]!r} "
                        f"(expected '<label>/<speaker>_nohash_<n>.wav')"
                    )
                out.append(os.path.normpath(os.path.join(self._path, line)))
        return out

    def get_metadata(self, n):
        """(audio path relative to `<root>/<folder_in_archive>`, sample_rate, label, speaker_id,
        utterance_number) without decoding the audio."""
        filepath = self._walker[_utils.check_index(n, len(self._walker), "SPEECHCOMMANDS")]
        relpath = os.path.relpath(filepath, self._archive)
        label = os.path.basename(os.path.dirname(filepath))
        stem = os.path.basename(filepath).split(".")[0]
        speaker_id, _, number = stem.partition(HASH_DIVIDER)
        if not number.isdigit():
            raise ValueError(
                f"SPEECHCOMMANDS: {filepath}: the file name must be <speaker>_nohash_<number>.wav"
            )
        return relpath, SAMPLE_RATE, label, speaker_id, int(number)

    def __len__(self):
        return len(self._walker)
