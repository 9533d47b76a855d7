"""WaveRNN vocoder (Kalchbrenner et al. 2018, fatchord's variant), torchaudio.models.WaveRNN's
module tree, defaults and state-dict keys. `WaveRNN.infer` runs the autoregressive sampling loop
natively (tensorcore::models, models/audio/wavernn_infer.cpp); docs/audio_models.md."""

import math
from typing import List, Optional, Tuple

import tensorcore as tc
from tensorcore import fx
from tensorcore import nn
from tensorcore.nn import functional as F

__all__ = ["ResBlock", "MelResNet", "Stretch2d", "UpsampleNetwork", "WaveRNN"]


def _check_tensor(x, who, name):
    if not isinstance(x, tc.Tensor):
        raise TypeError(f"{who}: {name} must be a Tensor, got {type(x).__name__}")


def _check_3d(x, who, name, channels, channel_name):
    _check_tensor(x, who, name)
    if x.dim() != 3:
        raise ValueError(
            f"{who}: {name} must be (n_batch, {channel_name}, n_time), got shape {tuple(x.shape)}"
        )
    if x.shape[1] != channels:
        raise ValueError(
            f"{who}: {name} has {x.shape[1]} channels (dim 1) but {channel_name}={channels}"
        )
    if x.shape[0] == 0 or x.shape[2] == 0:
        raise ValueError(f"{who}: {name} is empty, shape {tuple(x.shape)}")


# Input checks as module-level functions that tensorcore.fx records as single calls (fx.wrap):
# they branch on shapes, which symbolic tracing cannot follow, and the traced module still runs them.
def _check_melresnet_input(specgram, n_freq, kernel_size):
    _check_3d(specgram, "MelResNet", "specgram", n_freq, "n_freq")
    if specgram.shape[2] < kernel_size:
        raise ValueError(
            f"MelResNet: specgram has {specgram.shape[2]} frames, fewer than "
            f"kernel_size={kernel_size}"
        )


def _check_stretch_input(specgram):
    _check_tensor(specgram, "Stretch2d", "specgram")
    if specgram.dim() < 2:
        raise ValueError(
            f"Stretch2d: specgram must have at least 2 dims (..., n_freq, n_time), got "
            f"shape {tuple(specgram.shape)}"
        )


def _check_wavernn_inputs(waveform, specgram, n_freq, kernel_size, hop_length):
    _check_tensor(waveform, "WaveRNN", "waveform")
    _check_tensor(specgram, "WaveRNN", "specgram")
    if waveform.dim() != 3 or waveform.shape[1] != 1:
        raise ValueError(
            f"WaveRNN: waveform must be (n_batch, 1, n_samples) (the input channel of "
            f"waveform must be 1), got shape {tuple(waveform.shape)}"
        )
    if specgram.dim() != 4 or specgram.shape[1] != 1:
        raise ValueError(
            f"WaveRNN: specgram must be (n_batch, 1, n_freq, n_time) (the input channel of "
            f"specgram must be 1), got shape {tuple(specgram.shape)}"
        )
    if specgram.shape[2] != n_freq:
        raise ValueError(
            f"WaveRNN: specgram has {specgram.shape[2]} frequency bins (dim 2) but n_freq={n_freq}"
        )
    if waveform.shape[0] != specgram.shape[0]:
        raise ValueError(
            f"WaveRNN: waveform has batch size {waveform.shape[0]} but specgram has "
            f"{specgram.shape[0]}"
        )
    n_time = specgram.shape[3]
    expected = (n_time - kernel_size + 1) * hop_length
    if waveform.shape[0] == 0 or n_time < kernel_size:
        raise ValueError(
            f"WaveRNN: specgram needs at least kernel_size={kernel_size} frames and a "
            f"non-empty batch, got shape {tuple(specgram.shape)}"
        )
    if waveform.shape[2] != expected:
        raise ValueError(
            f"WaveRNN: waveform has {waveform.shape[2]} samples but specgram's {n_time} frames "
            f"give (n_time - kernel_size + 1) * hop_length = {expected}"
        )


for _check in (_check_melresnet_input, _check_stretch_input, _check_wavernn_inputs):
    fx.wrap(_check.__name__)
    fx.has_side_effect(_check)


class ResBlock(nn.Module):
    """Residual block of two 1x1 convolutions with batch norm: (n_batch, n_freq, n_time) -> same."""

    def __init__(self, n_freq: int = 128) -> None:
        super().__init__()
        self.resblock_model = nn.Sequential(
            nn.Conv1d(n_freq, n_freq, kernel_size=1, bias=False),
            nn.BatchNorm1d(n_freq),
            nn.ReLU(inplace=True),
            nn.Conv1d(n_freq, n_freq, kernel_size=1, bias=False),
            nn.BatchNorm1d(n_freq),
        )

    def forward(self, specgram):
        return self.resblock_model(specgram) + specgram


class MelResNet(nn.Module):
    """Convolution (kernel_size, no padding) + n_res_block ResBlocks + 1x1 output convolution:
    (n_batch, n_freq, n_time) -> (n_batch, n_output, n_time - kernel_size + 1)."""

    def __init__(
        self,
        n_res_block: int = 10,
        n_freq: int = 128,
        n_hidden: int = 128,
        n_output: int = 128,
        kernel_size: int = 5,
    ) -> None:
        super().__init__()
        self.n_freq = n_freq
        self.kernel_size = kernel_size
        self.melresnet_model = nn.Sequential(
            nn.Conv1d(n_freq, n_hidden, kernel_size=kernel_size, bias=False),
            nn.BatchNorm1d(n_hidden),
            nn.ReLU(inplace=True),
            *[ResBlock(n_hidden) for _ in range(n_res_block)],
            nn.Conv1d(n_hidden, n_output, kernel_size=1),
        )

    def forward(self, specgram):
        _check_melresnet_input(specgram, self.n_freq, self.kernel_size)
        return self.melresnet_model(specgram)


class Stretch2d(nn.Module):
    """Repeats every frequency bin freq_scale times and every frame time_scale times:
    (..., n_freq, n_time) -> (..., n_freq * freq_scale, n_time * time_scale)."""

    def __init__(self, time_scale: int, freq_scale: int) -> None:
        super().__init__()
        self.freq_scale = freq_scale
        self.time_scale = time_scale

    def forward(self, specgram):
        _check_stretch_input(specgram)
        return specgram.repeat_interleave(self.freq_scale, -2).repeat_interleave(
            self.time_scale, -1
        )


class UpsampleNetwork(nn.Module):
    """Upsamples a spectrogram to the sample rate: nearest-neighbour stretches each smoothed by a
    (2 * scale + 1)-tap moving average (learned, initialized to the average), plus the MelResNet
    features stretched by the total scale. (n_batch, n_freq, n_time) ->
    ((n_batch, n_freq, (n_time - kernel_size + 1) * total_scale),
     (n_batch, n_output, (n_time - kernel_size + 1) * total_scale))."""

    def __init__(
        self,
        upsample_scales: List[int],
        n_res_block: int = 10,
        n_freq: int = 128,
        n_hidden: int = 128,
        n_output: int = 128,
        kernel_size: int = 5,
    ) -> None:
        super().__init__()
        upsample_scales = [int(s) for s in upsample_scales]
        if not upsample_scales or any(s < 1 for s in upsample_scales):
            raise ValueError(
                f"UpsampleNetwork: upsample_scales must be positive integers, got {upsample_scales}"
            )
        self.total_scale: int = math.prod(upsample_scales)
        # Frames the MelResNet's unpadded convolution loses on each side, in samples.
        self.indent = (kernel_size - 1) // 2 * self.total_scale
        self.resnet = MelResNet(n_res_block, n_freq, n_hidden, n_output, kernel_size)
        self.resnet_stretch = Stretch2d(self.total_scale, 1)
        up_layers = []
        for scale in upsample_scales:
            conv = nn.Conv2d(1, 1, kernel_size=(1, scale * 2 + 1), padding=(0, scale), bias=False)
            nn.init.constant_(conv.weight, 1.0 / (scale * 2 + 1))
            up_layers += [Stretch2d(scale, 1), conv]
        self.upsample_layers = nn.Sequential(*up_layers)

    def forward(self, specgram):
        resnet_output = self.resnet(specgram).unsqueeze(1)
        resnet_output = self.resnet_stretch(resnet_output).squeeze(1)
        upsampled = self.upsample_layers(specgram.unsqueeze(1)).squeeze(1)
        # torchaudio slices [indent:-indent], which is empty when indent is 0 (kernel_size < 3).
        upsampled = upsampled[:, :, self.indent : upsampled.shape[2] - self.indent]
        return upsampled, resnet_output


class WaveRNN(nn.Module):
    """WaveRNN: an upsampling network conditions two GRUs and a fully connected head that predict
    the next sample's class (n_classes = 2 ** n_bits) from the previous sample.

    forward(waveform, specgram): teacher-forced logits, waveform (n_batch, 1, L) with
    L = (n_time - kernel_size + 1) * hop_length and specgram (n_batch, 1, n_freq, n_time);
    returns (n_batch, 1, L, n_classes).

    infer(specgram, lengths=None, ...): sampling, natively; see its docstring.
    """

    def __init__(
        self,
        upsample_scales: List[int],
        n_classes: int,
        hop_length: int,
        n_res_block: int = 10,
        n_rnn: int = 512,
        n_fc: int = 512,
        kernel_size: int = 5,
        n_freq: int = 128,
        n_hidden: int = 128,
        n_output: int = 128,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self._pad = (kernel_size - 1 if kernel_size % 2 else kernel_size) // 2
        self.n_rnn = n_rnn
        self.n_aux = n_output // 4
        self.hop_length = hop_length
        self.n_classes = n_classes
        self.n_freq = n_freq
        if int(n_classes) < 2:
            raise ValueError(f"WaveRNN: n_classes must be at least 2, got {n_classes}")
        self.n_bits: int = int(math.log2(self.n_classes))
        total_scale = math.prod(int(s) for s in upsample_scales)
        if total_scale != self.hop_length:
            raise ValueError(
                f"WaveRNN: hop_length must equal the product of upsample_scales "
                f"(Expected: total_scale == hop_length, but found {total_scale} != {hop_length})"
            )
        self.upsample = UpsampleNetwork(
            upsample_scales, n_res_block, n_freq, n_hidden, n_output, kernel_size
        )
        self.fc = nn.Linear(n_freq + self.n_aux + 1, n_rnn)
        self.rnn1 = nn.GRU(n_rnn, n_rnn, batch_first=True)
        self.rnn2 = nn.GRU(n_rnn + self.n_aux, n_rnn, batch_first=True)
        self.relu1 = nn.ReLU(inplace=True)
        self.relu2 = nn.ReLU(inplace=True)
        self.fc1 = nn.Linear(n_rnn + self.n_aux, n_fc)
        self.fc2 = nn.Linear(n_fc + self.n_aux, n_fc)
        self.fc3 = nn.Linear(n_fc, self.n_classes)

    def _aux_splits(self, aux):
        return [aux[..., self.n_aux * i : self.n_aux * (i + 1)] for i in range(4)]

    def forward(self, waveform, specgram):
        _check_wavernn_inputs(waveform, specgram, self.n_freq, self.kernel_size, self.hop_length)
        waveform, specgram = waveform.squeeze(1), specgram.squeeze(1)
        batch_size = waveform.shape[0]
        h1 = tc.zeros(1, batch_size, self.n_rnn, dtype=waveform.dtype, device=waveform.device)
        h2 = tc.zeros(1, batch_size, self.n_rnn, dtype=waveform.dtype, device=waveform.device)
        specgram, aux = self.upsample(specgram)
        specgram = specgram.transpose(1, 2)
        aux = aux.transpose(1, 2)
        a1, a2, a3, a4 = self._aux_splits(aux)

        x = tc.cat([waveform.unsqueeze(-1), specgram, a1], dim=-1)
        x = self.fc(x)
        res = x
        x, _ = self.rnn1(x, h1)
        x = x + res
        res = x
        x = tc.cat([x, a2], dim=-1)
        x, _ = self.rnn2(x, h2)
        x = x + res
        x = self.relu1(self.fc1(tc.cat([x, a3], dim=-1)))
        x = self.relu2(self.fc2(tc.cat([x, a4], dim=-1)))
        x = self.fc3(x)
        return x.unsqueeze(1)

    def _sampling_weights(self):
        names = ("fc", "rnn1", "rnn2", "fc1", "fc2", "fc3")
        return {k: v.detach() for k, v in self.state_dict().items() if k.split(".")[0] in names}

    def infer(
        self,
        specgram,
        lengths=None,
        *,
        generator=None,
        torch_seed: Optional[int] = None,
        mulaw: bool = False,
        fold: bool = False,
        target: int = 11000,
        overlap: int = 550,
    ) -> Tuple["tc.Tensor", Optional["tc.Tensor"]]:
        """Generates waveforms from spectrograms, one sample at a time, natively.

        Args:
            specgram: (n_batch, n_freq, n_time), in the model's dtype.
            lengths: optional (n_batch,) valid frames per spectrogram; samples past
                lengths * hop_length are not generated (they are 0).
            generator: tc.Generator for the draws (default: the global generator). Step t draws
                as tc.multinomial(softmax(logits_t), 1, generator=generator) would.
            torch_seed: draw from torch's CPU stream after torch.manual_seed(torch_seed)
                instead, so the samples equal torchaudio's infer run right after that call with
                the same weights (up to floating-point near-ties).
            mulaw: return mu-law decoded samples (torchaudio's WaveRNN vocoder pipeline output)
                instead of the labels mapped linearly to [-1, 1].
            fold: generate overlapping segments as one batch: each owns `target` samples and
                starts `overlap` samples early; overlaps are cross-faded in place, so the output
                has the unfolded length and timeline.

        Returns:
            (waveform (n_batch, 1, n_time * hop_length) float32, lengths * hop_length or None)
        """
        _check_3d(specgram, "WaveRNN.infer", "specgram", self.n_freq, "n_freq")
        dtype = self.fc.weight.dtype
        if specgram.dtype != dtype:
            raise TypeError(
                f"WaveRNN.infer: specgram has dtype {specgram.dtype} but the model's parameters "
                f"are {dtype}"
            )
        b_size, _, n_time = specgram.shape
        out_lengths = None
        length_list = []
        if lengths is not None:
            _check_tensor(lengths, "WaveRNN.infer", "lengths")
            if lengths.dim() != 1 or lengths.shape[0] != b_size:
                raise ValueError(
                    f"WaveRNN.infer: lengths must be (n_batch,) = ({b_size},), got shape "
                    f"{tuple(lengths.shape)}"
                )
            if lengths.is_floating_point() or lengths.is_complex():
                raise TypeError(
                    f"WaveRNN.infer: lengths must be an integer tensor, got {lengths.dtype}"
                )
            frames = [int(v) for v in lengths.tolist()]
            if any(f < 0 or f > n_time for f in frames):
                raise ValueError(
                    f"WaveRNN.infer: lengths must be in [0, n_time={n_time}], got {frames}"
                )
            length_list = [f * self.hop_length for f in frames]
            out_lengths = lengths * self.upsample.total_scale
        if fold and (int(target) < 1 or not 0 <= int(overlap) <= int(target)):
            raise ValueError(
                f"WaveRNN.infer: fold needs target >= 1 and 0 <= overlap <= target, got "
                f"target={target}, overlap={overlap}"
            )
        if torch_seed is not None and generator is not None:
            raise ValueError("WaveRNN.infer: pass generator or torch_seed, not both")
        with tc.no_grad():
            padded = F.pad(specgram, (self._pad, self._pad))
            cond, aux = self.upsample(padded)
            seed = None if torch_seed is None else int(torch_seed) & ((1 << 64) - 1)
            waveform = tc._C._models_audio.wavernn_infer(
                self._sampling_weights(),
                cond,
                aux,
                length_list,
                generator=generator,
                torch_seed=seed,
                mulaw=bool(mulaw),
                fold_target=int(target) if fold else 0,
                fold_overlap=int(overlap) if fold else 0,
            )
        return waveform, out_lengths
