"""torchaudio 0.13 transforms over the newer functional ops: Loudness, PitchShift, RNNTLoss and
the multi-channel ones (PSD, MVDR, RTFMVDR, SoudenMVDR). Imported into transforms."""

import math
import warnings

import tensorcore as tc

from . import functional as F
from .functional.beamforming import _require_tensor
from .transforms import _Base, _window


class Loudness(_Base):
    """Integrated loudness in LKFS after ITU-R BS.1770-4 (see functional.loudness).

    Args:
        sample_rate (int): sampling rate of the audio in Hz.

    forward(waveform): waveform (..., channels, time) with at most 5 channels -> (...).
    """

    def __init__(self, sample_rate):
        super().__init__()
        self.sample_rate = sample_rate

    def forward(self, wavefrom):
        return F.loudness(wavefrom, self.sample_rate)


class PitchShift(_Base):
    """Shifts the pitch by ``n_steps`` steps of 1/bins_per_octave octave (phase vocoder, then
    resampling; see functional.pitch_shift).

    Args:
        sample_rate (int): sampling rate in Hz.
        n_steps (int or float): the (fractional) number of steps to shift.
        bins_per_octave (int): steps per octave.
        n_fft (int): FFT size.
        win_length (int or None): window length; None means n_fft.
        hop_length (int or None): hop between frames; None means win_length // 4.
        window_fn (callable): makes the window from its length (default tc.hann_window).
        wkwargs (dict or None): keyword arguments for window_fn.

    forward(waveform): (..., time) -> (..., time).
    """

    def __init__(
        self,
        sample_rate,
        n_steps,
        bins_per_octave=12,
        n_fft=512,
        win_length=None,
        hop_length=None,
        window_fn=None,
        wkwargs=None,
    ):
        super().__init__()
        self.n_steps = n_steps
        self.bins_per_octave = bins_per_octave
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 4
        self.register_buffer("window", _window(window_fn, self.win_length, wkwargs))
        rate = 2.0 ** (-float(n_steps) / bins_per_octave)
        self.orig_freq = int(sample_rate / rate)
        self.gcd = math.gcd(int(self.orig_freq), int(sample_rate))

    def forward(self, waveform):
        return F.pitch_shift(
            waveform,
            self.sample_rate,
            self.n_steps,
            self.bins_per_octave,
            self.n_fft,
            self.win_length,
            self.hop_length,
            self.window.to(waveform.device, waveform.dtype),
        )


class RNNTLoss(_Base):
    """RNN Transducer loss (see functional.rnnt_loss).

    Args:
        blank (int): the blank label; negative counts from the end.
        clamp (float): when > 0, clamps each gradient element to [-clamp, clamp].
        reduction (str): "none", "mean" or "sum".
        fused_log_softmax (bool, keyword-only; torchaudio 0.10-0.12): False takes the logits as
            log-probabilities already.

    forward(logits, targets, logit_lengths, target_lengths): logits (batch, time, target + 1,
    class), targets (batch, target), lengths (batch,) -> the reduced loss.
    """

    def __init__(self, blank=-1, clamp=-1.0, reduction="mean", *, fused_log_softmax=True):
        super().__init__()
        self.blank = blank
        self.clamp = clamp
        self.reduction = reduction
        self.fused_log_softmax = fused_log_softmax

    def forward(self, logits, targets, logit_lengths, target_lengths):
        return F.rnnt_loss(
            logits,
            targets,
            logit_lengths,
            target_lengths,
            self.blank,
            self.clamp,
            self.reduction,
            fused_log_softmax=self.fused_log_softmax,
        )


class PSD(_Base):
    """Cross-channel power spectral density matrix (see functional.psd).

    Args:
        multi_mask (bool): the mask has a channel dim (..., channel, freq, time) and is
            averaged over it.
        normalize (bool): normalize the mask over time.
        eps (float): added to the mask's sum when normalizing.

    forward(specgram, mask=None): complex (..., channel, freq, time) -> complex
    (..., freq, channel, channel).
    """

    def __init__(self, multi_mask=False, normalize=True, eps=1e-15):
        super().__init__()
        self.multi_mask = multi_mask
        self.normalize = normalize
        self.eps = eps

    def forward(self, specgram, mask=None):
        if mask is not None and self.multi_mask:
            _require_tensor(mask, "PSD", "mask")
            if mask.dim() < 3:
                raise ValueError(
                    f"PSD: with multi_mask=True the mask must be (..., channel, freq, time), "
                    f"got shape {tuple(mask.shape)}"
                )
            mask = mask.mean(dim=-3)
        return F.psd(specgram, mask, self.normalize, self.eps)


def _mvdr_vector(psd_s, psd_n, reference_vector, solution, diagonal_loading, diag_eps, eps=1e-8):
    if solution == "ref_channel":
        return F.mvdr_weights_souden(
            psd_s, psd_n, reference_vector, diagonal_loading, diag_eps, eps
        )
    if solution == "stv_evd":
        stv = F.rtf_evd(psd_s)
    else:
        stv = F.rtf_power(
            psd_s, psd_n, reference_vector, diagonal_loading=diagonal_loading, diag_eps=diag_eps
        )
    return F.mvdr_weights_rtf(stv, psd_n, reference_vector, diagonal_loading, diag_eps, eps)


class MVDR(_Base):
    """MVDR beamforming with time-frequency masks (torchaudio's older all-in-one module).

    The PSD matrices of speech and noise come from the masks; the weights from one of three
    solutions: "ref_channel" (Souden), "stv_evd" (steering vector by eigendecomposition) or
    "stv_power" (steering vector by the power method). With ``online=True`` the PSD matrices
    are updated recursively across calls (weighted by the accumulated mask sums). The work is
    done in complex128; the result has the input's dtype.

    Args:
        ref_channel (int): the reference channel.
        solution (str): "ref_channel", "stv_evd" or "stv_power".
        multi_mask (bool): masks have a channel dim (..., channel, freq, time), averaged over it.
        diag_loading (bool): diagonal loading of the noise PSD matrix.
        diag_eps (float): the diagonal loading factor.
        online (bool): update the PSD matrices recursively across calls.

    forward(specgram, mask_s, mask_n=None): complex (..., channel, freq, time) and masks
    (..., freq, time) -> complex (..., freq, time). mask_n defaults to 1 - mask_s (with a
    warning).
    """

    def __init__(
        self,
        ref_channel=0,
        solution="ref_channel",
        multi_mask=False,
        diag_loading=True,
        diag_eps=1e-7,
        online=False,
    ):
        super().__init__()
        if solution not in ("ref_channel", "stv_evd", "stv_power"):
            raise ValueError(
                f'MVDR: solution must be one of ["ref_channel", "stv_evd", "stv_power"], '
                f"got {solution!r}"
            )
        self.ref_channel = ref_channel
        self.solution = solution
        self.multi_mask = multi_mask
        self.diag_loading = diag_loading
        self.diag_eps = diag_eps
        self.online = online
        self.psd = PSD(multi_mask)
        self.register_buffer("psd_s", tc.zeros(1))
        self.register_buffer("psd_n", tc.zeros(1))
        self.register_buffer("mask_sum_s", tc.zeros(1))
        self.register_buffer("mask_sum_n", tc.zeros(1))

    def _updated_psd(self, previous, previous_mask_sum, current, mask):
        total = previous_mask_sum + mask.sum(dim=-1)
        keep = (previous_mask_sum / total).unsqueeze(-1).unsqueeze(-1)
        add = (1 / total).unsqueeze(-1).unsqueeze(-1)
        return previous * keep + current * add

    def _online_mvdr_vector(self, psd_s, psd_n, mask_s, mask_n, reference_vector):
        if self.multi_mask:
            mask_s = mask_s.mean(dim=-3)
            mask_n = mask_n.mean(dim=-3)
        if self.psd_s.dim() == 1:  # the first call starts the running estimates
            self.psd_s = psd_s
            self.psd_n = psd_n
            self.mask_sum_s = mask_s.sum(dim=-1)
            self.mask_sum_n = mask_n.sum(dim=-1)
        else:
            psd_s = self._updated_psd(self.psd_s, self.mask_sum_s, psd_s, mask_s)
            psd_n = self._updated_psd(self.psd_n, self.mask_sum_n, psd_n, mask_n)
            self.psd_s = psd_s
            self.psd_n = psd_n
            self.mask_sum_s = self.mask_sum_s + mask_s.sum(dim=-1)
            self.mask_sum_n = self.mask_sum_n + mask_n.sum(dim=-1)
        return _mvdr_vector(
            psd_s, psd_n, reference_vector, self.solution, self.diag_loading, self.diag_eps
        )

    def forward(self, specgram, mask_s, mask_n=None):
        _require_tensor(specgram, "MVDR", "specgram")
        _require_tensor(mask_s, "MVDR", "mask_s")
        dtype = specgram.dtype
        if specgram.dim() < 3:
            raise ValueError(
                f"MVDR: expected specgram of at least 3 dims (..., channel, freq, time), "
                f"got shape {tuple(specgram.shape)}"
            )
        if not specgram.is_complex():
            raise ValueError(
                f"MVDR: specgram must be complex (complex64 or complex128), got {specgram.dtype}"
            )
        if not -specgram.shape[-3] <= self.ref_channel < specgram.shape[-3]:
            raise IndexError(
                f"MVDR: ref_channel {self.ref_channel} is out of range for "
                f"{specgram.shape[-3]} channels"
            )
        specgram = specgram.to(tc.complex128)
        if mask_n is None:
            warnings.warn("MVDR: mask_n is not provided, use 1 - mask_s as mask_n.")
            mask_n = 1 - mask_s
        psd_s = self.psd(specgram, mask_s)
        psd_n = self.psd(specgram, mask_n)
        u = tc.zeros(
            *specgram.shape[:-2], dtype=tc.complex128, device=specgram.device
        )  # one-hot (..., channel)
        u[..., self.ref_channel] = 1
        if self.online:
            w = self._online_mvdr_vector(psd_s, psd_n, mask_s, mask_n, u)
        else:
            w = _mvdr_vector(psd_s, psd_n, u, self.solution, self.diag_loading, self.diag_eps)
        return F.apply_beamforming(w, specgram).to(dtype)


class RTFMVDR(_Base):
    """MVDR beamforming from the relative transfer function of the target and the noise PSD
    matrix (functional.mvdr_weights_rtf, then functional.apply_beamforming).

    forward(specgram, rtf, psd_n, reference_channel, diagonal_loading=True, diag_eps=1e-7,
    eps=1e-8): specgram complex (..., channel, freq, time), rtf (..., freq, channel), psd_n
    (..., freq, channel, channel), reference_channel an int or a one-hot (..., channel) Tensor
    -> complex (..., freq, time).
    """

    def __init__(self):
        super().__init__()

    def forward(
        self,
        specgram,
        rtf,
        psd_n,
        reference_channel,
        diagonal_loading=True,
        diag_eps=1e-7,
        eps=1e-8,
    ):
        w = F.mvdr_weights_rtf(rtf, psd_n, reference_channel, diagonal_loading, diag_eps, eps)
        return F.apply_beamforming(w, specgram)


class SoudenMVDR(_Base):
    """MVDR beamforming by Souden et al. from the speech and noise PSD matrices
    (functional.mvdr_weights_souden, then functional.apply_beamforming).

    forward(specgram, psd_s, psd_n, reference_channel, diagonal_loading=True, diag_eps=1e-7,
    eps=1e-8): specgram complex (..., channel, freq, time), psd_s and psd_n
    (..., freq, channel, channel), reference_channel an int or a one-hot (..., channel) Tensor
    -> complex (..., freq, time).
    """

    def __init__(self):
        super().__init__()

    def forward(
        self,
        specgram,
        psd_s,
        psd_n,
        reference_channel,
        diagonal_loading=True,
        diag_eps=1e-7,
        eps=1e-8,
    ):
        w = F.mvdr_weights_souden(psd_s, psd_n, reference_channel, diagonal_loading, diag_eps, eps)
        return F.apply_beamforming(w, specgram)
