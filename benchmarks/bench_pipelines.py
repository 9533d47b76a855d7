"""Training-epoch and evaluation-pass time of the four pipelines against the same recipe written
with torch/torchaudio/torchvision: same model sizes, same data (the same batches of the same
items, the same random crops and flips), same batch size, optimizer and threads.

    python benchmarks/bench_pipelines.py --data runs/bench-data --repeats 3 --threads 2

Our side is the pipeline engine itself (Trainer.train_epoch / Trainer.evaluate: data loading,
features, forward, loss, backward, optimizer step, metrics). The torch side runs torchaudio's and
torchvision's datasets, transforms and models in a plain loop with the same steps, and the same
NumPy metric code (CER, SI-SNRi/SDRi, mel distances, pycocotools); before each of its evaluation
passes torch's model takes our model's current weights (untimed), so both evaluate the same
function. Passes alternate between the two; the medians and the ratio ours/torch (< 1: ours
faster) are printed.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np


sys.path.insert(0, os.path.dirname(__file__))
from _common import apply_threads  # noqa: E402

try:
    import torch
    import torchaudio
    import torchvision
except ImportError:  # pragma: no cover
    torch = None

from tensorcore.pipelines.common import Trainer  # noqa: E402
from tensorcore.pipelines.common.cli import build_parser  # noqa: E402
from tensorcore.pipelines.common.data import item_rng  # noqa: E402
from tensorcore.pipelines.common.metrics import separation, text  # noqa: E402

SETTINGS = {
    "wav2letter": ("speech", [
        "--hidden-channels", "96", "--wide-channels", "192", "--batch-size", "8",
        "--max-train-items", "48", "--max-eval-items", "16",
    ]),
    "convtasnet": ("mix", [
        "--train-subset", "train-100", "--enc-num-feats", "64", "--msk-num-feats", "32",
        "--msk-num-hidden-feats", "64", "--msk-num-layers", "4", "--msk-num-stacks", "1",
        "--crop-length", "1.0", "--batch-size", "4", "--max-train-items", "24",
        "--max-eval-items", "6",
    ]),
    "wavernn": ("tts", [
        "--sample-rate", "16000", "--n-fft", "1024", "--win-length", "800", "--hop-length", "200",
        "--upsample-scales", "5", "5", "8", "--f-max", "8000", "--n-rnn", "96", "--n-fc", "96",
        "--n-res-block", "2", "--n-hidden-resblock", "32", "--n-output-melresnet", "32",
        "--batch-size", "16", "--max-train-items", "48", "--max-eval-items", "2",
        "--eval-seconds", "0.25", "--griffin-lim-iters", "8",
    ]),
    "retinanet": ("coco/coco", [
        "--backbone", "resnet18", "--min-size", "128", "--max-size", "128", "--batch-size", "4",
        "--max-train-items", "16", "--max-eval-items", "8", "--data-augmentation", "hflip",
    ]),
}  # fmt: skip
# `--size recipe`: the model sizes and batches of docs/pipelines.md's recipe runs instead
RECIPE_SIZES = {
    "wav2letter": ["--n-bins", "40", "--hidden-channels", "128", "--wide-channels", "256"],
    "convtasnet": ["--enc-num-feats", "256", "--msk-num-feats", "128", "--msk-num-hidden-feats",
                   "256", "--msk-num-layers", "6", "--msk-num-stacks", "2", "--crop-length", "2"],
    "wavernn": ["--n-rnn", "256", "--n-fc", "256", "--n-res-block", "5", "--n-hidden-resblock",
                "128", "--n-output-melresnet", "128", "--batch-size", "32"],
    "retinanet": ["--min-size", "320", "--max-size", "320", "--batch-size", "8"],
}  # fmt: skip
COMMON = ["--optimizer", "adam", "--learning-rate", "1e-3", "--scheduler", "none",
          "--warmup-iters", "0", "--no-progress", "--no-tensorboard", "--epochs", "1000"]  # fmt: skip


def ours(name, data, out, threads, size="small"):
    module = __import__(f"tensorcore.pipelines.{name}", fromlist=["task"])
    task_cls = next(v for k, v in vars(module).items() if k.endswith("Task"))
    folder, extra = SETTINGS[name]
    args = build_parser(task_cls, "").parse_args(
        [
            "--data-root",
            os.path.join(data, folder),
            "--output-dir",
            out,
            "--threads",
            str(threads),
            *COMMON,
            *extra,
            *(RECIPE_SIZES[name] if size == "recipe" else []),
            "--clip-grad",
            "0",
        ]  # fmt: skip
    )
    trainer = Trainer(task_cls(args), args)
    trainer.setup()
    return trainer


# ---------------------------------------------------------------- torch recipes
class TorchRecipe:
    """The same epoch in torch: batches of the same indices, a plain loop."""

    def __init__(self, trainer):
        self.trainer, self.args = trainer, trainer.args

    def batches(self):
        return self.trainer.sampler.batches(0)

    def train_epoch(self):
        self.model.train()
        for indices in self.batches():
            items = [self.load_train(i, item_rng(self.args.seed, 0, i)) for i in indices]
            loss = self.loss(self.collate(items))
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()

    def sync_weights(self):
        """Our model's current weights into torch's (untimed), so both evaluation passes run the
        same function: work that depends on the outputs, such as COCOeval over the detections
        each model keeps, is then the same on both sides."""
        ours = list(self.trainer.model.state_dict().items())
        theirs = self.model.state_dict()
        if {k for k, _ in ours} != set(theirs):  # torch side is a plain Sequential: by position
            ours = list(zip(theirs, (v for _, v in ours)))
        with torch.no_grad():
            for key, value in ours:
                theirs[key].copy_(torch.from_numpy(value.numpy().copy()))

    def evaluate(self):
        self.model.eval()
        with torch.no_grad():
            size = self.args.eval_batch_size or self.args.batch_size
            items = [self.load_eval(i) for i in range(len(self.trainer.eval_set))]
            return self.score(
                [self.collate(items[k : k + size]) for k in range(0, len(items), size)]
            )


class TorchWav2Letter(TorchRecipe):
    def __init__(self, trainer):
        super().__init__(trainer)
        a = self.args
        self.train_ds = torchaudio.datasets.LIBRISPEECH(a.data_root, a.train_split)
        self.eval_ds = torchaudio.datasets.LIBRISPEECH(a.data_root, a.eval_split)
        self.mfcc = torchaudio.transforms.MFCC(
            16000,
            a.n_bins,
            melkwargs={"n_fft": 400, "n_mels": max(a.n_bins, 13), "hop_length": 160},
        )
        nn = torch.nn
        h, w, c = a.hidden_channels, a.wide_channels, 29

        def conv(i, o, k, s, p):
            return [nn.Conv1d(i, o, k, s, p), nn.ReLU(inplace=True)]

        layers = conv(a.n_bins, h, 48, 2, 23)
        for _ in range(7):
            layers += conv(h, h, 7, 1, 3)
        layers += conv(h, w, 32, 1, 16) + conv(w, w, 1, 1, 0) + conv(w, c, 1, 1, 0)
        self.model = nn.Sequential(*layers)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=a.learning_rate)
        from tensorcore.pipelines.wav2letter.task import ALPHABET, output_frames

        self.alphabet, self.output_frames = ALPHABET, output_frames

    def _features(self, ds, i):
        wave, _, transcript, *_ = ds[i]
        f = self.mfcc(wave)[0]
        return (f - f.mean(1, keepdim=True)) / (f.std(1, keepdim=True) + 1e-5), transcript

    def load_train(self, i, rng):
        return self._features(self.train_ds, i)

    def load_eval(self, i):
        return self._features(self.eval_ds, i)

    def collate(self, items):
        width = max(f.shape[-1] for f, _ in items)
        batch = torch.zeros(len(items), items[0][0].shape[0], width)
        for i, (f, _) in enumerate(items):
            batch[i, :, : f.shape[-1]] = f
        targets = [self.alphabet.encode(t) for _, t in items]
        return (
            batch,
            [self.output_frames(f.shape[-1], "mfcc") for f, _ in items],
            targets,
            [t for _, t in items],
        )

    def loss(self, data):
        x, frames, targets, _ = data
        lp = torch.log_softmax(self.model(x), 1)
        return torch.nn.functional.ctc_loss(
            lp.permute(2, 0, 1),
            torch.tensor([c for t in targets for c in t]),
            frames,
            [len(t) for t in targets],
            zero_infinity=True,
        )

    def score(self, batches):
        rates = text.ErrorRate()
        for x, frames, _, refs in batches:
            lp = torch.log_softmax(self.model(x), 1).numpy()
            for i, ref in enumerate(refs):
                rates.add(ref, text.greedy_decode(lp[i, :, : frames[i]].T, self.alphabet))
        return {"cer": rates.cer}


class TorchConvTasNet(TorchRecipe):
    def __init__(self, trainer):
        super().__init__(trainer)
        a = self.args
        make = lambda subset: torchaudio.datasets.LibriMix(
            a.data_root,
            subset,
            num_speakers=a.num_speakers,
            sample_rate=a.sample_rate,
            task=a.task,
            mode=a.mode,
        )  # noqa: E731
        self.train_ds, self.eval_ds = make(a.train_subset), make(a.eval_subset)
        self.model = torchaudio.models.ConvTasNet(**trainer.model_config)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=a.learning_rate)

    def load_train(self, i, rng):
        _, mix, sources = self.train_ds[i]
        sources = torch.cat(list(sources), 0)
        crop, n = int(self.args.crop_length * self.args.sample_rate), mix.shape[-1]
        if n > crop:
            s = int(rng.integers(0, n - crop + 1))
            mix, sources = mix[:, s : s + crop], sources[:, s : s + crop]
        elif n < crop:
            mix = torch.nn.functional.pad(mix, (0, crop - n))
            sources = torch.nn.functional.pad(sources, (0, crop - n))
        return mix, sources, min(n, crop)

    def load_eval(self, i):
        _, mix, sources = self.eval_ds[i]
        return mix, torch.cat(list(sources), 0), mix.shape[-1]

    def collate(self, items):
        width = max(m.shape[-1] for m, _, _ in items)
        mix = torch.zeros(len(items), 1, width)
        src = torch.zeros(len(items), items[0][1].shape[0], width)
        for i, (m, s, _) in enumerate(items):
            mix[i, :, : m.shape[-1]], src[i, :, : s.shape[-1]] = m, s
        return mix, src, [n for _, _, n in items]

    def loss(self, data):
        mix, src, _ = data
        est = self.model(mix)
        est, src = est - est.mean(-1, keepdim=True), src - src.mean(-1, keepdim=True)
        dot = est @ src.transpose(1, 2)
        energy = (src * src).sum(-1).unsqueeze(1) + 1e-8
        scale = dot / energy
        target = scale * scale * energy
        noise = (est * est).sum(-1).unsqueeze(2) - 2 * scale * dot + target
        m = 10 * torch.log10((target + 1e-8) / (noise.clamp(min=0) + 1e-8))
        best = (
            torch.stack([(m[:, 0, 0] + m[:, 1, 1]) / 2, (m[:, 0, 1] + m[:, 1, 0]) / 2], 1)
            .max(1)
            .values
        )
        return -best.mean()

    def score(self, batches):
        values = []
        for mix, src, lengths in batches:
            est = self.model(mix).numpy()
            for i, n in enumerate(lengths):
                values.append(
                    separation.separation_scores(
                        est[i, :, :n], src[i, :, :n].numpy(), mix[i, 0, :n].numpy()
                    )["si_snri"]
                )
        return {"si_snri": float(np.mean(values))}


class TorchWaveRNN(TorchRecipe):
    def __init__(self, trainer):
        super().__init__(trainer)
        a = self.args
        self.train_ds = torchaudio.datasets.LIBRITTS(a.data_root, a.train_split)
        self.eval_ds = torchaudio.datasets.LIBRITTS(a.data_root, a.eval_split)
        self.mel = torchaudio.transforms.MelSpectrogram(
            sample_rate=a.sample_rate,
            n_fft=a.n_fft,
            win_length=a.win_length,
            hop_length=a.hop_length,
            f_min=a.f_min,
            f_max=a.f_max,
            n_mels=a.n_freq,
            power=1.0,
            norm="slaney",
            mel_scale="slaney",
        )
        config = dict(trainer.model_config)
        config.pop("loss")
        self.model = torchaudio.models.WaveRNN(**config)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=a.learning_rate)
        self.pad = (a.kernel_size - 1) // 2
        self.task = trainer.task

    def _wave(self, ds, i):
        wave, sr = ds[i][:2]
        if sr != self.args.sample_rate:
            wave = torchaudio.functional.resample(wave, sr, self.args.sample_rate)
        return wave[0].clamp(-1, 1)

    def _mel(self, wave):
        db = 20 * torch.log10(self.mel(wave.unsqueeze(0))[0].clamp(min=1e-5))
        return ((db - self.args.min_level_db) / -self.args.min_level_db).clamp(0, 1)

    def load_train(self, i, rng):
        a = self.args
        wave = self._wave(self.train_ds, i)
        mel = self._mel(wave)
        need = a.seq_len_factor + 2 * self.pad
        if mel.shape[1] < need + 1:
            mel = torch.nn.functional.pad(mel, (0, need + 1 - mel.shape[1]))
        off = int(rng.integers(0, mel.shape[1] - need))
        seq = a.hop_length * a.seq_len_factor + 1
        start = (off + self.pad) * a.hop_length
        seg = wave[start : start + seq]
        seg = torch.nn.functional.pad(seg, (0, seq - seg.shape[0]))
        return mel[:, off : off + need], seg

    def load_eval(self, i):
        wave = self._wave(self.eval_ds, i)[: int(self.args.eval_seconds * self.args.sample_rate)]
        return self._mel(wave), wave

    def collate(self, items):
        return torch.stack([m for m, _ in items]), torch.stack([w for _, w in items])

    def loss(self, data):
        mels, waves = data
        bits = self.args.n_bits
        mu = 2**bits - 1
        comp = torch.sign(waves) * torch.log1p(mu * waves.abs()) / np.log1p(mu)
        labels = ((comp + 1) * mu / 2).round().clamp(0, mu).long()
        inputs = 2 * labels[:, :-1].float() / mu - 1
        out = self.model(inputs.unsqueeze(1), mels.unsqueeze(1)).squeeze(1)
        return torch.nn.functional.cross_entropy(out.transpose(1, 2), labels[:, 1:])

    def evaluate(self):
        self.model.eval()
        values = []
        with torch.no_grad():
            for i in range(len(self.trainer.eval_set)):
                mel, wave = self.load_eval(i)
                out, _ = self.model.infer(mel.unsqueeze(0))
                gen = torchaudio.functional.mu_law_decoding(
                    ((out[0, 0] + 1) * 127.5).round().long(), 256
                ).numpy()
                n = min(len(gen), len(wave))
                baseline = self.task.griffin_lim(self.task.mel_power(mel.numpy()), len(wave))
                values.append(self.task.analysis.distances(gen[:n], wave.numpy()[:n])["log_mel_l1"])
                self.task.analysis.distances(baseline[:n], wave.numpy()[:n])
        return {"log_mel_l1": float(np.mean(values))}


class TorchRetinaNet(TorchRecipe):
    def __init__(self, trainer):
        super().__init__(trainer)
        a = self.args
        from torchvision.models.detection import RetinaNet
        from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
        from torchvision.ops.feature_pyramid_network import LastLevelP6P7

        self.task = trainer.task
        backbone = resnet_fpn_backbone(
            backbone_name=a.backbone,
            weights=None,
            norm_layer=torch.nn.BatchNorm2d,
            trainable_layers=5,
            returned_layers=[2, 3, 4],
            extra_blocks=LastLevelP6P7(256, 256),
        )
        self.model = RetinaNet(
            backbone, trainer.model_config["num_classes"], min_size=a.min_size, max_size=a.max_size
        )
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=a.learning_rate)
        self.train_ds = torchvision.datasets.CocoDetection(
            os.path.join(a.data_root, a.train_split), self.task._annotation_file(a.train_split)
        )
        self.eval_ds = torchvision.datasets.CocoDetection(
            os.path.join(a.data_root, a.eval_split), self.task._annotation_file(a.eval_split)
        )
        self.to_tensor = torchvision.transforms.functional.pil_to_tensor

    def _load(self, ds, image_id):
        index = ds.ids.index(image_id)
        image, anns = ds[index]
        image = self.to_tensor(image).float() / 255
        anns = [
            x for x in anns if not x.get("iscrowd", 0) and x["bbox"][2] > 0 and x["bbox"][3] > 0
        ]
        boxes = torch.tensor(
            [[x, y, x + w, y + h] for x, y, w, h in (a["bbox"] for a in anns)], dtype=torch.float32
        ).reshape(-1, 4)
        labels = torch.tensor([a["category_id"] for a in anns], dtype=torch.int64)
        return image, {"boxes": boxes, "labels": labels, "image_id": image_id}

    def load_train(self, i, rng):
        image, target = self._load(self.train_ds, self.trainer.train_set.ids[i])
        if rng.random() < 0.5:
            w = image.shape[-1]
            image = image.flip(-1)
            b = target["boxes"].clone()
            b[:, 0], b[:, 2] = w - target["boxes"][:, 2], w - target["boxes"][:, 0]
            target["boxes"] = b
        return image, target

    def load_eval(self, i):
        return self._load(self.eval_ds, self.trainer.eval_set.ids[i])

    def collate(self, items):
        return [i for i, _ in items], [t for _, t in items]

    def loss(self, data):
        losses = self.model(*data)
        return losses["classification"] + losses["bbox_regression"]

    def score(self, batches):
        from tensorcore.pipelines.common.metrics.detection import coco_evaluate

        dets, ids = [], []
        for images, targets in batches:
            for t, out in zip(targets, self.model(images)):
                ids.append(t["image_id"])
                for (x1, y1, x2, y2), s, l in zip(
                    out["boxes"].tolist(), out["scores"].tolist(), out["labels"].tolist()
                ):
                    dets.append(
                        {
                            "image_id": t["image_id"],
                            "category_id": l,
                            "bbox": [x1, y1, x2 - x1, y2 - y1],
                            "score": s,
                        }
                    )
        stats, _ = coco_evaluate(self.task._annotation_file(self.args.eval_split), dets, ids)
        return {"map": stats["map"]}


RECIPES = {
    "wav2letter": TorchWav2Letter,
    "convtasnet": TorchConvTasNet,
    "wavernn": TorchWaveRNN,
    "retinanet": TorchRetinaNet,
}


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def generate(data):
    gen = [sys.executable, "-m", "tensorcore.datasets.generate"]
    steps = [
        ("speech/LibriSpeech", ["librispeech", "--out", f"{data}/speech", "--hours", "0.12", "--max-seconds", "6"]),
        ("tts/LibriTTS", ["libritts", "--out", f"{data}/tts", "--hours", "0.04", "--max-seconds", "4"]),
        ("mix/Libri2Mix", ["librimix", "--out", f"{data}/mix", "--librispeech", f"{data}/speech", "--sample-rates", "8000", "--modes", "min"]),
        ("coco/coco", ["coco", "--out", f"{data}/coco", "--images", "64", "--min-size", "96", "--max-size", "128", "--max-objects", "3", "--splits", "train2017,val2017"]),
    ]  # fmt: skip
    for folder, argv in steps:
        if not os.path.isdir(os.path.join(data, folder)):
            subprocess.run([*gen, *argv], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="runs/bench-data")
    parser.add_argument("--out", default="runs/bench-out")
    parser.add_argument("--pipelines", nargs="+", default=list(SETTINGS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--size",
        choices=("small", "recipe"),
        default="small",
        help="model sizes: small ones, or those of the recipe runs (docs/pipelines.md)",
    )
    args = parser.parse_args()
    if torch is None:
        sys.exit("needs torch, torchaudio and torchvision (Debian's python3-torch*)")
    apply_threads(args.threads, torch)
    generate(args.data)
    torch.manual_seed(0)
    print(f"{'pipeline':<11} {'pass':<6} {'ours s':>8} {'torch s':>8} {'ratio':>6}")
    for name in args.pipelines:
        trainer = ours(name, args.data, os.path.join(args.out, name), args.threads, args.size)
        recipe = RECIPES[name](trainer)

        def our_epoch():
            trainer.state["batch_in_epoch"] = 0
            trainer.train_epoch()

        times = {k: [] for k in ("ours_train", "torch_train", "ours_eval", "torch_eval")}
        our_epoch(), recipe.train_epoch()  # warm-up: allocator, plans, file cache
        for _ in range(args.repeats):
            times["ours_train"].append(timed(our_epoch))
            times["torch_train"].append(timed(recipe.train_epoch))
            times["ours_eval"].append(timed(trainer.evaluate))
            recipe.sync_weights()
            times["torch_eval"].append(timed(recipe.evaluate))
        for kind in ("train", "eval"):
            a, b = (
                statistics.median(times[f"ours_{kind}"]),
                statistics.median(times[f"torch_{kind}"]),
            )
            print(f"{name:<11} {kind:<6} {a:8.2f} {b:8.2f} {a / b:6.2f}x", flush=True)


if __name__ == "__main__":
    main()
