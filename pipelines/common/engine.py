"""The training engine every pipeline runs on: loop, limits, checkpoints, resume, evaluation,
early stopping, logging and plots.

Bit-exact resume rests on three rules: the data order is a function of (seed, epoch) and the
checkpoint records the batch position (data.EpochBatchSampler); every generator a step draws
from is saved and restored (checkpoint.rng_states); anything outside the step that would draw
random numbers (DataLoader worker seeds, evaluation, example logging) runs under
tc.random.fork_rng so it leaves the training generators untouched.
"""

import math
import os
import random
import signal
import time
import warnings

import numpy as np

import tensorcore as tc
from tensorcore.utils.data import DataLoader

from . import checkpoint, report
from .cli import prepare_output_dir
from .data import CollateSkipping, EpochBatchSampler, KeyedDataset, Subset, warn_skipped
from .errors import NonFiniteLossError, PipelineError
from .optim import LRSchedule, build_optimizer


def resolve_device(name):
    if name == "auto":
        return tc.device("cuda" if tc.cuda.is_available() else "cpu")
    device = tc.device(name)
    if device.type == "cuda" and not tc.cuda.is_available():
        raise PipelineError(f"--device {name}: CUDA is not available on this machine")
    return device


def wrap_distributed(model):
    """Where DDP plugs in: once the distributed launcher exists, the model is wrapped here and
    EpochBatchSampler shards each epoch's batches by rank. Until then runs are single-process."""
    return model


class Trainer:
    def __init__(self, task, args):
        self.task, self.args = task, args
        self._stop_signal = None

    # ---- setup ----
    def setup(self):
        """Builds data, model, optimizer (and restores a checkpoint) without training; run()
        calls it, benchmarks use it to time train_epoch() and evaluate() alone."""
        self._setup()
        self.board = report.Board(None, enabled=False)
        self._start = time.monotonic()
        self._last_save = (self._start, self.state["step"], self.state["batch_in_epoch"])

    def _setup(self):
        args, task = self.args, self.task
        self.out = prepare_output_dir(args.output_dir)
        self.ckpt_path = os.path.join(self.out, checkpoint.CHECKPOINT_NAME)
        if args.threads:
            tc.set_num_threads(args.threads)
        self.device = resolve_device(args.device)
        tc.manual_seed(args.seed)
        random.seed(args.seed)
        np.random.seed(args.seed % 2**32)

        train_set, eval_set = task.datasets()
        if args.max_train_items and len(train_set) > args.max_train_items:
            train_set = Subset(train_set, range(args.max_train_items))
        if args.max_eval_items and len(eval_set) > args.max_eval_items:
            eval_set = Subset(eval_set, range(args.max_eval_items))
        self.train_set, self.eval_set = train_set, eval_set
        self.model_config = task.model_config()
        self.model = task.build_model().to(self.device)
        if args.init_weights:
            state = _read_weights(args.init_weights)
            checkpoint.load_model_state(self.model, state, args.init_weights)
        self.model = wrap_distributed(self.model)
        self.optimizer = build_optimizer(args, self.model.parameters())
        self.schedule = LRSchedule(self.optimizer, args, mode=task.metric_mode)
        use_fp16 = args.amp and self.device.type == "cuda"
        self.amp_dtype = tc.float16 if use_fp16 else tc.bfloat16
        self.scaler = tc.amp.GradScaler(enabled=use_fp16)

        self.sampler = EpochBatchSampler(
            len(train_set), args.batch_size, args.seed, group_ids=task.group_ids(train_set)
        )
        self.loader = DataLoader(
            KeyedDataset(train_set, task.load_train_item, args.seed, args.on_bad_file),
            batch_sampler=self.sampler,
            num_workers=args.workers,
            collate_fn=CollateSkipping(task.collate),
        )
        self.eval_loader = DataLoader(
            KeyedDataset(eval_set, task.load_eval_item, args.seed + 1, args.on_bad_file),
            batch_size=args.eval_batch_size or args.batch_size,
            shuffle=False,
            num_workers=args.workers,
            collate_fn=CollateSkipping(task.collate),
        )
        self.state = {
            "epoch": 0,
            "batch_in_epoch": 0,
            "step": 0,
            "best": None,
            "bad_epochs": 0,
            "skipped_items": 0,
            "early_stopped": False,
            "history": {"loss": [], "lr": [], "eval": []},
        }
        self.resumed_from = None
        if args.resume or args.test_only:
            self._restore()

    def _restore(self):
        if self.args.test_only and not os.path.exists(self.ckpt_path):
            if self.args.init_weights:
                return
            raise PipelineError(f"--test-only needs a checkpoint in {self.out} or --init-weights")
        obj = checkpoint.load(self.ckpt_path, self.task.name, self.model_config)
        checkpoint.load_model_state(self.model, obj["model"], self.ckpt_path)
        if self.args.test_only:
            return
        self.optimizer.load_state_dict(obj["optimizer"])
        self.schedule.load_state_dict(obj["schedule"])
        self.scaler.load_state_dict(obj["scaler"])
        self.state = obj["train"]
        checkpoint.set_rng_states(obj["rng"])
        self.resumed_from = self.state["step"]

    def _checkpoint_payload(self):
        return {
            "format": checkpoint.FORMAT,
            "pipeline": self.task.name,
            "model_config": self.model_config,
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "schedule": self.schedule.state_dict(),
            "scaler": self.scaler.state_dict(),
            "train": self.state,
            "rng": checkpoint.rng_states(),
        }

    def save_checkpoint(self):
        checkpoint.save(self._checkpoint_payload(), self.ckpt_path)
        self._last_save = (time.monotonic(), self.state["step"], self.state["batch_in_epoch"])

    def _write_config(self):
        config = dict(vars(self.args))
        config.update(
            pipeline=self.task.name,
            device=str(self.device),
            model_config=self.model_config,
            train_items=len(self.train_set),
            eval_items=len(self.eval_set),
            batches_per_epoch=len(self.sampler.batches(0)),
            resumed_from_step=self.resumed_from,
            threads=tc.get_num_threads(),
        )
        report.write_json(os.path.join(self.out, "config.json"), config)

    # ---- the loop ----
    def run(self):
        self._setup()
        self._write_config()
        args = self.args
        if args.test_only:
            self.task.final_evaluation = True
            metrics = self.evaluate()
            report.write_json(os.path.join(self.out, "metrics.json"), {"test": metrics})
            self._print_metrics(metrics)
            plots = self._plots(curves=False)
            return {"metrics": metrics, "plots": plots, "output_dir": self.out}
        self.board = report.Board(
            os.path.join(self.out, "tensorboard"),
            enabled=not args.no_tensorboard,
            # events past the checkpoint, logged by the interrupted run, are dropped
            purge_step=self.state["step"] + 1 if self.resumed_from is not None else None,
        )
        self._start = time.monotonic()
        self._last_save = (self._start, self.state["step"], self.state["batch_in_epoch"])
        previous = {s: signal.signal(s, self._on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            stop = self._loop()
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
        if (self.state["step"], self.state["batch_in_epoch"]) != self._last_save[1:]:
            self.save_checkpoint()
        self.board.flush()
        result = {"stop_reason": stop, "output_dir": self.out, "step": self.state["step"]}
        if stop == "interrupted":
            self.board.close()
            print(f"interrupted at step {self.state['step']}; resume with --resume", flush=True)
            result["interrupted"] = True
            return result
        self.task.final_evaluation = True  # the full metric set (e.g. beam search) once, at the end
        metrics = {} if args.no_final_eval else self.evaluate()
        self.board.close()
        final = {
            "final": metrics,
            "best": self.state["best"],
            "stop_reason": stop,
            "steps": self.state["step"],
            "epochs_completed": self.state["epoch"],
            "skipped_items": self.state["skipped_items"],
            "train_minutes_this_run": (time.monotonic() - self._start) / 60,
        }
        report.write_json(os.path.join(self.out, "metrics.json"), final)
        self._print_metrics(metrics)
        result.update(metrics=metrics, plots=[] if args.no_final_eval else self._plots(curves=True))
        return result

    def _on_signal(self, signum, frame):
        self._stop_signal = signum

    def _limit_reached(self):
        args = self.args
        if args.max_steps and self.state["step"] >= args.max_steps:
            return "max-steps"
        if args.max_minutes and time.monotonic() - self._start >= args.max_minutes * 60:
            return "max-minutes"
        if self._stop_signal is not None:
            return "interrupted"
        return None

    def _maybe_checkpoint(self):
        args = self.args
        last_time, last_step, _ = self._last_save
        due_steps = args.checkpoint_every_steps and (
            self.state["step"] - last_step >= args.checkpoint_every_steps
        )
        due_time = args.checkpoint_every_minutes and (
            time.monotonic() - last_time >= args.checkpoint_every_minutes * 60
        )
        if due_steps or due_time:
            self.save_checkpoint()

    def _loop(self):
        args, state = self.args, self.state
        if state["early_stopped"]:  # a resumed run that early stopping ended stays ended
            return "early-stopping"
        stop = self._limit_reached()
        while state["epoch"] < args.epochs and stop is None:
            stop = self.train_epoch()
            if stop:
                break
            state["epoch"] += 1
            state["batch_in_epoch"] = 0
            stop = self._end_of_epoch()
            self.save_checkpoint()
        return stop or "finished"

    def train_epoch(self):
        """The rest of the current epoch's batches; returns why it stopped early, or None."""
        args, state = self.args, self.state
        self.sampler.set_epoch(state["epoch"], state["batch_in_epoch"])
        with tc.random.fork_rng():  # worker seeds must not shift the training generators
            batches = iter(self.loader)
        bar = _progress(len(self.sampler.batches(state["epoch"])), state, args)
        self.model.train()
        stop = None
        for batch in batches:
            state["batch_in_epoch"] += 1
            if batch.skipped:
                warn_skipped(batch.skipped)
                state["skipped_items"] += len(batch.skipped)
            if batch.data is not None:
                loss = self._step(batch)
                bar.set_postfix(loss=f"{loss:.4g}", lr=f"{self.schedule.lr():.3g}", refresh=False)
            bar.update(1)
            self._maybe_checkpoint()
            stop = self._limit_reached()
            if stop:
                break
        bar.close()
        return stop

    def _step(self, batch):
        args, state = self.args, self.state
        data = self.task.augment(batch.data, self.device)
        with tc.autocast(self.device.type, dtype=self.amp_dtype, enabled=args.amp):
            loss, extra = self.task.loss(self.model, data, self.device)
        value = float(loss.detach().float().item())
        if not math.isfinite(value):
            raise NonFiniteLossError(
                f"the training loss is {value} at epoch {state['epoch'] + 1}, step "
                f"{state['step'] + 1}; stopping. The last checkpoint ({self.ckpt_path}, step "
                f"{self._last_save[1]}) is kept. Lower --learning-rate, set --clip-grad, or "
                "check the batch's data."
            )
        self.optimizer.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        if args.clip_grad > 0:
            self.scaler.unscale_(self.optimizer)
            tc.nn.utils.clip_grad_norm_(self.model.parameters(), args.clip_grad)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        lr = self.schedule.lr()
        self.schedule.step_iteration()
        state["step"] += 1
        step = state["step"]
        state["history"]["loss"].append([step, value])
        if step == 1 or step % args.log_every == 0:
            state["history"]["lr"].append([step, lr])
            self.board.scalar("train/loss", value, step)
            self.board.scalar("train/lr", lr, step)
            for name, v in extra.items():
                self.board.scalar(f"train/{name}", v, step)
        return value

    def _end_of_epoch(self):
        args, state, task = self.args, self.state, self.task
        metric = None
        if state["epoch"] % args.eval_every == 0 or state["epoch"] == args.epochs:
            metrics = self.evaluate()
            state["history"]["eval"].append([state["epoch"], state["step"], metrics])
            for name, v in metrics.items():
                self.board.scalar(f"eval/{name}", v, state["step"])
            self.model.eval()
            with tc.random.fork_rng(), tc.no_grad():
                task.log_examples(self.board, self.model, self.eval_set, state["step"], self.device)
            self.model.train()
            self.board.flush()
            metric = metrics.get(task.main_metric)
            self._print_metrics(metrics, prefix=f"epoch {state['epoch']}: ")
        self.schedule.step_epoch(state["epoch"], metric)
        if metric is None:
            return None
        better = state["best"] is None or (
            metric < state["best"][task.main_metric]
            if task.metric_mode == "min"
            else metric > state["best"][task.main_metric]
        )
        if better:
            state["best"] = {
                task.main_metric: metric,
                "epoch": state["epoch"],
                "step": state["step"],
            }
            state["bad_epochs"] = 0
            checkpoint.save(
                {"format": "model", "pipeline": task.name, "model": self.model.state_dict()},
                os.path.join(self.out, checkpoint.BEST_MODEL_NAME),
            )
        else:
            state["bad_epochs"] += 1
            if args.early_stop_patience and state["bad_epochs"] >= args.early_stop_patience:
                print(
                    f"early stopping: {task.main_metric} did not improve for "
                    f"{state['bad_epochs']} evaluations",
                    flush=True,
                )
                state["early_stopped"] = True
                return "early-stopping"
        return None

    def evaluate(self):
        was_training = self.model.training
        self.model.eval()
        try:
            with tc.random.fork_rng(), tc.no_grad():
                batches = (b.data for b in self.eval_loader if b.data is not None)
                return self.task.evaluate(self.model, batches, self.device)
        finally:
            self.model.train(was_training)

    def _plots(self, curves):
        paths = []
        try:
            if curves:
                paths.append(
                    report.plot_curves(self.state["history"], self.out, self.task.main_metric)
                )
            with tc.random.fork_rng(), tc.no_grad():
                self.model.eval()
                paths += self.task.plot_examples(self.model, self.eval_set, self.out, self.device)
        except ImportError as e:
            warnings.warn(f"no plots: {e}", stacklevel=2)
        return paths

    def _print_metrics(self, metrics, prefix=""):
        text = ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in metrics.items()
        )
        print(f"{prefix}{text}", flush=True)


def _progress(total, state, args):
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=state["batch_in_epoch"],
        desc=f"epoch {state['epoch'] + 1}/{args.epochs}",
        unit="batch",
        disable=args.no_progress,
        dynamic_ncols=True,
        mininterval=1.0,
    )


def _read_weights(path):
    try:
        obj = tc.load(path, map_location="cpu")
    except (OSError, RuntimeError, ValueError) as e:
        raise PipelineError(f"--init-weights {path}: cannot read it ({e})") from None
    if isinstance(obj, dict) and "model" in obj and isinstance(obj["model"], dict):
        obj = obj["model"]
    if not isinstance(obj, dict):
        raise PipelineError(f"--init-weights {path}: not a state dict")
    return obj
