"""Vocoder metrics against the ground-truth waveform: log-mel L1 distance and mel-cepstral
distortion (MCD), and the Griffin-Lim reconstruction from the same mel spectrogram (the baseline
a neural vocoder has to beat).

MCD here: cepstra are the orthonormal DCT-II of the natural-log mel amplitude spectrum
(coefficients 1..13, c0 - the energy - left out, as usual), and
MCD = 10 / ln(10) * sqrt(2 * sum_k (c_k - c'_k)^2), averaged over frames.

`loudness_corr` is a diagnostic, not a target: the Pearson correlation of the two signals' log
frame energies (mean square of the mel amplitudes per frame). A vocoder that has learnt the
waveform's statistics but not to follow its mel scores near 0 here while its distances are
still moderate; one that follows the mel approaches 1.
"""

import math

import numpy as np

import tensorcore as tc
import tensorcore.audio as ta


class MelAnalysis:
    """The mel front end used for the distances (fixed, independent of the model's features)."""

    def __init__(self, sample_rate, n_fft=1024, hop_length=256, n_mels=80, n_cepstra=13):
        self.sample_rate, self.n_fft, self.hop_length, self.n_mels = (
            sample_rate,
            n_fft,
            hop_length,
            n_mels,
        )
        self.mel = ta.transforms.MelSpectrogram(
            sample_rate=sample_rate, n_fft=n_fft, hop_length=hop_length, n_mels=n_mels, power=1.0
        )
        k = np.arange(n_mels)
        dct = np.cos(np.pi / n_mels * (k[None, :] + 0.5) * np.arange(n_cepstra + 1)[:, None])
        dct *= np.sqrt(2.0 / n_mels)
        dct[0] /= np.sqrt(2.0)
        self.dct = dct[1:]  # (n_cepstra, n_mels) without c0

    def log_mel(self, waveform):
        wave = tc.as_tensor(np.asarray(waveform, dtype=np.float32)).reshape(1, -1)
        mel = self.mel(wave)[0].numpy().astype(np.float64)  # (n_mels, frames)
        return np.log(np.maximum(mel, 1e-5))

    def distances(self, estimate, reference):
        n = min(len(estimate), len(reference))
        a, b = self.log_mel(estimate[:n]), self.log_mel(reference[:n])
        l1 = float(np.mean(np.abs(a - b)))
        diff = self.dct @ (a - b)  # (n_cepstra, frames)
        mcd = float(np.mean(10.0 / math.log(10.0) * np.sqrt(2.0 * np.sum(diff**2, axis=0))))
        return {"log_mel_l1": l1, "mcd": mcd, "loudness_corr": _loudness_correlation(a, b)}


def _loudness_correlation(log_mel_a, log_mel_b):
    energy_a = np.log(np.mean(np.exp(2.0 * log_mel_a), axis=0))
    energy_b = np.log(np.mean(np.exp(2.0 * log_mel_b), axis=0))
    if energy_a.size < 2 or np.ptp(energy_a) == 0.0 or np.ptp(energy_b) == 0.0:
        return 0.0  # a constant loudness follows nothing
    return float(np.corrcoef(energy_a, energy_b)[0, 1])


class GriffinLimFromMel:
    """Waveform from a power mel spectrogram: the filterbank's pseudo-inverse gives a linear
    spectrogram (clamped at 0), then Griffin-Lim finds a phase."""

    def __init__(
        self, sample_rate, n_fft, hop_length, n_mels, f_min=0.0, f_max=None, n_iter=32,
        filterbank=None,
    ):  # fmt: skip
        """`filterbank`: the (freqs, n_mels) matrix the mel was made with (a MelSpectrogram's
        `mel_scale.fb`); None: the HTK, unnormalized one the other arguments describe."""
        if filterbank is None:
            filterbank = ta.functional.melscale_fbanks(
                n_fft // 2 + 1, f_min, f_max if f_max else sample_rate / 2.0, n_mels, sample_rate
            )
        fb = filterbank.numpy()
        self.pinv = np.linalg.pinv(fb.T.astype(np.float64))  # (freqs, n_mels)
        self.griffin_lim = ta.transforms.GriffinLim(
            n_fft=n_fft, hop_length=hop_length, n_iter=n_iter, power=2.0
        )

    def __call__(self, mel_power, length):
        linear = np.maximum(self.pinv @ np.asarray(mel_power, dtype=np.float64), 0.0)
        spec = tc.as_tensor(linear.astype(np.float32)).unsqueeze(0)
        self.griffin_lim.length = length
        wave = self.griffin_lim(spec)[0].numpy()
        return wave[:length]
