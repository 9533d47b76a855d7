"""ConvTasNet source separation on LibriMix (torchaudio 0.8's source-separation recipe: random
crops, permutation-invariant SI-SNR loss, LR halved when the held-out SI-SNRi stalls, early
stopping). `--dynamic-mixing` remixes the training sources on the fly (new speaker pairs and
gains every epoch), the usual remedy when a fixed set of training mixtures is learnt by heart.

Held-out scores are on whole mixtures (speakers unseen in training): SI-SNRi and SDRi (BSS Eval
SDR with a 512-tap distortion filter) under the best assignment of outputs to speakers.
"""

import os

import numpy as np

import tensorcore as tc
import tensorcore.audio as ta

from ..common import Task
from ..common.errors import PipelineError
from ..common.metrics.separation import pit_si_snr_loss, separation_scores


class ConvTasNetTask(Task):
    name = "convtasnet"
    main_metric = "si_snri"
    metric_mode = "max"

    @staticmethod
    def add_arguments(parser):
        g = parser.add_argument_group("convtasnet")
        g.add_argument("--task", choices=("sep_clean", "sep_noisy"), default="sep_clean",
                       help="LibriMix task")  # fmt: skip
        g.add_argument("--num-speakers", type=int, default=2)
        g.add_argument("--sample-rate", type=int, default=8000, choices=(8000, 16000))
        g.add_argument("--mode", choices=("min", "max"), default="min")
        g.add_argument("--train-subset", default="train-360")
        g.add_argument("--eval-subset", default="dev")
        g.add_argument("--crop-length", type=float, default=3.0, help="training crops, seconds")
        g.add_argument(
            "--dynamic-mixing",
            action="store_true",
            help="train on mixtures made on the fly: each item's first source with "
            "random other speakers' sources, each cropped and gain-scaled at random",
        )
        g.add_argument(
            "--dynamic-mixing-gain-db",
            type=float,
            default=3.0,
            help="each remixed source is scaled by a gain uniform in +-this many dB",
        )
        g.add_argument("--enc-kernel-size", type=int, default=16)
        g.add_argument("--enc-num-feats", type=int, default=512)
        g.add_argument("--msk-kernel-size", type=int, default=3)
        g.add_argument("--msk-num-feats", type=int, default=128)
        g.add_argument("--msk-num-hidden-feats", type=int, default=512)
        g.add_argument("--msk-num-layers", type=int, default=8)
        g.add_argument("--msk-num-stacks", type=int, default=3)
        parser.set_defaults(
            optimizer="adam",
            learning_rate=1e-3,
            clip_grad=5.0,
            scheduler="reduceonplateau",
            plateau_factor=0.5,
            plateau_patience=3,
            early_stop_patience=10,
            batch_size=4,
            eval_batch_size=1,
            epochs=200,
        )

    def model_config(self):
        a = self.args
        return {
            "num_sources": a.num_speakers,
            "enc_kernel_size": a.enc_kernel_size,
            "enc_num_feats": a.enc_num_feats,
            "msk_kernel_size": a.msk_kernel_size,
            "msk_num_feats": a.msk_num_feats,
            "msk_num_hidden_feats": a.msk_num_hidden_feats,
            "msk_num_layers": a.msk_num_layers,
            "msk_num_stacks": a.msk_num_stacks,
        }

    def build_model(self):
        model = ta.models.ConvTasNet(**self.model_config())
        if self.args.amp:
            _float32_under_cpu_autocast(model.decoder)
        return model

    def datasets(self):
        a = self.args

        def make(subset):
            return ta.datasets.LibriMix(
                a.data_root, subset, num_speakers=a.num_speakers, sample_rate=a.sample_rate,
                task=a.task, mode=a.mode,
            )  # fmt: skip

        try:
            train, held_out = make(a.train_subset), make(a.eval_subset)
        except (RuntimeError, ValueError) as e:
            raise PipelineError(f"--data-root {a.data_root}: {e}") from None
        self._mix_root = train.root
        return train, held_out

    def _require_rate(self, sample_rate, where=""):
        if sample_rate != self.args.sample_rate:
            raise ValueError(
                f"{where}expected {self.args.sample_rate} Hz audio, got {sample_rate} Hz"
            )

    def _item(self, dataset, index):
        sample_rate, mixture, sources = dataset[index]
        self._require_rate(sample_rate)
        return mixture, tc.cat(list(sources), dim=0)  # (1, L), (S, L)

    def _crop_samples(self):
        return int(self.args.crop_length * self.args.sample_rate)

    @staticmethod
    def _crop_window(length, crop, rng):
        """The training crop of a `length`-sample signal: `crop` samples at a random start, or
        the whole signal when it is not longer (the caller pads)."""
        if length <= crop:
            return slice(0, length)
        start = int(rng.integers(0, length - crop + 1))
        return slice(start, start + crop)

    def load_train_item(self, dataset, index, rng):
        if self.args.dynamic_mixing:
            return self._remixed_item(dataset, index, rng)
        mixture, sources = self._item(dataset, index)
        crop = self._crop_samples()
        length = mixture.shape[-1]
        window = self._crop_window(length, crop, rng)
        mixture, sources = mixture[:, window], sources[:, window]
        if length < crop:
            mixture = tc.nn.functional.pad(mixture, (0, crop - length))
            sources = tc.nn.functional.pad(sources, (0, crop - length))
        return mixture, sources, min(length, crop)

    def _source_pool(self, dataset):
        """Per training item, its sources as (path, speaker). The speaker is read from LibriMix's
        file name (`<spk>-<chapter>-<utt>_<spk>-...wav`); a name of another form counts as its own
        speaker."""
        pool = getattr(self, "_pool", None)
        if pool is None or pool[0] is not dataset:
            items = []
            for i in range(len(dataset)):
                _, _, sources = dataset.get_metadata(i)
                parts = os.path.splitext(os.path.basename(sources[0]))[0].split("_")
                speakers = [p.split("-")[0] for p in parts]
                if len(speakers) != len(sources):
                    speakers = list(sources)
                items.append(
                    [(os.path.join(self._mix_root, p), s) for p, s in zip(sources, speakers)]
                )
            pool = self._pool = (dataset, items)
        return pool[1]

    def _remixed_item(self, dataset, index, rng):
        """A new mixture: the item's own source in a random slot plus sources of other speakers
        drawn from the whole training set, each cropped independently and scaled by a random
        gain. The choices come from the item's generator, so runs and resumes repeat them."""
        items = self._source_pool(dataset)
        own = items[index]
        chosen = [own[int(rng.integers(len(own)))]]
        for _ in range(self.args.num_speakers - 1):
            for _attempt in range(100):
                other = items[int(rng.integers(len(items)))]
                candidate = other[int(rng.integers(len(other)))]
                if candidate[1] not in {speaker for _, speaker in chosen}:
                    break
            else:
                raise ValueError(
                    f"--dynamic-mixing found no source of a speaker other than "
                    f"{sorted({s for _, s in chosen})} in 100 draws: the training subset needs "
                    f"at least {self.args.num_speakers} speakers"
                )
            chosen.append(candidate)
        crop = self._crop_samples()
        sources, length = tc.zeros(len(chosen), crop), crop
        for k, (path, _) in enumerate(chosen):
            wave, sample_rate = ta.load(path)
            self._require_rate(sample_rate, f"{path}: ")
            wave = wave[0, self._crop_window(wave.shape[-1], crop, rng)]
            length = min(length, wave.shape[0])
            gain = 10.0 ** (rng.uniform(-1.0, 1.0) * self.args.dynamic_mixing_gain_db / 20.0)
            sources[k, : wave.shape[0]] = wave * gain
        return sources.sum(0, keepdim=True), sources, length

    def load_eval_item(self, dataset, index, rng):
        mixture, sources = self._item(dataset, index)
        return mixture, sources, mixture.shape[-1]

    def collate(self, items):
        width = max(m.shape[-1] for m, _, _ in items)
        mix = tc.zeros(len(items), 1, width)
        src = tc.zeros(len(items), items[0][1].shape[0], width)
        for i, (m, s, _) in enumerate(items):
            mix[i, :, : m.shape[-1]] = m
            src[i, :, : s.shape[-1]] = s
        return {"mixture": mix, "sources": src, "lengths": [n for _, _, n in items]}

    def loss(self, model, data, device):
        estimates = model(data["mixture"].to(device)).float()
        return pit_si_snr_loss(estimates, data["sources"].to(device)), {}

    def evaluate(self, model, batches, device):
        sums, count = {}, 0
        self.examples = []
        for data in batches:
            estimates = model(data["mixture"].to(device)).float().cpu().numpy()
            for i, n in enumerate(data["lengths"]):
                mix = data["mixture"][i, 0, :n].numpy()
                ref = data["sources"][i, :, :n].numpy()
                scores = separation_scores(estimates[i, :, :n], ref, mix)
                for k, v in scores.items():
                    sums[k] = sums.get(k, 0.0) + float(v)
                count += 1
                if len(self.examples) < 1:
                    self.examples.append((mix, ref, estimates[i, :, :n]))
        return {k: v / max(count, 1) for k, v in sums.items()}

    def log_examples(self, board, model, eval_dataset, step, device):
        sr = self.args.sample_rate
        for mix, ref, est in getattr(self, "examples", [])[:1]:
            board.audio("example/mixture", mix, step, sr)
            for k in range(len(est)):
                board.audio(f"example/estimate{k + 1}", est[k], step, sr)
                board.audio(f"example/source{k + 1}", ref[k], step, sr)

    def plot_examples(self, model, eval_dataset, out_dir, device):
        from ..common.report import new_figure, save_figure

        if not getattr(self, "examples", None):
            return []
        mix, ref, est = self.examples[0]
        rows = 1 + len(ref)
        plt, fig, axes = new_figure(rows, 2, size=(12, 2.2 * rows))
        spec = ta.transforms.Spectrogram(n_fft=256, hop_length=64)

        def show(ax, wave, title):
            s = spec(tc.as_tensor(np.ascontiguousarray(wave, dtype=np.float32)))
            ax.imshow(np.log10(s.numpy() + 1e-8), aspect="auto", origin="lower", vmin=-8)
            ax.set_title(title, fontsize=8)

        show(axes[0][0], mix, "mixture")
        axes[0][1].axis("off")
        for k in range(len(ref)):
            show(axes[k + 1][0], ref[k], f"source {k + 1}")
            show(axes[k + 1][1], est[k], f"estimate {k + 1}")
        for k in range(len(est)):
            ta.save(
                os.path.join(out_dir, f"example_estimate{k + 1}.wav"),
                tc.as_tensor(np.ascontiguousarray(est[k], dtype=np.float32)).unsqueeze(0),
                self.args.sample_rate,
            )
        return [save_figure(plt, fig, os.path.join(out_dir, "examples.png"))]


def _float32_under_cpu_autocast(module):
    """CPU autocast (as torch 1.13's) leaves conv_transpose1d out of its bfloat16 list, so the
    decoder would get bfloat16 input and float32 weights; it runs in float32 instead. The
    module's forward is replaced in place, keeping its state-dict keys."""
    forward = module.forward

    def float32_forward(x):
        if x.device.type == "cpu" and x.dtype != tc.float32:
            with tc.autocast("cpu", enabled=False):
                return forward(x.float())
        return forward(x)

    module.forward = float32_forward
