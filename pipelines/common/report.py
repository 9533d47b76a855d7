"""What a run leaves for people to look at: TensorBoard event files, PNG plots, metrics.json."""

import json
import os
import warnings

import numpy as np


class Board:
    """TensorBoard logging through tensorcore.utils.tensorboard.SummaryWriter (the tensorboard
    package's event format). Without that writer the run continues and says so once."""

    def __init__(self, log_dir, enabled=True, purge_step=None):
        self.writer = None
        if not enabled:
            return
        try:
            from tensorcore.utils.tensorboard import SummaryWriter
        except ImportError as e:
            warnings.warn(f"TensorBoard logging is off: {e}", stacklevel=2)
            return
        # purge_step: on resume, events an interrupted run logged after its checkpoint are
        # dropped, so the curves show each step once.
        self.writer = SummaryWriter(log_dir, purge_step=purge_step or None)

    def scalar(self, tag, value, step):
        if self.writer is not None:
            self.writer.add_scalar(tag, float(value), step)

    def audio(self, tag, waveform, step, sample_rate):
        if self.writer is not None:
            wave = np.asarray(waveform, dtype=np.float32).reshape(-1)
            peak = float(np.max(np.abs(wave))) if wave.size else 0.0
            if peak > 1.0:
                wave = wave / peak
            self.writer.add_audio(tag, wave, step, sample_rate=sample_rate)

    def image(self, tag, image_hwc, step):
        """image_hwc: float in [0, 1] or uint8, (H, W, 3)."""
        if self.writer is not None:
            self.writer.add_image(tag, np.asarray(image_hwc), step, dataformats="HWC")

    def image_with_boxes(self, tag, image_chw, boxes_xyxy, step, labels=None):
        if self.writer is not None:
            self.writer.add_image_with_boxes(
                tag, np.asarray(image_chw), np.asarray(boxes_xyxy), step, labels=labels
            )

    def text(self, tag, text, step):
        if self.writer is not None:
            self.writer.add_text(tag, text, step)

    def flush(self):
        if self.writer is not None:
            self.writer.flush()

    def close(self):
        if self.writer is not None:
            self.writer.close()


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_curves(history, out_dir, main_metric):
    """training loss (with a moving average), learning rate and evaluation metrics vs step."""
    plt = _pyplot()
    losses = np.array(history["loss"], dtype=np.float64).reshape(-1, 2)
    evals = history["eval"]
    metric_names = sorted({k for _, _, m in evals for k in m})
    panels = 2 + (1 if metric_names else 0)
    fig, axes = plt.subplots(1, panels, figsize=(5 * panels, 3.6))
    ax = axes[0]
    if len(losses):
        ax.plot(losses[:, 0], losses[:, 1], lw=0.6, alpha=0.5, label="step")
        window = max(1, len(losses) // 50)
        if window > 1:
            smooth = np.convolve(losses[:, 1], np.ones(window) / window, mode="valid")
            ax.plot(losses[window - 1 :, 0], smooth, lw=1.5, label=f"mean of {window}")
        ax.legend()
    ax.set(title="training loss", xlabel="step")
    lrs = np.array(history["lr"], dtype=np.float64).reshape(-1, 2)
    axes[1].plot(lrs[:, 0], lrs[:, 1]) if len(lrs) else None
    axes[1].set(title="learning rate", xlabel="step", yscale="log" if len(lrs) else "linear")
    if metric_names:
        ax = axes[2]
        steps = [s for _, s, _ in evals]
        for name in metric_names:
            ax.plot(steps, [m.get(name, np.nan) for _, _, m in evals], marker="o", label=name)
        ax.set(title=f"held-out metrics (main: {main_metric})", xlabel="step")
        ax.legend(fontsize=7)
    fig.tight_layout()
    path = os.path.join(out_dir, "curves.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def new_figure(rows=1, cols=1, size=(6, 4)):
    plt = _pyplot()
    fig, axes = plt.subplots(rows, cols, figsize=size, squeeze=False)
    return plt, fig, axes


def save_figure(plt, fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_json(path, obj):
    from .checkpoint import atomic_write_bytes

    atomic_write_bytes(
        path, (json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n").encode()
    )
