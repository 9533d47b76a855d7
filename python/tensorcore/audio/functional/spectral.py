"""Spectrogram-based functions (need tensorcore's FFT: tc.stft / tc.istft)."""

import math

import tensorcore as tc


def _require_fft(op):
    if not hasattr(tc, "stft"):
        raise NotImplementedError(f"{op}: needs tensorcore's FFT (tc.stft), which this build lacks")


def _spec_norms(normalized):
    if isinstance(normalized, str):
        if normalized not in ("frame_length", "window"):
            raise ValueError(
                f"normalized must be a bool, 'frame_length' or 'window', got {normalized!r}"
            )
        return normalized == "frame_length", normalized == "window"
    return False, bool(normalized)


def _complex_dtype(real_dtype):
    return tc.complex128 if real_dtype == tc.float64 else tc.complex64


def spectrogram(
    waveform,
    pad,
    window,
    n_fft,
    hop_length,
    win_length,
    power,
    normalized,
    center=True,
    pad_mode="reflect",
    onesided=True,
    return_complex=None,
):
    """(..., time) -> (..., freq, frames): ``|STFT|^power``, or the complex STFT when power is None."""
    _require_fft("spectrogram")
    if pad > 0:
        zeros = tc.zeros(*waveform.shape[:-1], pad, dtype=waveform.dtype, device=waveform.device)
        waveform = tc.cat([zeros, waveform, zeros], -1)
    frame_length_norm, window_norm = _spec_norms(normalized)
    shape = tuple(waveform.shape)
    spec = tc.stft(
        waveform.reshape(-1, shape[-1]),
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=window,
        center=center,
        pad_mode=pad_mode,
        normalized=frame_length_norm,
        onesided=onesided,
        return_complex=True,
    )
    spec = spec.reshape(shape[:-1] + tuple(spec.shape[-2:]))
    if window_norm:
        spec = spec / window.pow(2.0).sum().sqrt()
    if power is not None:
        # The STFT comes back as a transposed view (frequency fastest); elementwise work on
        # the contiguous view is several times faster than on the strided one.
        flipped = spec.transpose(-1, -2)
        src = flipped if flipped.is_contiguous() else spec
        mag = src.abs()
        if power == 2.0:
            mag = mag * mag
        elif power != 1.0:
            mag = mag.pow(power)
        return mag.transpose(-1, -2) if src is flipped else mag
    if return_complex is False:
        return tc.view_as_real(spec)
    return spec


def inverse_spectrogram(
    spectrogram,
    length,
    pad,
    window,
    n_fft,
    hop_length,
    win_length,
    normalized,
    center=True,
    pad_mode="reflect",
    onesided=True,
):
    """Complex (..., freq, frames) -> (..., time) by inverse STFT."""
    _require_fft("inverse_spectrogram")
    frame_length_norm, window_norm = _spec_norms(normalized)
    if not spectrogram.is_complex():
        raise ValueError("inverse_spectrogram: expected a complex spectrogram")
    if window_norm:
        spectrogram = spectrogram * window.pow(2.0).sum().sqrt()
    shape = tuple(spectrogram.shape)
    spec = spectrogram.reshape(-1, shape[-2], shape[-1])
    wave = tc.istft(
        spec,
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=window,
        center=center,
        normalized=frame_length_norm,
        onesided=onesided,
        length=length + 2 * pad if length is not None else None,
        return_complex=False,
    )
    if length is not None and pad > 0:
        wave = wave[:, pad:-pad]
    return wave.reshape(shape[:-2] + tuple(wave.shape[-1:]))


def griffinlim(
    specgram, window, n_fft, hop_length, win_length, power, n_iter, momentum, length, rand_init
):
    """Waveform from a magnitude spectrogram by the fast Griffin-Lim algorithm."""
    _require_fft("griffinlim")
    if not 0 <= momentum < 1:
        raise ValueError(f"griffinlim: momentum must be in [0, 1), got {momentum}")
    momentum = momentum / (1 + momentum)
    shape = tuple(specgram.shape)
    specgram = specgram.reshape([-1] + list(shape[-2:])).pow(1 / power)
    cdt = _complex_dtype(specgram.dtype)
    if rand_init:
        # drawn on the CPU generator, so CPU and CUDA runs start from the same phases
        angles = tc.complex(
            tc.rand(*specgram.shape, dtype=specgram.dtype),
            tc.rand(*specgram.shape, dtype=specgram.dtype),
        ).to(specgram.device)
    else:
        angles = tc.ones(*specgram.shape, dtype=cdt, device=specgram.device)

    def inverse_of(angles):
        return tc.istft(
            specgram * angles,
            n_fft=n_fft,
            hop_length=hop_length,
            win_length=win_length,
            window=window,
            length=length,
        )

    tprev = None
    for _ in range(n_iter):
        inverse = inverse_of(angles)
        rebuilt = spectrogram(inverse, 0, window, n_fft, hop_length, win_length, None, False)
        angles = rebuilt if (not momentum or tprev is None) else rebuilt - tprev * momentum
        angles = angles / (angles.abs() + 1e-16)
        tprev = rebuilt
    wave = inverse_of(angles)
    return wave.reshape(shape[:-2] + tuple(wave.shape[-1:]))


def phase_vocoder(complex_specgrams, rate, phase_advance):
    """Time-stretches a complex (..., freq, frames) spectrogram by `rate` without pitch change."""
    if rate == 1.0:
        return complex_specgrams
    shape = tuple(complex_specgrams.shape)
    spec = complex_specgrams.reshape([-1] + list(shape[-2:]))
    real_dtype = tc.real(spec).dtype
    time_steps = tc.arange(0, spec.shape[-1], rate, dtype=real_dtype, device=spec.device)
    alphas = time_steps % 1.0
    phase_0 = tc.angle(spec[..., :1])
    spec = tc.cat([spec, tc.zeros(*spec.shape[:-1], 2, dtype=spec.dtype, device=spec.device)], -1)
    s0 = tc.index_select(spec, -1, time_steps.long())
    s1 = tc.index_select(spec, -1, (time_steps + 1).long())
    phase = tc.angle(s1) - tc.angle(s0) - phase_advance
    phase = phase - 2 * math.pi * tc.round(phase / (2 * math.pi))
    phase = phase + phase_advance
    phase = tc.cat([phase_0, phase[..., :-1]], -1)
    phase_acc = tc.cumsum(phase, -1)
    mag = alphas * s1.abs() + (1 - alphas) * s0.abs()
    out = tc.polar(mag, phase_acc)
    return out.reshape(shape[:-2] + tuple(out.shape[1:]))


def spectral_centroid(waveform, sample_rate, pad, window, n_fft, hop_length, win_length):
    """Frequency centroid (Hz) of each frame of the magnitude spectrogram."""
    spec = spectrogram(
        waveform,
        pad=pad,
        window=window,
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        power=1.0,
        normalized=False,
    )
    freqs = tc.linspace(0, sample_rate // 2, 1 + n_fft // 2, device=spec.device).reshape(-1, 1)
    return (freqs * spec).sum(dim=-2) / spec.sum(dim=-2)
