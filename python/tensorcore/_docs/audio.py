"""Docstrings of tensorcore.audio.functional and tensorcore.audio.transforms."""

from ._style import doc

TARGET = "tensorcore.audio.functional"

_WAVE = "waveform (Tensor): audio of shape (..., time)."
_SR = "sample_rate (int): sampling rate in Hz."
_Q = "Q (float): quality factor (bandwidth)."


def _biquad(name, params, text, extra):
    return doc(
        f"{name}({', '.join(params)}) -> Tensor",
        f"{text} A second-order IIR filter (coefficients as in SoX), applied with :func:`lfilter`; the output has the input's shape.",
        [_WAVE, _SR, *extra],
    )


def _two_pole(name, freq, text, *more):
    """A two-pole filter of `freq` (cutoff or center, Hz) and Q; more: (parameter, its doc)
    pairs that follow Q."""
    what = "cutoff" if freq == "cutoff_freq" else "center"
    params = ["waveform", "sample_rate", freq, "Q=0.707", *(param for param, _ in more)]
    docs = [f"{freq} (float): {what} in Hz.", _Q, *(d for _, d in more)]
    return _biquad(name, params, "Two-pole " + text, docs)


_FUNCTIONAL = {
    "lowpass_biquad": _two_pole("lowpass_biquad", "cutoff_freq", "low-pass filter."),
    "highpass_biquad": _two_pole("highpass_biquad", "cutoff_freq", "high-pass filter."),
    "bandpass_biquad": _two_pole(
        "bandpass_biquad",
        "central_freq",
        "band-pass filter.",
        (
            "const_skirt_gain=False",
            "const_skirt_gain (bool): constant skirt gain (else constant 0 dB peak gain).",
        ),
    ),
    "bandreject_biquad": _two_pole(
        "bandreject_biquad", "central_freq", "band-reject (notch) filter."
    ),
    "allpass_biquad": _two_pole(
        "allpass_biquad",
        "central_freq",
        "all-pass filter (changes the phase, not the magnitude).",
    ),
    "band_biquad": _two_pole(
        "band_biquad",
        "central_freq",
        "band filter (SoX ``band``).",
        ("noise=False", "noise (bool): mode for noise-like (unpitched) audio."),
    ),
    "bass_biquad": _biquad(
        "bass_biquad",
        ["waveform", "sample_rate", "gain", "central_freq=100", "Q=0.707"],
        "Low-shelf filter: boosts or cuts the bass.",
        ["gain (float): gain in dB.", "central_freq (float): shelf frequency in Hz.", _Q],
    ),
    "treble_biquad": _biquad(
        "treble_biquad",
        ["waveform", "sample_rate", "gain", "central_freq=3000", "Q=0.707"],
        "High-shelf filter: boosts or cuts the treble.",
        ["gain (float): gain in dB.", "central_freq (float): shelf frequency in Hz.", _Q],
    ),
    "equalizer_biquad": _biquad(
        "equalizer_biquad",
        ["waveform", "sample_rate", "center_freq", "gain", "Q=0.707"],
        "Peaking equalizer: boosts or cuts around ``center_freq``.",
        ["center_freq (float): center in Hz.", "gain (float): gain in dB.", _Q],
    ),
}

_WIN = "window_fn (callable): window constructor (default :func:`tensorcore.hann_window`)."
_TRANSFORMS = {
    "MFCC": doc(
        "",
        "Mel-frequency cepstral coefficients: the DCT of the log (dB) mel spectrogram. Input (..., time); output (..., n_mfcc, frames).",
        [
            _SR,
            "n_mfcc (int): coefficients kept.",
            "dct_type (int): only type 2.",
            "norm (str): DCT norm, ``'ortho'`` or None.",
            "log_mels (bool): natural log of the mel spectrogram instead of dB.",
            "melkwargs (dict, optional): arguments of :class:`MelSpectrogram`.",
        ],
        example=">>> mfcc = ta.transforms.MFCC(sample_rate=16000, n_mfcc=13, melkwargs={'n_mels': 40})\n>>> mfcc(tc.zeros(1, 16000)).shape\ntensorcore.Size([1, 13, 81])",
    ).lstrip(),
    "LFCC": doc(
        "",
        "Linear-frequency cepstral coefficients: the DCT of the log linear-filterbank spectrogram.",
        [
            _SR,
            "n_filter (int): linear filters.",
            "f_min (float): lowest frequency.",
            "f_max (float, optional): highest frequency.",
            "n_lfcc (int): coefficients kept.",
            "dct_type (int): only type 2.",
            "norm (str): DCT norm.",
            "log_lf (bool): natural log instead of dB.",
            "speckwargs (dict, optional): arguments of :class:`Spectrogram`.",
        ],
    ).lstrip(),
    "InverseSpectrogram": doc(
        "",
        "Inverse of a complex :class:`Spectrogram` (inverse STFT); input (..., freq, frames), output (..., time).",
        [
            "n_fft (int): FFT size.",
            "win_length (int, optional): window size.",
            "hop_length (int, optional): frame step.",
            "pad (int): padding removed from both sides.",
            _WIN,
            "normalized (bool): the spectrogram was normalized.",
            "wkwargs (dict, optional): window arguments.",
            "center (bool): the frames were centered.",
            "pad_mode (str): padding mode used.",
            "onesided (bool): one-sided spectrogram.",
        ],
    ).lstrip(),
    "GriffinLim": doc(
        "",
        "Reconstructs a waveform from a magnitude (power) spectrogram by the fast Griffin-Lim phase-recovery iterations.",
        [
            "n_fft (int): FFT size.",
            "n_iter (int): iterations.",
            "win_length (int, optional): window size.",
            "hop_length (int, optional): frame step.",
            _WIN,
            "power (float): exponent of the input spectrogram.",
            "wkwargs (dict, optional): window arguments.",
            "momentum (float): fast Griffin-Lim momentum.",
            "length (int, optional): output length.",
            "rand_init (bool): random (else zero) initial phase.",
        ],
    ).lstrip(),
    "SpectralCentroid": doc(
        "",
        "Spectral centroid of each frame: the magnitude-weighted mean frequency. Output (..., frames).",
        [
            _SR,
            "n_fft (int): FFT size.",
            "win_length (int, optional): window size.",
            "hop_length (int, optional): frame step.",
            "pad (int): zero padding.",
            _WIN,
            "wkwargs (dict, optional): window arguments.",
        ],
    ).lstrip(),
    "TimeStretch": doc(
        "",
        "Stretches a complex spectrogram in time by ``rate`` without changing the pitch (phase vocoder). Called as ``stretch(spec, rate)``.",
        [
            "hop_length (int, optional): hop of the STFT.",
            "n_freq (int): frequency bins.",
            "fixed_rate (float, optional): a rate used when the call gives none.",
        ],
    ).lstrip(),
    "ComputeDeltas": doc(
        "",
        "Delta (time-derivative) coefficients of a feature sequence (..., freq, time) by linear regression over ``win_length`` frames.",
        ["win_length (int): regression window (>= 3).", "mode (str): padding mode at the edges."],
    ).lstrip(),
    "MuLawEncoding": doc(
        "",
        "Mu-law companding of a waveform in [-1, 1] to integers in [0, quantization_channels).",
        ["quantization_channels (int): number of levels."],
        example=">>> ta.transforms.MuLawEncoding(256)(tc.tensor([-1.0, 0.0, 1.0]))\ntensor([  0, 128, 255])",
    ).lstrip(),
    "MuLawDecoding": doc(
        "",
        "Inverse of :class:`MuLawEncoding`: integer codes back to a waveform in [-1, 1].",
        ["quantization_channels (int): number of levels."],
    ).lstrip(),
    "SlidingWindowCmn": doc(
        "",
        "Sliding-window cepstral mean (and variance) normalization of features (..., time, freq), as Kaldi's apply-cmvn-sliding.",
        [
            "cmn_window (int): window in frames.",
            "min_cmn_window (int): minimum window at the start (when not centered).",
            "center (bool): center the window on the frame.",
            "norm_vars (bool): also normalize the variance.",
        ],
    ).lstrip(),
}

TARGETS = {"tensorcore.audio.functional": _FUNCTIONAL, "tensorcore.audio.transforms": _TRANSFORMS}
DOCS = _FUNCTIONAL
