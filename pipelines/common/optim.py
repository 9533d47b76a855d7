"""Optimizer and learning-rate schedule from the command line, as the reference scripts have them.

The schedule is one object combining a per-iteration linear warm-up (torchvision's detection
reference) with a per-epoch rule: exponential decay, step decay at epochs (--lr-steps), or
reduction on a plateau of the evaluation metric (torchaudio's recipes, ConvTasNet's halving).
Its whole state is a few numbers, saved in the checkpoint.
"""

import tensorcore as tc

from .errors import PipelineError

OPTIMIZERS = ("adadelta", "sgd", "adam", "adamw")
SCHEDULERS = ("none", "exponential", "multistep", "reduceonplateau")


def add_arguments(parser):
    g = parser.add_argument_group("optimization")
    g.add_argument("--optimizer", choices=OPTIMIZERS, default="adam")
    g.add_argument("--learning-rate", "--lr", type=float, default=1e-3, dest="learning_rate")
    g.add_argument("--momentum", type=float, default=0.0, help="SGD momentum / Adadelta rho")
    g.add_argument("--weight-decay", type=float, default=0.0)
    g.add_argument("--eps", type=float, default=1e-8, help="Adam/Adadelta epsilon")
    g.add_argument("--scheduler", choices=SCHEDULERS, default="none")
    g.add_argument("--gamma", type=float, default=0.1, help="decay factor (exponential/multistep)")
    g.add_argument(
        "--lr-steps", type=int, nargs="*", default=[], help="epochs at which multistep decays"
    )
    g.add_argument(
        "--plateau-factor", type=float, default=0.5, help="LR factor on a plateau (0.5: halving)"
    )
    g.add_argument("--plateau-patience", type=int, default=3, help="epochs without improvement")
    g.add_argument("--min-lr", type=float, default=0.0)
    g.add_argument("--warmup-iters", type=int, default=0, help="linear warm-up iterations")
    g.add_argument("--warmup-factor", type=float, default=1e-3, help="LR factor at iteration 0")
    g.add_argument("--clip-grad", type=float, default=0.0, help="max gradient norm (0: off)")


def build_optimizer(args, params):
    params = [p for p in params if p.requires_grad]
    lr, wd = args.learning_rate, args.weight_decay
    if lr <= 0:
        raise PipelineError(f"--learning-rate must be positive, got {lr}")
    if args.optimizer == "sgd":
        return tc.optim.SGD(params, lr=lr, momentum=args.momentum, weight_decay=wd)
    if args.optimizer == "adadelta":
        rho = args.momentum if args.momentum > 0 else 0.9
        return tc.optim.Adadelta(params, lr=lr, rho=rho, eps=args.eps, weight_decay=wd)
    if args.optimizer == "adam":
        return tc.optim.Adam(params, lr=lr, eps=args.eps, weight_decay=wd)
    return tc.optim.AdamW(params, lr=lr, eps=args.eps, weight_decay=wd)


class LRSchedule:
    """lr = base_lr * warmup(iteration) * epoch_factor, written into the optimizer's groups."""

    def __init__(self, optimizer, args, mode="min"):
        self.optimizer, self.kind, self.mode = optimizer, args.scheduler, mode
        self.gamma, self.lr_steps = args.gamma, sorted(args.lr_steps)
        self.plateau_factor, self.patience = args.plateau_factor, args.plateau_patience
        self.min_lr = args.min_lr
        self.warmup_iters, self.warmup_factor = args.warmup_iters, args.warmup_factor
        self.base_lrs = [g["lr"] for g in optimizer.param_groups]
        self.epoch_factor, self.iteration = 1.0, 0
        self.best, self.bad_epochs = None, 0
        self._apply()

    def _warmup(self):
        if self.iteration >= self.warmup_iters:
            return 1.0
        alpha = self.iteration / self.warmup_iters
        return self.warmup_factor * (1 - alpha) + alpha

    def _apply(self):
        factor = self._warmup() * self.epoch_factor
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = max(base * factor, self.min_lr) if self.kind != "none" else base * factor

    def lr(self):
        return self.optimizer.param_groups[0]["lr"]

    def step_iteration(self):
        self.iteration += 1
        self._apply()

    def step_epoch(self, epochs_done, metric=None):
        """After `epochs_done` epochs; metric: the evaluation value (for reduceonplateau)."""
        if self.kind == "exponential":
            self.epoch_factor = self.gamma**epochs_done
        elif self.kind == "multistep":
            self.epoch_factor = self.gamma ** sum(1 for s in self.lr_steps if s <= epochs_done)
        elif self.kind == "reduceonplateau" and metric is not None:
            better = (
                self.best is None
                or (self.mode == "min" and metric < self.best)
                or (self.mode == "max" and metric > self.best)
            )
            if better:
                self.best, self.bad_epochs = metric, 0
            else:
                self.bad_epochs += 1
                if self.bad_epochs > self.patience:
                    self.epoch_factor *= self.plateau_factor
                    self.bad_epochs = 0
        self._apply()

    def state_dict(self):
        return {
            "kind": self.kind,
            "epoch_factor": self.epoch_factor,
            "iteration": self.iteration,
            "best": self.best,
            "bad_epochs": self.bad_epochs,
        }

    def load_state_dict(self, state):
        self.epoch_factor, self.iteration = state["epoch_factor"], state["iteration"]
        self.best, self.bad_epochs = state["best"], state["bad_epochs"]
        self._apply()
