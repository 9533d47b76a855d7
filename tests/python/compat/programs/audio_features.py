"""Audio feature extraction and resampling, in the style of torchaudio's tutorials: write and
load a WAV file, resample it, compute a spectrogram, mel spectrogram, MFCC and deltas, and a
tiny keyword classifier trained on the MFCCs."""

import argparse
import math
import os

import torch
import torch.nn as nn
import torchaudio
import torchaudio.functional as AF
import torchaudio.transforms as T

history = []


def tone(freq, sr, seconds, amplitude=0.5):
    t = torch.arange(int(sr * seconds), dtype=torch.float32) / sr
    return amplitude * torch.sin(2 * math.pi * freq * t).unsqueeze(0)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=str, required=True)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    sr = 16000
    clips = [tone(f, sr, 0.25) + tone(3 * f, sr, 0.25, 0.1) for f in (220.0, 330.0, 440.0, 550.0)]
    path = os.path.join(args.out, "tones.wav")
    torchaudio.save(path, torch.cat(clips, dim=1), sr)
    waveform, sample_rate = torchaudio.load(path)
    info = torchaudio.info(path)
    print(f"loaded {tuple(waveform.shape)} at {sample_rate} Hz, {info.num_frames} frames")
    resampled = AF.resample(waveform, sample_rate, 8000)
    resampler = T.Resample(sample_rate, 22050, resampling_method="sinc_interpolation")
    upsampled = resampler(waveform)
    spec = T.Spectrogram(n_fft=400, hop_length=160)(waveform)
    mel = T.MelSpectrogram(sample_rate=sr, n_fft=400, hop_length=160, n_mels=32)(waveform)
    db = T.AmplitudeToDB(top_db=80)(mel)
    mfcc_transform = T.MFCC(
        sample_rate=sr, n_mfcc=13, melkwargs={"n_fft": 400, "hop_length": 160, "n_mels": 32}
    )
    mfcc = mfcc_transform(waveform)
    deltas = T.ComputeDeltas()(mfcc)
    features = {
        "resampled": resampled,
        "upsampled": upsampled,
        "spec": spec,
        "mel_db": db,
        "mfcc": mfcc,
        "deltas": deltas,
    }
    for name, value in features.items():
        print(f"{name}: shape {tuple(value.shape)} mean {value.mean().item():.5f}")
    # A tiny classifier: which of the four tones is a frame from?
    frames = mfcc[0].t()  # (time, n_mfcc)
    labels = torch.arange(4).repeat_interleave(frames.size(0) // 4 + 1)[: frames.size(0)]
    model = nn.Sequential(nn.Linear(13, 16), nn.ReLU(), nn.Linear(16, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    mean, std = frames.mean(0), frames.std(0)
    x = (frames - mean) / std
    for step in range(args.steps):
        optimizer.zero_grad()
        loss = criterion(model(x), labels)
        loss.backward()
        optimizer.step()
        history.append(loss.item())
    print(f"final loss {history[-1]:.4f}")
    return features


if __name__ == "__main__":
    main()
