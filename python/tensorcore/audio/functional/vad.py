"""Voice activity detection (SoX's vad effect, as torchaudio.functional.vad): trims leading
silence. The per-measure spectral analysis runs in NumPy; measures are taken directly at their
sample positions instead of stepping through every sample."""

import math

import numpy as np

import tensorcore as tc

from .functional import _check_sample_rate, _cpu_only


def _hann(n):
    # torch.hann_window(n) (periodic)
    return (
        (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)).astype(np.float32)
        if n > 0
        else np.zeros(0, np.float32)
    )


def vad(
    waveform,
    sample_rate,
    trigger_level=7.0,
    trigger_time=0.25,
    search_time=1.0,
    allowed_gap=0.25,
    pre_trigger_time=0.0,
    boot_time=0.35,
    noise_up_time=0.1,
    noise_down_time=0.01,
    noise_reduction_amount=1.35,
    measure_freq=20.0,
    measure_duration=None,
    measure_smooth_time=0.4,
    hp_filter_freq=50.0,
    lp_filter_freq=6000.0,
    hp_lifter_freq=150.0,
    lp_lifter_freq=2000.0,
):
    """Trims (..., time) audio before the first detected voice activity."""
    _check_sample_rate(sample_rate, "vad")
    measure_duration = 2.0 / measure_freq if measure_duration is None else measure_duration
    if not (isinstance(measure_duration, (int, float)) and 0 < measure_duration <= 60):
        raise ValueError(
            f"vad: measure_duration must be in (0, 60] seconds, got {measure_duration!r}"
        )
    measure_len = int(sample_rate * measure_duration + 0.5)
    dft_len = 16
    while dft_len < measure_len:
        dft_len *= 2
    measure_period = int(sample_rate / measure_freq + 0.5)
    measures_len = math.ceil(search_time * measure_freq)
    search_pre_trigger_len = measures_len * measure_period
    gap_len = int(allowed_gap * measure_freq + 0.5)
    fixed_pre_trigger_len = int(pre_trigger_time * sample_rate + 0.5)
    samples_len = fixed_pre_trigger_len + search_pre_trigger_len + measure_len

    spectrum_window = (2.0 / math.sqrt(float(measure_len))) * _hann(measure_len)
    spectrum_start = max(int(hp_filter_freq / sample_rate * dft_len + 0.5), 1)
    spectrum_end = min(int(lp_filter_freq / sample_rate * dft_len + 0.5), dft_len // 2)
    n_spec = spectrum_end - spectrum_start
    cepstrum_window = (2.0 / math.sqrt(float(spectrum_end) - spectrum_start)) * _hann(n_spec)
    cepstrum_start = math.ceil(sample_rate * 0.5 / lp_lifter_freq)
    cepstrum_end = min(math.floor(sample_rate * 0.5 / hp_lifter_freq), dft_len // 4)
    if cepstrum_end <= cepstrum_start:
        raise ValueError(
            f"vad: expected cepstrum_start ({cepstrum_start}) < cepstrum_end "
            f"({cepstrum_end}); check the lifter frequencies and sample_rate"
        )
    noise_up_mult = math.exp(-1.0 / (noise_up_time * measure_freq))
    noise_down_mult = math.exp(-1.0 / (noise_down_time * measure_freq))
    smooth_mult = math.exp(-1.0 / (measure_smooth_time * measure_freq))
    trigger_mult = math.exp(-1.0 / (trigger_time * measure_freq))
    boot_count_max = int(boot_time * measure_freq - 0.5)

    _cpu_only(waveform, "vad")
    shape = tuple(waveform.shape)
    wave2 = waveform.reshape(-1, shape[-1])
    x = wave2.detach().to(tc.float32).numpy()
    n_channels, ilen = x.shape
    spectrum = np.zeros((n_channels, dft_len), np.float32)
    noise = np.zeros((n_channels, dft_len), np.float32)
    measures = np.zeros((n_channels, measures_len), np.float32)
    mean_meas = np.zeros(n_channels, np.float32)

    def measure(c, end, boot_count):
        buf = np.zeros(dft_len, np.float32)
        seg = x[c, end - measure_len : end]
        buf[:measure_len] = seg * spectrum_window
        dft = np.fft.rfft(buf)
        mult = boot_count / (1.0 + boot_count) if boot_count >= 0 else smooth_mult
        d = np.abs(dft[spectrum_start:spectrum_end]).astype(np.float32)
        sp = spectrum[c, spectrum_start:spectrum_end]
        sp[:] = sp * mult + d * (1 - mult)
        d = sp**2
        if boot_count >= 0:
            m = np.zeros(n_spec, np.float32)
        else:
            m = np.where(
                d > noise[c, spectrum_start:spectrum_end], noise_up_mult, noise_down_mult
            ).astype(np.float32)
        ns = noise[c, spectrum_start:spectrum_end]
        ns[:] = ns * m + d * (1 - m)
        d = np.sqrt(np.maximum(0, d - noise_reduction_amount * ns))
        ceps = np.zeros(dft_len >> 1, np.float32)
        ceps[spectrum_start:spectrum_end] = d * cepstrum_window
        result = float(np.sum(np.abs(np.fft.rfft(ceps)[cepstrum_start:cepstrum_end]) ** 2))
        result = math.log(result / (cepstrum_end - cepstrum_start)) if result > 0 else -math.inf
        return max(0.0, 21 + result)

    # Before triggering the ring buffer is never flushed, so the measure taken after sample
    # `pos` sees exactly x[pos - measure_len + 1 : pos + 1].
    boot_count = 0
    measures_index = 0
    flushed = 0
    pos = ilen
    triggered = False
    num_to_flush = 0
    t = measure_len - 1
    while t < ilen and not triggered:
        for c in range(n_channels):
            meas = measure(c, t + 1, boot_count)
            measures[c, measures_index] = meas
            mean_meas[c] = np.float32(mean_meas[c] * trigger_mult + meas * (1.0 - trigger_mult))
            triggered = triggered or mean_meas[c] >= trigger_level
            if triggered:
                n, k = measures_len, measures_index
                j_trigger = j_zero = n
                j = 0
                for j in range(n):
                    if measures[c, k] >= trigger_level and j <= j_trigger + gap_len:
                        j_zero = j_trigger = j
                    elif measures[c, k] == 0 and j_trigger >= j_zero:
                        j_zero = j
                    k = (k + n - 1) % n
                j = min(j, j_zero)
                num_to_flush = min(max(num_to_flush, j), n)
        measures_index = (measures_index + 1) % measures_len
        if boot_count >= 0:
            boot_count = -1 if boot_count == boot_count_max else boot_count + 1
        if triggered:
            pos = t + 1
            flushed = (measures_len - num_to_flush) * measure_period
        t += measure_period
    start = pos - samples_len + flushed
    res = wave2[:, start:] if start >= 0 else wave2[:, max(ilen + start, 0) :]
    return res.reshape(shape[:-1] + tuple(res.shape[-1:]))
