"""Discretized mixture of logistics (Salimans et al. 2017, as WaveRNN vocoders use it): the loss
over 30 outputs (10 mixture weights, means, log scales) and sampling.

Log scales are clamped at log(1e-14), as torchaudio's example: WaveNet vocoders' floor of -7 (a
scale of about 1e-3) leaves a noise floor of that size in every generated silence."""

import math

import tensorcore as tc
from tensorcore import nn

from .stepwise import run_recurrence

F = nn.functional


LOG_SCALE_MIN = math.log(1e-14)


def _split(out, num_mixtures):
    logits = out[..., :num_mixtures]
    means = out[..., num_mixtures : 2 * num_mixtures]
    log_scales = out[..., 2 * num_mixtures : 3 * num_mixtures].clamp(min=LOG_SCALE_MIN)
    return logits, means, log_scales


def mol_loss(out, target, num_classes=65536, num_mixtures=10):
    """Negative log-likelihood of target (B, T) in [-1, 1] under the mixture out (B, T, 30),
    each value standing for a bin of width 2 / (num_classes - 1)."""
    logits, means, log_scales = _split(out, num_mixtures)
    y = target.unsqueeze(-1)
    centered = y - means
    inv_std = tc.exp(-log_scales)
    half_bin = 1.0 / (num_classes - 1)
    plus_in = inv_std * (centered + half_bin)
    min_in = inv_std * (centered - half_bin)
    cdf_delta = tc.sigmoid(plus_in) - tc.sigmoid(min_in)
    log_cdf_plus = plus_in - F.softplus(plus_in)  # log CDF at the lowest bin's upper edge
    log_one_minus_cdf_min = -F.softplus(min_in)  # log (1 - CDF) at the highest bin's lower edge
    mid_in = inv_std * centered
    log_pdf_mid = mid_in - log_scales - 2.0 * F.softplus(mid_in)
    # Where the bin's probability underflows, the density at its centre times its width.
    inner = tc.where(
        cdf_delta > 1e-5,
        tc.log(cdf_delta.clamp(min=1e-12)),
        log_pdf_mid - math.log((num_classes - 1) / 2),
    )
    inner = tc.where(y > 0.999, log_one_minus_cdf_min, inner)
    log_probs = tc.where(y < -0.999, log_cdf_plus, inner) + F.log_softmax(logits, dim=-1)
    return -tc.logsumexp(log_probs, dim=-1).mean()


def sample_step(out, num_mixtures=10):
    """One value in [-1, 1] per row of out (B, 30): a mixture by the Gumbel-max trick, then a
    logistic draw."""
    logits, means, log_scales = _split(out, num_mixtures)
    u = tc.rand(logits.shape).clamp(1e-5, 1.0 - 1e-5)
    choice = (logits - tc.log(-tc.log(u))).argmax(dim=-1, keepdim=True)
    mean = means.gather(-1, choice)
    log_scale = log_scales.gather(-1, choice)
    v = tc.rand(mean.shape).clamp(1e-5, 1.0 - 1e-5)
    return (mean + tc.exp(log_scale) * (tc.log(v) - tc.log(1.0 - v))).clamp(-1.0, 1.0)


def mulaw_expand(companded, bits=8):
    """The waveform from its mu-law companded values (the inverse of sign(x) log1p(mu |x|) /
    log1p(mu), mu = 2**bits - 1), continuous: no rounding to levels."""
    mu = 2**bits - 1
    return tc.sign(companded) * (tc.pow(1.0 + mu, companded.abs()) - 1.0) / mu


def sample_mol(model, specgram, mulaw=True, mulaw_bits=8):
    """Generates (B, n_time * hop) samples from a WaveRNN trained with the MoL loss: the same
    recurrence as WaveRNN.infer, with mixture sampling; mu-law decoded when mulaw."""
    samples = []

    def draw(t, out):
        samples.append(sample_step(out))
        return samples[-1]

    run_recurrence(model, specgram, draw)
    companded = tc.cat(samples, dim=1)
    return mulaw_expand(companded, mulaw_bits) if mulaw else companded
