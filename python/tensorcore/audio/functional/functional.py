"""Filter banks, scaling, companding, resampling, deltas, pitch, CMN and masking."""

import math
import warnings

import tensorcore as tc

from ... import _C

_audio = _C._audio


def _check_tensor(x, op, name="waveform"):
    if not isinstance(x, tc.Tensor):
        raise TypeError(f"{op}: expected {name} to be a Tensor, got {type(x).__name__}")


# The SoX effects (phaser, flanger, vad) build delay lines and LFO tables proportional to the
# sample rate: an absurd rate is refused instead of allocating tens of gigabytes.
_MAX_SAMPLE_RATE = 1 << 24  # 16.7 MHz, far above any audio rate


def _check_sample_rate(sample_rate, op):
    if not (
        isinstance(sample_rate, (int, float))
        and math.isfinite(sample_rate)
        and 0 < sample_rate <= _MAX_SAMPLE_RATE
    ):
        raise ValueError(
            f"{op}: sample_rate must be a positive number of at most "
            f"{_MAX_SAMPLE_RATE} Hz, got {sample_rate!r}"
        )


def _cpu_only(x, op):
    """Ops with a native CPU kernel (or a NumPy loop) and no CUDA one yet."""
    if isinstance(x, tc.Tensor) and x.device.type != "cpu":
        raise NotImplementedError(
            f"{op}: has a CPU kernel only, got a tensor on {x.device} (move it with .cpu())"
        )


def _hz_to_mel(freq, mel_scale="htk"):
    if mel_scale not in ("slaney", "htk"):
        raise ValueError(f'mel_scale should be one of "htk" or "slaney", got {mel_scale!r}')
    if mel_scale == "htk":
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    f_sp = 200.0 / 3
    if freq >= 1000.0:
        return 1000.0 / f_sp + math.log(freq / 1000.0) / (math.log(6.4) / 27.0)
    return freq / f_sp


def _mel_to_hz(mels, mel_scale="htk"):
    if mel_scale == "htk":
        return 700.0 * (tc.pow(10.0, mels / 2595.0) - 1.0)
    f_sp = 200.0 / 3
    min_log_mel = 1000.0 / f_sp
    logstep = math.log(6.4) / 27.0
    linear = f_sp * mels
    log_part = 1000.0 * tc.exp(logstep * (mels - min_log_mel))
    return tc.where(mels >= min_log_mel, log_part, linear)


def _triangular_filterbank(all_freqs, f_pts):
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return tc.clamp(tc.minimum(down, up), min=0.0)


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm=None, mel_scale="htk"):
    """Triangular mel filter bank of shape (n_freqs, n_mels)."""
    if norm is not None and norm != "slaney":
        raise ValueError(f'melscale_fbanks: norm must be None or "slaney", got {norm!r}')
    all_freqs = tc.linspace(0, sample_rate // 2, n_freqs)
    m_min = _hz_to_mel(f_min, mel_scale)
    m_max = _hz_to_mel(f_max, mel_scale)
    m_pts = tc.linspace(m_min, m_max, n_mels + 2)
    f_pts = _mel_to_hz(m_pts, mel_scale)
    fb = _triangular_filterbank(all_freqs, f_pts)
    if norm == "slaney":
        enorm = 2.0 / (f_pts[2 : n_mels + 2] - f_pts[:n_mels])
        fb = fb * enorm.unsqueeze(0)
    if bool((fb.amax(dim=0) == 0.0).any()):
        warnings.warn(
            f"At least one mel filterbank has all zero values. The value for `n_mels` "
            f"({n_mels}) may be set too high. Or, the value for `n_freqs` ({n_freqs}) "
            f"may be set too low."
        )
    return fb


def linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    """Triangular filter bank with linearly spaced centers, shape (n_freqs, n_filter)."""
    all_freqs = tc.linspace(0, sample_rate // 2, n_freqs)
    f_pts = tc.linspace(f_min, f_max, n_filter + 2)
    return _triangular_filterbank(all_freqs, f_pts)


def create_dct(n_mfcc, n_mels, norm):
    """DCT-II matrix of shape (n_mels, n_mfcc); norm None or "ortho"."""
    if norm is not None and norm != "ortho":
        raise ValueError(f'create_dct: norm must be None or "ortho", got {norm!r}')
    n = tc.arange(float(n_mels))
    k = tc.arange(float(n_mfcc)).unsqueeze(1)
    dct = tc.cos(math.pi / float(n_mels) * (n + 0.5) * k)
    if norm is None:
        dct = dct * 2.0
    else:
        first = tc.ones(n_mfcc, 1)
        first[0] = 1.0 / math.sqrt(2.0)
        dct = dct * first * math.sqrt(2.0 / float(n_mels))
    return dct.t().contiguous()


def amplitude_to_DB(x, multiplier, amin, db_multiplier, top_db=None):
    """multiplier * log10(max(x, amin)) - multiplier * db_multiplier, floored at max - top_db
    per spectrogram (the last three dims count as one spectrogram)."""
    _check_tensor(x, "amplitude_to_DB", "x")
    x_db = multiplier * tc.log10(tc.clamp(x, min=amin))
    x_db = x_db - multiplier * db_multiplier
    if top_db is not None:
        shape = tuple(x_db.shape)
        packed = shape[-3] if x_db.dim() > 2 else 1
        x4 = x_db.reshape(-1, packed, shape[-2], shape[-1])
        floor = (x4.amax(dim=(-3, -2, -1)) - top_db).reshape(-1, 1, 1, 1)
        x_db = tc.maximum(x4, floor).reshape(shape)
    return x_db


def DB_to_amplitude(x, ref, power):
    """ref * (10 ** (x / 10)) ** power."""
    return ref * tc.pow(tc.pow(10.0, 0.1 * x), power)


def _mu_law_input(x, quantization_channels, op, name):
    """x as floating point (float32 for integer input) and mu = channels - 1 as a tensor of its dtype."""
    _check_tensor(x, op, name)
    if not x.is_floating_point():
        x = x.to(tc.float32)
    return x, tc.as_tensor(quantization_channels - 1.0, dtype=x.dtype)


def mu_law_encoding(x, quantization_channels):
    """Mu-law companding of a signal in [-1, 1] to integers in [0, quantization_channels)."""
    x, mu_t = _mu_law_input(x, quantization_channels, "mu_law_encoding", "x")
    x_mu = tc.sign(x) * tc.log1p(mu_t * tc.abs(x)) / tc.log1p(mu_t)
    return ((x_mu + 1) / 2 * mu_t + 0.5).to(tc.int64)


def mu_law_decoding(x_mu, quantization_channels):
    """Inverse of mu_law_encoding."""
    x_mu, mu_t = _mu_law_input(x_mu, quantization_channels, "mu_law_decoding", "x_mu")
    x = (x_mu / mu_t) * 2 - 1.0
    return tc.sign(x) * (tc.exp(tc.abs(x) * tc.log1p(mu_t)) - 1.0) / mu_t


def resample(
    waveform,
    orig_freq,
    new_freq,
    lowpass_filter_width=6,
    rolloff=0.99,
    resampling_method="sinc_interpolation",
    beta=None,
):
    """Band-limited resampling of (..., time) with a windowed sinc (polyphase C++ kernel)."""
    _check_tensor(waveform, "resample")
    if int(orig_freq) != orig_freq or int(new_freq) != new_freq:
        raise ValueError(
            "resample: orig_freq and new_freq must be integers (scale both to keep "
            f"their ratio), got {orig_freq} and {new_freq}"
        )
    if not waveform.is_floating_point():
        raise TypeError(f"resample: expected a floating point waveform, got {waveform.dtype}")
    _cpu_only(waveform, "resample")
    return _audio.resample(
        waveform,
        int(orig_freq),
        int(new_freq),
        int(lowpass_filter_width),
        float(rolloff),
        resampling_method,
        beta,
    )


def _replicate_pad(x, n):
    if n == 0:
        return x
    first = x[..., :1].expand(*x.shape[:-1], n)
    last = x[..., -1:].expand(*x.shape[:-1], n)
    return tc.cat([first, x, last], -1)


def compute_deltas(specgram, win_length=5, mode="replicate"):
    """Delta coefficients along the last dim: sum_n n (c[t+n] - c[t-n]) / (2 sum_n n^2)."""
    _check_tensor(specgram, "compute_deltas", "specgram")
    if win_length < 3:
        raise ValueError(f"compute_deltas: win_length must be >= 3, got {win_length}")
    if mode != "replicate":
        raise ValueError(f"compute_deltas: only mode='replicate' is supported, got {mode!r}")
    n = (win_length - 1) // 2
    denom = n * (n + 1) * (2 * n + 1) / 3
    t = specgram.shape[-1]
    padded = _replicate_pad(specgram, n)
    out = None
    for k in range(1, n + 1):
        term = (padded[..., n + k : n + k + t] - padded[..., n - k : n - k + t]) * float(k)
        out = term if out is None else out + term
    return out / denom


def _unfold_frames(x, size, step, count):
    """(..., L) -> (..., count, size) frames starting every `step` samples (a view)."""
    x = x.contiguous()
    shape = tuple(x.shape[:-1]) + (count, size)
    strides = tuple(x.stride()[:-1]) + (step, 1)
    return tc.as_strided(x, shape, strides, x.storage_offset())


def _compute_nccf(waveform, sample_rate, frame_time, freq_low):
    eps = 1e-9
    lags = int(math.ceil(sample_rate / freq_low))
    frame_size = int(math.ceil(sample_rate * frame_time))
    length = waveform.shape[-1]
    num_frames = int(math.ceil(length / frame_size))
    p = lags + num_frames * frame_size - length
    waveform = tc.cat(
        [waveform, tc.zeros(*waveform.shape[:-1], p, dtype=waveform.dtype, device=waveform.device)],
        -1,
    )
    s1_all = _unfold_frames(waveform, frame_size, frame_size, num_frames)
    e1 = (eps + tc.norm(s1_all, dim=-1)).pow(2)
    out = []
    for lag in range(1, lags + 1):
        s2 = _unfold_frames(waveform[..., lag:], frame_size, frame_size, num_frames)
        num = (s1_all * s2).sum(-1)
        out.append((num / e1 / (eps + tc.norm(s2, dim=-1)).pow(2)).unsqueeze(-1))
    return tc.cat(out, -1)


def _find_max_per_frame(nccf, sample_rate, freq_high):
    lag_min = int(math.ceil(sample_rate / freq_high))
    best_v, best_i = tc.max(nccf[..., lag_min:], -1)
    half = nccf.shape[-1] // 2
    half_v, half_i = tc.max(nccf[..., lag_min:half], -1)
    mask = half_v > 0.99 * best_v
    indices = tc.where(mask, half_i, best_i)
    return indices + (lag_min + 1)


def _median_smoothing(indices, win_length):
    pad = (win_length - 1) // 2
    first = indices[..., :1].expand(*indices.shape[:-1], pad) if pad else None
    padded = tc.cat([first, indices], -1) if pad else indices
    count = padded.shape[-1] - win_length + 1
    roll = _unfold_frames(padded, win_length, 1, count)
    values, _ = tc.median(roll, -1)
    return values


def detect_pitch_frequency(
    waveform, sample_rate, frame_time=10 ** (-2), win_length=30, freq_low=85, freq_high=3400
):
    """Pitch (Hz) per frame by normalized cross-correlation and median smoothing."""
    _check_tensor(waveform, "detect_pitch_frequency")
    for name, v in (
        ("sample_rate", sample_rate),
        ("frame_time", frame_time),
        ("freq_low", freq_low),
        ("freq_high", freq_high),
        ("win_length", win_length),
    ):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise ValueError(
                f"detect_pitch_frequency: {name} must be a positive finite number, got {v!r}"
            )
    # One correlation per lag runs in a Python loop: bound it so that an absurd sample_rate
    # is an error rather than a hang (192 kHz down to 3 Hz is 64000 lags).
    if sample_rate / freq_low > 65536:
        raise ValueError(
            f"detect_pitch_frequency: sample_rate / freq_low = "
            f"{sample_rate / freq_low:.0f} lags, at most 65536 are supported"
        )
    shape = list(waveform.shape)
    waveform = waveform.reshape([-1] + shape[-1:])
    nccf = _compute_nccf(waveform, sample_rate, frame_time, freq_low)
    indices = _find_max_per_frame(nccf, sample_rate, freq_high)
    indices = _median_smoothing(indices, win_length)
    freq = sample_rate / (1e-9 + indices.to(tc.float32))
    return freq.reshape(shape[:-1] + list(freq.shape[-1:]))


def _cmn_windows(num_frames, cmn_window, min_cmn_window, center):
    starts, ends = [], []
    for t in range(num_frames):
        if center:
            start = t - cmn_window // 2
            end = start + cmn_window
        else:
            start = t - cmn_window
            end = t + 1
        if start < 0:
            end -= start
            start = 0
        if not center and end > t:
            end = max(t + 1, min_cmn_window)
        if end > num_frames:
            start -= end - num_frames
            end = num_frames
            if start < 0:
                start = 0
        starts.append(start)
        ends.append(end)
    return starts, ends


def sliding_window_cmn(specgram, cmn_window=600, min_cmn_window=100, center=False, norm_vars=False):
    """Cepstral mean (and variance) normalization over a sliding window of frames.

    specgram: (..., frames, feats). Window sums come from a float64 prefix sum.
    """
    _check_tensor(specgram, "sliding_window_cmn", "specgram")
    input_shape = tuple(specgram.shape)
    num_frames, num_feats = input_shape[-2:]
    x = specgram.reshape(-1, num_frames, num_feats)
    starts, ends = _cmn_windows(num_frames, cmn_window, min_cmn_window, center)
    dev = specgram.device
    start_t = tc.tensor(starts, dtype=tc.int64).to(dev)
    end_t = tc.tensor(ends, dtype=tc.int64).to(dev)
    counts = (
        tc.tensor([e - s for s, e in zip(starts, ends)], dtype=tc.float64).reshape(1, -1, 1).to(dev)
    )
    xd = x.to(tc.float64)
    zero = tc.zeros(x.shape[0], 1, num_feats, dtype=tc.float64, device=dev)
    cs = tc.cat([zero, tc.cumsum(xd, 1)], 1)
    mean = (tc.index_select(cs, 1, end_t) - tc.index_select(cs, 1, start_t)) / counts
    out = xd - mean
    if norm_vars:
        cs2 = tc.cat([zero, tc.cumsum(xd * xd, 1)], 1)
        sq = (tc.index_select(cs2, 1, end_t) - tc.index_select(cs2, 1, start_t)) / counts
        variance = sq - mean * mean
        out = out * tc.pow(variance, -0.5)
        out = tc.where(counts == 1, tc.zeros_like(out), out)
    out = out.to(specgram.dtype).reshape(input_shape)
    return out


def _mask_param(mask_param, p, axis_length):
    return mask_param if p == 1.0 else min(mask_param, int(axis_length * p))


def mask_along_axis_iid(specgrams, mask_param, mask_value, axis, p=1.0, *, generator=None):
    """SpecAugment masking with an independent mask per example and channel.

    specgrams: (batch, channel, freq, time); axis 2 (frequency) or 3 (time). The uniforms come
    from `generator` (default: the global generator).
    """
    _check_tensor(specgrams, "mask_along_axis_iid", "specgrams")
    if axis not in (2, 3):
        raise ValueError(f"mask_along_axis_iid: axis must be 2 (frequency) or 3 (time), got {axis}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"mask_along_axis_iid: p must be between 0.0 and 1.0, got {p}")
    if specgrams.dim() != 4:
        raise ValueError(
            f"mask_along_axis_iid: expected a 4-d tensor, got shape {tuple(specgrams.shape)}"
        )
    mask_param = _mask_param(mask_param, p, specgrams.shape[axis])
    if mask_param < 1:
        return specgrams
    dtype = specgrams.dtype if specgrams.is_floating_point() else tc.float32
    lead = tuple(specgrams.shape[:2])
    value = tc.rand(*lead, dtype=dtype, generator=generator) * mask_param
    min_value = tc.rand(*lead, dtype=dtype, generator=generator) * (specgrams.shape[axis] - value)
    # the uniforms come from the (CPU) generator; only the mask lives on the input's device
    dev = specgrams.device
    start = min_value.long().reshape(*lead, 1, 1).to(dev)
    end = (min_value.long() + value.long()).reshape(*lead, 1, 1).to(dev)
    idx = tc.arange(0, specgrams.shape[axis], dtype=tc.int64, device=dev)
    mask = (idx >= start) & (idx < end)  # (b, c, 1, axis_len)
    if axis == 2:
        mask = mask.transpose(2, 3)
    return specgrams.masked_fill(mask, mask_value)


def mask_along_axis(specgram, mask_param, mask_value, axis, p=1.0, *, generator=None):
    """SpecAugment masking with one mask shared by every example: axis 1 (freq) or 2 (time)
    of (..., freq, time). The uniforms come from `generator` (default: the global generator)."""
    _check_tensor(specgram, "mask_along_axis", "specgram")
    if axis not in (1, 2):
        raise ValueError(f"mask_along_axis: axis must be 1 (frequency) or 2 (time), got {axis}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"mask_along_axis: p must be between 0.0 and 1.0, got {p}")
    mask_param = _mask_param(mask_param, p, specgram.shape[axis])
    if mask_param < 1:
        return specgram
    shape = tuple(specgram.shape)
    x = specgram.reshape([-1] + list(shape[-2:]))
    length = x.shape[axis]
    value = float(tc.rand(1, generator=generator)) * mask_param
    min_value = float(tc.rand(1, generator=generator)) * (length - value)
    start = int(min_value)
    end = int(min_value) + int(value)
    idx = tc.arange(0, length, dtype=tc.int64, device=x.device)
    mask = (idx >= start) & (idx < end)
    if axis == 1:
        mask = mask.unsqueeze(-1)
    return x.masked_fill(mask, mask_value).reshape(shape)
