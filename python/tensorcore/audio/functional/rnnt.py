"""RNN Transducer loss (Graves 2012) with torchaudio 0.13's arguments and gradient clamping.

The forward variable alpha over the (T, U+1) lattice is computed exactly in log space, in
float64, one time step at a time with every label position at once:

    alpha[t, u] = logaddexp(alpha[t-1, u] + blank[t-1, u], alpha[t, u-1] + emit[t, u-1])

Unrolling the label recursion within a time step gives, with E[u] = sum_{j<u} emit[t, j],
alpha[t, u] = E[u] + logcumsumexp_k(alpha[t-1, k] + blank[t-1, k] - E[k]) over k <= u, so a time
step is a handful of tensor ops (no Python loop over u). The gradient is autograd's through
that graph down to the blank / label log-probs of each node, then log_softmax's vjp to the
logits, clamped per element like torchaudio's.
"""

import tensorcore as tc
from tensorcore.autograd import Function

_INT_DTYPES = (tc.int32, tc.int64)


def _check_inputs(logits, targets, logit_lengths, target_lengths, blank):
    op = "rnnt_loss"
    for name, x in (
        ("logits", logits),
        ("targets", targets),
        ("logit_lengths", logit_lengths),
        ("target_lengths", target_lengths),
    ):
        if not isinstance(x, tc.Tensor):
            raise TypeError(f"{op}: expected {name} to be a Tensor, got {type(x).__name__}")
    if logits.dtype not in (tc.float16, tc.float32, tc.float64):
        raise TypeError(f"{op}: logits must be float16, float32 or float64, got {logits.dtype}")
    for name, x in (
        ("targets", targets),
        ("logit_lengths", logit_lengths),
        ("target_lengths", target_lengths),
    ):
        if x.dtype not in _INT_DTYPES:
            raise TypeError(f"{op}: {name} must be int32 (or int64), got {x.dtype}")
        if x.device != logits.device:
            raise ValueError(
                f"{op}: {name} is on {x.device} but logits are on {logits.device}; "
                f"all inputs must be on one device"
            )
    if logits.dim() != 4:
        raise ValueError(
            f"{op}: logits must be 4-d (batch, time, target + 1, class), "
            f"got shape {tuple(logits.shape)}"
        )
    if targets.dim() != 2:
        raise ValueError(
            f"{op}: targets must be 2-d (batch, max target length), got shape "
            f"{tuple(targets.shape)}"
        )
    if logit_lengths.dim() != 1 or target_lengths.dim() != 1:
        raise ValueError(
            f"{op}: logit_lengths and target_lengths must be 1-d (batch,), got shapes "
            f"{tuple(logit_lengths.shape)} and {tuple(target_lengths.shape)}"
        )
    batch, max_t, max_u1, classes = logits.shape
    for name, x in (
        ("targets", targets),
        ("logit_lengths", logit_lengths),
        ("target_lengths", target_lengths),
    ):
        if x.shape[0] != batch:
            raise ValueError(
                f"{op}: batch size mismatch: logits has {batch}, {name} has {x.shape[0]}"
            )
    if not 0 <= blank < classes:
        raise ValueError(f"{op}: blank must be within [0, {classes}) (logits.shape[-1])")
    if batch == 0:
        raise ValueError(f"{op}: the batch is empty")
    t_len = logit_lengths.cpu().tolist()
    u_len = target_lengths.cpu().tolist()
    if min(t_len) < 1 or max(t_len) != max_t:
        raise ValueError(
            f"{op}: input length mismatch: logit_lengths must be >= 1 with maximum "
            f"logits.shape[1] = {max_t}, got {t_len}"
        )
    if min(u_len) < 0 or max(u_len) + 1 != max_u1 or targets.shape[1] < max(u_len):
        raise ValueError(
            f"{op}: output length mismatch: target_lengths must be >= 0 with maximum "
            f"logits.shape[2] - 1 = {max_u1 - 1} <= targets.shape[1] = {targets.shape[1]}, "
            f"got {u_len}"
        )
    return t_len, u_len


def _valid_targets(targets, u_len, classes):
    """Targets as int64 with the padding past each length replaced by 0; checks the range."""
    targets = targets.to(tc.int64)
    max_u = max(u_len)
    positions = tc.arange(0, targets.shape[1], dtype=tc.int64, device=targets.device)
    lengths = tc.tensor(u_len, dtype=tc.int64).to(targets.device).unsqueeze(1)
    inside = positions.unsqueeze(0) < lengths
    targets = tc.where(inside, targets, tc.zeros_like(targets))[:, :max_u]
    if targets.numel() and bool(((targets < 0) | (targets >= classes)).any()):
        raise IndexError(f"rnnt_loss: targets must be within [0, {classes}) (the class count)")
    return targets


def _lattice_index(targets, max_t, blank):
    """(B, T, U+1, 2) class indices: [..., 0] the blank, [..., 1] the next label (0 past the
    last label, where it is never used)."""
    batch = targets.shape[0]
    nxt = tc.cat([targets, tc.zeros(batch, 1, dtype=tc.int64, device=targets.device)], 1)
    nxt = nxt.unsqueeze(1).expand(batch, max_t, nxt.shape[1])
    return tc.stack([tc.full_like(nxt, blank), nxt], -1).contiguous()


class _Unbind(Function):
    """x.unbind(0) whose backward is one stack. Plain indexing or unbind gives every step's
    gradient its own full-size zero-filled buffer to accumulate: T parallel regions per
    backward, which cost seconds on an oversubscribed machine (measured: 150 steps, 2-7 s)."""

    @staticmethod
    def forward(ctx, x):
        ctx.part_shape = tuple(x.shape[1:])
        ctx.dtype, ctx.device = x.dtype, x.device
        return tuple(part.clone() for part in x.unbind(0))

    @staticmethod
    def backward(ctx, *grads):
        zero = None
        parts = []
        for g in grads:
            if g is None:  # a step whose output did not reach the loss
                if zero is None:
                    zero = tc.zeros(*ctx.part_shape, dtype=ctx.dtype, device=ctx.device)
                g = zero
            parts.append(g)
        return tc.stack(parts)


def _costs(lattice_lp, t_len, u_len):
    """-log P(target | input) per batch element from the (B, T, U+1, 2) float64 log-probs of
    the blank ([..., 0]) and of the next label ([..., 1]) at each lattice node."""
    batch, max_t, max_u1, _ = lattice_lp.shape
    dev = lattice_lp.device
    # time-major (T, B, U+1), split into one small tensor per step by _Unbind
    by_time = lattice_lp.transpose(0, 1).contiguous()
    blank_lp = by_time[..., 0]
    zero = tc.zeros(max_t, batch, 1, dtype=lattice_lp.dtype, device=dev)
    emit_cum = tc.cat([zero, tc.cumsum(by_time[:, :, : max_u1 - 1, 1], -1)], -1)  # E[t, u]
    blank_steps = _Unbind.apply(blank_lp)
    emit_steps = _Unbind.apply(emit_cum)
    alpha = emit_steps[0]  # alpha[0, u]: u labels emitted at the first frame
    alphas = [alpha]
    for t in range(1, max_t):
        e = emit_steps[t]
        alpha = e + tc.logcumsumexp(alpha + blank_steps[t - 1] - e, -1)
        alphas.append(alpha)
    last_t = tc.tensor([t - 1 for t in t_len], dtype=tc.int64).to(dev)
    last_u = tc.tensor(list(u_len), dtype=tc.int64).to(dev)
    rows = tc.arange(0, batch, dtype=tc.int64, device=dev)
    final = tc.stack(alphas)[last_t, rows, last_u] + blank_lp[last_t, rows, last_u]
    return -final


class _RNNTLossFunction(Function):
    @staticmethod
    def forward(ctx, logits, targets, t_len, u_len, blank, clamp, fused_log_softmax):
        x = logits.detach().to(tc.float64)
        if x.data_ptr() == logits.data_ptr():  # float64 logits: x is worked on in place below
            x = x.clone()
        index = _lattice_index(targets, x.shape[1], blank)
        picked = tc.gather(x, 3, index)
        if fused_log_softmax:
            log_norm = tc.logsumexp(x, -1, keepdim=True)
            picked = picked - log_norm
        with tc.enable_grad():
            lattice_lp = picked.requires_grad_(True)
            costs = _costs(lattice_lp, t_len, u_len)
            if ctx.needs_input_grad[0]:
                # autograd through the lattice down to the 2 log-probs per node; the last
                # step to the logits is written out (log_softmax's vjp: g - softmax * sum g)
                # in place in x, so that no other full-size buffer is allocated
                (g,) = tc.autograd.grad(costs.sum(), lattice_lp)
        if ctx.needs_input_grad[0]:
            if fused_log_softmax:
                grad = x.sub_(log_norm).exp_().mul_(-g.sum(-1, keepdim=True))
            else:
                grad = x.zero_()
            grad.scatter_add_(3, index, g)
            if clamp > 0:
                grad.clamp_(min=-clamp, max=clamp)
            ctx.save_for_backward(grad.to(logits.dtype))
        return costs.detach().to(logits.dtype)

    @staticmethod
    def backward(ctx, grad_costs):
        (grad,) = ctx.saved_tensors
        return grad * grad_costs.reshape(-1, 1, 1, 1), None, None, None, None, None, None


def rnnt_loss(
    logits,
    targets,
    logit_lengths,
    target_lengths,
    blank=-1,
    clamp=-1,
    reduction="mean",
    *,
    fused_log_softmax=True,
):
    """RNN Transducer loss of Graves (2012): the negative log-probability of each target
    sequence summed over every alignment of the (time, label) lattice.

    Args:
        logits (Tensor): joiner output of shape (batch, max time, max target length + 1,
            class); float32, float16 or float64.
        targets (Tensor): int32 (or int64) labels of shape (batch, max target length), padded.
        logit_lengths (Tensor): int32 (or int64) (batch,) frames per sequence; its maximum must be
            logits.shape[1].
        target_lengths (Tensor): int32 (or int64) (batch,) labels per sequence; its maximum must
            be logits.shape[2] - 1.
        blank (int): the blank label; negative counts from the end (-1: the last class).
        clamp (float): when > 0, each element of the gradient of a sequence's loss with
            respect to logits is clamped to [-clamp, clamp] (before the reduction's scaling).
        reduction (str): "none" (a (batch,) tensor), "mean" or "sum".
        fused_log_softmax (bool, keyword-only; torchaudio 0.10-0.12): True applies log_softmax
            to logits inside the loss; False takes logits as log-probabilities already.

    Returns:
        Tensor: the losses (batch,) for reduction "none", else a scalar; logits' dtype.
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(
            f'rnnt_loss: reduction should be one of "none", "mean", or "sum", got {reduction!r}'
        )
    if not isinstance(blank, int) or isinstance(blank, bool):
        raise TypeError(f"rnnt_loss: blank must be an int, got {type(blank).__name__}")
    if isinstance(logits, tc.Tensor) and logits.dim() > 0 and blank < 0:
        blank = logits.shape[-1] + blank
    t_len, u_len = _check_inputs(logits, targets, logit_lengths, target_lengths, blank)
    targets = _valid_targets(targets, u_len, logits.shape[-1])
    costs = _RNNTLossFunction.apply(
        logits, targets, t_len, u_len, blank, float(clamp), bool(fused_log_softmax)
    )
    if reduction == "mean":
        return costs.mean()
    if reduction == "sum":
        return costs.sum()
    return costs
