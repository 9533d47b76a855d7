"""Learning-rate schedulers with torch.optim.lr_scheduler's (1.13) names and semantics.

The classes are torch-shaped: they read and write a Python optimizer's ``param_groups`` dicts,
call Python ``lr_lambda`` / ``scale_fn`` callables and keep their state as plain attributes
(``state_dict`` is ``__dict__`` without the optimizer, as torch's). Every formula, argument rule
and message is C++ (tensorcore/optim/lr_schedule_rules.h, via ``_C._optim_rules``), the same
functions the C++ schedulers (tc::optim::StepLR, ...) run, so both frontends step identically.
"""

import types
import warnings
from collections import Counter

from .. import _C
from .optimizer import Optimizer

_R = _C._optim_rules

__all__ = [
    "LRScheduler",
    "_LRScheduler",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _lrs(opt):
    return [g["lr"] for g in opt.param_groups]


def _set_momentum(group, value, use_beta1):
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class LRScheduler:
    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an "
                        "optimizer"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._initial_step()

    def _initial_step(self):
        self.optimizer._scheduler_step_count = 0
        self._step_count = 0
        self.step()

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def _warn_get_lr_outside_step(self):
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )

    def print_lr(self, is_verbose, group, lr, epoch=None):
        if is_verbose:
            if epoch is None:
                print(_R.adjust_message(group, lr, None))
            else:
                print(_R.adjust_message(group, lr, epoch, isinstance(epoch, float)))

    def step(self, epoch=None):
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            group["lr"] = lr
            self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = _lrs(self.optimizer)


_LRScheduler = LRScheduler


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            _R.check_lambda_count(n, len(lr_lambda))
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch, verbose)

    def state_dict(self):
        # Plain functions are not saved; callable objects save their __dict__ (as torch).
        d = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        d["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return d

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas", [])
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def _factors(self):
        return [fn(self.last_epoch) for fn in self.lr_lambdas]

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return _R.lambda_lr(self.base_lrs, self._factors())


class MultiplicativeLR(LambdaLR):
    def get_lr(self):
        self._warn_get_lr_outside_step()
        if self.last_epoch <= 0:  # the lambdas are not called at epoch 0 (torch)
            return _lrs(self.optimizer)
        return _R.multiplicative_lr(_lrs(self.optimizer), self.last_epoch, self._factors())


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        _R.check_step_lr(step_size)
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return _R.step_lr(_lrs(self.optimizer), self.last_epoch, self.step_size, self.gamma)

    def _get_closed_form_lr(self):
        return _R.step_closed(self.base_lrs, self.last_epoch, self.step_size, self.gamma)


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def _milestone_list(self):
        return list(self.milestones.elements())

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return _R.multistep_lr(
            _lrs(self.optimizer), self.last_epoch, self._milestone_list(), self.gamma
        )

    def _get_closed_form_lr(self):
        return _R.multistep_closed(
            self.base_lrs, self.last_epoch, self._milestone_list(), self.gamma
        )


class ConstantLR(LRScheduler):
    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        _R.check_constant_lr(factor)
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return _R.constant_lr(_lrs(self.optimizer), self.last_epoch, self.factor, self.total_iters)

    def _get_closed_form_lr(self):
        return _R.constant_closed(self.base_lrs, self.last_epoch, self.factor, self.total_iters)


class LinearLR(LRScheduler):
    def __init__(
        self,
        optimizer,
        start_factor=1.0 / 3,
        end_factor=1.0,
        total_iters=5,
        last_epoch=-1,
        verbose=False,
    ):
        _R.check_linear_lr(start_factor, end_factor, total_iters)
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return _R.linear_lr(
            _lrs(self.optimizer),
            self.last_epoch,
            self.start_factor,
            self.end_factor,
            self.total_iters,
        )

    def _get_closed_form_lr(self):
        return _R.linear_closed(
            self.base_lrs, self.last_epoch, self.start_factor, self.end_factor, self.total_iters
        )


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return _R.exponential_lr(_lrs(self.optimizer), self.last_epoch, self.gamma)

    def _get_closed_form_lr(self):
        return _R.exponential_closed(self.base_lrs, self.last_epoch, self.gamma)


class PolynomialLR(LRScheduler):
    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False):
        _R.check_polynomial_lr(total_iters)
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return _R.polynomial_lr(_lrs(self.optimizer), self.last_epoch, self.total_iters, self.power)

    def _get_closed_form_lr(self):
        return _R.polynomial_closed(self.base_lrs, self.last_epoch, self.total_iters, self.power)


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        _R.check_cosine_annealing_lr(T_max)
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return _R.cosine_annealing_lr(
            _lrs(self.optimizer),
            self.base_lrs,
            self.last_epoch,
            self._step_count,
            self.T_max,
            self.eta_min,
        )

    def _get_closed_form_lr(self):
        return _R.cosine_annealing_closed(self.base_lrs, self.last_epoch, self.T_max, self.eta_min)


class _OfSchedulers(LRScheduler):
    """Base of the schedulers made of other schedulers: the state of each inner one is saved
    under "_schedulers", the rest of their own attributes as usual."""

    def state_dict(self):
        d = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        d["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return d

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        scheds = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for s, sd in zip(self._schedulers, scheds):
            s.load_state_dict(sd)


class SequentialLR(_OfSchedulers):
    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        _R.check_sequential_lr([s.optimizer is optimizer for s in schedulers], len(milestones))
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Undo the initial steps of the later schedulers, as torch does.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for s in schedulers:
            s.last_epoch -= 1
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self):
        self.last_epoch += 1
        idx, restart = _R.sequential_pick(list(self._milestones), self.last_epoch)
        sched = self._schedulers[idx]
        if restart:
            sched.step(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()


class ChainedScheduler(_OfSchedulers):
    def __init__(self, schedulers):
        schedulers = list(schedulers)
        first = schedulers[0].optimizer if schedulers else None
        _R.check_chained([s.optimizer is first for s in schedulers])
        self._schedulers = schedulers
        self.optimizer = first
        self._last_lr = _lrs(self.optimizer)

    def step(self):
        for s in self._schedulers:
            s.step()
        self._last_lr = _lrs(self.optimizer)


class ReduceLROnPlateau:
    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        eps=1e-8,
        verbose=False,
    ):
        _R.check_plateau(factor, mode, threshold_mode)
        _check_optimizer(optimizer)
        self.optimizer, self.factor = optimizer, factor
        self.min_lrs = _R.plateau_min_lrs(
            list(min_lr) if isinstance(min_lr, (list, tuple)) else [min_lr],
            len(optimizer.param_groups),
        )
        self.patience, self.cooldown, self.eps, self.verbose = patience, cooldown, eps, verbose
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.mode_worse = _R.plateau_worst(mode)
        self.cooldown_counter = 0
        self.best = self.mode_worse
        self.num_bad_epochs = 0
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)

    def is_better(self, a, best):
        return _R.plateau_is_better(a, best, self.mode, self.threshold_mode, self.threshold)

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        current = float(metrics)  # also a 0-dim tensor
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        (
            reduce,
            self.best,
            self.num_bad_epochs,
            self.cooldown_counter,
            self.last_epoch,
        ) = _R.plateau_step(
            current,
            None if epoch is None else int(epoch),
            self.best,
            self.num_bad_epochs,
            self.cooldown_counter,
            self.last_epoch,
            self.mode,
            self.threshold_mode,
            self.threshold,
            self.patience,
            self.cooldown,
        )
        if epoch is not None:
            self.last_epoch = epoch
        if reduce:
            groups = self.optimizer.param_groups
            new_lrs, changed = _R.plateau_reduce(
                [float(g["lr"]) for g in groups], self.factor, self.min_lrs, self.eps
            )
            for i, (g, lr, ch) in enumerate(zip(groups, new_lrs, changed)):
                if ch:
                    g["lr"] = lr
                    if self.verbose:
                        print(_R.reduce_message(i, lr, self.last_epoch, isinstance(epoch, float)))
        self._last_lr = _lrs(self.optimizer)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def get_last_lr(self):
        return self._last_lr

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


def _per_group(value, optimizer, name):
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    return _R.per_group(values, len(optimizer.param_groups), name)


def _momentum_keys(optimizer):
    return _R.cycled_momentum_uses_beta1(
        "momentum" in optimizer.defaults, "betas" in optimizer.defaults
    )


class CyclicLR(LRScheduler):
    def __init__(
        self,
        optimizer,
        base_lr,
        max_lr,
        step_size_up=2000,
        step_size_down=None,
        mode="triangular",
        gamma=1.0,
        scale_fn=None,
        scale_mode="cycle",
        cycle_momentum=True,
        base_momentum=0.8,
        max_momentum=0.9,
        last_epoch=-1,
        verbose=False,
    ):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group(base_lr, optimizer, "base_lr")
        if last_epoch == -1:
            for lr, g in zip(base_lrs, optimizer.param_groups):
                g["lr"] = lr
        self.max_lrs = _per_group(max_lr, optimizer, "max_lr")
        self.total_size, self.step_ratio = _R.cyclic_sizes(
            float(step_size_up), None if step_size_down is None else float(step_size_down)
        )
        _R.check_cyclic_lr(mode, scale_fn is not None, scale_mode)
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else _R.cyclic_scale_mode(mode)
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_keys(optimizer)
            base_momentums = _per_group(base_momentum, optimizer, "base_momentum")
            if last_epoch == -1:
                for m, g in zip(base_momentums, optimizer.param_groups):
                    _set_momentum(g, m, self.use_beta1)
            self.base_momentums = base_momentums
            self.max_momentums = _per_group(max_momentum, optimizer, "max_momentum")
        super().__init__(optimizer, last_epoch, verbose)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return _R.cyclic_scale(self.mode, self.gamma, x)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        cycle, scale_factor = _R.cyclic_position(self.last_epoch, self.total_size, self.step_ratio)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        if self.cycle_momentum:
            momenta = _R.cyclic_momentum(
                self.base_momentums, self.max_momentums, scale_factor, scale
            )
            for g, m in zip(self.optimizer.param_groups, momenta):
                _set_momentum(g, m, self.use_beta1)
        return _R.cyclic_lr(self.base_lrs, self.max_lrs, scale_factor, scale)

    def state_dict(self):
        d = super().state_dict()
        d.pop("_scale_fn_custom", None)  # a callable: not saved (torch drops its scale_fn refs)
        return d

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        state_dict.pop("_scale_fn_custom", None)
        self.__dict__.update(state_dict)


class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        _R.check_warm_restarts(T_0, T_mult)
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return _R.warm_restarts_lr(self.base_lrs, self.T_cur, self.T_i, self.eta_min)

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            self.T_i, self.T_cur, self.last_epoch = _R.warm_restarts_advance(
                self.T_i, self.T_cur, self.last_epoch, self.T_0, self.T_mult
            )
        else:
            self.T_i, self.T_cur, self.last_epoch = _R.warm_restarts_jump(
                epoch, self.T_0, self.T_mult, self.T_i
            )
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for i, (g, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            g["lr"] = lr
            self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = _lrs(self.optimizer)


class OneCycleLR(LRScheduler):
    def __init__(
        self,
        optimizer,
        max_lr,
        total_steps=None,
        epochs=None,
        steps_per_epoch=None,
        pct_start=0.3,
        anneal_strategy="cos",
        cycle_momentum=True,
        base_momentum=0.85,
        max_momentum=0.95,
        div_factor=25.0,
        final_div_factor=1e4,
        three_phase=False,
        last_epoch=-1,
        verbose=False,
    ):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.total_steps = _R.check_one_cycle(
            total_steps, epochs, steps_per_epoch, pct_start, anneal_strategy
        )
        self.pct_start, self.anneal_strategy, self.three_phase = (
            pct_start,
            anneal_strategy,
            three_phase,
        )
        max_lrs = _per_group(max_lr, optimizer, "max_lr")
        if last_epoch == -1:
            for lr, g in zip(max_lrs, optimizer.param_groups):
                g["initial_lr"] = lr / div_factor
                g["max_lr"] = lr
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_keys(optimizer)
            for g, bm, mm in zip(
                optimizer.param_groups,
                _per_group(base_momentum, optimizer, "base_momentum"),
                _per_group(max_momentum, optimizer, "max_momentum"),
            ):
                if last_epoch == -1:
                    _set_momentum(g, mm, self.use_beta1)
                    g["max_momentum"] = mm
                    g["base_momentum"] = bm
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        lrs = []
        for g in self.optimizer.param_groups:
            lr, m = _R.one_cycle_at(
                self.last_epoch,
                self.total_steps,
                self.pct_start,
                self.three_phase,
                self.anneal_strategy,
                g["initial_lr"],
                g["max_lr"],
                g["min_lr"],
                g.get("base_momentum", 0.0),
                g.get("max_momentum", 0.0),
            )
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(g, m, self.use_beta1)
        return lrs
