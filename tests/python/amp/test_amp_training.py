"""A small classifier trained with autocast (bfloat16 on the CPU) and GradScaler reaches a set
accuracy, and its loss curve stays close to the float32 run's."""

import numpy as np

import tensorcore as tc
import tensorcore.nn as nn
import tensorcore.nn.functional as F


def make_data(n=600, d=16, classes=4, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((classes, d)).astype(np.float32) * 2.0
    labels = rng.integers(0, classes, n)
    x = centers[labels] + rng.standard_normal((n, d)).astype(np.float32)
    # A nonlinear twist so a linear model is not enough.
    x[:, 0] = np.sin(x[:, 1]) * 2.0 + x[:, 0]
    return tc.tensor(x), tc.tensor(labels.astype(np.int64))


def train(use_amp, steps=150, seed=0):
    tc.manual_seed(seed)
    x, y = make_data()
    model = nn.Sequential(
        nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4)
    )
    opt = tc.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = tc.amp.GradScaler(init_scale=2.0**12, growth_interval=50, enabled=use_amp)
    losses = []
    for step in range(steps):
        idx = tc.tensor(np.random.default_rng(step).integers(0, 600, 64).astype(np.int64))
        xb, yb = x[idx], y[idx]
        opt.zero_grad()
        with tc.autocast("cpu", enabled=use_amp):
            logits = model(xb)
            assert logits.dtype == (tc.bfloat16 if use_amp else tc.float32)
            loss = F.cross_entropy(logits, yb)
            assert loss.dtype == tc.float32
        scaler.scale(loss).backward()
        for p in model.parameters():
            assert p.grad.dtype == tc.float32
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    with tc.no_grad(), tc.autocast("cpu", enabled=use_amp):
        acc = (model(x).argmax(1) == y).float().mean().item()
    return losses, acc, scaler


def test_autocast_gradscaler_training_reaches_accuracy():
    losses, acc, scaler = train(use_amp=True)
    assert acc >= 0.95, acc
    assert np.mean(losses[-20:]) < 0.25 * np.mean(losses[:5])
    # growth_interval=50 and no overflow in 150 steps: the scale grew three times.
    assert scaler.get_scale() == 2.0**15


def test_amp_loss_curve_tracks_float32():
    amp_losses, amp_acc, _ = train(use_amp=True, steps=60)
    fp_losses, fp_acc, _ = train(use_amp=False, steps=60)
    assert abs(np.mean(amp_losses[-10:]) - np.mean(fp_losses[-10:])) < 0.1
    assert abs(amp_acc - fp_acc) < 0.05
