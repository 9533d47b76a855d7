"""torchaudio.datasets' corpora over tensorcore's SoX IO: same constructors, folder layouts and
item tuples as torchaudio 0.13, audio decoded lazily, plus `get_metadata(n)` (paths, rates,
text and ids without decoding) and `num_frames(n)` (length from the file header) on each."""

from .librimix import LibriMix
from .librispeech import LIBRISPEECH
from .libritts import LIBRITTS
from .ljspeech import LJSPEECH
from .speechcommands import SPEECHCOMMANDS
from .vctk import VCTK_092
from .yesno import YESNO

__all__ = ["LIBRISPEECH", "LIBRITTS", "LJSPEECH", "LibriMix", "SPEECHCOMMANDS", "VCTK_092", "YESNO"]
