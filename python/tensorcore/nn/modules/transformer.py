"""MultiheadAttention, Transformer, TransformerEncoder(Layer), TransformerDecoder(Layer)."""

import copy

from ... import _C
from .. import functional as F
from ..parameter import Parameter
from .activation import Module
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear, _empty
from .normalization import LayerNorm


class NonDynamicallyQuantizableLinear(Linear):
    pass


class MultiheadAttention(Module):
    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout=0.0,
        bias=True,
        add_bias_kv=False,
        add_zero_attn=False,
        kdim=None,
        vdim=None,
        batch_first=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        _C._nn_modules.check_multihead_attention_options(embed_dim, num_heads)
        self.head_dim = embed_dim // num_heads
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(
                _empty(3 * embed_dim, embed_dim, device=device, dtype=dtype)
            )
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_empty(embed_dim, embed_dim, device=device, dtype=dtype))
            self.k_proj_weight = Parameter(_empty(embed_dim, self.kdim, device=device, dtype=dtype))
            self.v_proj_weight = Parameter(_empty(embed_dim, self.vdim, device=device, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_empty(3 * embed_dim, device=device, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(
            embed_dim, embed_dim, bias=bias, device=device, dtype=dtype
        )
        if add_bias_kv:
            self.bias_k = Parameter(_empty(1, 1, embed_dim, device=device, dtype=dtype))
            self.bias_v = Parameter(_empty(1, 1, embed_dim, device=device, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        # torch's initialisation, C++'s (tensorcore/nn/attention.h), shared with tc::nn.
        _C._nn_modules.multihead_attention_reset_parameters(
            self.in_proj_weight,
            self.q_proj_weight,
            self.k_proj_weight,
            self.v_proj_weight,
            self.in_proj_bias,
            self.out_proj.bias,
            self.bias_k,
            self.bias_v,
        )

    def forward(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights=True,
        attn_mask=None,
        average_attn_weights=True,
        is_causal=False,
    ):
        is_batched = query.dim() == 3
        if self.batch_first and is_batched:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and is_batched:
            out = out.transpose(0, 1)
        return out, weights


def _activation(activation):
    if callable(activation):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class _TransformerLayer(Module):
    """What the encoder and decoder layers share: torch's constructor arguments and submodules
    (in torch's order, so state dicts match), the self-attention and feed-forward blocks. The
    decoder layer (_cross_attention) adds attention over the memory and a third norm/dropout."""

    _cross_attention = False

    def __init__(
        self,
        d_model,
        nhead,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        layer_norm_eps=1e-5,
        batch_first=False,
        norm_first=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        attentions = ("self_attn", "multihead_attn") if self._cross_attention else ("self_attn",)
        for name in attentions:
            attention = MultiheadAttention(
                d_model, nhead, dropout=dropout, batch_first=batch_first, **kw
            )
            setattr(self, name, attention)
        self.linear1 = Linear(d_model, dim_feedforward, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, **kw)
        self.norm_first = norm_first
        blocks = range(1, len(attentions) + 2)  # one norm and dropout per block
        for i in blocks:
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, **kw))
        for i in blocks:
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = _activation(activation)

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(
            x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False
        )[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        last_dropout = self.dropout3 if self._cross_attention else self.dropout2
        return last_dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(_TransformerLayer):
    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerDecoderLayer(_TransformerLayer):
    _cross_attention = True

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(
            x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False
        )[0]
        return self.dropout2(x)

    def forward(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal=False,
        memory_is_causal=False,
    ):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x


class TransformerEncoder(Module):
    def __init__(
        self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True
    ):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            out = self.norm(out)
        return out


class TransformerDecoder(Module):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal=None,
        memory_is_causal=False,
    ):
        out = tgt
        for layer in self.layers:
            out = layer(
                out,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
            )
        if self.norm is not None:
            out = self.norm(out)
        return out


class Transformer(Module):
    def __init__(
        self,
        d_model=512,
        nhead=8,
        num_encoder_layers=6,
        num_decoder_layers=6,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        custom_encoder=None,
        custom_decoder=None,
        layer_norm_eps=1e-5,
        batch_first=False,
        norm_first=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps)
        layer_args += (batch_first, norm_first)

        def stack(stack_cls, layer_cls, num_layers):
            layer = layer_cls(*layer_args, **kw)
            return stack_cls(layer, num_layers, LayerNorm(d_model, eps=layer_norm_eps, **kw))

        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = stack(TransformerEncoder, TransformerEncoderLayer, num_encoder_layers)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = stack(TransformerDecoder, TransformerDecoderLayer, num_decoder_layers)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        _C._nn_modules.transformer_reset_parameters(list(self.parameters()))

    def forward(
        self,
        src,
        tgt,
        src_mask=None,
        tgt_mask=None,
        memory_mask=None,
        src_key_padding_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
    ):
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise ValueError("Transformer: the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(
                "Transformer: the feature number of src and tgt must be equal to d_model"
            )
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        mask = _C.full(
            (sz, sz), float("-inf"), dtype=dtype if dtype is not None else _C.get_default_dtype()
        )
        return mask.triu(1)
