"""torchaudio.functional over tensorcore: the same names, arguments and results."""

from .functional import (  # noqa: F401
    DB_to_amplitude,
    amplitude_to_DB,
    compute_deltas,
    create_dct,
    detect_pitch_frequency,
    linear_fbanks,
    mask_along_axis,
    mask_along_axis_iid,
    melscale_fbanks,
    mu_law_decoding,
    mu_law_encoding,
    resample,
    sliding_window_cmn,
)
from .filtering import (  # noqa: F401
    allpass_biquad,
    band_biquad,
    bandpass_biquad,
    bandreject_biquad,
    bass_biquad,
    biquad,
    contrast,
    dcshift,
    deemph_biquad,
    dither,
    equalizer_biquad,
    filtfilt,
    flanger,
    gain,
    highpass_biquad,
    lfilter,
    lowpass_biquad,
    overdrive,
    phaser,
    riaa_biquad,
    treble_biquad,
)
from .spectral import (  # noqa: F401
    griffinlim,
    inverse_spectrogram,
    phase_vocoder,
    spectral_centroid,
    spectrogram,
)
from .vad import vad  # noqa: F401
from .beamforming import (  # noqa: F401
    apply_beamforming,
    mvdr_weights_rtf,
    mvdr_weights_souden,
    psd,
    rtf_evd,
    rtf_power,
)
from .effects import apply_codec, edit_distance, loudness, pitch_shift  # noqa: F401
from .rnnt import rnnt_loss  # noqa: F401


from tensorcore._argcheck import harden as _harden  # noqa: E402

_harden(globals(), "audio.functional")
del _harden
