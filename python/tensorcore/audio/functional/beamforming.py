"""Multi-channel speech enhancement: PSD matrices, MVDR weights, RTF estimates, beamforming.

torchaudio 0.13's names, arguments and results; every function is made of differentiable
tensorcore ops (einsum, linalg.solve, linalg.eigh, matmul), so it runs on CPU and CUDA and
autograd reaches the complex inputs.
"""

import tensorcore as tc


def _require_tensor(x, op, name):
    if not isinstance(x, tc.Tensor):
        raise TypeError(f"{op}: expected {name} to be a Tensor, got {type(x).__name__}")


def _require_complex(op, **tensors):
    for name, x in tensors.items():
        _require_tensor(x, op, name)
    bad = {n: x.dtype for n, x in tensors.items() if not x.is_complex()}
    if bad:
        found = ", ".join(f"{x} for {n}" for n, x in bad.items())
        raise TypeError(
            f"{op}: {' and '.join(tensors)} must be complex (complex64 or complex128); "
            f"found {found}"
        )


def _mat_trace(mat):
    return tc.diagonal(mat, 0, -2, -1).sum(-1)


def _tik_reg(mat, reg=1e-7, eps=1e-8):
    """Tikhonov regularization: mat + (trace(mat).real * reg + eps) * I."""
    channels = mat.shape[-1]
    eye = tc.eye(channels, dtype=mat.dtype, device=mat.device)
    epsilon = tc.real(_mat_trace(mat)).unsqueeze(-1).unsqueeze(-1) * reg + eps
    return mat + epsilon * eye


def _check_psd_pair(op, psd_s, psd_n):
    _require_tensor(psd_s, op, "psd_s")
    _require_tensor(psd_n, op, "psd_n")
    if psd_s.dim() < 3 or psd_n.dim() < 3:
        raise ValueError(
            f"{op}: expected psd_s and psd_n of at least 3 dims (..., freq, channel, channel); "
            f"found {tuple(psd_s.shape)} for psd_s and {tuple(psd_n.shape)} for psd_n"
        )
    _require_complex(op, psd_s=psd_s, psd_n=psd_n)
    if tuple(psd_s.shape) != tuple(psd_n.shape):
        raise ValueError(
            f"{op}: psd_s and psd_n must have the same shape; found {tuple(psd_s.shape)} "
            f"and {tuple(psd_n.shape)}"
        )
    if psd_s.shape[-1] != psd_s.shape[-2]:
        raise ValueError(
            f"{op}: the last two dims of psd_s must be equal (channel, channel); "
            f"found {tuple(psd_s.shape)}"
        )


def _check_reference(op, reference_channel, channels):
    if isinstance(reference_channel, bool) or not isinstance(reference_channel, (int, tc.Tensor)):
        raise TypeError(
            f"{op}: reference_channel must be an int or a one-hot Tensor (..., channel); "
            f"found {type(reference_channel).__name__}"
        )
    if isinstance(reference_channel, int) and not -channels <= reference_channel < channels:
        raise IndexError(
            f"{op}: reference_channel {reference_channel} is out of range for {channels} channels"
        )
    if isinstance(reference_channel, tc.Tensor) and (
        reference_channel.dim() == 0 or reference_channel.shape[-1] != channels
    ):
        raise ValueError(
            f"{op}: a Tensor reference_channel must have shape (..., {channels}) (one-hot over "
            f"the channels); found {tuple(reference_channel.shape)}"
        )


def psd(specgram, mask=None, normalize=True, eps=1e-10):
    """Cross-channel power spectral density (PSD) matrix of a multi-channel spectrum.

    ``psd[..., f, c, e] = sum_t mask[..., f, t] * specgram[..., c, f, t] * conj(specgram[..., e, f, t])``.

    Args:
        specgram (Tensor): complex multi-channel spectrum of shape (..., channel, freq, time).
        mask (Tensor or None): real time-frequency mask of shape (..., freq, time); None weighs
            every frame by 1.
        normalize (bool): divide the mask by its sum over time (plus ``eps``) first.
        eps (float): added to the mask's sum over time when normalizing.

    Returns:
        Tensor: complex PSD matrices of shape (..., freq, channel, channel).
    """
    _require_tensor(specgram, "psd", "specgram")
    if specgram.dim() < 3:
        raise ValueError(
            f"psd: expected specgram of at least 3 dims (..., channel, freq, time); "
            f"found {tuple(specgram.shape)}"
        )
    spec = specgram.transpose(-3, -2)  # (..., freq, channel, time)
    weighted = spec
    if mask is not None:
        _require_tensor(mask, "psd", "mask")
        if tuple(mask.shape[:-1]) != tuple(spec.shape[:-2]) or mask.shape[-1] != spec.shape[-1]:
            raise ValueError(
                f"psd: mask must have specgram's shape without the channel dim (..., freq, "
                f"time); found {tuple(mask.shape)} for mask and {tuple(specgram.shape)} for "
                f"specgram"
            )
        if normalize:
            mask = mask / (mask.sum(dim=-1, keepdim=True) + eps)
        weighted = spec * mask.unsqueeze(-2)
    # sum_t w[t] s[c, t] conj(s[e, t]) as one batched matmul: no (time, channel, channel)
    # intermediate as in the einsum form
    return tc.matmul(weighted, spec.conj().transpose(-1, -2))


def mvdr_weights_souden(
    psd_s, psd_n, reference_channel, diagonal_loading=True, diag_eps=1e-7, eps=1e-8
):
    """MVDR beamforming weights by Souden et al.: ``(psd_n^-1 psd_s) u / trace(psd_n^-1 psd_s)``.

    Args:
        psd_s (Tensor): complex PSD matrix of the target speech, (..., freq, channel, channel).
        psd_n (Tensor): complex PSD matrix of the noise, same shape as psd_s.
        reference_channel (int or Tensor): the reference channel's index, or a one-hot
            Tensor of shape (..., channel).
        diagonal_loading (bool): add ``diag_eps * trace(psd_n) + 1e-8`` to psd_n's diagonal.
        diag_eps (float): the diagonal loading factor.
        eps (float): added to the trace in the denominator.

    Returns:
        Tensor: complex beamforming weights of shape (..., freq, channel).
    """
    op = "mvdr_weights_souden"
    _check_psd_pair(op, psd_s, psd_n)
    _check_reference(op, reference_channel, psd_s.shape[-1])
    if diagonal_loading:
        psd_n = _tik_reg(psd_n, reg=diag_eps)
    numerator = tc.linalg.solve(psd_n, psd_s)
    ws = numerator / (_mat_trace(numerator).unsqueeze(-1).unsqueeze(-1) + eps)
    if isinstance(reference_channel, int):
        return ws[..., :, reference_channel]
    u = reference_channel.to(psd_n.dtype).unsqueeze(-2).unsqueeze(-2)  # (..., 1, 1, C)
    return (ws * u).sum(-1)


def mvdr_weights_rtf(
    rtf, psd_n, reference_channel=None, diagonal_loading=True, diag_eps=1e-7, eps=1e-8
):
    """MVDR beamforming weights from the relative transfer function (steering vector) ``v``:
    ``psd_n^-1 v / (v^H psd_n^-1 v)``, scaled by ``conj(v[ref])`` when a reference is given.

    Args:
        rtf (Tensor): complex RTF of the target speech, (..., freq, channel).
        psd_n (Tensor): complex PSD matrix of the noise, (..., freq, channel, channel).
        reference_channel (int, Tensor or None): the reference channel's index or a one-hot
            Tensor (..., channel); None leaves the weights unscaled.
        diagonal_loading (bool): add ``diag_eps * trace(psd_n) + 1e-8`` to psd_n's diagonal.
        diag_eps (float): the diagonal loading factor.
        eps (float): added to the denominator.

    Returns:
        Tensor: complex beamforming weights of shape (..., freq, channel).
    """
    op = "mvdr_weights_rtf"
    _require_tensor(rtf, op, "rtf")
    _require_tensor(psd_n, op, "psd_n")
    if rtf.dim() < 2:
        raise ValueError(
            f"{op}: expected rtf of at least 2 dims (..., freq, channel); found {tuple(rtf.shape)}"
        )
    if psd_n.dim() < 3:
        raise ValueError(
            f"{op}: expected psd_n of at least 3 dims (..., freq, channel, channel); "
            f"found {tuple(psd_n.shape)}"
        )
    _require_complex(op, rtf=rtf, psd_n=psd_n)
    if tuple(rtf.shape) != tuple(psd_n.shape[:-1]):
        raise ValueError(
            f"{op}: rtf's shape must be psd_n's without its last dim; found {tuple(rtf.shape)} "
            f"for rtf and {tuple(psd_n.shape)} for psd_n"
        )
    if psd_n.shape[-1] != psd_n.shape[-2]:
        raise ValueError(
            f"{op}: the last two dims of psd_n must be equal; found {tuple(psd_n.shape)}"
        )
    if reference_channel is not None:
        _check_reference(op, reference_channel, rtf.shape[-1])
    if diagonal_loading:
        psd_n = _tik_reg(psd_n, reg=diag_eps)
    numerator = tc.linalg.solve(psd_n, rtf.unsqueeze(-1)).squeeze(-1)
    denominator = (rtf.conj() * numerator).sum(-1)
    weights = numerator / (tc.real(denominator).unsqueeze(-1) + eps)
    if reference_channel is not None:
        if isinstance(reference_channel, int):
            scale = rtf[..., reference_channel].conj()
        else:
            u = reference_channel.to(psd_n.dtype).unsqueeze(-2)  # (..., 1, C)
            scale = (rtf.conj() * u).sum(-1)
        weights = weights * scale.unsqueeze(-1)
    return weights


def rtf_evd(psd_s):
    """Relative transfer function of the target speech as the eigenvector of psd_s with the
    largest eigenvalue (eigenvalue decomposition of a Hermitian matrix).

    Args:
        psd_s (Tensor): complex PSD matrix of the target speech, (..., freq, channel, channel).

    Returns:
        Tensor: complex RTF of shape (..., freq, channel).
    """
    _require_tensor(psd_s, "rtf_evd", "psd_s")
    _require_complex("rtf_evd", psd_s=psd_s)
    if psd_s.dim() < 2 or psd_s.shape[-1] != psd_s.shape[-2]:
        raise ValueError(
            f"rtf_evd: the last two dims of psd_s must be equal (channel, channel); "
            f"found {tuple(psd_s.shape)}"
        )
    _, vectors = tc.linalg.eigh(psd_s)  # eigenvalues ascending
    return vectors[..., -1]


def rtf_power(psd_s, psd_n, reference_channel, n_iter=3, diagonal_loading=True, diag_eps=1e-7):
    """Relative transfer function of the target speech by the power method on
    ``psd_n^-1 psd_s``, started from its reference-channel column.

    Args:
        psd_s (Tensor): complex PSD matrix of the target speech, (..., freq, channel, channel).
        psd_n (Tensor): complex PSD matrix of the noise, same shape.
        reference_channel (int or Tensor): the reference channel's index or a one-hot Tensor
            (..., channel).
        n_iter (int): number of power iterations (>= 1).
        diagonal_loading (bool): add ``diag_eps * trace(psd_n) + 1e-8`` to psd_n's diagonal.
        diag_eps (float): the diagonal loading factor.

    Returns:
        Tensor: complex RTF of shape (..., freq, channel).
    """
    op = "rtf_power"
    _check_psd_pair(op, psd_s, psd_n)
    _check_reference(op, reference_channel, psd_s.shape[-1])
    if not isinstance(n_iter, int) or n_iter <= 0:
        raise ValueError(f"{op}: n_iter must be a positive int, got {n_iter!r}")
    if diagonal_loading:
        psd_n = _tik_reg(psd_n, reg=diag_eps)
    phi = tc.linalg.solve(psd_n, psd_s)
    if isinstance(reference_channel, int):
        rtf = phi[..., reference_channel]
    else:
        u = reference_channel.to(psd_n.dtype).unsqueeze(-2).unsqueeze(-2)
        rtf = (phi * u).sum(-1)
    rtf = rtf.unsqueeze(-1)
    if n_iter >= 2:
        # phi above and the final psd_s product count as two of the iterations
        for _ in range(n_iter - 2):
            rtf = tc.matmul(phi, rtf)
        rtf = tc.matmul(psd_s, rtf)
    else:
        rtf = tc.matmul(psd_n, rtf)
    return rtf.squeeze(-1)


def apply_beamforming(beamform_weights, specgram):
    """Single-channel enhanced spectrum ``w(f)^H Y(f)`` of a multi-channel spectrum.

    Args:
        beamform_weights (Tensor): complex weights of shape (..., freq, channel).
        specgram (Tensor): complex multi-channel spectrum of shape (..., channel, freq, time).

    Returns:
        Tensor: complex spectrum of shape (..., freq, time).
    """
    op = "apply_beamforming"
    _require_tensor(beamform_weights, op, "beamform_weights")
    _require_tensor(specgram, op, "specgram")
    if (
        beamform_weights.dim() < 2
        or specgram.dim() < 3
        or tuple(beamform_weights.shape[:-2]) != tuple(specgram.shape[:-3])
    ):
        raise ValueError(
            f"{op}: beamform_weights (..., freq, channel) and specgram (..., channel, freq, "
            f"time) must share their leading dims; found {tuple(beamform_weights.shape)} for "
            f"beamform_weights and {tuple(specgram.shape)} for specgram"
        )
    _require_complex(op, beamform_weights=beamform_weights, specgram=specgram)
    return tc.einsum("...fc,...cft->...ft", beamform_weights.conj(), specgram)
