"""The main job: a short end-to-end run through every area on generated data.

1. Images: draws a small two-class image set (bars vs. rings), encodes it to JPEG and decodes it
   back with tensorcore.vision.io, augments with tensorcore.vision.transforms, and trains a small
   CNN (nn + optim + DataLoader) to a set accuracy.
2. Audio: synthesizes two tones, saves and reloads them through SoX, and turns them into
   MelSpectrogram features; a linear classifier on the features separates the tones.
3. Checkpoint: saves the CNN's state_dict (safetensors) and reloads it into a fresh model.
"""

import math
import os
import tempfile
import time

import numpy as np

import tensorcore as tc
import tensorcore.audio as ta
from tensorcore import nn
from tensorcore.utils.data import DataLoader, TensorDataset
from tensorcore.vision import io as vio
from tensorcore.vision import transforms as T

tc.manual_seed(0)
rng = np.random.default_rng(0)
start = time.time()


def draw(label, size=32):
    """A 3 x size x size uint8 picture: class 0 = bars, class 1 = a ring; random colour/offset."""
    y, x = np.mgrid[0:size, 0:size]
    cx, cy = rng.uniform(10, 22, 2)
    if label == 0:
        mask = ((x + rng.integers(0, 6)) // 4) % 2 == 0
    else:
        r = np.hypot(x - cx, y - cy)
        mask = (r > 5) & (r < 9)
    colour = rng.integers(120, 255, 3)
    img = np.zeros((3, size, size), np.uint8) + rng.integers(0, 40, (3, 1, 1)).astype(np.uint8)
    img[:, mask] = colour[:, None]
    return img


# ---- 1. images: JPEG round trip, transforms, CNN training ----
labels = rng.integers(0, 2, 256)
jpegs = [vio.encode_jpeg(tc.from_numpy(draw(int(k))), quality=90) for k in labels]
images = tc.stack(vio.decode_jpeg(jpegs))  # batched decode on the thread pool
print(f"decoded {images.shape[0]} JPEGs -> {tuple(images.shape)} {images.dtype}")

train_tf = T.Compose(
    [T.RandomHorizontalFlip(), T.ConvertImageDtype(tc.float32), T.Normalize([0.5] * 3, [0.25] * 3)]
)
eval_tf = T.Compose([T.ConvertImageDtype(tc.float32), T.Normalize([0.5] * 3, [0.25] * 3)])
targets = tc.tensor(labels, dtype=tc.int64)
loader = DataLoader(
    TensorDataset(images[:192], targets[:192]),
    batch_size=32,
    shuffle=True,
    generator=tc.Generator().manual_seed(0),
)


def make_cnn():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(16, 2),
    )


model = make_cnn()
opt = tc.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(8):
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(train_tf(xb)), yb)  # per-sample random flips on the batch
        loss.backward()
        opt.step()
model.eval()
with tc.no_grad():
    accuracy = (model(eval_tf(images[192:])).argmax(1) == targets[192:]).float().mean().item()
print(f"CNN: final batch loss {loss.item():.3f}, held-out accuracy {accuracy:.2%}")
assert accuracy >= 0.9, accuracy

# ---- 2. audio: SoX round trip and MelSpectrogram features ----
sr = 16000
with tempfile.TemporaryDirectory() as tmp:
    feats, tone_labels = [], []
    mel = ta.transforms.MelSpectrogram(sample_rate=sr, n_fft=400, hop_length=160, n_mels=40)
    for i in range(24):
        label = i % 2
        freq = (440.0 if label == 0 else 1760.0) * (1 + 0.05 * rng.standard_normal())
        t = np.arange(sr // 2) / sr
        wave = 0.5 * np.sin(2 * math.pi * freq * t) + 0.05 * rng.standard_normal(t.size)
        path = os.path.join(tmp, f"tone{i}.wav")
        ta.save(path, tc.from_numpy(wave.astype(np.float32)[None]), sr, bits_per_sample=16)
        waveform, rate = ta.load(path)
        assert rate == sr and waveform.shape == (1, sr // 2)
        spec = mel(waveform)  # 1 x n_mels x frames
        feats.append((spec + 1e-6).log().mean(-1).reshape(-1))
        tone_labels.append(label)
    X, Y = tc.stack(feats), tc.tensor(tone_labels)
    X = (X - X.mean(0)) / (X.std(0) + 1e-6)
    clf = nn.Linear(X.shape[1], 2)
    sgd = tc.optim.SGD(clf.parameters(), lr=0.1, momentum=0.9)
    for _ in range(50):
        sgd.zero_grad()
        nn.functional.cross_entropy(clf(X), Y).backward()
        sgd.step()
    tone_acc = (clf(X).argmax(1) == Y).float().mean().item()
print(
    f"audio: {len(feats)} clips -> MelSpectrogram features {tuple(X.shape)}, tone accuracy {tone_acc:.0%}"
)
assert tone_acc == 1.0

# ---- 3. checkpoint round trip ----
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "cnn.safetensors")
    tc.save(model.state_dict(), path)
    fresh = make_cnn()
    fresh.load_state_dict(tc.load(path))
    fresh.eval()
    with tc.no_grad():
        same = tc.equal(fresh(eval_tf(images[192:])), model(eval_tf(images[192:])))
print(f"checkpoint: reloaded model gives identical outputs: {same}")
assert same
print(f"done in {time.time() - start:.1f} s")
