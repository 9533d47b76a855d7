"""Docstrings of tensorcore.optim, its learning-rate schedulers and Optimizer's methods."""

from ._style import doc

TARGET = "tensorcore.optim"

_P = "params (iterable): parameters to optimize, or dicts defining parameter groups with their own options."
_LR = "lr (float): learning rate."
_WD = "weight_decay (float): L2 penalty added to the gradient."
_EPS = "eps (float): added to the denominator for numerical stability."
_COMPAT = "foreach, capturable, differentiable, fused: accepted for torch compatibility (one implementation here)."
_MAX = "maximize (bool): maximize the objective instead of minimizing it."
_EX = (
    ">>> model = nn.Linear(2, 1)\n>>> opt = tc.optim.{name}(model.parameters(), lr=0.1)\n"
    ">>> loss = model(tc.ones(4, 2)).sum()\n>>> opt.zero_grad()\n>>> loss.backward()\n>>> opt.step()"
)


def _opt(name, text, args):
    return doc("", text, [_P, *args], example=_EX.format(name=name)).lstrip()


_OPTIM = {
    "SGD": _opt(
        "SGD",
        "Stochastic gradient descent, optionally with momentum (heavy-ball or Nesterov): "
        ":math:`v = \\mu v + g`, :math:`p = p - lr \\cdot v` (torch's formulation).",
        [
            _LR,
            "momentum (float): momentum factor.",
            "dampening (float): dampening of the momentum.",
            _WD,
            "nesterov (bool): Nesterov momentum.",
            _MAX,
            _COMPAT,
        ],
    ),
    "Adam": _opt(
        "Adam",
        "Adam: per-parameter step sizes from running averages of the gradient and its square, with bias correction.",
        [
            _LR,
            "betas (Tuple[float, float]): decay rates of the two averages.",
            _EPS,
            _WD,
            "amsgrad (bool): use the maximum of past squared averages (AMSGrad).",
            _MAX,
            _COMPAT,
        ],
    ),
    "AdamW": _opt(
        "AdamW",
        "Adam with decoupled weight decay: the parameters shrink by ``lr * weight_decay`` each step instead of an L2 term in the gradient.",
        [
            _LR,
            "betas (Tuple[float, float]): decay rates of the two averages.",
            _EPS,
            "weight_decay (float): decoupled weight decay (default 1e-2).",
            "amsgrad (bool): AMSGrad variant.",
            _MAX,
            _COMPAT,
        ],
    ),
    "Adamax": _opt(
        "Adamax",
        "Adamax: Adam with the infinity norm in place of the second moment.",
        [_LR, "betas (Tuple[float, float]): decay rates.", _EPS, _WD, _MAX, _COMPAT],
    ),
    "NAdam": _opt(
        "NAdam",
        "Adam with Nesterov momentum and a momentum schedule.",
        [
            _LR,
            "betas (Tuple[float, float]): decay rates.",
            _EPS,
            _WD,
            "momentum_decay (float): momentum schedule parameter.",
            _COMPAT,
        ],
    ),
    "RAdam": _opt(
        "RAdam",
        "Rectified Adam: plain momentum SGD steps until the variance estimate is reliable, then rectified Adam steps.",
        [_LR, "betas (Tuple[float, float]): decay rates.", _EPS, _WD, _COMPAT],
    ),
    "Adagrad": _opt(
        "Adagrad",
        "Adagrad: step sizes shrink with the accumulated sum of squared gradients.",
        [
            _LR,
            "lr_decay (float): learning-rate decay per step.",
            _WD,
            "initial_accumulator_value (float): start of the sum.",
            _EPS,
            _MAX,
            _COMPAT,
        ],
    ),
    "Adadelta": _opt(
        "Adadelta",
        "Adadelta: step sizes from running averages of squared gradients and squared updates.",
        [
            "lr (float): scale of the update (default 1.0).",
            "rho (float): decay rate of the averages.",
            _EPS,
            _WD,
            _MAX,
            _COMPAT,
        ],
    ),
    "RMSprop": _opt(
        "RMSprop",
        "RMSprop: divides the gradient by a running root-mean-square of recent gradients.",
        [
            _LR,
            "alpha (float): smoothing constant.",
            _EPS,
            _WD,
            "momentum (float): momentum factor.",
            "centered (bool): normalize by the estimated variance instead.",
            _MAX,
            _COMPAT,
        ],
    ),
    "Optimizer": doc(
        "Optimizer(params, defaults)",
        "Base class of all optimizers: holds ``param_groups`` (lists of parameters with their options) "
        "and per-parameter ``state``. Subclasses implement :meth:`step`.",
        [_P, "defaults (dict): default options of the groups."],
    ),
}

_S = "optimizer (Optimizer): the wrapped optimizer."
_LAST = "last_epoch (int): index of the last epoch when resuming (-1: start)."
_VERBOSE = "verbose (bool): print a message at each update."
_SCHED_EX = (
    ">>> opt = tc.optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)\n"
    ">>> sched = tc.optim.lr_scheduler.{name}\n>>> for _ in range(3):\n...     opt.step()\n...     sched.step()\n"
    ">>> round(opt.param_groups[0]['lr'], 4)\n{result}"
)

_SCHED = {
    "LRScheduler": doc(
        "LRScheduler(optimizer, last_epoch=-1, verbose=False)",
        "Base class of the schedulers: ``step()`` (after ``optimizer.step()``) advances the epoch and sets each group's ``lr``; ``get_last_lr()`` returns the current rates.",
        [_S, _LAST, _VERBOSE],
    ),
    "StepLR": doc(
        "StepLR(optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False)",
        "Multiplies the learning rate by ``gamma`` every ``step_size`` epochs.",
        [
            _S,
            "step_size (int): epochs between decays.",
            "gamma (float): decay factor.",
            _LAST,
            _VERBOSE,
        ],
        example=_SCHED_EX.format(name="StepLR(opt, step_size=2, gamma=0.5)", result="0.5"),
    ),
    "MultiStepLR": doc(
        "MultiStepLR(optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False)",
        "Multiplies the learning rate by ``gamma`` at each epoch in ``milestones``.",
        [
            _S,
            "milestones (list of int): increasing epoch indices.",
            "gamma (float): decay factor.",
            _LAST,
            _VERBOSE,
        ],
    ),
    "ExponentialLR": doc(
        "ExponentialLR(optimizer, gamma, last_epoch=-1, verbose=False)",
        "Multiplies the learning rate by ``gamma`` every epoch.",
        [_S, "gamma (float): decay factor.", _LAST, _VERBOSE],
        example=_SCHED_EX.format(name="ExponentialLR(opt, gamma=0.5)", result="0.125"),
    ),
    "ConstantLR": doc(
        "ConstantLR(optimizer, factor=1/3, total_iters=5, last_epoch=-1, verbose=False)",
        "Scales the learning rate by ``factor`` for the first ``total_iters`` epochs, then restores it.",
        [_S, "factor (float): the scale.", "total_iters (int): how many epochs.", _LAST, _VERBOSE],
    ),
    "LinearLR": doc(
        "LinearLR(optimizer, start_factor=1/3, end_factor=1.0, total_iters=5, last_epoch=-1, verbose=False)",
        "Scales the learning rate by a factor going linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs (warm-up).",
        [
            _S,
            "start_factor (float): first factor.",
            "end_factor (float): last factor.",
            "total_iters (int): length of the ramp.",
            _LAST,
            _VERBOSE,
        ],
    ),
    "PolynomialLR": doc(
        "PolynomialLR(optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False)",
        "Decays the learning rate to 0 over ``total_iters`` epochs as :math:`(1 - t / T)^{power}`.",
        [_S, "total_iters (int): T.", "power (float): the exponent.", _LAST, _VERBOSE],
    ),
    "LambdaLR": doc(
        "LambdaLR(optimizer, lr_lambda, last_epoch=-1, verbose=False)",
        "Sets the learning rate to the initial rate times ``lr_lambda(epoch)``.",
        [
            _S,
            "lr_lambda (callable or list): the factor function (one per group in a list).",
            _LAST,
            _VERBOSE,
        ],
    ),
    "MultiplicativeLR": doc(
        "MultiplicativeLR(optimizer, lr_lambda, last_epoch=-1, verbose=False)",
        "Multiplies the learning rate by ``lr_lambda(epoch)`` every epoch.",
        [_S, "lr_lambda (callable or list): the factor function.", _LAST, _VERBOSE],
    ),
    "CosineAnnealingLR": doc(
        "CosineAnnealingLR(optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False)",
        "Anneals the learning rate from its initial value to ``eta_min`` along a half cosine over ``T_max`` epochs.",
        [_S, "T_max (int): half period.", "eta_min (float): the minimum rate.", _LAST, _VERBOSE],
    ),
    "CosineAnnealingWarmRestarts": doc(
        "CosineAnnealingWarmRestarts(optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False)",
        "Cosine annealing with warm restarts (SGDR): the period starts at ``T_0`` epochs and is multiplied by ``T_mult`` after each restart. ``step`` accepts fractional epochs.",
        [
            _S,
            "T_0 (int): first period.",
            "T_mult (int): period growth factor.",
            "eta_min (float): the minimum rate.",
            _LAST,
            _VERBOSE,
        ],
    ),
    "CyclicLR": doc(
        "CyclicLR(optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode='triangular', gamma=1.0, scale_fn=None, scale_mode='cycle', cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1, verbose=False)",
        "Cycles the learning rate between ``base_lr`` and ``max_lr`` (triangular, triangular2 or exp_range policies), stepping once per batch; the momentum cycles inversely.",
        [
            _S,
            "base_lr (float or list): lower bound.",
            "max_lr (float or list): upper bound.",
            "step_size_up (int): iterations of the rising half.",
            "step_size_down (int, optional): iterations of the falling half.",
            "mode (str): ``'triangular'``, ``'triangular2'`` or ``'exp_range'``.",
            "gamma (float): decay of ``'exp_range'``.",
            "scale_fn (callable, optional): custom amplitude scaling.",
            "scale_mode (str): ``'cycle'`` or ``'iterations'``.",
            "cycle_momentum (bool): cycle the momentum too.",
            "base_momentum (float): lower momentum bound.",
            "max_momentum (float): upper momentum bound.",
            _LAST,
            _VERBOSE,
        ],
    ),
    "OneCycleLR": doc(
        "OneCycleLR(optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3, anneal_strategy='cos', cycle_momentum=True, base_momentum=0.85, max_momentum=0.95, div_factor=25.0, final_div_factor=10000.0, three_phase=False, last_epoch=-1, verbose=False)",
        "The 1cycle policy: the rate rises from ``max_lr / div_factor`` to ``max_lr`` over ``pct_start`` of the steps, then anneals to ``initial / final_div_factor``; stepped once per batch.",
        [
            _S,
            "max_lr (float or list): peak rate.",
            "total_steps (int, optional): number of steps (or give ``epochs`` and ``steps_per_epoch``).",
            "epochs (int, optional): number of epochs.",
            "steps_per_epoch (int, optional): steps per epoch.",
            "pct_start (float): fraction of the rising phase.",
            "anneal_strategy (str): ``'cos'`` or ``'linear'``.",
            "cycle_momentum (bool): cycle the momentum inversely.",
            "base_momentum (float): lower momentum.",
            "max_momentum (float): upper momentum.",
            "div_factor (float): initial rate = max_lr / div_factor.",
            "final_div_factor (float): final rate = initial / final_div_factor.",
            "three_phase (bool): add a symmetric descent phase before the final annealing.",
            _LAST,
            _VERBOSE,
        ],
    ),
    "ReduceLROnPlateau": doc(
        "ReduceLROnPlateau(optimizer, mode='min', factor=0.1, patience=10, threshold=0.0001, threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-08, verbose=False)",
        "Multiplies the learning rate by ``factor`` when the metric passed to ``step(metric)`` has not improved for ``patience`` epochs.",
        [
            _S,
            "mode (str): ``'min'`` or ``'max'``: whether lower or higher is better.",
            "factor (float): decay factor.",
            "patience (int): epochs without improvement to wait.",
            "threshold (float): the minimum change that counts.",
            "threshold_mode (str): ``'rel'`` or ``'abs'``.",
            "cooldown (int): epochs to wait after a reduction.",
            "min_lr (float or list): lower bound of the rate.",
            "eps (float): smaller updates are ignored.",
            _VERBOSE,
        ],
    ),
    "SequentialLR": doc(
        "SequentialLR(optimizer, schedulers, milestones, last_epoch=-1, verbose=False)",
        "Runs ``schedulers`` one after another, switching at the epochs in ``milestones``.",
        [
            _S,
            "schedulers (list): the schedulers.",
            "milestones (list of int): switch epochs (one fewer than schedulers).",
            _LAST,
            _VERBOSE,
        ],
    ),
    "ChainedScheduler": doc(
        "ChainedScheduler(schedulers)",
        "Steps several schedulers together, so their effects compose every epoch.",
        ["schedulers (list): schedulers of the same optimizer."],
    ),
}

_METHODS = {
    "step": doc(
        "step(closure=None)",
        "Performs one optimization step from the parameters' ``.grad``.",
        [
            "closure (callable, optional): re-evaluates the model and returns the loss (needed by LBFGS)."
        ],
    ),
    "zero_grad": doc(
        "zero_grad(set_to_none=True) -> None",
        "Resets the gradients of all optimized parameters: to None (default) or to zero.",
        ["set_to_none (bool): set ``.grad`` to None instead of zeroing it."],
    ),
    "state_dict": doc(
        "state_dict() -> dict",
        "The optimizer's state (per-parameter buffers such as momentum, by parameter index) and its groups' options, for :meth:`load_state_dict`.",
    ),
    "load_state_dict": doc(
        "load_state_dict(state_dict) -> None",
        "Restores the state and group options from :meth:`state_dict`; the groups must match in number and size.",
        ["state_dict (dict): from :meth:`state_dict`."],
    ),
    "add_param_group": doc(
        "add_param_group(param_group) -> None",
        "Adds a parameter group (e.g. when unfreezing layers); options it omits take the optimizer's defaults.",
        ["param_group (dict): ``{'params': [...], option: value, ...}``."],
    ),
}

TARGETS = {
    "tensorcore.optim": _OPTIM,
    "tensorcore.optim.lr_scheduler": _SCHED,
    "tensorcore.optim.Optimizer": _METHODS,
}
DOCS = _OPTIM
