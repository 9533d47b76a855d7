"""What a vocoder has to reach to beat Griffin-Lim on the WaveRNN pipeline's held-out distances:
the recording itself passed through the losses a sample-by-sample vocoder cannot avoid (8-bit
mu-law levels, a sampler off by one level, noise at a fixed SNR relative to the local loudness),
with and without pre-emphasis (noise added to the pre-emphasized waveform, then de-emphasized),
and with the pipeline's linear prediction from the mel (--lpc-order 16 and 64: the damage done
to the excitation, which the synthesis filter then shapes), next to Griffin-Lim from the same
mel. Scored exactly as the pipeline's evaluation.

    python scripts/vocoder_bounds.py --data-root data/tts [--items 8] [--seconds 1]
"""

import argparse

import numpy as np

import tensorcore as tc
import tensorcore.audio as ta
from tensorcore.pipelines.common.cli import build_parser
from tensorcore.pipelines.wavernn.lpc import prediction, synthesize
from tensorcore.pipelines.wavernn.task import WaveRNNTask

LPC_ORDERS = (16, 64)


def mulaw_levels(x, rng, spread):
    """8-bit mu-law levels, each drawn uniformly within +-spread levels of the right one: what a
    crossentropy model with a loss of ln(2 spread + 1) nats per sample samples at best."""
    levels = ta.functional.mu_law_encoding(tc.as_tensor(x.astype(np.float32)), 256).numpy()
    if spread:
        levels = levels + rng.integers(-spread, spread + 1, len(x))
    levels = tc.as_tensor(np.clip(levels, 0, 255))
    return ta.functional.mu_law_decoding(levels, 256).numpy().astype(np.float64)


def local_loudness(x):
    """RMS over a moving 256-sample window."""
    return np.sqrt(np.convolve(x**2, np.ones(256) / 256, mode="same"))


def relative_noise(x, rng, snr_db):
    return x + local_loudness(x) * 10 ** (-snr_db / 20) * rng.standard_normal(len(x))


def excitation_losses(task, mel, emphasized, rng):
    """The pre-emphasized waveform rebuilt from its excitation after each loss (levels as
    mulaw_levels, or white noise at the excitation's local loudness: an LPC vocoder with the
    right gain and no pitch)."""
    filters = task.lpc.sample_filters(
        task.lpc.coefficients(task.mel_power(mel)), len(emphasized), task.args.hop_length
    )
    e = emphasized - prediction(emphasized, filters)
    damaged = {f"+-{k} levels ({np.log(2 * k + 1):.2f} nats)": mulaw_levels(e, rng, k)
               for k in (1, 2, 3, 5)}  # fmt: skip
    damaged = {"8-bit mu-law": mulaw_levels(e, rng, 0), **damaged}
    damaged["white noise at its loudness"] = local_loudness(e) * rng.standard_normal(len(e))
    return {name: synthesize(x, filters) for name, x in damaged.items()}


def main():
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--data-root", required=True)
    cli.add_argument("--items", type=int, default=8)
    cli.add_argument("--seconds", type=float, default=1.0)
    opts = cli.parse_args()
    args = build_parser(WaveRNNTask, "").parse_args(
        ["--data-root", opts.data_root, "--output-dir", "unused",
         "--eval-seconds", str(opts.seconds)]
    )  # fmt: skip
    rng = np.random.default_rng(0)
    losses = {
        "8-bit mu-law": lambda x: mulaw_levels(x, rng, 0),
        "8-bit mu-law, +-1 level (1.10 nats)": lambda x: mulaw_levels(x, rng, 1),
        "8-bit mu-law, +-2 levels (1.61 nats)": lambda x: mulaw_levels(x, rng, 2),
        "8-bit mu-law, +-3 levels (1.95 nats)": lambda x: mulaw_levels(x, rng, 3),
        "noise at 20 dB SNR": lambda x: relative_noise(x, rng, 20),
        "noise at 30 dB SNR": lambda x: relative_noise(x, rng, 30),
    }
    sums = {}
    for coefficient, order in ((0.0, 0), (0.86, 0)) + tuple((0.86, o) for o in LPC_ORDERS):
        args.preemphasis, args.lpc_order = coefficient, order
        task = WaveRNNTask(args)
        _, held_out = task.datasets()
        step = max(1, len(held_out) // opts.items)
        for index in range(0, step * opts.items, step):
            mel, wave = task.load_eval_item(held_out, index, rng)
            truth = wave.numpy().astype(np.float64)
            rows = {}
            if coefficient == 0.0:
                gl = task.griffin_lim(task.mel_power(mel.numpy()), len(truth))
                rows["Griffin-Lim (32 iterations)"] = gl
            emphasized = task.emphasize(wave).numpy().astype(np.float64)
            if order:
                rebuilt = excitation_losses(task, mel.numpy(), emphasized, rng)
                damaged = {f"excitation of order-{order} prediction, {k}": v
                           for k, v in rebuilt.items()}  # fmt: skip
            else:
                damaged = {f"{name}, pre-emphasis {coefficient}" if coefficient else name:
                           loss(emphasized) for name, loss in losses.items()}  # fmt: skip
            for label, x in damaged.items():
                x = tc.as_tensor(x.astype(np.float32)).unsqueeze(0)
                rows[label] = task.deemphasize(x)[0].numpy()
            for label, estimate in rows.items():
                scores = task.analysis.distances(estimate, truth)
                total = sums.setdefault(label, np.zeros(2))
                total += [scores["log_mel_l1"], scores["mcd"]]
    print(f"{opts.items} held-out utterances, first {opts.seconds} s")
    print(f"{'':66s} {'log-mel L1':>10s} {'MCD':>7s}")
    for label, (l1, mcd) in sums.items():
        print(f"{label:66s} {l1 / opts.items:10.3f} {mcd / opts.items:7.1f}")


if __name__ == "__main__":
    main()
