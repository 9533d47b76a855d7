"""Conv-TasNet (Luo & Mesgarani 2019, non-causal), torchaudio.models.ConvTasNet's module tree,
defaults and state-dict keys; plus chunked (bounded-memory) separation of long recordings in
conv_tasnet_stream.py."""

from typing import Optional, Tuple

import tensorcore as tc
from tensorcore import fx
from tensorcore import nn

__all__ = ["ConvBlock", "MaskGenerator", "ConvTasNet", "conv_tasnet_base"]


class ConvBlock(nn.Module):
    """1x1 conv -> PReLU -> gLN -> depthwise dilated conv -> PReLU -> gLN, then a residual and a
    skip 1x1 conv (the residual one is absent in the network's last block)."""

    def __init__(
        self,
        io_channels: int,
        hidden_channels: int,
        kernel_size: int,
        padding: int,
        dilation: int = 1,
        no_residual: bool = False,
    ):
        super().__init__()
        self.conv_layers = nn.Sequential(
            nn.Conv1d(io_channels, hidden_channels, kernel_size=1),
            nn.PReLU(),
            nn.GroupNorm(num_groups=1, num_channels=hidden_channels, eps=1e-08),
            nn.Conv1d(
                hidden_channels,
                hidden_channels,
                kernel_size=kernel_size,
                padding=padding,
                dilation=dilation,
                groups=hidden_channels,
            ),
            nn.PReLU(),
            nn.GroupNorm(num_groups=1, num_channels=hidden_channels, eps=1e-08),
        )
        self.res_out = (
            None if no_residual else nn.Conv1d(hidden_channels, io_channels, kernel_size=1)
        )
        self.skip_out = nn.Conv1d(hidden_channels, io_channels, kernel_size=1)

    def forward(self, input) -> Tuple[Optional["tc.Tensor"], "tc.Tensor"]:
        feature = self.conv_layers(input)
        residual = None if self.res_out is None else self.res_out(feature)
        return residual, self.skip_out(feature)


class MaskGenerator(nn.Module):
    """The temporal convolution network: num_stacks stacks of num_layers ConvBlocks with
    dilations 1, 2, 4, ...; outputs one mask per source, (batch, num_sources, input_dim, frames)."""

    def __init__(
        self,
        input_dim: int,
        num_sources: int,
        kernel_size: int,
        num_feats: int,
        num_hidden: int,
        num_layers: int,
        num_stacks: int,
        msk_activate: str,
    ):
        super().__init__()
        self.input_dim = input_dim
        self.num_sources = num_sources
        self.input_norm = nn.GroupNorm(num_groups=1, num_channels=input_dim, eps=1e-8)
        self.input_conv = nn.Conv1d(input_dim, num_feats, kernel_size=1)
        self.receptive_field = 0
        self.conv_layers = nn.ModuleList([])
        for s in range(num_stacks):
            for layer in range(num_layers):
                multi = 2**layer
                last = layer == num_layers - 1 and s == num_stacks - 1
                self.conv_layers.append(
                    ConvBlock(
                        io_channels=num_feats,
                        hidden_channels=num_hidden,
                        kernel_size=kernel_size,
                        dilation=multi,
                        padding=multi,
                        no_residual=last,
                    )
                )
                self.receptive_field += (
                    kernel_size if s == 0 and layer == 0 else (kernel_size - 1) * multi
                )
        self.output_prelu = nn.PReLU()
        self.output_conv = nn.Conv1d(num_feats, input_dim * num_sources, kernel_size=1)
        if msk_activate == "sigmoid":
            self.mask_activate = nn.Sigmoid()
        elif msk_activate == "relu":
            self.mask_activate = nn.ReLU()
        else:
            raise ValueError(
                f"MaskGenerator: unsupported msk_activate {msk_activate!r} (expected 'sigmoid' or 'relu')"
            )

    def forward(self, input):
        batch_size = input.shape[0]
        feats = self.input_conv(self.input_norm(input))
        output = 0.0
        for layer in self.conv_layers:
            residual, skip = layer(feats)
            if residual is not None:
                feats = feats + residual
            output = output + skip
        output = self.mask_activate(self.output_conv(self.output_prelu(output)))
        return output.view(batch_size, self.num_sources, self.input_dim, -1)


# Module-level functions that tensorcore.fx records as single calls (fx.wrap): both branch on the
# input's shape, which symbolic tracing cannot follow; the traced module still runs them.
@fx.has_side_effect
def _check_convtasnet_input(input):
    if not isinstance(input, tc.Tensor):
        raise TypeError(f"ConvTasNet: input must be a Tensor, got {type(input).__name__}")
    if input.dim() != 3 or input.shape[1] != 1:
        raise ValueError(
            f"ConvTasNet: expected input of shape (batch, channel==1, frames). Found: "
            f"{tuple(input.shape)}"
        )
    if input.shape[0] == 0 or input.shape[2] == 0:
        raise ValueError(f"ConvTasNet: input is empty, shape {tuple(input.shape)}")


def _pad_to_encoder_stride(input, enc_kernel_size, enc_stride):
    # Native (models/audio/conv_tasnet.cpp), so a traced graph computes the padding from the
    # length it is given rather than the traced one.
    padded = tc._C._models_audio.conv_tasnet_pad(input, int(enc_kernel_size), int(enc_stride))
    return padded, padded.shape[2] - input.shape[2]


def _cut_padding(output, input):
    """output[..., :input frames], with the length read at run time (native, as the padding)."""
    return tc._C._models_audio.conv_tasnet_unpad(output, input)


fx.wrap("_check_convtasnet_input")
fx.wrap("_pad_to_encoder_stride")
fx.wrap("_cut_padding")


class ConvTasNet(nn.Module):
    """Conv-TasNet source separation: a learned encoder (1-d conv, stride enc_kernel_size // 2),
    a TCN mask generator and a transposed-conv decoder. forward((batch, 1, frames)) returns
    (batch, num_sources, frames); inputs of any length are padded to the encoder stride and the
    padding is cut from the output."""

    def __init__(
        self,
        num_sources: int = 2,
        enc_kernel_size: int = 16,
        enc_num_feats: int = 512,
        msk_kernel_size: int = 3,
        msk_num_feats: int = 128,
        msk_num_hidden_feats: int = 512,
        msk_num_layers: int = 8,
        msk_num_stacks: int = 3,
        msk_activate: str = "sigmoid",
    ):
        super().__init__()
        if int(enc_kernel_size) < 2:
            raise ValueError(
                f"ConvTasNet: enc_kernel_size must be at least 2 (stride enc_kernel_size // 2), "
                f"got {enc_kernel_size}"
            )
        self.num_sources = num_sources
        self.enc_num_feats = enc_num_feats
        self.enc_kernel_size = enc_kernel_size
        self.enc_stride = enc_kernel_size // 2
        # Encoder and decoder: the same frames (half-overlapping, padded by one hop).
        framing = dict(
            kernel_size=enc_kernel_size, stride=self.enc_stride, padding=self.enc_stride, bias=False
        )
        self.encoder = nn.Conv1d(1, enc_num_feats, **framing)
        self.mask_generator = MaskGenerator(
            input_dim=enc_num_feats,
            num_sources=num_sources,
            kernel_size=msk_kernel_size,
            num_feats=msk_num_feats,
            num_hidden=msk_num_hidden_feats,
            num_layers=msk_num_layers,
            num_stacks=msk_num_stacks,
            msk_activate=msk_activate,
        )
        self.decoder = nn.ConvTranspose1d(enc_num_feats, 1, **framing)

    def _align_num_frames_with_strides(self, input) -> Tuple["tc.Tensor", int]:
        """Pads the end so the last sample sits at the centre (odd kernel) or the end of the first
        half (even kernel) of the last encoder window; returns the padded input and the padding."""
        return _pad_to_encoder_stride(input, self.enc_kernel_size, self.enc_stride)

    def forward(self, input):
        _check_convtasnet_input(input)
        padded, _ = self._align_num_frames_with_strides(input)
        batch_size = padded.shape[0]
        feats = self.encoder(padded)
        masked = self.mask_generator(feats) * feats.unsqueeze(1)
        masked = masked.view(batch_size * self.num_sources, self.enc_num_feats, -1)
        decoded = self.decoder(masked)
        # Sizes other than the batch stay out of Python numbers (-1, and the cut reads the input's
        # length at run time), so tc.jit graphs and tensorcore.fx follow the input length.
        output = decoded.view(batch_size, self.num_sources, -1)
        return _cut_padding(output, input)


def conv_tasnet_base(num_sources: int = 2) -> ConvTasNet:
    """The non-causal configuration with the paper's best SI-SNR (mask activation relu, as
    torchaudio's factory)."""
    return ConvTasNet(
        num_sources=num_sources,
        enc_kernel_size=16,
        enc_num_feats=512,
        msk_kernel_size=3,
        msk_num_feats=128,
        msk_num_hidden_feats=512,
        msk_num_layers=8,
        msk_num_stacks=3,
        msk_activate="relu",
    )
