"""SGD, Adam, AdamW, Adagrad, RMSprop, Adadelta, Adamax, NAdam, RAdam: param-group dicts and state
layout in Python (as in torch.optim); the argument rules (tensorcore/optim/optimizer_args.h) and
the update itself (one fused call per group) in C++, shared with the C++ optimizers."""

from .. import _C
from .optimizer import Optimizer, required, _step_counter, _zeros_like

_F = _C._optim


_R = _C._optim_rules  # the hyper-parameter rules (and torch's messages) live in C++


class _FusedStep(Optimizer):
    """An optimizer whose step is one fused C++ call per group:
    ``_kernel(params, *state lists, steps, lr, *hyper-parameters)``."""

    _kernel = None  # the _C._optim step function
    _state = ()  # per-parameter state tensors in the kernel's order (zeros like the parameter)
    _optional = {}  # state key -> the group flag that enables it (an empty list when off)
    _hyper = ()  # the group's hyper-parameters after lr, in the kernel's order (betas: two)

    def _init_state(self, group, p):
        st = {"step": _step_counter()}
        for k in self._state:
            if k not in self._optional or group[self._optional[k]]:
                st[k] = self._new_state(k, p)
        return st

    def _new_state(self, key, p):
        return _zeros_like(p)

    def _hyper_args(self, group):
        args = []
        for k in self._hyper:
            args += group[k] if k == "betas" else [group[k]]
        return args

    def _step_group(self, g):
        s = self._group_state(g, lambda p: self._init_state(g, p), ("step",) + self._state)
        state = [
            s[k] if k not in self._optional or g[self._optional[k]] else [] for k in self._state
        ]
        self._kernel(g["params"], *state, s["step"], float(g["lr"]), *self._hyper_args(g))


class SGD(Optimizer):
    def __init__(
        self,
        params,
        lr=required,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
    ):
        _R.check_sgd_args(
            None if lr is required else lr, momentum, dampening, weight_decay, nesterov
        )
        super().__init__(
            params,
            dict(
                lr=lr,
                momentum=momentum,
                dampening=dampening,
                weight_decay=weight_decay,
                nesterov=nesterov,
                maximize=maximize,
                foreach=foreach,
                differentiable=differentiable,
            ),
        )

    def _step_group(self, g):
        params = g["params"]
        bufs = (
            [self.state[p].get("momentum_buffer") if p in self.state else None for p in params]
            if g["momentum"] != 0
            else []
        )
        new = _F.sgd_step(
            params,
            bufs,
            float(g["lr"]),
            g["momentum"],
            g["dampening"],
            g["weight_decay"],
            g["nesterov"],
            g["maximize"],
        )
        if g["momentum"] != 0:
            for p, old, b in zip(params, bufs, new):
                if b is not None and old is None:
                    self.state[p]["momentum_buffer"] = b


class Adam(_FusedStep):
    _kernel = staticmethod(_F.adam_step)
    _state = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    _optional = {"max_exp_avg_sq": "amsgrad"}
    _hyper = ("betas", "eps", "weight_decay", "amsgrad", "maximize")
    _decoupled = False

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
    ):
        _R.check_adam_args(lr, betas[0], betas[1], eps, weight_decay)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                amsgrad=amsgrad,
                maximize=maximize,
                foreach=foreach,
                capturable=capturable,
                differentiable=differentiable,
                fused=fused,
            ),
        )

    def _hyper_args(self, group):
        return super()._hyper_args(group) + [self._decoupled]


class AdamW(Adam):
    _decoupled = True

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=1e-2,
        amsgrad=False,
        *,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        fused=None,
    ):
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
        )


class Adagrad(_FusedStep):
    _kernel = staticmethod(_F.adagrad_step)
    _state = ("sum",)
    _hyper = ("lr_decay", "weight_decay", "eps", "maximize")

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
    ):
        _R.check_adagrad_args(lr, lr_decay, weight_decay, initial_accumulator_value, eps)
        super().__init__(
            params,
            dict(
                lr=lr,
                lr_decay=lr_decay,
                eps=eps,
                weight_decay=weight_decay,
                initial_accumulator_value=initial_accumulator_value,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
            ),
        )
        # torch creates Adagrad's state eagerly.
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p] = self._init_state(group, p)

    def _init_state(self, group, p):
        init = group["initial_accumulator_value"]
        return {"step": _step_counter(), "sum": _C.full_like(p, init).contiguous()}


class RMSprop(_FusedStep):
    _kernel = staticmethod(_F.rmsprop_step)
    _state = ("square_avg", "momentum_buffer", "grad_avg")
    _optional = {"momentum_buffer": "momentum", "grad_avg": "centered"}
    _hyper = ("alpha", "eps", "weight_decay", "momentum", "centered", "maximize")

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _R.check_rmsprop_args(lr, alpha, eps, weight_decay, momentum)
        super().__init__(
            params,
            dict(
                lr=lr,
                momentum=momentum,
                alpha=alpha,
                eps=eps,
                centered=centered,
                weight_decay=weight_decay,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
            ),
        )


class Adadelta(_FusedStep):
    _kernel = staticmethod(_F.adadelta_step)
    _state = ("square_avg", "acc_delta")
    _hyper = ("rho", "eps", "weight_decay", "maximize")

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
    ):
        _R.check_adadelta_args(lr, rho, eps, weight_decay)
        super().__init__(
            params,
            dict(
                lr=lr,
                rho=rho,
                eps=eps,
                weight_decay=weight_decay,
                maximize=maximize,
                foreach=foreach,
                differentiable=differentiable,
            ),
        )


class Adamax(_FusedStep):
    _kernel = staticmethod(_F.adamax_step)
    _state = ("exp_avg", "exp_inf")
    _hyper = ("betas", "eps", "weight_decay", "maximize")

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
    ):
        _R.check_adam_args(lr, betas[0], betas[1], eps, weight_decay)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                foreach=foreach,
                maximize=maximize,
                differentiable=differentiable,
            ),
        )


class NAdam(_FusedStep):
    _kernel = staticmethod(_F.nadam_step)
    _state = ("exp_avg", "exp_avg_sq", "mu_product")
    _hyper = ("betas", "eps", "weight_decay", "momentum_decay")

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
        foreach=None,
        *,
        differentiable=False,
    ):
        _R.check_nadam_args(lr, betas[0], betas[1], eps, weight_decay, momentum_decay)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                momentum_decay=momentum_decay,
                foreach=foreach,
                differentiable=differentiable,
            ),
        )

    def _new_state(self, key, p):
        if key == "mu_product":  # a running scalar product, not a per-element buffer
            return _C.ones((), dtype=_C.float32)
        return super()._new_state(key, p)


class RAdam(_FusedStep):
    _kernel = staticmethod(_F.radam_step)
    _state = ("exp_avg", "exp_avg_sq")
    _hyper = ("betas", "eps", "weight_decay")

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        differentiable=False,
    ):
        _R.check_adam_args(lr, betas[0], betas[1], eps, weight_decay)
        super().__init__(
            params,
            dict(
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                foreach=foreach,
                differentiable=differentiable,
            ),
        )
