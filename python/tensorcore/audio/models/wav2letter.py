"""Wav2Letter (Collobert et al. 2016), torchaudio.models.Wav2Letter's module tree and defaults."""

import tensorcore as tc
from tensorcore import fx
from tensorcore import nn

__all__ = ["Wav2Letter"]

_INPUT_TYPES = ("waveform", "power_spectrum", "mfcc")


def _conv_relu(in_channels, out_channels, kernel_size, stride, padding):
    return [
        nn.Conv1d(
            in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding
        ),
        nn.ReLU(inplace=True),
    ]


# A module-level function so that tensorcore.fx records it as one call (fx.wrap): it branches on
# the input's shape, which symbolic tracing cannot follow; the traced module still runs it.
@fx.has_side_effect
def _check_wav2letter_input(x, num_features, input_type):
    if not isinstance(x, tc.Tensor):
        raise TypeError(f"Wav2Letter: x must be a Tensor, got {type(x).__name__}")
    if x.dim() != 3:
        raise ValueError(
            f"Wav2Letter: x must be (batch, num_features, time), got shape {tuple(x.shape)}"
        )
    if x.shape[1] != num_features:
        raise ValueError(
            f"Wav2Letter: x has {x.shape[1]} features (dim 1) but the model expects "
            f"num_features={num_features}"
        )
    if x.shape[0] == 0 or x.shape[2] == 0:
        raise ValueError(f"Wav2Letter: x is empty, shape {tuple(x.shape)}")
    # The first acoustic convolution (kernel 48, padding 23) needs two frames; a waveform
    # gives a frame per 160 samples.
    min_len = 320 if input_type == "waveform" else 2
    if x.shape[2] < min_len:
        raise ValueError(
            f"Wav2Letter: x has {x.shape[2]} time steps, the model needs at least "
            f"{min_len} for input_type={input_type!r}"
        )


fx.wrap("_check_wav2letter_input")


class Wav2Letter(nn.Module):
    """Wav2Letter acoustic model: a stack of 1-d convolutions with ReLU, log-softmax over classes.

    Args:
        num_classes: output classes (default 40).
        input_type: "waveform" (raw audio, a strided front-end convolution first),
            "power_spectrum" or "mfcc" (features at a frame rate).
        num_features: input channels: 1 for a mono waveform, the number of spectrogram bins or
            MFCC coefficients otherwise.

    forward(x): x is (batch, num_features, time); returns (batch, num_classes, frames) log
    probabilities.
    """

    def __init__(
        self, num_classes: int = 40, input_type: str = "waveform", num_features: int = 1
    ) -> None:
        super().__init__()
        if input_type not in _INPUT_TYPES:
            raise ValueError(
                f"Wav2Letter: input_type must be one of {_INPUT_TYPES}, got {input_type!r}"
            )
        if int(num_classes) < 1 or int(num_features) < 1:
            raise ValueError(
                f"Wav2Letter: num_classes and num_features must be positive, got "
                f"num_classes={num_classes}, num_features={num_features}"
            )
        self.input_type = input_type
        self.num_features = int(num_features)
        acoustic_in = 250 if input_type == "waveform" else num_features
        layers = _conv_relu(acoustic_in, 250, 48, 2, 23)
        for _ in range(7):
            layers += _conv_relu(250, 250, 7, 1, 3)
        layers += _conv_relu(250, 2000, 32, 1, 16)
        layers += _conv_relu(2000, 2000, 1, 1, 0)
        layers += _conv_relu(2000, num_classes, 1, 1, 0)
        acoustic_model = nn.Sequential(*layers)
        if input_type == "waveform":
            # 250-sample windows every 160 samples (10 ms at 16 kHz) stand in for the feature frames.
            waveform_model = nn.Sequential(*_conv_relu(num_features, 250, 250, 160, 45))
            self.acoustic_model = nn.Sequential(waveform_model, acoustic_model)
        else:
            self.acoustic_model = acoustic_model

    def forward(self, x):
        _check_wav2letter_input(x, self.num_features, self.input_type)
        x = self.acoustic_model(x)
        return nn.functional.log_softmax(x, dim=1)
