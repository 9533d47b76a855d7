"""Wav2Letter speech recognition on LibriSpeech with CTC (torchaudio 0.7's wav2letter example).

Features are MFCC (n_fft 400, hop 160, --n-bins coefficients of --n-mels mel bands, per-utterance
mean/std normalization) or the raw waveform; training masks random frequency bands and time spans
(SpecAugment-style, --freq-mask / --time-mask). Held-out CER/WER with greedy decoding every
epoch, plus CTC prefix beam search with and without a lexicon at the end.
"""

import math
import os

import numpy as np

import tensorcore as tc
import tensorcore.audio as ta
from tensorcore import nn

from tensorcore.audio.models.wav2letter import _check_wav2letter_input

from ..common import Task
from ..common.data import Subset
from ..common.errors import PipelineError
from ..common.metrics.text import Alphabet, ErrorRate, Lexicon, greedy_decode, prefix_beam_search

ALPHABET = Alphabet(" '" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
HOP, WIN = 160, 400


def build_wav2letter(num_classes, input_type, num_features, hidden=250, wide=2000, final_relu=True):
    """torchaudio's Wav2Letter; other widths keep its layer structure and state-dict keys.

    final_relu=False drops the ReLU that torchaudio applies to the class scores before the
    log-softmax: a class whose score goes negative on every frame gets no gradient there and
    can never be emitted again, which holds CTC training on its all-blank plateau far longer.
    """
    model = ta.models.Wav2Letter(
        num_classes=num_classes, input_type=input_type, num_features=num_features
    )
    if (hidden, wide, final_relu) == (250, 2000, True):
        return model
    from tensorcore.audio.models.wav2letter import _conv_relu

    acoustic_in = hidden if input_type == "waveform" else num_features
    layers = _conv_relu(acoustic_in, hidden, 48, 2, 23)
    for _ in range(7):
        layers += _conv_relu(hidden, hidden, 7, 1, 3)
    layers += _conv_relu(hidden, wide, 32, 1, 16)
    layers += _conv_relu(wide, wide, 1, 1, 0)
    layers += _conv_relu(wide, num_classes, 1, 1, 0)
    if not final_relu:
        layers = layers[:-1]
    acoustic = nn.Sequential(*layers)
    if input_type == "waveform":
        front = nn.Sequential(*_conv_relu(num_features, hidden, 250, 160, 45))
        model.acoustic_model = nn.Sequential(front, acoustic)
    else:
        model.acoustic_model = acoustic
    return model


def output_frames(input_len, input_type):
    """Frames out of the model for an input of input_len steps (samples or feature frames)."""
    if input_type == "waveform":
        input_len = (input_len + 2 * 45 - 250) // 160 + 1
    return (input_len + 2 * 23 - 48) // 2 + 1


def float32_log_softmax(model):
    """CPU autocast (as torch 1.13's) has no float32 rule for log_softmax, so the log-probabilities
    CTC trains on would be rounded to bfloat16 (steps of 1/16 near -10). Under --amp the class
    scores are widened and log_softmax runs in float32 instead; the model's forward is replaced
    in place, keeping its state-dict keys."""

    def forward(x):
        _check_wav2letter_input(x, model.num_features, model.input_type)
        scores = model.acoustic_model(x)
        with tc.autocast(x.device.type, enabled=False):
            return nn.functional.log_softmax(scores.float(), dim=1)

    model.forward = forward
    return model


class Wav2LetterTask(Task):
    name = "wav2letter"
    main_metric = "cer"
    metric_mode = "min"

    @staticmethod
    def add_arguments(parser):
        g = parser.add_argument_group("wav2letter")
        g.add_argument("--train-split", default="train-clean-100")
        g.add_argument("--eval-split", default="dev-clean")
        g.add_argument("--features", choices=("mfcc", "waveform"), default="mfcc")
        g.add_argument("--n-bins", type=int, default=13, help="MFCC coefficients (and mels)")
        g.add_argument(
            "--n-mels",
            type=int,
            default=None,
            help="mel bands the MFCCs are taken from (default: --n-bins, at least 13, as "
            "torchaudio's example); more bands than coefficients keeps the cepstrum's low, "
            "pitch-independent part",
        )
        g.add_argument("--hidden-channels", type=int, default=250)
        g.add_argument("--wide-channels", type=int, default=2000)
        g.add_argument(
            "--no-final-relu",
            dest="final_relu",
            action="store_false",
            help="drop the ReLU torchaudio's Wav2Letter puts on the class scores before the "
            "log-softmax (classes it zeroes everywhere get no gradient)",
        )
        g.add_argument(
            "--init",
            choices=("default", "kaiming"),
            default="default",
            help="convolution weights: PyTorch's default, or He-normal for the ReLU layers (the "
            "default shrinks the signal about sixfold per layer, so CTC's plateau lasts longer)",
        )
        g.add_argument("--freq-mask", type=int, default=0, help="max masked MFCC bins (0: off)")
        g.add_argument("--time-mask", type=int, default=0, help="max masked frames (0: off)")
        g.add_argument("--beam-width", type=int, default=16)
        g.add_argument(
            "--lexicon",
            default="train",
            help="word list for the beam search: a file (one word per line, e.g. the "
            "generator's or OpenSLR's librispeech-vocab.txt), 'train' (the training "
            "transcripts' words) or 'none'",
        )
        g.add_argument("--max-seconds", type=float, default=0, help="skip longer utterances")
        parser.set_defaults(
            optimizer="adadelta",
            learning_rate=0.6,
            momentum=0.8,
            weight_decay=1e-5,
            eps=1e-8,
            scheduler="reduceonplateau",
            plateau_factor=0.2,
            plateau_patience=2,
            clip_grad=0.0,
            batch_size=128,
            epochs=200,
        )

    def __init__(self, args):
        super().__init__(args)
        self.final_evaluation = False
        n_mels = args.n_mels if args.n_mels is not None else max(args.n_bins, 13)
        if args.features == "mfcc" and not 0 < args.n_bins <= n_mels:
            raise PipelineError(
                f"--n-bins {args.n_bins} MFCCs need 1 <= --n-bins <= --n-mels ({n_mels})"
            )
        self.mfcc = ta.transforms.MFCC(
            sample_rate=16000,
            n_mfcc=args.n_bins,
            melkwargs={"n_fft": WIN, "n_mels": n_mels, "hop_length": HOP},
        )
        self._lexicon = None

    def model_config(self):
        a = self.args
        return {
            "features": a.features,
            "n_bins": a.n_bins if a.features == "mfcc" else 1,
            "n_mels": a.n_mels if a.features == "mfcc" else None,  # None: the default bands
            "num_classes": ALPHABET.num_classes,
            "hidden_channels": a.hidden_channels,
            "wide_channels": a.wide_channels,
            "final_relu": a.final_relu,
        }

    def build_model(self):
        c = self.model_config()
        model = build_wav2letter(
            c["num_classes"],
            c["features"],
            c["n_bins"],
            c["hidden_channels"],
            c["wide_channels"],
            c["final_relu"],
        )
        if self.args.init == "kaiming":
            convs = [m for m in model.modules() if isinstance(m, nn.Conv1d)]
            for conv in convs[:-1]:  # the class-score layer keeps its small default init
                nn.init.kaiming_normal_(conv.weight, nonlinearity="relu")
                nn.init.zeros_(conv.bias)
        if self.args.amp:
            float32_log_softmax(model)
        return model

    def datasets(self):
        a = self.args
        try:
            train = ta.datasets.LIBRISPEECH(a.data_root, a.train_split)
            held_out = ta.datasets.LIBRISPEECH(a.data_root, a.eval_split)
        except (RuntimeError, ValueError) as e:
            raise PipelineError(f"--data-root {a.data_root}: {e}") from None
        if a.max_seconds:
            keep = [i for i in range(len(train)) if train.num_frames(i) <= a.max_seconds * 16000]
            train = Subset(train, keep)
        self.train_set = train
        return train, held_out

    def group_ids(self, dataset):
        # Length buckets (a factor 1.25 apart) keep padding small.
        return [
            int(math.log(max(dataset.num_frames(i), 1)) / math.log(1.25))
            for i in range(len(dataset))
        ]

    def _features(self, waveform):
        if self.args.features == "waveform":
            return waveform
        feats = self.mfcc(waveform)[0]  # (n_bins, frames)
        mean = feats.mean(dim=1, keepdim=True)
        std = feats.std(dim=1, keepdim=True) + 1e-5
        return (feats - mean) / std

    def load_train_item(self, dataset, index, rng):
        waveform, sample_rate, transcript, *_ = dataset[index]
        if sample_rate != 16000:
            raise ValueError(f"expected 16 kHz audio, got {sample_rate} Hz")
        return self._features(waveform), transcript

    load_eval_item = load_train_item

    def collate(self, items):
        feats = [f for f, _ in items]
        lengths = [f.shape[-1] for f in feats]
        width = max(lengths)
        batch = tc.zeros(len(items), feats[0].shape[0], width)
        for i, f in enumerate(feats):
            batch[i, :, : f.shape[-1]] = f
        targets = [ALPHABET.encode(t) for _, t in items]
        return {
            "features": batch,
            "frames": [output_frames(n, self.args.features) for n in lengths],
            "targets": tc.tensor([c for t in targets for c in t], dtype=tc.int64),
            "target_lengths": [len(t) for t in targets],
            "transcripts": [t for _, t in items],
        }

    def augment(self, data, device):
        a = self.args
        if a.features != "mfcc" or not (a.freq_mask or a.time_mask):
            return data
        x = data["features"]
        if a.freq_mask:
            x = ta.transforms.FrequencyMasking(a.freq_mask, iid_masks=True)(x.unsqueeze(1)).squeeze(
                1
            )
        if a.time_mask:
            x = ta.transforms.TimeMasking(a.time_mask, iid_masks=True)(x.unsqueeze(1)).squeeze(1)
        return dict(data, features=x)

    def _log_probs(self, model, data, device):
        out = model(data["features"].to(device))  # (B, C, T)
        return out

    def loss(self, model, data, device):
        return self._ctc(self._log_probs(model, data, device).float(), data, device), {}

    def _ctc(self, log_probs, data, device):
        frames = min(log_probs.shape[2], max(data["frames"]))
        return nn.functional.ctc_loss(
            log_probs[:, :, :frames].permute(2, 0, 1),
            data["targets"].to(device),
            [min(n, frames) for n in data["frames"]],
            data["target_lengths"],
            blank=0,
            reduction="mean",
            zero_infinity=True,
        )

    def lexicon(self):
        if self._lexicon is None and self.args.lexicon != "none":
            if self.args.lexicon == "train":
                texts = [self.train_set.get_metadata(i)[2] for i in range(len(self.train_set))]
                self._lexicon = Lexicon.from_transcripts(texts)
            else:
                if not os.path.exists(self.args.lexicon):
                    raise PipelineError(f"--lexicon {self.args.lexicon}: no such file")
                self._lexicon = Lexicon.from_file(self.args.lexicon)
        return self._lexicon

    def evaluate(self, model, batches, device):
        greedy, beam, lex = ErrorRate(), ErrorRate(), ErrorRate()
        losses, count = 0.0, 0
        lexicon = self.lexicon() if self.final_evaluation else None
        self.examples = []
        for data in batches:
            log_probs = self._log_probs(model, data, device).float()
            loss = self._ctc(log_probs, data, device)
            losses += float(loss) * len(data["transcripts"])
            count += len(data["transcripts"])
            lp = log_probs.cpu().numpy()
            for i, ref in enumerate(data["transcripts"]):
                frames = lp[i, :, : data["frames"][i]].T
                hyp = greedy_decode(frames, ALPHABET)
                greedy.add(ref, hyp)
                if self.final_evaluation:
                    beam.add(ref, prefix_beam_search(frames, ALPHABET, self.args.beam_width))
                    if lexicon is not None:
                        lex.add(
                            ref, prefix_beam_search(frames, ALPHABET, self.args.beam_width, lexicon)
                        )
                if len(self.examples) < 3:
                    self.examples.append((ref, hyp))
        metrics = {"loss": losses / max(count, 1), "cer": greedy.cer, "wer": greedy.wer}
        if self.final_evaluation:
            metrics.update(beam_cer=beam.cer, beam_wer=beam.wer)
            if lexicon is not None:
                metrics.update(lexicon_cer=lex.cer, lexicon_wer=lex.wer)
        return metrics

    def _example(self, model, dataset, index, device):
        feats, transcript = self.load_eval_item(dataset, index, None)
        log_probs = model(feats.unsqueeze(0).to(device))[0].float().cpu().numpy()
        return feats.numpy(), log_probs, transcript, greedy_decode(log_probs.T, ALPHABET)

    def log_examples(self, board, model, eval_dataset, step, device):
        feats, log_probs, ref, hyp = self._example(model, eval_dataset, 0, device)
        board.image("example/posteriors", _to_image(log_probs), step)
        if self.args.features == "mfcc":
            board.image("example/features", _to_image(feats), step)
        board.text("example/transcript", f"ref: {ref}  \nhyp: {hyp}", step)

    def plot_examples(self, model, eval_dataset, out_dir, device):
        from ..common.report import new_figure, save_figure

        n = min(2, len(eval_dataset))
        plt, fig, axes = new_figure(n, 2, size=(12, 3.2 * n))
        for row in range(n):
            feats, log_probs, ref, hyp = self._example(model, eval_dataset, row, device)
            axes[row][0].imshow(feats, aspect="auto", origin="lower")
            axes[row][0].set_title(f"input ({self.args.features})", fontsize=8)
            axes[row][1].imshow(log_probs, aspect="auto", origin="lower", vmin=-10, vmax=0)
            axes[row][1].set_yticks(range(ALPHABET.num_classes))
            axes[row][1].set_yticklabels(
                ["_"] + [c if c != " " else "|" for c in ALPHABET.characters], fontsize=5
            )
            axes[row][1].set_title(f"ref: {ref[:70]}\nhyp: {hyp[:70]}", fontsize=7)
        return [save_figure(plt, fig, os.path.join(out_dir, "examples.png"))]


def _to_image(array):
    a = np.asarray(array, dtype=np.float32)
    a = (a - a.min()) / max(float(a.max() - a.min()), 1e-6)
    return np.repeat(a[::-1, :, None], 3, axis=2)
