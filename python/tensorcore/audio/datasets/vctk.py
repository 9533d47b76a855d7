"""VCTK_092: `<root>/VCTK-Corpus-0.92/txt/<speaker>/<speaker>_<utt>.txt` and
`wav48_silence_trimmed/<speaker>/<speaker>_<utt>_<mic>.flac` (torchaudio 0.13's class)."""

import os

from . import _utils

URL = "https://datashare.is.ed.ac.uk/bitstream/handle/10283/3443/VCTK-Corpus-0.92.zip"
_CHECKSUM = "f96258be9fdc2cbff6559541aae7ea4f59df3fcaf5cf963aae5ca647357e359c"
SAMPLE_RATE = 48000


class VCTK_092(_utils.AudioFileDataset):
    """VCTK 0.92: items are (waveform, sample_rate, transcript, speaker_id, utterance_id).

    As in torchaudio, speaker p280 is skipped for mic2 and p362's utterances without audio are
    skipped (the corpus lacks those recordings); p315 has no text files and so no items.

    Args:
        root: folder holding `VCTK-Corpus-0.92`.
        mic_id: "mic1" or "mic2".
        download: fetch and unpack the archive when it is not on disk.
        url: the archive's URL.
        audio_ext: the audio files' extension (".flac"; another one for a converted copy).
    """

    @property
    def _audio_root(self):  # get_metadata's paths start at the corpus folder
        return self._path

    def __init__(self, root, mic_id="mic2", download=False, url=URL, audio_ext=".flac"):
        if mic_id not in ("mic1", "mic2"):
            raise RuntimeError(f'`mic_id` has to be either "mic1" or "mic2". Found: {mic_id}')
        root = os.fspath(root)
        self._path = os.path.join(root, "VCTK-Corpus-0.92")
        self._txt_dir = os.path.join(self._path, "txt")
        self._audio_dir = os.path.join(self._path, "wav48_silence_trimmed")
        self._mic_id = mic_id
        self._audio_ext = audio_ext
        if not os.path.isdir(self._path) and download:
            _utils.fetch(url, root, _CHECKSUM if url == URL else None, extract_to=self._path)
        _utils.require_dir(self._path, "VCTK_092")
        _utils.require_dir(self._txt_dir, "VCTK_092", download_hint=False)
        self._sample_ids = []
        for speaker_id in sorted(os.listdir(self._txt_dir)):
            if speaker_id == "p280" and mic_id == "mic2":
                continue
            folder = os.path.join(self._txt_dir, speaker_id)
            for name in sorted(f for f in os.listdir(folder) if f.endswith(".txt")):
                utterance = name[:-4]
                parts = utterance.split("_")
                if len(parts) != 2 or parts[0] != speaker_id:
                    raise ValueError(
                        f"VCTK_092: {os.path.join(folder, name)} does not follow "
                        f"<speaker>/<speaker>_<utterance>.txt"
                    )
                if speaker_id == "p362" and not os.path.isfile(self._audio_file(*parts)):
                    continue
                self._sample_ids.append(parts)

    def _audio_file(self, speaker_id, utterance_id):
        return os.path.join(
            self._audio_dir,
            speaker_id,
            f"{speaker_id}_{utterance_id}_{self._mic_id}{self._audio_ext}",
        )

    def get_metadata(self, n):
        """(audio path relative to the corpus folder, sample_rate, transcript, speaker_id,
        utterance_id) without decoding the audio."""
        speaker_id, utterance_id = self._sample_ids[
            _utils.check_index(n, len(self._sample_ids), "VCTK_092")
        ]
        transcript = _utils.read_first_line(
            os.path.join(self._txt_dir, speaker_id, f"{speaker_id}_{utterance_id}.txt")
        )
        relpath = os.path.relpath(self._audio_file(speaker_id, utterance_id), self._path)
        return relpath, SAMPLE_RATE, transcript, speaker_id, utterance_id

    def __len__(self):
        return len(self._sample_ids)
