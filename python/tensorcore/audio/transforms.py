"""torchaudio.transforms over tensorcore: Module-like callables (forward / __call__)."""

import math

import tensorcore as tc

from . import functional as F

try:  # the nn package lands separately; transforms become real Modules once it exists
    from ..nn import Module as _Base
except Exception:  # pragma: no cover - depends on the build

    class _Base:
        """Minimal stand-in for tensorcore.nn.Module: __call__ runs forward."""

        def __init__(self):
            self.training = True

        def __call__(self, *args, **kwargs):
            return self.forward(*args, **kwargs)

        def register_buffer(self, name, value):
            setattr(self, name, value)

        def train(self, mode=True):
            self.training = mode
            return self

        def eval(self):
            return self.train(False)

        def __repr__(self):
            return f"{type(self).__name__}()"


class Resample(_Base):
    """Resamples (..., time) from orig_freq to new_freq (see functional.resample)."""

    def __init__(
        self,
        orig_freq=16000,
        new_freq=16000,
        resampling_method="sinc_interpolation",
        lowpass_filter_width=6,
        rolloff=0.99,
        beta=None,
        *,
        dtype=None,
    ):
        super().__init__()
        if (
            int(orig_freq) != orig_freq
            or int(new_freq) != new_freq
            or orig_freq <= 0
            or new_freq <= 0
        ):
            raise ValueError(
                f"Resample: frequencies must be positive integers, got {orig_freq}, {new_freq}"
            )
        self.orig_freq, self.new_freq = int(orig_freq), int(new_freq)
        self.gcd = math.gcd(self.orig_freq, self.new_freq)
        self.resampling_method = resampling_method
        self.lowpass_filter_width = lowpass_filter_width
        self.rolloff = rolloff
        self.beta = beta

    def forward(self, waveform):
        if self.orig_freq == self.new_freq:
            return waveform
        return F.resample(
            waveform,
            self.orig_freq,
            self.new_freq,
            self.lowpass_filter_width,
            self.rolloff,
            self.resampling_method,
            self.beta,
        )


class MuLawEncoding(_Base):
    def __init__(self, quantization_channels=256):
        super().__init__()
        self.quantization_channels = quantization_channels

    def forward(self, x):
        return F.mu_law_encoding(x, self.quantization_channels)


class MuLawDecoding(_Base):
    def __init__(self, quantization_channels=256):
        super().__init__()
        self.quantization_channels = quantization_channels

    def forward(self, x_mu):
        return F.mu_law_decoding(x_mu, self.quantization_channels)


class AmplitudeToDB(_Base):
    """Power ("power") or amplitude ("magnitude") spectrogram to decibels."""

    def __init__(self, stype="power", top_db=None):
        super().__init__()
        if stype not in ("power", "magnitude"):
            raise ValueError(f"AmplitudeToDB: stype must be 'power' or 'magnitude', got {stype!r}")
        if top_db is not None and top_db < 0:
            raise ValueError("AmplitudeToDB: top_db must be positive")
        self.stype = stype
        self.top_db = top_db
        self.multiplier = 10.0 if stype == "power" else 20.0
        self.amin = 1e-10
        self.ref_value = 1.0
        self.db_multiplier = math.log10(max(self.amin, self.ref_value))

    def forward(self, x):
        return F.amplitude_to_DB(x, self.multiplier, self.amin, self.db_multiplier, self.top_db)


class Vol(_Base):
    """Scales by gain ("amplitude" ratio, "power" ratio or "db"), then clamps to [-1, 1]."""

    def __init__(self, gain, gain_type="amplitude"):
        super().__init__()
        if gain_type not in ("amplitude", "power", "db"):
            raise ValueError(f"Vol: gain_type must be amplitude, power or db, got {gain_type!r}")
        if gain_type in ("amplitude", "power") and gain < 0:
            raise ValueError("Vol: with gain_type amplitude or power, gain must be positive")
        self.gain = gain
        self.gain_type = gain_type

    def forward(self, waveform):
        if self.gain_type == "amplitude":
            waveform = waveform * self.gain
        elif self.gain_type == "db":
            waveform = F.gain(waveform, self.gain)
        else:
            waveform = F.gain(waveform, 10 * math.log10(self.gain))
        return tc.clamp(waveform, -1, 1)


class Fade(_Base):
    """Fade in/out over fade_in_len / fade_out_len samples with one of torchaudio's shapes."""

    SHAPES = ("linear", "exponential", "logarithmic", "quarter_sine", "half_sine")

    def __init__(self, fade_in_len=0, fade_out_len=0, fade_shape="linear"):
        super().__init__()
        if fade_shape not in self.SHAPES:
            raise ValueError(f"Fade: fade_shape must be one of {self.SHAPES}, got {fade_shape!r}")
        self.fade_in_len = fade_in_len
        self.fade_out_len = fade_out_len
        self.fade_shape = fade_shape

    def forward(self, waveform):
        n = waveform.shape[-1]
        if self.fade_in_len > n or self.fade_out_len > n:
            raise ValueError(
                f"Fade: fade lengths ({self.fade_in_len}, {self.fade_out_len}) exceed "
                f"the waveform length {n}"
            )
        dev = waveform.device
        return self._fade_in(n, dev) * self._fade_out(n, dev) * waveform

    def _fade_in(self, n, device=None):
        fade = tc.linspace(0, 1, self.fade_in_len, device=device)
        s = self.fade_shape
        if s == "exponential":
            fade = tc.pow(2.0, fade - 1) * fade
        elif s == "logarithmic":
            fade = tc.log10(0.1 + fade) + 1
        elif s == "quarter_sine":
            fade = tc.sin(fade * math.pi / 2)
        elif s == "half_sine":
            fade = tc.sin(fade * math.pi - math.pi / 2) / 2 + 0.5
        return tc.clamp(tc.cat([fade, tc.ones(n - self.fade_in_len, device=device)]), 0, 1)

    def _fade_out(self, n, device=None):
        fade = tc.linspace(0, 1, self.fade_out_len, device=device)
        s = self.fade_shape
        if s == "linear":
            fade = -fade + 1
        elif s == "exponential":
            fade = tc.pow(2.0, -fade) * (1 - fade)
        elif s == "logarithmic":
            fade = tc.log10(1.1 - fade) + 1
        elif s == "quarter_sine":
            fade = tc.sin(fade * math.pi / 2 + math.pi / 2)
        else:
            fade = tc.sin(fade * math.pi + math.pi / 2) / 2 + 0.5
        return tc.clamp(tc.cat([tc.ones(n - self.fade_out_len, device=device), fade]), 0, 1)


class ComputeDeltas(_Base):
    def __init__(self, win_length=5, mode="replicate"):
        super().__init__()
        self.win_length = win_length
        self.mode = mode

    def forward(self, specgram):
        return F.compute_deltas(specgram, win_length=self.win_length, mode=self.mode)


class SlidingWindowCmn(_Base):
    def __init__(self, cmn_window=600, min_cmn_window=100, center=False, norm_vars=False):
        super().__init__()
        self.cmn_window = cmn_window
        self.min_cmn_window = min_cmn_window
        self.center = center
        self.norm_vars = norm_vars

    def forward(self, specgram):
        return F.sliding_window_cmn(
            specgram, self.cmn_window, self.min_cmn_window, self.center, self.norm_vars
        )


class _AxisMasking(_Base):
    def __init__(self, mask_param, axis, iid_masks, p=1.0, generator=None):
        super().__init__()
        self.generator = generator
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{type(self).__name__}: p must be between 0.0 and 1.0, got {p}")
        self.mask_param = mask_param
        self.axis = axis
        self.iid_masks = iid_masks
        self.p = p

    def forward(self, specgram, mask_value=0.0):
        if self.iid_masks and specgram.dim() == 4:
            return F.mask_along_axis_iid(
                specgram,
                self.mask_param,
                mask_value,
                self.axis + 1,
                p=self.p,
                generator=self.generator,
            )
        return F.mask_along_axis(
            specgram, self.mask_param, mask_value, self.axis, p=self.p, generator=self.generator
        )


class FrequencyMasking(_AxisMasking):
    """SpecAugment frequency masking of (..., freq, time); `generator` (tensorcore extension)
    picks the random stream, default the global generator."""

    def __init__(self, freq_mask_param, iid_masks=False, *, generator=None):
        super().__init__(freq_mask_param, 1, iid_masks, generator=generator)


class TimeMasking(_AxisMasking):
    """SpecAugment time masking of (..., freq, time); `generator` as in FrequencyMasking."""

    def __init__(self, time_mask_param, iid_masks=False, p=1.0, *, generator=None):
        super().__init__(time_mask_param, 2, iid_masks, p=p, generator=generator)


def _along_freq(specgram, matrix):
    """(..., n, time) through an (n, m) matrix along the frequency axis: (..., m, time)."""
    return tc.matmul(
        specgram.transpose(-1, -2), matrix.to(specgram.device, specgram.dtype)
    ).transpose(-1, -2)


def _cepstral(spectrogram, filterbank, dct, waveform, to_db, log_offset=1e-6):
    """MFCC / LFCC (spectrogram -> filter bank -> dB or log -> DCT) in one C++ pass
    (audio/features.h: no complex spectrogram or per-op temporaries) where it applies: float32
    CPU input without autograd, a power-2, centred, reflect-padded, onesided, unnormalized
    spectrogram whose window spans n_fft. None otherwise (and while tracing, which records ops).
    The C++ Pipeline fuses the same steps, so the two still agree bit for bit."""
    s = spectrogram
    audio_c = getattr(tc._C, "_audio", None)
    if (
        audio_c is None
        or not isinstance(waveform, tc.Tensor)
        or s.power != 2.0
        or s.pad != 0
        or s.normalized is not False
        or not s.center
        or s.pad_mode != "reflect"
        or not s.onesided
        or s.win_length != s.n_fft
        or tc.jit.is_tracing()
    ):
        return None
    use_log = to_db is None
    return audio_c.cepstral_features(
        waveform,
        s.window,
        s.n_fft,
        s.hop_length,
        filterbank,
        dct,
        use_log,
        log_offset,
        10.0 if use_log else to_db.multiplier,
        1e-10 if use_log else to_db.amin,
        0.0 if use_log else to_db.db_multiplier,
        None if use_log else to_db.top_db,
    )


class MelScale(_Base):
    """Linear-frequency spectrogram (..., n_stft, time) to mel scale (..., n_mels, time)."""

    def __init__(
        self,
        n_mels=128,
        sample_rate=16000,
        f_min=0.0,
        f_max=None,
        n_stft=201,
        norm=None,
        mel_scale="htk",
    ):
        super().__init__()
        self.n_mels = n_mels
        self.sample_rate = sample_rate
        self.f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.f_min = f_min
        self.norm = norm
        self.mel_scale = mel_scale
        if f_min > self.f_max:
            raise ValueError(f"MelScale: require f_min ({f_min}) <= f_max ({self.f_max})")
        self.register_buffer(
            "fb",
            F.melscale_fbanks(n_stft, self.f_min, self.f_max, n_mels, sample_rate, norm, mel_scale),
        )

    def forward(self, specgram):
        if specgram.shape[-2] != self.fb.shape[0]:
            raise ValueError(
                f"MelScale: expected {self.fb.shape[0]} frequency bins at dim -2, "
                f"got shape {tuple(specgram.shape)}"
            )
        return _along_freq(specgram, self.fb)


class InverseMelScale(_Base):
    """Estimates a linear-frequency spectrogram from a mel one: minimizes
    ||mel - fb^T S||^2 over S >= 0 by projected SGD with momentum (torchaudio 0.13's method)."""

    def __init__(
        self,
        n_stft,
        n_mels=128,
        sample_rate=16000,
        f_min=0.0,
        f_max=None,
        max_iter=100000,
        tolerance_loss=1e-5,
        tolerance_change=1e-8,
        sgdargs=None,
        norm=None,
        mel_scale="htk",
    ):
        super().__init__()
        self.n_mels = n_mels
        self.sample_rate = sample_rate
        self.f_max = f_max or float(sample_rate // 2)
        self.f_min = f_min
        self.max_iter = max_iter
        self.tolerance_loss = tolerance_loss
        self.tolerance_change = tolerance_change
        self.sgdargs = sgdargs or {"lr": 0.1, "momentum": 0.9}
        if f_min > self.f_max:
            raise ValueError(f"InverseMelScale: require f_min ({f_min}) <= f_max ({self.f_max})")
        self.register_buffer(
            "fb",
            F.melscale_fbanks(n_stft, self.f_min, self.f_max, n_mels, sample_rate, norm, mel_scale),
        )

    def forward(self, melspec):
        shape = tuple(melspec.shape)
        if shape[-2] != self.n_mels:
            raise ValueError(
                f"InverseMelScale: expected {self.n_mels} mel bins at dim -2, got shape {shape}"
            )
        mel = (
            melspec.reshape(-1, shape[-2], shape[-1]).transpose(-1, -2).detach()
        )  # (b, time, mels)
        fb = self.fb.to(mel.device, mel.dtype)
        freq = fb.shape[0]
        # drawn on the CPU generator, so CPU and CUDA runs start from the same point
        spec = tc.rand(mel.shape[0], shape[-1], freq, dtype=mel.dtype).to(mel.device)
        velocity = tc.zeros_like(spec)
        lr = self.sgdargs.get("lr", 0.1)
        momentum = self.sgdargs.get("momentum", 0.0)
        frames = mel.shape[0] * mel.shape[1]
        fb_t = fb.t()
        loss = float("inf")
        for i in range(self.max_iter):
            diff = mel - tc.matmul(spec, fb)
            new_loss = float((diff * diff).sum() / frames)
            grad = tc.matmul(diff, fb_t) * (-2.0 / frames)
            velocity = grad if i == 0 else velocity * momentum + grad
            spec = tc.clamp(spec - lr * velocity, min=0)
            if new_loss < self.tolerance_loss or abs(loss - new_loss) < self.tolerance_change:
                break
            loss = new_loss
        return spec.transpose(-1, -2).reshape(shape[:-2] + (freq, shape[-1]))


# ---- spectrogram-based transforms (need tensorcore's FFT: tc.stft / tc.istft / windows) ----


def _window(window_fn, win_length, wkwargs):
    if window_fn is None:
        if not hasattr(tc, "hann_window"):
            raise NotImplementedError(
                "spectrogram transforms need tensorcore's FFT and window "
                "functions (tc.hann_window), which this build lacks"
            )
        window_fn = tc.hann_window
    return window_fn(win_length) if wkwargs is None else window_fn(win_length, **wkwargs)


class Spectrogram(_Base):
    """(..., time) -> (..., n_fft // 2 + 1, frames) power (or complex, power=None) spectrogram."""

    def __init__(
        self,
        n_fft=400,
        win_length=None,
        hop_length=None,
        pad=0,
        window_fn=None,
        power=2.0,
        normalized=False,
        wkwargs=None,
        center=True,
        pad_mode="reflect",
        onesided=True,
        return_complex=None,
    ):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.pad = pad
        self.power = power
        self.normalized = normalized
        self.center = center
        self.pad_mode = pad_mode
        self.onesided = onesided

    def forward(self, waveform):
        return F.spectrogram(
            waveform,
            self.pad,
            self.window.to(waveform.device, waveform.dtype),
            self.n_fft,
            self.hop_length,
            self.win_length,
            self.power,
            self.normalized,
            self.center,
            self.pad_mode,
            self.onesided,
        )


class InverseSpectrogram(_Base):
    def __init__(
        self,
        n_fft=400,
        win_length=None,
        hop_length=None,
        pad=0,
        window_fn=None,
        normalized=False,
        wkwargs=None,
        center=True,
        pad_mode="reflect",
        onesided=True,
    ):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.pad = pad
        self.normalized = normalized
        self.center = center
        self.pad_mode = pad_mode
        self.onesided = onesided

    def forward(self, spectrogram, length=None):
        window = self.window.to(spectrogram.device, tc.real(spectrogram).dtype)
        return F.inverse_spectrogram(
            spectrogram,
            length,
            self.pad,
            window,
            self.n_fft,
            self.hop_length,
            self.win_length,
            self.normalized,
            self.center,
            self.pad_mode,
            self.onesided,
        )


class GriffinLim(_Base):
    def __init__(
        self,
        n_fft=400,
        n_iter=32,
        win_length=None,
        hop_length=None,
        window_fn=None,
        power=2.0,
        wkwargs=None,
        momentum=0.99,
        length=None,
        rand_init=True,
    ):
        super().__init__()
        if not 0 <= momentum < 1:
            raise ValueError(f"GriffinLim: momentum must be in [0, 1), got {momentum}")
        self.n_fft = n_fft
        self.n_iter = n_iter
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.length = length
        self.power = power
        self.momentum = momentum
        self.rand_init = rand_init

    def forward(self, specgram):
        return F.griffinlim(
            specgram,
            self.window.to(specgram.device, specgram.dtype),
            self.n_fft,
            self.hop_length,
            self.win_length,
            self.power,
            self.n_iter,
            self.momentum,
            self.length,
            self.rand_init,
        )


class MelSpectrogram(_Base):
    """Spectrogram followed by MelScale."""

    def __init__(
        self,
        sample_rate=16000,
        n_fft=400,
        win_length=None,
        hop_length=None,
        f_min=0.0,
        f_max=None,
        pad=0,
        n_mels=128,
        window_fn=None,
        power=2.0,
        normalized=False,
        wkwargs=None,
        center=True,
        pad_mode="reflect",
        onesided=True,
        norm=None,
        mel_scale="htk",
    ):
        super().__init__()
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.pad = pad
        self.power = power
        self.normalized = normalized
        self.n_mels = n_mels
        self.f_max = f_max
        self.f_min = f_min
        self.spectrogram = Spectrogram(
            n_fft=n_fft,
            win_length=self.win_length,
            hop_length=self.hop_length,
            pad=pad,
            window_fn=window_fn,
            power=power,
            normalized=normalized,
            wkwargs=wkwargs,
            center=center,
            pad_mode=pad_mode,
            onesided=onesided,
        )
        self.mel_scale = MelScale(
            n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1, norm, mel_scale
        )

    def forward(self, waveform):
        return self.mel_scale(self.spectrogram(waveform))


class MFCC(_Base):
    def __init__(
        self, sample_rate=16000, n_mfcc=40, dct_type=2, norm="ortho", log_mels=False, melkwargs=None
    ):
        super().__init__()
        if dct_type != 2:
            raise ValueError(f"MFCC: only DCT type 2 is supported, got {dct_type}")
        self.sample_rate = sample_rate
        self.n_mfcc = n_mfcc
        self.dct_type = dct_type
        self.norm = norm
        self.top_db = 80.0
        self.amplitude_to_DB = AmplitudeToDB("power", self.top_db)
        self.MelSpectrogram = MelSpectrogram(sample_rate=sample_rate, **(melkwargs or {}))
        if n_mfcc > self.MelSpectrogram.n_mels:
            raise ValueError("MFCC: cannot select more MFCC coefficients than mel bins")
        self.register_buffer("dct_mat", F.create_dct(n_mfcc, self.MelSpectrogram.n_mels, norm))
        self.log_mels = log_mels

    def forward(self, waveform):
        fast = _cepstral(
            self.MelSpectrogram.spectrogram,
            self.MelSpectrogram.mel_scale.fb,
            self.dct_mat,
            waveform,
            None if self.log_mels else self.amplitude_to_DB,
        )
        if fast is not None:
            return fast
        mel = self.MelSpectrogram(waveform)
        mel = tc.log(mel + 1e-6) if self.log_mels else self.amplitude_to_DB(mel)
        return _along_freq(mel, self.dct_mat)


class LFCC(_Base):
    def __init__(
        self,
        sample_rate=16000,
        n_filter=128,
        f_min=0.0,
        f_max=None,
        n_lfcc=40,
        dct_type=2,
        norm="ortho",
        log_lf=False,
        speckwargs=None,
    ):
        super().__init__()
        if dct_type != 2:
            raise ValueError(f"LFCC: only DCT type 2 is supported, got {dct_type}")
        self.sample_rate = sample_rate
        self.f_min = f_min
        self.f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.n_filter = n_filter
        self.n_lfcc = n_lfcc
        self.dct_type = dct_type
        self.norm = norm
        self.top_db = 80.0
        self.amplitude_to_DB = AmplitudeToDB("power", self.top_db)
        self.Spectrogram = Spectrogram(**(speckwargs or {}))
        if n_lfcc > self.Spectrogram.n_fft:
            raise ValueError("LFCC: cannot select more LFCC coefficients than FFT bins")
        self.register_buffer(
            "filter_mat",
            F.linear_fbanks(
                self.Spectrogram.n_fft // 2 + 1, f_min, self.f_max, n_filter, sample_rate
            ),
        )
        self.register_buffer("dct_mat", F.create_dct(n_lfcc, n_filter, norm))
        self.log_lf = log_lf

    def forward(self, waveform):
        fast = _cepstral(
            self.Spectrogram,
            self.filter_mat,
            self.dct_mat,
            waveform,
            None if self.log_lf else self.amplitude_to_DB,
        )
        if fast is not None:
            return fast
        spec = self.Spectrogram(waveform)
        spec = _along_freq(spec, self.filter_mat)
        spec = tc.log(spec + 1e-6) if self.log_lf else self.amplitude_to_DB(spec)
        return _along_freq(spec, self.dct_mat)


class TimeStretch(_Base):
    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None):
        super().__init__()
        self.fixed_rate = fixed_rate
        n_fft = (n_freq - 1) * 2
        hop_length = hop_length if hop_length is not None else n_fft // 2
        self.register_buffer(
            "phase_advance", tc.linspace(0, math.pi * hop_length, n_freq).unsqueeze(-1)
        )

    def forward(self, complex_specgrams, overriding_rate=None):
        rate = overriding_rate if overriding_rate is not None else self.fixed_rate
        if rate is None:
            raise ValueError("TimeStretch: pass a rate to forward when no fixed_rate was given")
        advance = self.phase_advance.to(complex_specgrams.device, tc.real(complex_specgrams).dtype)
        return F.phase_vocoder(complex_specgrams, rate, advance)


class SpectralCentroid(_Base):
    def __init__(
        self,
        sample_rate,
        n_fft=400,
        win_length=None,
        hop_length=None,
        pad=0,
        window_fn=None,
        wkwargs=None,
    ):
        super().__init__()
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        self.pad = pad

    def forward(self, waveform):
        return F.spectral_centroid(
            waveform,
            self.sample_rate,
            self.pad,
            self.window.to(waveform.device, waveform.dtype),
            self.n_fft,
            self.hop_length,
            self.win_length,
        )


class Vad(_Base):
    """Trims leading silence (SoX vad); see functional.vad for the parameters."""

    def __init__(
        self,
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
        super().__init__()
        self.sample_rate = sample_rate
        self.kwargs = dict(
            trigger_level=trigger_level,
            trigger_time=trigger_time,
            search_time=search_time,
            allowed_gap=allowed_gap,
            pre_trigger_time=pre_trigger_time,
            boot_time=boot_time,
            noise_up_time=noise_up_time,
            noise_down_time=noise_down_time,
            noise_reduction_amount=noise_reduction_amount,
            measure_freq=measure_freq,
            measure_duration=measure_duration,
            measure_smooth_time=measure_smooth_time,
            hp_filter_freq=hp_filter_freq,
            lp_filter_freq=lp_filter_freq,
            hp_lifter_freq=hp_lifter_freq,
            lp_lifter_freq=lp_lifter_freq,
        )

    def forward(self, waveform):
        return F.vad(waveform, self.sample_rate, **self.kwargs)


class StreamingResample(_Base):
    """Resample applied to a signal that arrives in chunks: concatenating what each call returns
    (and `flush()` at the end) gives exactly, bit for bit, `functional.resample` of the whole
    signal. Each call returns every output sample whose inputs have all arrived; the rest waits
    in a history buffer of a few filter widths. Chunks are (..., time) with the same leading dims.
    """

    def __init__(
        self,
        orig_freq,
        new_freq,
        resampling_method="sinc_interpolation",
        lowpass_filter_width=6,
        rolloff=0.99,
        beta=None,
    ):
        super().__init__()
        if (
            int(orig_freq) != orig_freq
            or int(new_freq) != new_freq
            or orig_freq <= 0
            or new_freq <= 0
        ):
            raise ValueError(
                f"StreamingResample: frequencies must be positive integers, got "
                f"{orig_freq}, {new_freq}"
            )
        self.orig_freq, self.new_freq = int(orig_freq), int(new_freq)
        g = math.gcd(self.orig_freq, self.new_freq)
        self._o, self._n = self.orig_freq // g, self.new_freq // g
        self._width = math.ceil(lowpass_filter_width * self._o / (min(self._o, self._n) * rolloff))
        self._history_blocks = -(-self._width // self._o)  # blocks of lead-in the kernel zero-pads
        self._args = (lowpass_filter_width, rolloff, resampling_method, beta)
        self.reset()

    def reset(self):
        self._buffer = None  # input samples from absolute index self._buffer_start on
        self._buffer_start = 0
        self._total_in = 0
        self._next_block = 0  # output block i covers outputs i * new .. i * new + new - 1

    def _blocks(self, i0, i1, pad_end):
        """Outputs of blocks [i0, i1) from the buffered input (zeros past the end if pad_end)."""
        start = (i0 - self._history_blocks) * self._o
        stop = i1 * self._o + self._width + self._o
        buf = self._buffer
        lead = tuple(buf.shape[:-1])
        pieces = []
        if start < self._buffer_start:  # before the signal began: the one-shot call sees zeros
            pieces.append(tc.zeros(*lead, self._buffer_start - start, dtype=buf.dtype))
        lo = max(start, self._buffer_start) - self._buffer_start
        hi = min(stop, self._total_in) - self._buffer_start
        pieces.append(buf[..., lo:hi])
        if pad_end and stop > self._total_in:
            pieces.append(tc.zeros(*lead, stop - max(self._total_in, start), dtype=buf.dtype))
        segment = tc.cat(pieces, -1) if len(pieces) > 1 else pieces[0]
        out = F.resample(segment, self._o, self._n, *self._args)
        first = self._history_blocks * self._n
        return out[..., first : first + (i1 - i0) * self._n]

    def forward(self, chunk):
        if not chunk.is_floating_point():
            raise TypeError(
                f"StreamingResample: expected a floating point chunk, got {chunk.dtype}"
            )
        if self._buffer is None:
            self._buffer = chunk
        else:
            if tuple(chunk.shape[:-1]) != tuple(self._buffer.shape[:-1]):
                raise ValueError(
                    f"StreamingResample: chunk leading dims {tuple(chunk.shape[:-1])} "
                    f"differ from earlier chunks' {tuple(self._buffer.shape[:-1])}"
                )
            self._buffer = tc.cat([self._buffer, chunk.to(self._buffer.dtype)], -1)
        self._total_in += chunk.shape[-1]
        if self._o == self._n:
            out, self._buffer, self._buffer_start = self._buffer, None, self._total_in
            return out
        # block i needs inputs up to i * orig + width + orig - 1
        ready = (self._total_in - self._width - self._o) // self._o + 1
        if ready <= self._next_block:
            return self._buffer[..., :0]
        out = self._blocks(self._next_block, ready, pad_end=False)
        self._next_block = ready
        self._trim()
        return out

    def flush(self):
        """The remaining outputs (the signal's end is zero-padded, as in one call)."""
        if self._buffer is None or self._o == self._n:
            return None if self._buffer is None else self._buffer[..., :0]
        total_out = -(-self._n * self._total_in // self._o)
        last_block = -(-total_out // self._n)
        out = self._buffer[..., :0]
        if last_block > self._next_block:
            out = self._blocks(self._next_block, last_block, pad_end=True)
            out = out[..., : total_out - self._next_block * self._n]
        self.reset()
        return out

    def _trim(self):
        keep_from = max((self._next_block - self._history_blocks) * self._o, self._buffer_start)
        drop = keep_from - self._buffer_start
        if drop > 0:
            self._buffer = self._buffer[..., drop:]
            self._buffer_start = keep_from


from .pipeline import Compose, pipeline_json, save_pipeline  # noqa: E402,F401  (C++ deployment)
from ._transforms_more import (  # noqa: E402,F401
    MVDR,
    PSD,
    RTFMVDR,
    Loudness,
    PitchShift,
    RNNTLoss,
    SoudenMVDR,
)
