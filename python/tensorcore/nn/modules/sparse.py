"""Embedding and EmbeddingBag over the native kernels."""

from ... import _C
from .. import functional as F
from ..parameter import Parameter
from .linear import _empty
from .module import Module


class Embedding(Module):
    def __init__(
        self,
        num_embeddings,
        embedding_dim,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        sparse=False,
        _weight=None,
        device=None,
        dtype=None,
    ):
        super().__init__()
        # The rules and their messages are C++'s (tensorcore/nn/modules/rules.h).
        padding_idx = _C._nn_modules.embedding_padding_idx("Embedding", num_embeddings, padding_idx)
        self.num_embeddings, self.embedding_dim, self.padding_idx = (
            num_embeddings,
            embedding_dim,
            padding_idx,
        )
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(
                _empty(num_embeddings, embedding_dim, device=device, dtype=dtype)
            )
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(
                    "Embedding: shape of _weight does not match num_embeddings and embedding_dim"
                )
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        _C._nn_modules.reset_embedding_parameters(self.weight, self.padding_idx)

    def forward(self, input):
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        return s

    @classmethod
    def from_pretrained(
        cls,
        embeddings,
        freeze=True,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        sparse=False,
    ):
        if embeddings.dim() != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        emb = cls(
            rows,
            cols,
            padding_idx,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            sparse,
            _weight=embeddings,
        )
        emb.weight.requires_grad_(not freeze)
        return emb


class EmbeddingBag(Module):
    def __init__(
        self,
        num_embeddings,
        embedding_dim,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        mode="mean",
        sparse=False,
        _weight=None,
        include_last_offset=False,
        padding_idx=None,
        device=None,
        dtype=None,
    ):
        super().__init__()
        _C._nn_modules.check_embedding_bag_mode(mode)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = (
            max_norm,
            norm_type,
            scale_grad_by_freq,
        )
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        self.padding_idx = _C._nn_modules.embedding_padding_idx(
            "EmbeddingBag", num_embeddings, padding_idx
        )
        if _weight is None:
            self.weight = Parameter(
                _empty(num_embeddings, embedding_dim, device=device, dtype=dtype)
            )
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        _C._nn_modules.reset_embedding_parameters(self.weight, self.padding_idx)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    def extra_repr(self):
        return f"{self.num_embeddings}, {self.embedding_dim}, mode='{self.mode}'"

    @classmethod
    def from_pretrained(
        cls,
        embeddings,
        freeze=True,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        mode="mean",
        sparse=False,
        include_last_offset=False,
        padding_idx=None,
    ):
        rows, cols = embeddings.shape
        bag = cls(
            rows,
            cols,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            mode,
            sparse,
            embeddings,
            include_last_offset,
            padding_idx,
        )
        bag.weight.requires_grad_(not freeze)
        return bag
