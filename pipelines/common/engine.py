"""The training engine every pipeline runs on: loop, limits, checkpoints, resume, evaluation,
early stopping, logging and plots.

Bit-exact resume rests on three rules: the data order is a function of (seed, epoch) and the
checkpoint records the batch position (data.EpochBatchSampler); every generator a step draws
from is saved and restored (checkpoint.rng_states); anything outside the step that would draw
random numbers (DataLoader worker seeds, evaluation, example logging) runs under
tc.random.fork_rng so it leaves the training generators untouched.

Under the distributed launcher (WORLD_SIZE > 1, see distributed.py) every rank runs this loop on
its share of the data with the model wrapped in DDP; --batch-size is per process. Decisions that
end or skip a step are agreed through Context.any/sum, evaluation runs on rank 0 alone
(Context.run_on_main), and only rank 0 writes files or prints.
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

from . import checkpoint, distributed, report
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


wrap_distributed = distributed.wrap_distributed


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
        if args.threads:
            tc.set_num_threads(args.threads)
        self.dist, self.device = distributed.setup(args, resolve_device(args.device))
        rank = self.dist.rank
        # only rank 0 writes (and proves the folder writable); the others read its checkpoint,
        # after DDP's constructor (a collective) has waited for rank 0 to get this far
        main = self.dist.is_main
        self.out = prepare_output_dir(args.output_dir) if main else os.path.abspath(args.output_dir)
        self.ckpt_path = os.path.join(self.out, checkpoint.CHECKPOINT_NAME)
        # Each rank draws its own random numbers (dropout, batch augmentation); rank 0 draws
        # what a single process would. The checkpoint keeps every rank's generators.
        tc.manual_seed(args.seed + rank)
        random.seed(args.seed + rank)
        np.random.seed((args.seed + rank) % 2**32)

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
        # self.model: the module (checkpoints, evaluation); self.train_model: what training steps
        # call, its DDP wrapper in a multi-process run
        self.model, self.train_model = wrap_distributed(
            self.model, self.dist, self.device, sync_bn=args.sync_bn
        )
        self.optimizer = build_optimizer(args, self.model.parameters())
        self.schedule = LRSchedule(self.optimizer, args, mode=task.metric_mode)
        use_fp16 = args.amp and self.device.type == "cuda"
        self.amp_dtype = tc.float16 if use_fp16 else tc.bfloat16
        self.scaler = tc.amp.GradScaler(enabled=use_fp16)

        self.sampler = EpochBatchSampler(
            len(train_set),
            args.batch_size,
            args.seed,
            group_ids=task.group_ids(train_set),
            rank=rank,
            world_size=self.dist.world_size,
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
        saved_world = obj.get("world_size", 1)
        if saved_world != self.dist.world_size and self.state["batch_in_epoch"]:
            raise PipelineError(
                f"{self.ckpt_path}: written mid-epoch by a run of {saved_world} process(es); the "
                f"batch position means another thing with {self.dist.world_size}. Resume with "
                f"{saved_world} process(es) (the launcher's --nproc_per_node x --nnodes)"
            )
        rng_ranks = obj.get("rng_ranks")
        if rng_ranks is not None and len(rng_ranks) == self.dist.world_size:
            checkpoint.set_rng_states(rng_ranks[self.dist.rank])
        else:  # another world size: every rank continues from rank 0's generators
            checkpoint.set_rng_states(obj["rng"])
        self.resumed_from = self.state["step"]

    def _checkpoint_payload(self):
        """Collective in a multi-process run (it gathers every rank's generators)."""
        rng = checkpoint.rng_states()
        payload = {
            "format": checkpoint.FORMAT,
            "pipeline": self.task.name,
            "model_config": self.model_config,
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "schedule": self.schedule.state_dict(),
            "scaler": self.scaler.state_dict(),
            "train": self.state,
            "rng": rng,
        }
        if self.dist.enabled:
            payload["world_size"] = self.dist.world_size
            payload["rng_ranks"] = self.dist.all_gather(rng)
        return payload

    def save_checkpoint(self):
        """Every rank calls it at the same step; rank 0 writes."""
        payload = self._checkpoint_payload()
        if self.dist.is_main:
            checkpoint.save(payload, self.ckpt_path)
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
            world_size=self.dist.world_size,
            global_batch_size=self.args.batch_size * self.dist.world_size,
            dist_backend=self.dist.backend,
            resumed_from_step=self.resumed_from,
            threads=tc.get_num_threads(),
        )
        if self.dist.is_main:
            report.write_json(os.path.join(self.out, "config.json"), config)

    # ---- the loop ----
    def run(self):
        self._setup()
        try:
            return self._run()
        finally:
            self.dist.close()

    def _run(self):
        self._write_config()
        args, main = self.args, self.dist.is_main
        if args.test_only:
            self.task.final_evaluation = True
            metrics = self.evaluate()
            plots = []
            if main:
                report.write_json(os.path.join(self.out, "metrics.json"), {"test": metrics})
                self._print_metrics(metrics)
                plots = self._plots(curves=False)
            return {"metrics": metrics, "plots": plots, "output_dir": self.out}
        self.board = report.Board(
            os.path.join(self.out, "tensorboard"),
            enabled=main and not args.no_tensorboard,
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
            if main:
                print(f"interrupted at step {self.state['step']}; resume with --resume", flush=True)
            result["interrupted"] = True
            # the others exit (status 130, a failure to the launcher, which then stops every
            # worker) only once rank 0 has written
            self.dist.sum([0])
            return result
        self.task.final_evaluation = True  # the full metric set (e.g. beam search) once, at the end
        metrics = {} if args.no_final_eval else self.evaluate()
        self.board.close()
        if not main:
            self.dist.sum([0])  # wait for rank 0's files, so the job ends when they are written
            return result
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
        self.dist.sum([0])
        return result

    def _on_signal(self, signum, frame):
        self._stop_signal = signum

    def _poll(self):
        """(checkpoint due, stop reason or None) after a step. The clock and signals differ
        between processes, so all ranks agree on them (any rank's yes counts); step counts are
        the same on every rank."""
        args, state = self.args, self.state
        now = time.monotonic()
        last_time, last_step, _ = self._last_save
        due_time = bool(args.checkpoint_every_minutes) and (
            now - last_time >= args.checkpoint_every_minutes * 60
        )
        minutes = bool(args.max_minutes) and now - self._start >= args.max_minutes * 60
        due_time, minutes, interrupted = self.dist.any(
            [due_time, minutes, self._stop_signal is not None]
        )
        due_steps = bool(args.checkpoint_every_steps) and (
            state["step"] - last_step >= args.checkpoint_every_steps
        )
        stop = None
        if args.max_steps and state["step"] >= args.max_steps:
            stop = "max-steps"
        elif minutes:
            stop = "max-minutes"
        elif interrupted:
            stop = "interrupted"
        return due_steps or due_time, stop

    def _limit_reached(self):
        return self._poll()[1]

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
        bar = _progress(len(self.sampler.batches(state["epoch"])), state, args, self.dist.is_main)
        self.train_model.train()
        stop = None
        for batch in batches:
            state["batch_in_epoch"] += 1
            if batch.skipped:
                warn_skipped(batch.skipped)
            # a rank whose batch was all unreadable files cannot join DDP's all-reduce: then no
            # rank steps (the counts are summed, so the checkpoint has the job's total)
            missing, skipped = self.dist.sum([batch.data is None, len(batch.skipped)])
            state["skipped_items"] += int(skipped)
            if not missing:
                loss = self._step(batch)
                bar.set_postfix(loss=f"{loss:.4g}", lr=f"{self.schedule.lr():.3g}", refresh=False)
            bar.update(1)
            checkpoint_due, stop = self._poll()
            if checkpoint_due:
                self.save_checkpoint()
            if stop:
                break
        bar.close()
        return stop

    def _step(self, batch):
        args, state = self.args, self.state
        data = self.task.augment(batch.data, self.device)
        with tc.autocast(self.device.type, dtype=self.amp_dtype, enabled=args.amp):
            loss, extra = self.task.loss(self.train_model, data, self.device)
        value = float(loss.detach().float().item())
        finite = math.isfinite(value)
        if self.dist.enabled:
            # every rank raises together; the logged loss is the mean over ranks (with equal
            # per-rank batches, the loss of the global batch)
            bad, total = self.dist.sum([not finite, value if finite else 0.0])
            finite, value = not bad, (total / self.dist.world_size if not bad else value)
        if not finite:
            where = "" if not self.dist.enabled else " on at least one rank"
            raise NonFiniteLossError(
                f"the training loss is {value}{where} at epoch {state['epoch'] + 1}, step "
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
        main = self.dist.is_main
        metric = None
        if state["epoch"] % args.eval_every == 0 or state["epoch"] == args.epochs:
            metrics = self.evaluate()
            state["history"]["eval"].append([state["epoch"], state["step"], metrics])
            if main:
                for name, v in metrics.items():
                    self.board.scalar(f"eval/{name}", v, state["step"])
                self.model.eval()
                with tc.random.fork_rng(), tc.no_grad():
                    task.log_examples(
                        self.board, self.model, self.eval_set, state["step"], self.device
                    )
                self.model.train()
                self.board.flush()
                self._print_metrics(metrics, prefix=f"epoch {state['epoch']}: ")
            metric = metrics.get(task.main_metric)
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
            if main:
                checkpoint.save(
                    {"format": "model", "pipeline": task.name, "model": self.model.state_dict()},
                    os.path.join(self.out, checkpoint.BEST_MODEL_NAME),
                )
        else:
            state["bad_epochs"] += 1
            if args.early_stop_patience and state["bad_epochs"] >= args.early_stop_patience:
                if main:
                    print(
                        f"early stopping: {task.main_metric} did not improve for "
                        f"{state['bad_epochs']} evaluations",
                        flush=True,
                    )
                state["early_stopped"] = True
                return "early-stopping"
        return None

    def evaluate(self):
        """The held-out metrics, on every rank. A multi-process run evaluates on rank 0 alone
        (the unwrapped module, the whole held-out set: the same numbers as one process) while
        the other ranks wait, then shares the metrics so every rank's plateau schedule and
        early stopping agree."""
        return self.dist.run_on_main(self._evaluate_here)

    def _evaluate_here(self, heartbeat):
        def batches():
            for b in self.eval_loader:
                heartbeat()
                if b.data is not None:
                    yield b.data

        was_training = self.model.training
        self.model.eval()
        try:
            with tc.random.fork_rng(), tc.no_grad():
                return self.task.evaluate(self.model, batches(), self.device)
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


def _progress(total, state, args, enabled=True):
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=state["batch_in_epoch"],
        desc=f"epoch {state['epoch'] + 1}/{args.epochs}",
        unit="batch",
        disable=args.no_progress or not enabled,
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
