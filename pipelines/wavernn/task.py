"""WaveRNN vocoder on LibriTTS (torchaudio 0.7's WaveRNN example: mel conditioning, mu-law
targets, cross-entropy or mixture-of-logistics loss, random segments of --seq-len-factor frames).

Held-out evaluation generates audio from ground-truth mels with the native sampling loop and
scores it against the recording (log-mel L1, mel-cepstral distortion); Griffin-Lim from the same
mel is the baseline to beat.
"""

import os

import numpy as np

import tensorcore as tc
import tensorcore.audio as ta
from tensorcore import nn

from ..common import Task
from ..common.errors import PipelineError
from ..common.metrics.vocoder import GriffinLimFromMel, MelAnalysis
from .lpc import MelLPC, prediction
from .mol import mol_loss, mulaw_expand, sample_mol, sample_step
from .stepwise import run_recurrence


class WaveRNNTask(Task):
    name = "wavernn"
    main_metric = "log_mel_l1"
    metric_mode = "min"

    @staticmethod
    def add_arguments(parser):
        g = parser.add_argument_group("wavernn")
        g.add_argument("--dataset", choices=("libritts", "ljspeech"), default="libritts")
        g.add_argument("--train-split", default="train-clean-100")
        g.add_argument("--eval-split", default="dev-clean")
        g.add_argument("--sample-rate", type=int, default=22050, help="audio is resampled to it")
        g.add_argument("--n-fft", type=int, default=2048)
        g.add_argument("--hop-length", type=int, default=275)
        g.add_argument("--win-length", type=int, default=1100)
        g.add_argument("--f-min", type=float, default=40.0)
        g.add_argument("--f-max", type=float, default=11025.0)
        g.add_argument("--n-freq", type=int, default=80, help="mel bins")
        g.add_argument("--min-level-db", type=float, default=-100.0)
        g.add_argument("--n-bits", type=int, default=8)
        g.add_argument("--loss", choices=("crossentropy", "mol"), default="crossentropy")
        g.add_argument(
            "--mulaw",
            action=_Bool,
            default=None,
            help="mu-law companded samples (--no-mulaw: linear); default: on for crossentropy "
            "(8-bit mu-law classes), off for mol (the continuous waveform), as torchaudio's example",
        )
        g.add_argument("--upsample-scales", type=int, nargs="+", default=[5, 5, 11])
        g.add_argument("--seq-len-factor", type=int, default=5, help="training segment in frames")
        g.add_argument("--n-res-block", type=int, default=10)
        g.add_argument("--n-rnn", type=int, default=512)
        g.add_argument("--n-fc", type=int, default=512)
        g.add_argument("--kernel-size", type=int, default=5)
        g.add_argument("--n-hidden-resblock", type=int, default=128)
        g.add_argument("--n-output-melresnet", type=int, default=128)
        g.add_argument(
            "--input-noise",
            type=float,
            default=0.0,
            help="std of Gaussian noise added to the teacher-forced input samples (in [-1, 1]) "
            "while training: FFTNet's noise injection, so the model learns to recover from its "
            "own sampling errors in free-running generation; 0: off (torchaudio's example)",
        )
        g.add_argument(
            "--preemphasis",
            type=float,
            default=0.0,
            help="the model learns (x[n] - c x[n-1]) / (1 + c) and generation is de-emphasized "
            "(LPCNet's noise shaping: sampling noise falls off toward high frequencies, under the "
            "speech spectrum, instead of white); 0: off (torchaudio's example)",
        )
        g.add_argument(
            "--lpc-order",
            type=int,
            default=0,
            help="model the excitation of a linear predictor of this order derived from the mel "
            "(LPCNet): the input stays the waveform, the target becomes s[n] - p[n], and "
            "generation adds the prediction back, so sampling noise follows the spectral "
            "envelope; 0: off (torchaudio's example)",
        )
        g.add_argument(
            "--lpc-input",
            choices=("waveform", "excitation"),
            default="waveform",
            help="with --lpc-order: the past sample the model reads, the waveform s[n-1] or the "
            "excitation e[n-1] (where pitch pulses stand out from the formant ringing)",
        )
        g.add_argument(
            "--temperature",
            type=float,
            default=1.0,
            help="generation samples the crossentropy classes from softmax(logits / T): below 1 "
            "the rare far levels, which a prediction filter amplifies, are drawn less often; "
            "1: as trained (torchaudio's example)",
        )
        g.add_argument("--eval-seconds", type=float, default=1.0, help="generated per utterance")
        g.add_argument("--griffin-lim-iters", type=int, default=32)
        parser.set_defaults(
            optimizer="adam",
            learning_rate=1e-4,
            clip_grad=4.0,
            batch_size=256,
            epochs=8000,
            scheduler="none",
            max_eval_items=4,
        )

    def __init__(self, args):
        super().__init__(args)
        if args.mulaw is None:
            args.mulaw = args.loss == "crossentropy"
        if not args.input_noise >= 0:
            raise PipelineError(f"--input-noise {args.input_noise}: must be >= 0")
        if not 0 <= args.preemphasis < 1:
            raise PipelineError(f"--preemphasis {args.preemphasis}: must be in [0, 1)")
        if not args.temperature > 0:
            raise PipelineError(f"--temperature {args.temperature}: must be > 0")
        if args.temperature != 1.0 and args.loss != "crossentropy":
            raise PipelineError(
                f"--temperature {args.temperature}: applies to --loss crossentropy's classes"
            )
        if not 0 <= args.lpc_order <= 64:
            raise PipelineError(f"--lpc-order {args.lpc_order}: must be in [0, 64]")
        if int(np.prod(args.upsample_scales)) != args.hop_length:
            raise PipelineError(
                f"--upsample-scales {args.upsample_scales} multiply to "
                f"{int(np.prod(args.upsample_scales))}, but --hop-length is {args.hop_length}"
            )
        self.mel = ta.transforms.MelSpectrogram(
            sample_rate=args.sample_rate,
            n_fft=args.n_fft,
            win_length=args.win_length,
            hop_length=args.hop_length,
            f_min=args.f_min,
            f_max=args.f_max,
            n_mels=args.n_freq,
            power=1.0,
            # as torchaudio's recipe: without the Slaney area normalization half of all mel bins
            # of ordinary speech sit above 0 dB and clip at 1 after the [0, 1] scaling below
            norm="slaney",
            mel_scale="slaney",
        )
        self.pad = (args.kernel_size - 1) // 2
        self.lpc = None
        if args.lpc_order:
            self.lpc = MelLPC(
                self.mel.mel_scale.fb.numpy(), args.n_fft, args.sample_rate, args.lpc_order,
                args.preemphasis,
            )  # fmt: skip
        self.analysis = MelAnalysis(args.sample_rate)
        self.griffin_lim = GriffinLimFromMel(
            args.sample_rate, args.n_fft, args.hop_length, args.n_freq, args.f_min, args.f_max,
            n_iter=args.griffin_lim_iters, filterbank=self.mel.mel_scale.fb,
        )  # fmt: skip

    @property
    def n_classes(self):
        return 30 if self.args.loss == "mol" else 2**self.args.n_bits

    def model_config(self):
        a = self.args
        return {
            "upsample_scales": list(a.upsample_scales),
            "n_classes": self.n_classes,
            "hop_length": a.hop_length,
            "n_res_block": a.n_res_block,
            "n_rnn": a.n_rnn,
            "n_fc": a.n_fc,
            "kernel_size": a.kernel_size,
            "n_freq": a.n_freq,
            "n_hidden": a.n_hidden_resblock,
            "n_output": a.n_output_melresnet,
            "loss": a.loss,
        }

    def build_model(self):
        c = dict(self.model_config())
        c.pop("loss")
        return ta.models.WaveRNN(**c)

    def datasets(self):
        a = self.args
        try:
            if a.dataset == "libritts":
                train = ta.datasets.LIBRITTS(a.data_root, a.train_split)
                held_out = ta.datasets.LIBRITTS(a.data_root, a.eval_split)
            else:  # LJSpeech has one speaker and no split: the last 5 % are held out
                full = ta.datasets.LJSPEECH(a.data_root)
                cut = max(1, len(full) // 20)
                train = _Range(full, 0, len(full) - cut)
                held_out = _Range(full, len(full) - cut, len(full))
        except (RuntimeError, ValueError) as e:
            raise PipelineError(f"--data-root {a.data_root}: {e}") from None
        return train, held_out

    # ---- features ----
    def _waveform(self, dataset, index):
        item = dataset[index]
        waveform, sample_rate = item[0], item[1]
        if sample_rate != self.args.sample_rate:
            waveform = ta.functional.resample(waveform, sample_rate, self.args.sample_rate)
        return waveform[0].clamp(-1.0, 1.0)

    def normalized_mel(self, waveform):
        """(n_freq, frames) in [0, 1]: 20 log10 of the mel amplitude, scaled by --min-level-db."""
        db = 20 * tc.log10(self.mel(waveform.unsqueeze(0))[0].clamp(min=1e-5))
        return ((db - self.args.min_level_db) / -self.args.min_level_db).clamp(0.0, 1.0)

    def emphasize(self, wave):
        """The waveform the model learns: pre-emphasized and scaled back into [-1, 1]."""
        c = self.args.preemphasis
        if c == 0:
            return wave
        previous = tc.cat([wave[:1] * 0, wave[:-1]])
        return (wave - c * previous) / (1 + c)

    def deemphasize(self, wave):
        """Inverse of emphasize() for generated (batch, samples)."""
        c = self.args.preemphasis
        if c == 0:
            return wave
        a_coeffs, b_coeffs = tc.tensor([1.0, -c]), tc.tensor([1.0 + c, 0.0])
        return ta.functional.lfilter(wave, a_coeffs, b_coeffs, clamp=True)

    def mel_power(self, normalized):
        db = (
            np.asarray(normalized, dtype=np.float64) * -self.args.min_level_db
            + self.args.min_level_db
        )
        return (10.0 ** (db / 20.0)) ** 2

    def _compand(self, wave):
        mu = 2**self.args.n_bits - 1
        return tc.sign(wave) * tc.log1p(mu * wave.abs()) / np.log1p(mu)

    def _labels(self, wave):
        bits = self.args.n_bits
        if self.args.mulaw:
            wave = self._compand(wave)
        return ((wave + 1.0) * (2**bits - 1) / 2).round().clamp(0, 2**bits - 1).long()

    def load_train_item(self, dataset, index, rng):
        a = self.args
        wave = self._waveform(dataset, index)
        mel = self.normalized_mel(wave)
        frames = mel.shape[1]
        need = a.seq_len_factor + 2 * self.pad
        if frames < need + 1:
            mel = tc.nn.functional.pad(mel, (0, need + 1 - frames))
            frames = mel.shape[1]
        offset = int(rng.integers(0, frames - need))
        seq_len = a.hop_length * a.seq_len_factor + 1
        start = (offset + self.pad) * a.hop_length
        emphasized = self.emphasize(wave)
        if emphasized.shape[0] < start + seq_len:
            emphasized = tc.nn.functional.pad(
                emphasized, (0, start + seq_len - emphasized.shape[0])
            )
        segment = emphasized[start : start + seq_len]
        if self.lpc is None:
            return _Segment(mel[:, offset : offset + need], segment)
        return _Segment(
            mel[:, offset : offset + need],
            segment,
            self._excitation(mel, emphasized, start, seq_len),
        )

    def _excitation(self, mel, emphasized, start, length):
        """s[n] - p[n] over [start, start + length), with the prediction from the true past."""
        order = self.args.lpc_order
        first = max(0, start - order)
        s = emphasized[first : start + length].numpy().astype(np.float64)
        hop = self.args.hop_length
        first_frame = int(np.rint(first / hop))
        last_frame = int(np.rint((start + length) / hop)) + 1
        frames = mel[:, first_frame : last_frame + 1].numpy()
        coefficients = self.lpc.coefficients(self.mel_power(frames))
        filters = self.lpc.sample_filters(coefficients, len(s), hop, first, first_frame)
        e = (s - prediction(s, filters))[start - first :]
        return tc.as_tensor(np.clip(e, -1.0, 1.0).astype(np.float32))

    def load_eval_item(self, dataset, index, rng):
        wave = self._waveform(dataset, index)
        n = (
            int(self.args.eval_seconds * self.args.sample_rate)
            if self.args.eval_seconds
            else wave.shape[0]
        )
        wave = wave[: max(n, self.args.hop_length * (self.args.kernel_size + 1))]
        return self.normalized_mel(wave), wave

    def collate(self, items):
        # training segments (all the same size) stack; held-out clips stay a list
        if isinstance(items[0], _Segment):
            batch = {
                "mels": tc.stack([item[0] for item in items]),
                "waves": tc.stack([item[1] for item in items]),
            }
            if self.lpc is not None:
                batch["excitations"] = tc.stack([item[2] for item in items])
            return batch
        return {"eval": items}

    def loss(self, model, data, device):
        a = self.args
        mels, waves = data["mels"].to(device), data["waves"].to(device)
        # with --lpc-order the model predicts the excitation (and reads it with --lpc-input)
        targets = data["excitations"].to(device) if self.lpc is not None else waves
        if self.lpc is not None and a.lpc_input == "excitation":
            waves = targets
        if a.loss == "mol":
            # as torchaudio's example: the continuous waveform in and out (companded if --mulaw),
            # so a silence is exactly 0 rather than the nearest of 2**n_bits levels
            inputs = self._model_input(waves)[:, :-1]
            target = self._model_input(targets)[:, 1:]
        else:
            inputs = self._level_values(self._labels(waves)[:, :-1])  # quantized input
            target_labels = self._labels(targets)[:, 1:]
        if a.input_noise > 0 and model.training:
            inputs = inputs + a.input_noise * tc.randn(inputs.shape, device=inputs.device)
        out = model(inputs.unsqueeze(1), mels.unsqueeze(1)).squeeze(1)  # (B, L, classes)
        if a.loss == "crossentropy":
            loss = nn.functional.cross_entropy(out.float().transpose(1, 2), target_labels)
        else:
            loss = mol_loss(out.float(), target, num_classes=2**16)
        return loss, {}

    # ---- evaluation ----
    def generate(self, model, mels, device):
        if self.lpc is not None or self.args.temperature != 1.0:
            wave = self._generate_stepwise(model, mels.to(device))
        elif self.args.loss == "mol":
            wave = sample_mol(model, mels.to(device), self.args.mulaw, self.args.n_bits)
        else:
            wave = model.infer(mels.to(device), mulaw=self.args.mulaw)[0][:, 0]
        return self.deemphasize(wave.float().cpu())

    def _level_values(self, labels):
        """Class indices to their (companded, with --mulaw) values in [-1, 1]."""
        return 2.0 * labels.float() / (2**self.args.n_bits - 1) - 1.0

    def _decode(self, levels):
        """Class indices (B,) to waveform values in [-1, 1], mu-law decoded when --mulaw."""
        value = self._level_values(levels)
        return mulaw_expand(value, self.args.n_bits) if self.args.mulaw else value

    def _model_input(self, wave):
        """What training feeds for waveform values (B,): companded if --mulaw, and quantized to
        the class levels for crossentropy."""
        if self.args.loss == "mol":
            return self._compand(wave) if self.args.mulaw else wave
        return self._level_values(self._labels(wave))

    def _generate_stepwise(self, model, mels):
        """Sampling in Python, one step at a time, at --temperature; with --lpc-order the model
        samples the excitation and the mel's linear prediction of the generated past is added."""
        a = self.args
        batch, n = mels.shape[0], mels.shape[2] * a.hop_length
        order = a.lpc_order
        history = np.zeros((batch, n + order))  # the generated waveform after `order` zeros
        if self.lpc is not None:
            coefficients = [self.lpc.coefficients(self.mel_power(m)) for m in mels.cpu().numpy()]
            filters = np.stack(
                [self.lpc.sample_filters(c, n, a.hop_length) for c in coefficients], axis=1
            )  # (n, B, order + 1)

        def draw(t, out):
            if a.loss == "mol":
                e = sample_step(out)[:, 0]
                e = mulaw_expand(e, a.n_bits) if a.mulaw else e
            else:
                probs = nn.functional.softmax(out.float() / a.temperature, dim=1)
                e = self._decode(tc.multinomial(probs, 1)[:, 0])
            p = 0.0
            if self.lpc is not None:
                past = history[:, t : t + order][:, ::-1]  # s[t-1], ..., s[t-order]
                p = -np.einsum("bk,bk->b", filters[t, :, 1:], past)
            history[:, t + order] = np.clip(p + e.cpu().numpy(), -1.0, 1.0)
            if self.lpc is not None and a.lpc_input == "excitation":
                return self._model_input(e.float().cpu()).unsqueeze(1).to(out.device)
            s = tc.as_tensor(history[:, t + order].astype(np.float32))
            return self._model_input(s).unsqueeze(1).to(out.device)

        run_recurrence(model, mels, draw)
        return tc.as_tensor(history[:, order:].astype(np.float32))

    def evaluate(self, model, batches, device):
        sums, count = {}, 0
        self.examples = []
        for data in batches:
            items = data["eval"]
            for mel, wave in items:
                generated = self.generate(model, mel.unsqueeze(0), device)[0].numpy()
                truth = wave.numpy()
                n = min(len(generated), len(truth))
                baseline = self.griffin_lim(self.mel_power(mel.numpy()), len(truth))
                scores = self.analysis.distances(generated[:n], truth[:n])
                scores.update(
                    {
                        f"gl_{k}": v
                        for k, v in self.analysis.distances(baseline[:n], truth[:n]).items()
                    }
                )
                for k, v in scores.items():
                    sums[k] = sums.get(k, 0.0) + v
                count += 1
                if len(self.examples) < 2:
                    self.examples.append((truth[:n], generated[:n], baseline[:n]))
        return {k: v / max(count, 1) for k, v in sums.items()}

    def log_examples(self, board, model, eval_dataset, step, device):
        for i, (truth, generated, baseline) in enumerate(getattr(self, "examples", [])[:1]):
            sr = self.args.sample_rate
            board.audio(f"example{i}/wavernn", generated, step, sr)
            board.audio(f"example{i}/griffin_lim", baseline, step, sr)
            board.audio(f"example{i}/ground_truth", truth, step, sr)
            board.image(
                f"example{i}/log_mel_wavernn", _image(self.analysis.log_mel(generated)), step
            )
            board.image(f"example{i}/log_mel_truth", _image(self.analysis.log_mel(truth)), step)

    def plot_examples(self, model, eval_dataset, out_dir, device):
        from ..common.report import new_figure, save_figure

        examples = getattr(self, "examples", [])
        if not examples:
            return []
        truth, generated, baseline = examples[0]
        plt, fig, axes = new_figure(1, 3, size=(15, 3.5))
        for ax, (title, wave) in zip(
            axes[0], [("ground truth", truth), ("WaveRNN", generated), ("Griffin-Lim", baseline)]
        ):
            ax.imshow(self.analysis.log_mel(wave), aspect="auto", origin="lower", vmin=-11, vmax=2)
            ax.set_title(f"{title}: log-mel", fontsize=9)
        path = save_figure(plt, fig, os.path.join(out_dir, "examples.png"))
        for name, wave in [("truth", truth), ("wavernn", generated), ("griffin_lim", baseline)]:
            ta.save(
                os.path.join(out_dir, f"example_{name}.wav"),
                tc.as_tensor(np.asarray(wave, dtype=np.float32)).unsqueeze(0),
                self.args.sample_rate,
            )
        return [path]


def _image(array):
    a = np.asarray(array, dtype=np.float32)
    a = (a - a.min()) / max(float(a.max() - a.min()), 1e-6)
    return np.repeat(a[::-1, :, None], 3, axis=2)


class _Segment(tuple):
    """A training item (mel frames, waveform segment[, excitation segment])."""

    def __new__(cls, *parts):
        return super().__new__(cls, parts)

    def __getnewargs__(self):  # DataLoader workers send items back pickled
        return tuple(self)


class _Range:
    def __init__(self, dataset, start, stop):
        self.dataset, self.start, self.stop = dataset, start, stop

    def __len__(self):
        return self.stop - self.start

    def __getitem__(self, i):
        return self.dataset[self.start + i]


class _Bool(__import__("argparse").Action):
    """--flag / --no-flag."""

    def __init__(self, option_strings, dest, **kwargs):
        strings = list(option_strings) + [
            "--no-" + s[2:] for s in option_strings if s.startswith("--")
        ]
        super().__init__(strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, not option_string.startswith("--no-"))
