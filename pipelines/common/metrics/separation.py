"""Source separation: the PIT SI-SNR training loss (tensorcore ops, differentiable) and the
held-out scores SI-SNRi and SDRi with permutation-invariant assignment (NumPy)."""

import itertools

import numpy as np

import tensorcore as tc


def si_snr_matrix(estimates, references, eps=1e-8):
    """(batch, sources, L) x (batch, sources, L) -> (batch, est, ref) SI-SNR in dB."""
    est = estimates - estimates.mean(dim=-1, keepdim=True)
    ref = references - references.mean(dim=-1, keepdim=True)
    dot = tc.matmul(est, ref.transpose(1, 2))  # (B, est, ref)
    ref_energy = (ref * ref).sum(dim=-1).unsqueeze(1) + eps  # (B, 1, ref)
    scale = dot / ref_energy
    target_energy = scale * scale * ref_energy
    est_energy = (est * est).sum(dim=-1).unsqueeze(2)  # (B, est, 1)
    noise_energy = est_energy - 2 * scale * dot + target_energy
    return 10 * tc.log10((target_energy + eps) / (noise_energy.clamp(min=0) + eps))


def pit_si_snr_loss(estimates, references):
    """Negative SI-SNR under the best assignment of estimates to references, batch mean."""
    matrix = si_snr_matrix(estimates, references)
    n = matrix.shape[1]
    scores = []
    for perm in itertools.permutations(range(n)):
        scores.append(sum(matrix[:, i, j] for i, j in enumerate(perm)) / n)
    best = tc.stack(scores, dim=1).max(dim=1).values
    return -best.mean()


def si_snr(estimate, reference, eps=1e-8):
    estimate = estimate - estimate.mean()
    reference = reference - reference.mean()
    scale = np.dot(estimate, reference) / (np.dot(reference, reference) + eps)
    target = scale * reference
    noise = estimate - target
    return 10 * np.log10((np.dot(target, target) + eps) / (np.dot(noise, noise) + eps))


def sdr(estimate, reference, filter_length=512, eps=1e-10):
    """BSS Eval SDR (Vincent et al. 2006, as mir_eval's bss_eval_sources): the estimate's part
    explained by the reference through a filter of `filter_length` taps is the target; the rest
    (interference, noise, artifacts) is the distortion."""
    return float(sdrs_against(np.asarray(estimate)[None], reference, filter_length, eps)[0])


def sdrs_against(estimates, reference, filter_length=512, eps=1e-10):
    """`sdr` of each row of `estimates` (k, L) against one reference: the reference's
    autocorrelation system is factored once for all rows and the targets are built by FFT, so
    scoring the estimate and the mixture together costs about one solve."""
    estimates = np.asarray(estimates, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    n = len(reference)
    taps = min(filter_length, n)
    size = 1 << int(np.ceil(np.log2(n + taps - 1)))
    ref_f = np.fft.rfft(reference, size)
    est_f = np.fft.rfft(estimates, size, axis=-1)
    auto = np.fft.irfft(np.abs(ref_f) ** 2, size)[:taps]
    cross = np.fft.irfft(np.conj(ref_f) * est_f, size, axis=-1)[:, :taps]
    toeplitz = auto[np.abs(np.arange(taps)[:, None] - np.arange(taps)[None, :])]
    toeplitz += eps * np.eye(taps) * max(auto[0], eps)
    coeffs = np.linalg.solve(toeplitz, cross.T).T  # (k, taps)
    targets = np.fft.irfft(ref_f * np.fft.rfft(coeffs, size, axis=-1), size, axis=-1)[:, :n]
    distortion = estimates - targets
    target_energy = np.einsum("ij,ij->i", targets, targets)
    distortion_energy = np.einsum("ij,ij->i", distortion, distortion)
    return 10 * np.log10((target_energy + eps) / (distortion_energy + eps))


def separation_scores(estimates, references, mixture):
    """estimates, references: (sources, L); mixture (L,). The permutation with the best mean
    SI-SNR assigns estimates; returns SI-SNR, SI-SNRi, SDR, SDRi (dB, mean over sources)."""
    estimates, references = np.asarray(estimates), np.asarray(references)
    n = len(references)
    pair = np.array([[si_snr(e, r) for r in references] for e in estimates])
    perm = max(
        itertools.permutations(range(n)), key=lambda p: sum(pair[i, j] for i, j in enumerate(p))
    )
    si = np.mean([pair[i, j] for i, j in enumerate(perm)])
    si_mix = np.mean([si_snr(mixture, r) for r in references])
    # per reference: its assigned estimate and the mixture share one solve
    pairs = [sdrs_against([estimates[i], mixture], references[j]) for i, j in enumerate(perm)]
    sd = np.mean([p[0] for p in pairs])
    sd_mix = np.mean([p[1] for p in pairs])
    return {"si_snr": si, "si_snri": si - si_mix, "sdr": sd, "sdri": sd - sd_mix}
