"""Linear prediction from the mel spectrogram (LPCNet, Valin & Skoglund 2019): the spectral
envelope is known from the conditioning, so the network only has to model the excitation
e[n] = s[n] - p[n], with p[n] = -sum_k a_k s[n-k]. Its sampling noise then passes through the
synthesis filter 1/A(z) and follows the formants instead of lying flat under them.

Coefficients come from the mel alone (what generation has): mel power -> linear power through
the filterbank's pseudo-inverse -> autocorrelation (inverse FFT) -> Levinson-Durbin. Frame t
serves the samples nearest its centre t * hop (the mel is centred)."""

import numpy as np

# A 30 Hz Gaussian lag window and a -40 dB white-noise floor keep the filters stable and their
# peaks bounded when the mel is sharper or flatter than a real spectrum.
LAG_WINDOW_HZ = 30.0
NOISE_FLOOR = 1e-4


def levinson(autocorrelation):
    """Prediction coefficients a (frames, order + 1), a[:, 0] = 1, from autocorrelations
    (frames, order + 1): the Toeplitz normal equations solved for every frame at once."""
    r = np.asarray(autocorrelation, dtype=np.float64)
    frames, order = r.shape[0], r.shape[1] - 1
    a = np.zeros((frames, order + 1))
    a[:, 0] = 1.0
    error = r[:, 0].copy()
    for i in range(1, order + 1):
        acc = r[:, i] + np.einsum("fj,fj->f", a[:, 1:i], r[:, i - 1 : 0 : -1])
        k = -acc / error
        a[:, 1:i] = a[:, 1:i] + k[:, None] * a[:, i - 1 : 0 : -1]
        a[:, i] = k
        error = error * (1.0 - k * k)
    return a


class MelLPC:
    """Per-frame prediction filters for one mel front end."""

    def __init__(self, filterbank, n_fft, sample_rate, order, preemphasis=0.0):
        """filterbank: (freqs, n_mels) as MelSpectrogram's mel_scale.fb; preemphasis: the
        coefficient the modelled waveform was emphasized with (the mel is of the raw one)."""
        fb = np.asarray(filterbank, dtype=np.float64)
        self.pinv = np.linalg.pinv(fb.T)  # (freqs, n_mels)
        self.n_fft, self.order = n_fft, order
        w = np.linspace(0.0, np.pi, fb.shape[0])
        self.tilt = np.abs(1.0 - preemphasis * np.exp(-1j * w)) ** 2 / (1.0 + preemphasis) ** 2
        lags = np.arange(order + 1)
        self.lag_window = np.exp(-0.5 * (2 * np.pi * LAG_WINDOW_HZ / sample_rate * lags) ** 2)

    def coefficients(self, mel_power):
        """(frames, order + 1) from a power mel spectrogram (n_mels, frames)."""
        linear = np.maximum(self.pinv @ np.asarray(mel_power, dtype=np.float64), 0.0)
        linear = linear * self.tilt[:, None]
        r = np.fft.irfft(linear, n=self.n_fft, axis=0)[: self.order + 1].T  # (frames, order+1)
        r = r * self.lag_window
        r[:, 0] = r[:, 0] * (1.0 + NOISE_FLOOR) + 1e-12
        return levinson(r)

    def sample_filters(self, coefficients, n_samples, hop_length, first_sample=0, first_frame=0):
        """The filter of each of n_samples samples starting at first_sample: (n, order + 1);
        coefficients[0] is frame first_frame's."""
        n = first_sample + np.arange(n_samples)
        frame = np.rint(n / hop_length).astype(np.int64) - first_frame
        return coefficients[np.clip(frame, 0, len(coefficients) - 1)]


def prediction(wave, filters):
    """p[n] = -sum_k a_k wave[n-k] for every n (wave before its start is 0)."""
    wave = np.asarray(wave, dtype=np.float64)
    p = np.zeros(len(wave))
    for k in range(1, filters.shape[1]):
        p[k:] -= filters[k:, k] * wave[:-k]
    return p


def synthesize(excitation, filters):
    """The inverse of prediction(): s[n] = e[n] + p[n] from the s already made, clipped to [-1, 1]
    as generation clips."""
    order = filters.shape[1] - 1
    history = np.zeros(len(excitation) + order)
    for n, e in enumerate(np.asarray(excitation, dtype=np.float64)):
        past = history[n : n + order][::-1]
        history[n + order] = min(1.0, max(-1.0, e - float(np.dot(filters[n, 1:], past))))
    return history[order:]
