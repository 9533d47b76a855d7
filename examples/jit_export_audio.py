"""Exports two audio models with their decode and front end for C++ deployment:

    python3 examples/jit_export_audio.py asr asr.tcj speech.flac           # prints the transcript
    build/examples/jit_audio asr asr.tcj speech.flac                       # the same line
    python3 examples/jit_export_audio.py separate sep.tcj mix.wav out_dir  # writes out_dir/py_s{k}.wav
    build/examples/jit_audio separate sep.tcj mix.wav out_dir              # writes out_dir/cpp_s{k}.wav

asr: file bytes -> decode -> MFCC (13 coefficients at 16 kHz; one native pipeline node) ->
Wav2Letter (29 labels, weights from seed 0) -> per-frame argmax; the transcript is the greedy CTC
decoding (collapse repeats, drop blanks) over LABELS, done the same way in both programs.
separate: file bytes -> decode -> ConvTasNet (2 sources, small, weights from seed 0) -> the
sources, written as 16-bit WAVs at the input's rate.
"""

import os
import sys

import tensorcore as tc
import tensorcore.audio as ta
from tensorcore import nn
from tensorcore.audio import transforms as T
from tensorcore.audio.models import ConvTasNet, Wav2Letter
from tensorcore.audio.pipeline import Compose
from tensorcore.vision.io import read_file

LABELS = "_ abcdefghijklmnopqrstuvwxyz'"  # index 0 is the CTC blank


class Recognizer(nn.Module):
    def __init__(self):
        super().__init__()
        tc.manual_seed(0)
        self.features = Compose([T.MFCC(sample_rate=16000, n_mfcc=13, melkwargs={"n_mels": 40})])
        self.model = Wav2Letter(num_classes=len(LABELS), input_type="mfcc", num_features=13).eval()

    def forward(self, data):
        waveform, _ = ta.decode_audio(data)
        logits = self.model(self.features(waveform[:1]))  # (1, classes, frames)
        return logits[0].argmax(0)


class Separator(nn.Module):
    def __init__(self):
        super().__init__()
        tc.manual_seed(0)
        self.model = ConvTasNet(
            num_sources=2,
            enc_kernel_size=16,
            enc_num_feats=64,
            msk_kernel_size=3,
            msk_num_feats=32,
            msk_num_hidden_feats=64,
            msk_num_layers=3,
            msk_num_stacks=1,
        ).eval()

    def forward(self, data):
        waveform, _ = ta.decode_audio(data)
        return self.model(waveform[:1].unsqueeze(0))[0]  # (2, frames)


def greedy(indices):
    out, previous = [], None
    for i in indices.tolist():
        if i != previous and i != 0:
            out.append(LABELS[i])
        previous = i
    return "".join(out)


def main():
    mode, path, audio = sys.argv[1:4]
    data = read_file(audio)
    if mode == "asr":
        tc.jit.trace(Recognizer().eval(), data).save(path)
        print(f"{audio} '{greedy(tc.jit.load(path)(data))}'")
    else:
        out_dir = sys.argv[4]
        tc.jit.trace(Separator().eval(), data).save(path)
        sources = tc.jit.load(path)(data)
        _, rate = ta.decode_audio(data)
        for k in range(sources.shape[0]):
            ta.save(
                os.path.join(out_dir, f"py_s{k}.wav"),
                sources[k : k + 1],
                rate,
                encoding="PCM_S",
                bits_per_sample=16,
            )
        print(f"{audio} {sources.shape[0]} sources of {sources.shape[1]} samples")


if __name__ == "__main__":
    main()
