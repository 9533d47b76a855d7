"""edit_distance, loudness (ITU-R BS.1770-4), pitch_shift and apply_codec, as torchaudio 0.13."""

import io
import math

import tensorcore as tc

from .filtering import highpass_biquad, treble_biquad
from .functional import _check_sample_rate, resample
from .spectral import phase_vocoder, spectrogram


def _on_cpu(fn, waveform, *args):
    """Runs a CPU-only op (lfilter, resample) for a tensor on another device and moves the
    result back; both moves are differentiable, so autograd still reaches the input."""
    if waveform.device.type == "cpu":
        return fn(waveform, *args)
    return fn(waveform.cpu(), *args).to(waveform.device)


def edit_distance(seq1, seq2):
    """Levenshtein distance (insertions, deletions and substitutions each cost 1) between two
    sequences: characters of two strings, or words of two lists of strings.

    Args:
        seq1 (Sequence): the first sequence (str, list, tuple; elements compared with ==).
        seq2 (Sequence): the second sequence.

    Returns:
        int: the distance.
    """
    for name, seq in (("seq1", seq1), ("seq2", seq2)):
        if not hasattr(seq, "__len__") or not hasattr(seq, "__getitem__"):
            raise TypeError(
                f"edit_distance: {name} must be a sequence (str, list, tuple), "
                f"got {type(seq).__name__}"
            )
    previous = list(range(len(seq2) + 1))
    for i in range(1, len(seq1) + 1):
        current = [i] + [0] * len(seq2)
        a = seq1[i - 1]
        for j in range(1, len(seq2) + 1):
            if a == seq2[j - 1]:
                current[j] = previous[j - 1]
            else:
                current[j] = 1 + min(previous[j - 1], current[j - 1], previous[j])
        previous = current
    return int(previous[-1])


# BS.1770-4 channel weights: L, R, C, then the two surround channels
_CHANNEL_WEIGHTS = (1.0, 1.0, 1.0, 1.41, 1.41)


def loudness(waveform, sample_rate):
    """Integrated loudness (LKFS) after ITU-R BS.1770-4: K-weighting (a +4 dB high shelf at
    1.5 kHz and a 38 Hz high-pass), mean power over 400 ms blocks every 100 ms, channel
    weights (1, 1, 1, 1.41, 1.41), an absolute gate at -70 LKFS and a relative gate 10 LU
    below the absolutely gated loudness.

    Args:
        waveform (Tensor): float audio of shape (..., channels, time), at most 5 channels and
            at least one 400 ms block long.
        sample_rate (int): sampling rate in Hz.

    Returns:
        Tensor: loudness in LKFS of shape (...).
    """
    op = "loudness"
    if not isinstance(waveform, tc.Tensor):
        raise TypeError(f"{op}: expected waveform to be a Tensor, got {type(waveform).__name__}")
    if waveform.dim() < 2:
        raise ValueError(
            f"{op}: waveform must be (..., channels, time), got shape {tuple(waveform.shape)}"
        )
    if waveform.shape[-2] > 5:
        raise ValueError(f"{op}: only up to 5 channels are supported, got {waveform.shape[-2]}")
    if not waveform.is_floating_point():
        raise TypeError(f"{op}: expected a floating point waveform, got {waveform.dtype}")
    _check_sample_rate(sample_rate, op)
    gate_samples = int(round(0.4 * sample_rate))
    step = int(round(gate_samples * 0.25))
    if waveform.shape[-1] < gate_samples or step < 1:
        raise ValueError(
            f"{op}: waveform must span at least one 400 ms block ({gate_samples} samples at "
            f"{sample_rate} Hz), got {waveform.shape[-1]}"
        )
    kweight_bias = -0.691

    def k_weighting(x):
        x = treble_biquad(x, sample_rate, 4.0, 1500.0, 1 / math.sqrt(2))
        return highpass_biquad(x, sample_rate, 38.0, 0.5)

    weighted = _on_cpu(k_weighting, waveform)
    energy = (weighted * weighted).unfold(-1, gate_samples, step).mean(-1)  # (..., C, blocks)
    g = tc.tensor(_CHANNEL_WEIGHTS[: energy.shape[-2]], dtype=waveform.dtype).to(waveform.device)
    block_loudness = kweight_bias + 10 * tc.log10((g.unsqueeze(-1) * energy).sum(-2))

    def gated_energy(gate):  # gate: (..., blocks) bool -> channel-weighted mean energy (...)
        gate = gate.unsqueeze(-2)
        kept = (gate.to(energy.dtype) * energy).sum(-1) / gate.sum(-1).to(energy.dtype)
        return (g * kept).sum(-1)

    absolute = block_loudness > -70.0
    relative_threshold = kweight_bias + 10 * tc.log10(gated_energy(absolute)) - 10
    gate = absolute & (block_loudness > relative_threshold.unsqueeze(-1))
    return kweight_bias + 10 * tc.log10(gated_energy(gate))


def _check_pitch_args(op, n_fft, win_length, hop_length, bins_per_octave):
    for name, v in (("n_fft", n_fft), ("bins_per_octave", bins_per_octave)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            raise ValueError(f"{op}: {name} must be positive, got {v!r}")
    for name, v in (("win_length", win_length), ("hop_length", hop_length)):
        if v is not None and (not isinstance(v, int) or v <= 0):
            raise ValueError(f"{op}: {name} must be a positive int or None, got {v!r}")


def _stretch_waveform(waveform, n_steps, bins_per_octave, n_fft, win_length, hop_length, window):
    """Phase-vocoder time stretch by 2 ** (n_steps / bins_per_octave) (pitch kept)."""
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if window is None:
        window = tc.hann_window(win_length, dtype=waveform.dtype).to(waveform.device)
    shape = tuple(waveform.shape)
    flat = waveform.reshape(-1, shape[-1])
    rate = 2.0 ** (-float(n_steps) / bins_per_octave)
    spec = spectrogram(flat, 0, window, n_fft, hop_length, win_length, None, False)
    phase_advance = tc.linspace(0, math.pi * hop_length, spec.shape[-2], dtype=waveform.dtype).to(
        waveform.device
    )
    stretched = phase_vocoder(spec, rate, phase_advance.unsqueeze(-1))
    return tc.istft(
        stretched,
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=window,
        length=int(round(shape[-1] / rate)),
    )


def _fix_length(waveform_shift, shape):
    length = shape[-1]
    have = waveform_shift.shape[-1]
    if have > length:
        waveform_shift = waveform_shift[..., :length]
    elif have < length:
        pad = tc.zeros(
            *waveform_shift.shape[:-1],
            length - have,
            dtype=waveform_shift.dtype,
            device=waveform_shift.device,
        )
        waveform_shift = tc.cat([waveform_shift, pad], -1)
    return waveform_shift.reshape(tuple(shape[:-1]) + (length,))


def pitch_shift(
    waveform,
    sample_rate,
    n_steps,
    bins_per_octave=12,
    n_fft=512,
    win_length=None,
    hop_length=None,
    window=None,
):
    """Shifts the pitch by ``n_steps`` steps of 1/bins_per_octave octave, keeping the duration:
    a phase-vocoder time stretch by 2 ** (n_steps / bins_per_octave) followed by resampling
    back to the original length.

    Args:
        waveform (Tensor): float audio of shape (..., time).
        sample_rate (int): sampling rate in Hz.
        n_steps (int or float): the (fractional) number of steps to shift; negative lowers.
        bins_per_octave (int): steps per octave.
        n_fft (int): FFT size (n_fft // 2 + 1 frequency bins).
        win_length (int or None): window length; None means n_fft.
        hop_length (int or None): hop between frames; None means win_length // 4.
        window (Tensor or None): window of length win_length; None means a Hann window.

    Returns:
        Tensor: the shifted audio, same shape as waveform.
    """
    op = "pitch_shift"
    if not isinstance(waveform, tc.Tensor):
        raise TypeError(f"{op}: expected waveform to be a Tensor, got {type(waveform).__name__}")
    if not waveform.is_floating_point():
        raise TypeError(f"{op}: expected a floating point waveform, got {waveform.dtype}")
    if waveform.dim() < 1 or waveform.shape[-1] == 0:
        raise ValueError(f"{op}: waveform must be (..., time), got shape {tuple(waveform.shape)}")
    _check_sample_rate(sample_rate, op)
    _check_pitch_args(op, n_fft, win_length, hop_length, bins_per_octave)
    stretched = _stretch_waveform(
        waveform, n_steps, bins_per_octave, n_fft, win_length, hop_length, window
    )
    rate = 2.0 ** (-float(n_steps) / bins_per_octave)
    orig_freq = int(sample_rate / rate)
    if orig_freq != sample_rate:
        stretched = _on_cpu(resample, stretched, orig_freq, int(sample_rate))
    return _fix_length(stretched, tuple(waveform.shape))


def apply_codec(
    waveform,
    sample_rate,
    format,
    channels_first=True,
    compression=None,
    encoding=None,
    bits_per_sample=None,
):
    """Encodes the audio with a codec and decodes it again (an augmentation): the round trip
    goes through tensorcore.audio.save / load in memory (SoX), so the artifacts are those of
    the real encoder. The result is resampled to sample_rate if the format changed the rate.

    Args:
        waveform (Tensor): 2-d audio, (channel, time) or (time, channel).
        sample_rate (int): sampling rate in Hz.
        format (str): file format ("wav", "flac", "mp3", "ogg"/"vorbis", "sph", "amb", ...).
        channels_first (bool): True for (channel, time) input and output.
        compression (float or None): FLAC level, MP3 bit rate (kbps) or Vorbis quality.
        encoding (str or None): "PCM_S", "PCM_U", "PCM_F", "ULAW" or "ALAW" where the format
            has a choice.
        bits_per_sample (int or None): bit depth where the format has a choice.

    Returns:
        Tensor: the decoded float32 audio in the layout of the input. Its length can differ
        from the input's for formats that pad frames (MP3, Vorbis).
    """
    op = "apply_codec"
    if not isinstance(waveform, tc.Tensor):
        raise TypeError(f"{op}: expected waveform to be a Tensor, got {type(waveform).__name__}")
    if waveform.dim() != 2:
        raise ValueError(
            f"{op}: waveform must be 2-d ({'channel, time' if channels_first else 'time, channel'}),"
            f" got shape {tuple(waveform.shape)}"
        )
    if not isinstance(format, str) or not format:
        raise ValueError(f"{op}: format must be a non-empty str, got {format!r}")
    _check_sample_rate(sample_rate, op)
    from .. import _io  # the package imports functional first

    buffer = io.BytesIO()
    _io.save(
        buffer,
        waveform.detach().cpu(),
        int(sample_rate),
        channels_first=channels_first,
        compression=compression,
        format=format,
        encoding=encoding,
        bits_per_sample=bits_per_sample,
    )
    decoded, sr = _io.load(buffer.getvalue(), channels_first=channels_first, format=format)
    if sr != sample_rate:
        if channels_first:
            decoded = resample(decoded, sr, int(sample_rate))
        else:
            decoded = resample(decoded.t(), sr, int(sample_rate)).t().contiguous()
    return decoded.to(waveform.device)
