"""AdaptiveLogSoftmaxWithLoss (Grave et al. 2016, "Efficient softmax approximation for GPUs"):
frequent classes in a head softmax, rarer ones in tail clusters reached through the head."""

from collections import namedtuple

from ... import _C
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax over n_classes split at cutoffs: the head scores the shortlist
    (classes below cutoffs[0]) plus one entry per tail cluster; cluster i projects the input to
    in_features // div_value**(i+1) features before its own softmax.

    forward(input (N, in_features), target (N,)) -> (output, loss): the log-probability of each
    target and the mean negative log-likelihood. log_prob(input) gives every class's
    log-probability, predict(input) the most likely class.
    """

    def __init__(
        self,
        in_features,
        n_classes,
        cutoffs,
        div_value=4.0,
        head_bias=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        cutoffs = list(cutoffs)
        if (
            not cutoffs
            or cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                "order, where each value is between 1 and n_classes-1"
            )
        self.in_features, self.n_classes, self.div_value = in_features, n_classes, div_value
        self.head_bias = head_bias
        self.cutoffs = cutoffs + [n_classes]
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        tails = []
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            out = self.cutoffs[i + 1] - self.cutoffs[i]
            tails.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                    Linear(hidden, out, bias=False, device=device, dtype=dtype),
                )
            )
        self.tail = ModuleList(tails)

    def reset_parameters(self):
        self.head.reset_parameters()
        for cluster in self.tail:
            for layer in cluster:
                layer.reset_parameters()

    def forward(self, input, target):
        batched = input.dim() == 2
        if input.dim() not in (1, 2) or target.dim() != input.dim() - 1:
            raise RuntimeError(
                "AdaptiveLogSoftmaxWithLoss: expected input (N, in_features) with target (N,), or "
                f"input (in_features,) with a 0-d target; got input {list(input.shape)} and "
                f"target {list(target.shape)}"
            )
        if not batched:
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        if input.shape[0] != target.shape[0]:
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        batch = target.shape[0]
        if batch and (int(target.min()) < 0 or int(target.max()) >= self.n_classes):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{int(target.min())}, {int(target.max())}] were found. "
            )
        output = _C.zeros([batch], dtype=input.dtype, device=input.device)
        # Which head entry each row is scored by: its class (shortlist) or its cluster.
        head_index = target.clone()
        bounds = [0] + self.cutoffs
        for i in range(1, len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            rows = ((target >= low) & (target < high)).nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            cluster_logprob = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
            relative = target.index_select(0, rows) - low
            local = cluster_logprob.gather(1, relative.unsqueeze(1)).squeeze(1)
            output = output.index_add(0, rows, local)
            head_index = head_index.index_fill(0, rows, self.shortlist_size + i - 1)
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            cluster_logprob = F.log_softmax(cluster(input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return _C.cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class: (N, n_classes), or (n_classes,) unbatched."""
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input):
        """The most likely class of each row: (N,), or a 0-d tensor unbatched."""
        return self.log_prob(input).argmax(dim=-1)

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, n_classes={self.n_classes}, "
            f"cutoffs={self.cutoffs[:-1]}, div_value={self.div_value}, head_bias={self.head_bias}"
        )
