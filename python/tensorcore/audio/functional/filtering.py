"""IIR filtering (lfilter, biquads) and SoX-style effects, as in torchaudio.functional."""

import math

import numpy as np

import tensorcore as tc

from ... import _C
from .functional import _check_sample_rate, _cpu_only

_audio = _C._audio


def _coef(value, dtype):
    if isinstance(value, tc.Tensor):
        return value.to(dtype).reshape(1)
    return tc.tensor([float(value)], dtype=dtype)


def lfilter(waveform, a_coeffs, b_coeffs, clamp=True, batching=True):
    """IIR filter y = b * x / a along the last dim (direct form, like scipy.signal.lfilter).

    a_coeffs/b_coeffs: (order,) or (num_filters, order); with 2-d coefficients and batching,
    waveform is (..., num_filters, time); without batching every filter is applied to every
    waveform and a filter dim is added at -2. Differentiable in waveform and both coefficients.
    """
    if not isinstance(waveform, tc.Tensor):
        raise TypeError(f"lfilter: expected waveform to be a Tensor, got {type(waveform).__name__}")
    if tuple(a_coeffs.shape) != tuple(b_coeffs.shape):
        raise ValueError(
            f"lfilter: expected coeffs of the same size, got a_coeffs "
            f"{tuple(a_coeffs.shape)} and b_coeffs {tuple(b_coeffs.shape)}"
        )
    if a_coeffs.dim() > 2 or a_coeffs.dim() == 0:
        raise ValueError(f"lfilter: expected 1-d or 2-d coeffs, got {a_coeffs.dim()}-d")
    if not waveform.is_floating_point():
        raise TypeError(f"lfilter: expected a floating point waveform, got {waveform.dtype}")
    _cpu_only(waveform, "lfilter")
    a_coeffs = a_coeffs.to(waveform.dtype)
    b_coeffs = b_coeffs.to(waveform.dtype)
    if a_coeffs.dim() > 1:
        if batching:
            if waveform.dim() < 2 or waveform.shape[-2] != a_coeffs.shape[0]:
                raise ValueError(
                    f"lfilter: expected waveform.shape[-2] == {a_coeffs.shape[0]} "
                    f"(number of filters), got shape {tuple(waveform.shape)}"
                )
        else:
            waveform = tc.stack([waveform] * a_coeffs.shape[0], -2)
    else:
        a_coeffs = a_coeffs.unsqueeze(0)
        b_coeffs = b_coeffs.unsqueeze(0)
    order = a_coeffs.shape[1]
    shape = tuple(waveform.shape)
    x = waveform.reshape(-1, a_coeffs.shape[0], shape[-1])
    a0 = a_coeffs[:, :1]
    a_norm = a_coeffs / a0
    b_norm = (b_coeffs / a0).unsqueeze(0).unsqueeze(-1)  # (1, C, order, 1)
    t = x.shape[-1]
    # FIR part: u[n] = sum_k b[k] x[n - k]
    xp = (
        tc.cat([tc.zeros(x.shape[0], x.shape[1], order - 1, dtype=x.dtype), x], -1)
        if order > 1
        else x
    )
    u = None
    for k in range(order):
        term = b_norm[:, :, k] * xp[..., order - 1 - k : order - 1 - k + t]
        u = term if u is None else u + term
    y = _audio.lfilter_iir(u.contiguous(), a_norm.contiguous())
    if clamp:
        y = tc.clamp(y, min=-1.0, max=1.0)
    return y.reshape(shape)


def filtfilt(waveform, a_coeffs, b_coeffs, clamp=True):
    """Zero-phase filtering: lfilter forward, then backward in time."""
    forward = lfilter(waveform, a_coeffs, b_coeffs, clamp=False, batching=True)
    return lfilter(forward.flip(-1), a_coeffs, b_coeffs, clamp=clamp, batching=True).flip(-1)


def biquad(waveform, b0, b1, b2, a0, a1, a2):
    """Second-order IIR filter (numbers or 0-d tensors as coefficients)."""
    dt = waveform.dtype
    a = tc.cat([_coef(a0, dt), _coef(a1, dt), _coef(a2, dt)])
    b = tc.cat([_coef(b0, dt), _coef(b1, dt), _coef(b2, dt)])
    return lfilter(waveform, a, b)


def _t(v, dtype):
    return tc.as_tensor(v, dtype=dtype) if not isinstance(v, tc.Tensor) else v.to(dtype)


def allpass_biquad(waveform, sample_rate, central_freq, Q=0.707):
    dt = waveform.dtype
    w0 = 2 * math.pi * _t(central_freq, dt) / sample_rate
    alpha = tc.sin(w0) / 2 / _t(Q, dt)
    return biquad(
        waveform, 1 - alpha, -2 * tc.cos(w0), 1 + alpha, 1 + alpha, -2 * tc.cos(w0), 1 - alpha
    )


def band_biquad(waveform, sample_rate, central_freq, Q=0.707, noise=False):
    dt = waveform.dtype
    central_freq = _t(central_freq, dt)
    w0 = 2 * math.pi * central_freq / sample_rate
    bw_hz = central_freq / _t(Q, dt)
    a2 = tc.exp(-2 * math.pi * bw_hz / sample_rate)
    a1 = -4 * a2 / (1 + a2) * tc.cos(w0)
    b0 = tc.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
    if noise:
        mult = tc.sqrt(((1 + a2) * (1 + a2) - a1 * a1) * (1 - a2) / (1 + a2)) / b0
        b0 = mult * b0
    return biquad(waveform, b0, 0.0, 0.0, 1.0, a1, a2)


def bandpass_biquad(waveform, sample_rate, central_freq, Q=0.707, const_skirt_gain=False):
    dt = waveform.dtype
    w0 = 2 * math.pi * _t(central_freq, dt) / sample_rate
    alpha = tc.sin(w0) / 2 / _t(Q, dt)
    temp = tc.sin(w0) / 2 if const_skirt_gain else alpha
    return biquad(waveform, temp, 0.0, -temp, 1 + alpha, -2 * tc.cos(w0), 1 - alpha)


def bandreject_biquad(waveform, sample_rate, central_freq, Q=0.707):
    dt = waveform.dtype
    w0 = 2 * math.pi * _t(central_freq, dt) / sample_rate
    alpha = tc.sin(w0) / 2 / _t(Q, dt)
    return biquad(waveform, 1.0, -2 * tc.cos(w0), 1.0, 1 + alpha, -2 * tc.cos(w0), 1 - alpha)


def _shelf(waveform, sample_rate, gain, central_freq, Q, bass):
    dt = waveform.dtype
    w0 = 2 * math.pi * _t(central_freq, dt) / sample_rate
    alpha = tc.sin(w0) / 2 / _t(Q, dt)
    A = tc.exp(_t(gain, dt) / 40 * math.log(10))
    temp1 = 2 * tc.sqrt(A) * alpha
    temp2 = (A - 1) * tc.cos(w0)
    temp3 = (A + 1) * tc.cos(w0)
    if bass:
        b0 = A * ((A + 1) - temp2 + temp1)
        b1 = 2 * A * ((A - 1) - temp3)
        b2 = A * ((A + 1) - temp2 - temp1)
        a0 = (A + 1) + temp2 + temp1
        a1 = -2 * ((A - 1) + temp3)
        a2 = (A + 1) + temp2 - temp1
        return biquad(waveform, b0 / a0, b1 / a0, b2 / a0, a0 / a0, a1 / a0, a2 / a0)
    b0 = A * ((A + 1) + temp2 + temp1)
    b1 = -2 * A * ((A - 1) + temp3)
    b2 = A * ((A + 1) + temp2 - temp1)
    a0 = (A + 1) - temp2 + temp1
    a1 = 2 * ((A - 1) - temp3)
    a2 = (A + 1) - temp2 - temp1
    return biquad(waveform, b0, b1, b2, a0, a1, a2)


def bass_biquad(waveform, sample_rate, gain, central_freq=100, Q=0.707):
    return _shelf(waveform, sample_rate, gain, central_freq, Q, bass=True)


def treble_biquad(waveform, sample_rate, gain, central_freq=3000, Q=0.707):
    return _shelf(waveform, sample_rate, gain, central_freq, Q, bass=False)


def equalizer_biquad(waveform, sample_rate, center_freq, gain, Q=0.707):
    dt = waveform.dtype
    w0 = 2 * math.pi * _t(center_freq, dt) / sample_rate
    A = tc.exp(_t(gain, dt) / 40.0 * math.log(10))
    alpha = tc.sin(w0) / 2 / _t(Q, dt)
    return biquad(
        waveform,
        1 + alpha * A,
        -2 * tc.cos(w0),
        1 - alpha * A,
        1 + alpha / A,
        -2 * tc.cos(w0),
        1 - alpha / A,
    )


def highpass_biquad(waveform, sample_rate, cutoff_freq, Q=0.707):
    dt = waveform.dtype
    w0 = 2 * math.pi * _t(cutoff_freq, dt) / sample_rate
    alpha = tc.sin(w0) / 2.0 / _t(Q, dt)
    b0 = (1 + tc.cos(w0)) / 2
    return biquad(waveform, b0, -1 - tc.cos(w0), b0, 1 + alpha, -2 * tc.cos(w0), 1 - alpha)


def lowpass_biquad(waveform, sample_rate, cutoff_freq, Q=0.707):
    dt = waveform.dtype
    w0 = 2 * math.pi * _t(cutoff_freq, dt) / sample_rate
    alpha = tc.sin(w0) / 2 / _t(Q, dt)
    b0 = (1 - tc.cos(w0)) / 2
    return biquad(waveform, b0, 1 - tc.cos(w0), b0, 1 + alpha, -2 * tc.cos(w0), 1 - alpha)


def deemph_biquad(waveform, sample_rate):
    """ISO 908 CD de-emphasis (44.1 kHz or 48 kHz)."""
    if sample_rate == 44100:
        central_freq, width_slope, gain = 5283, 0.4845, -9.477
    elif sample_rate == 48000:
        central_freq, width_slope, gain = 5356, 0.479, -9.62
    else:
        raise ValueError(f"deemph_biquad: sample_rate must be 44100 or 48000, got {sample_rate}")
    w0 = 2 * math.pi * central_freq / sample_rate
    A = math.exp(gain / 40.0 * math.log(10))
    alpha = math.sin(w0) / 2 * math.sqrt((A + 1 / A) * (1 / width_slope - 1) + 2)
    temp1 = 2 * math.sqrt(A) * alpha
    temp2 = (A - 1) * math.cos(w0)
    temp3 = (A + 1) * math.cos(w0)
    return biquad(
        waveform,
        A * ((A + 1) + temp2 + temp1),
        -2 * A * ((A - 1) + temp3),
        A * ((A + 1) + temp2 - temp1),
        (A + 1) - temp2 + temp1,
        2 * ((A - 1) - temp3),
        (A + 1) - temp2 - temp1,
    )


_RIAA = {
    44100: ([-0.2014898, 0.9233820], [0.7083149, 0.9924091]),
    48000: ([-0.1766069, 0.9321590], [0.7396325, 0.9931330]),
    88200: ([-0.1168735, 0.9648312], [0.8590646, 0.9964002]),
    96000: ([-0.1141486, 0.9676817], [0.8699137, 0.9966946]),
}


def riaa_biquad(waveform, sample_rate):
    """RIAA vinyl playback equalization (44.1k, 48k, 88.2k or 96k)."""
    if sample_rate not in _RIAA:
        raise ValueError(
            f"riaa_biquad: sample_rate must be 44100, 48000, 88200 or 96000, got {sample_rate}"
        )
    zeros, poles = _RIAA[sample_rate]
    b0, b1, b2 = 1.0, -(zeros[0] + zeros[1]), zeros[0] * zeros[1]
    a0, a1, a2 = 1.0, -(poles[0] + poles[1]), poles[0] * poles[1]
    y = 2 * math.pi * 1000 / sample_rate  # normalize to 0 dB at 1 kHz
    b_re = b0 + b1 * math.cos(-y) + b2 * math.cos(-2 * y)
    a_re = a0 + a1 * math.cos(-y) + a2 * math.cos(-2 * y)
    b_im = b1 * math.sin(-y) + b2 * math.sin(-2 * y)
    a_im = a1 * math.sin(-y) + a2 * math.sin(-2 * y)
    g = 1 / math.sqrt((b_re**2 + b_im**2) / (a_re**2 + a_im**2))
    return biquad(waveform, b0 * g, b1 * g, b2 * g, a0, a1, a2)


def contrast(waveform, enhancement_amount=75.0):
    """SoX contrast: sin(x pi/2 + c sin(2 pi x)), c = amount / 750."""
    if not 0 <= enhancement_amount <= 100:
        raise ValueError(
            f"contrast: enhancement_amount must be in [0, 100], got {enhancement_amount}"
        )
    c = enhancement_amount / 750.0
    temp1 = waveform * (math.pi / 2)
    return tc.sin(temp1 + c * tc.sin(temp1 * 4))


def dcshift(waveform, shift, limiter_gain=None):
    """Adds `shift`; with limiter_gain, peaks are compressed instead of clipped (SoX dcshift)."""
    if limiter_gain is None or shift == 0:
        return tc.clamp(waveform + shift, min=-1, max=1)
    threshold = 1.0 - (abs(shift) - limiter_gain)
    if shift > 0:
        mask = waveform > threshold
        limited = tc.clamp(
            (waveform - threshold) * limiter_gain / (1 - threshold) + threshold + shift,
            max=threshold,
        )
    else:
        mask = waveform < -threshold
        limited = tc.clamp(
            (waveform + threshold) * limiter_gain / (1 - threshold) - threshold + shift,
            min=-threshold,
        )
    return tc.where(mask, limited, tc.clamp(waveform + shift, min=-1, max=1))


def gain(waveform, gain_db=1.0):
    """Scales by gain_db decibels."""
    if gain_db == 0:
        return waveform
    return waveform * (10 ** (gain_db / 20))


def overdrive(waveform, gain=20, colour=20):
    """SoX overdrive: soft clipping then a DC-blocking one-pole filter."""
    _cpu_only(waveform, "overdrive")
    shape = tuple(waveform.shape)
    x = waveform.reshape(-1, shape[-1])
    g = math.exp(gain * math.log(10) / 20.0)
    temp = x * g + colour / 200
    cubic = temp - temp * temp * temp * (1.0 / 3)
    temp = tc.where(
        temp < -1,
        tc.full_like(temp, -2.0 / 3.0),
        tc.where(temp > 1, tc.full_like(temp, 2.0 / 3.0), cubic),
    )
    # last_out[n] = temp[n] - temp[n-1] + 0.995 last_out[n-1]: an IIR over the first difference
    prev = tc.cat([tc.zeros(x.shape[0], 1, dtype=x.dtype), temp[:, :-1]], -1)
    a = tc.tensor([[1.0, -0.995]], dtype=x.dtype)
    last_out = _audio.lfilter_iir((temp - prev).unsqueeze(1).contiguous(), a).squeeze(1)
    out = x * 0.5 + last_out * 0.75
    return tc.clamp(out, min=-1, max=1).reshape(shape)


def _wave_table(wave_type, data_type, table_size, lo, hi, phase):
    phase_offset = int(phase / math.pi / 2 * table_size + 0.5)
    point = (np.arange(table_size, dtype=np.int64) + phase_offset) % table_size
    if wave_type == "SINE":
        d = (np.sin(point.astype(np.float64) / table_size * 2 * math.pi) + 1) / 2
    else:
        d = point.astype(np.float64) * 2 / table_size
        value = (4 * point) // table_size
        d = np.where(value == 0, d + 0.5, np.where(value == 3, d - 1.5, 1.5 - d))
    d = d * (hi - lo) + lo
    if data_type == "INT":
        return np.where(d < 0, d - 0.5, d + 0.5).astype(np.int32)
    return d.astype(np.float32)


def phaser(
    waveform,
    sample_rate,
    gain_in=0.4,
    gain_out=0.74,
    delay_ms=3.0,
    decay=0.4,
    mod_speed=0.5,
    sinusoidal=True,
):
    """SoX phaser: a modulated feedback delay line (not differentiable)."""
    _cpu_only(waveform, "phaser")
    _check_sample_rate(sample_rate, "phaser")
    shape = tuple(waveform.shape)
    x = waveform.reshape(-1, shape[-1]).numpy() * gain_in
    delay_len = int(delay_ms * 0.001 * sample_rate + 0.5)
    mod_len = int(sample_rate / mod_speed + 0.5)
    mod = _wave_table(
        "SINE" if sinusoidal else "TRIANGLE", "INT", mod_len, 1.0, float(delay_len), math.pi / 2
    )
    buf = np.zeros((delay_len, x.shape[0]), dtype=x.dtype)
    out = np.empty_like(x)
    delay_pos = mod_pos = 0
    xt = np.ascontiguousarray(x.T)
    for i in range(x.shape[1]):
        idx = int((delay_pos + mod[mod_pos]) % delay_len)
        mod_pos = (mod_pos + 1) % mod_len
        delay_pos = (delay_pos + 1) % delay_len
        temp = xt[i] + buf[idx]
        buf[delay_pos] = temp * decay
        out[:, i] = temp
    out = np.clip(out * gain_out, -1, 1)
    return tc.from_numpy(out.astype(x.dtype)).reshape(shape)


def flanger(
    waveform,
    sample_rate,
    delay=0.0,
    depth=2.0,
    regen=0.0,
    width=71.0,
    speed=0.5,
    phase=25.0,
    modulation="sinusoidal",
    interpolation="linear",
):
    """SoX flanger on (..., channels, time) with at most 4 channels (not differentiable)."""
    _cpu_only(waveform, "flanger")
    _check_sample_rate(sample_rate, "flanger")
    if modulation not in ("sinusoidal", "triangular"):
        raise ValueError(
            f"flanger: modulation must be 'sinusoidal' or 'triangular', got {modulation!r}"
        )
    if interpolation not in ("linear", "quadratic"):
        raise ValueError(
            f"flanger: interpolation must be 'linear' or 'quadratic', got {interpolation!r}"
        )
    shape = tuple(waveform.shape)
    if len(shape) < 2 or shape[-2] > 4:
        raise ValueError(f"flanger: expected (..., channels <= 4, time), got shape {shape}")
    x = waveform.reshape(-1, shape[-2], shape[-1]).numpy()
    dtype = x.dtype
    feedback_gain = regen / 100
    delay_gain = width / 100
    channel_phase = phase / 100
    delay_min = delay / 1000
    delay_depth = depth / 1000
    n_channels = shape[-2]
    in_gain = 1.0 / (1 + delay_gain)
    delay_gain = delay_gain / (1 + delay_gain)
    delay_gain = delay_gain * (1 - abs(feedback_gain))
    buf_len = int((delay_min + delay_depth) * sample_rate + 0.5) + 2
    bufs = np.zeros((x.shape[0], n_channels, buf_len), dtype=dtype)
    last = np.zeros((x.shape[0], n_channels), dtype=dtype)
    lfo_len = int(sample_rate / speed)
    table_min = math.floor(delay_min * sample_rate + 0.5)
    table_max = buf_len - 2.0
    lfo = _wave_table(
        "SINE" if modulation == "sinusoidal" else "TRIANGLE",
        "FLOAT",
        lfo_len,
        float(table_min),
        float(table_max),
        3 * math.pi / 2,
    )
    out = np.zeros_like(x)
    chans = np.arange(n_channels)
    phase_off = (chans * lfo_len * channel_phase + 0.5).astype(np.int64)
    pos = lfo_pos = 0
    for i in range(x.shape[-1]):
        pos = (pos + buf_len - 1) % buf_len
        d = lfo[(lfo_pos + phase_off) % lfo_len]
        frac = (d - np.floor(d)).astype(dtype)
        idelay = np.floor(d).astype(np.int64)
        cur = x[:, :, i]
        bufs[:, :, pos] = cur + last * feedback_gain
        d0 = bufs[:, chans, (pos + idelay) % buf_len]
        d1 = bufs[:, chans, (pos + idelay + 1) % buf_len]
        if interpolation == "linear":
            delayed = d0 + (d1 - d0) * frac
        else:
            d2 = bufs[:, chans, (pos + idelay + 2) % buf_len] - d0
            d1 = d1 - d0
            qa = d2 * 0.5 - d1
            qb = d1 * 2 - d2 * 0.5
            delayed = d0 + (qa * frac + qb) * frac
        last = delayed
        out[:, :, i] = cur * in_gain + delayed * delay_gain
        lfo_pos = (lfo_pos + 1) % lfo_len
    return tc.from_numpy(np.clip(out, -1, 1).astype(dtype)).reshape(shape)


def dither(waveform, density_function="TPDF", noise_shaping=False):
    """Quantizes to 16 bits with dither: "TPDF" (triangular), "RPDF" or "GPDF" (torchaudio's
    sample-borrowing schemes), optionally with first-order noise shaping."""
    if density_function not in ("TPDF", "RPDF", "GPDF"):
        raise ValueError(
            f"dither: density_function must be TPDF, RPDF or GPDF, got {density_function!r}"
        )
    shape = tuple(waveform.shape)
    x = waveform.reshape(-1, shape[-1])
    channel_size = x.shape[0] - 1
    time_size = x.shape[-1] - 1
    rand_channel = int(tc.randint(channel_size, (1,))) if channel_size > 0 else 0
    rand_time = int(tc.randint(time_size, (1,))) if time_size > 0 else 0
    up = 2**15 - 2
    down = 2**15
    scaled = x * up
    if density_function == "RPDF":
        dis = scaled + (x[rand_channel][rand_time] - 0.5)
    elif density_function == "GPDF":
        gaussian = x[rand_channel][rand_time].clone()
        for _ in range(6):
            c = int(tc.randint(max(channel_size, 1), (1,))) if channel_size > 0 else 0
            gaussian = gaussian + x[c][int(tc.randint(max(time_size, 1), (1,)))]
        dis = scaled + gaussian
    else:
        n = time_size + 1
        if n == 1:
            tpdf = tc.ones(1, dtype=x.dtype)
        else:  # Bartlett window (periodic), as torch.bartlett_window
            k = tc.arange(n, dtype=x.dtype) * (2.0 / n)
            tpdf = tc.where(k <= 1.0, k, 2.0 - k)
        dis = scaled + tpdf
    dithered = tc.round(dis) / down
    if noise_shaping:
        error = dithered - x
        shifted = tc.cat([tc.zeros(x.shape[0], 1, dtype=x.dtype), error[:, :-1]], -1)
        dithered = dithered + shifted
    return dithered.reshape(shape)
