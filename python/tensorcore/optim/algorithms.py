"""SGD, Adam, AdamW, Adagrad, RMSprop, Adadelta, Adamax, NAdam, RAdam: param-group dicts and state
layout in Python (as in torch.optim); the argument rules (tensorcore/optim/optimizer_args.h) and
the update itself (one fused call per group) in C++, shared with the C++ optimizers."""

from .. import _C
from .optimizer import Optimizer, required, _step_counter, _zeros_like

_F = _C._optim


_R = _C._optim_rules  # the hyper-parameter rules (and torch's messages) live in C++


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


class Adam(Optimizer):
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

    def _step_group(self, g):
        amsgrad = g["amsgrad"]

        def init(p):
            st = {"step": _step_counter(), "exp_avg": _zeros_like(p), "exp_avg_sq": _zeros_like(p)}
            if amsgrad:
                st["max_exp_avg_sq"] = _zeros_like(p)
            return st

        s = self._group_state(g, init, ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"))
        b1, b2 = g["betas"]
        _F.adam_step(
            g["params"],
            s["exp_avg"],
            s["exp_avg_sq"],
            s["max_exp_avg_sq"] if amsgrad else [],
            s["step"],
            float(g["lr"]),
            b1,
            b2,
            g["eps"],
            g["weight_decay"],
            amsgrad,
            g["maximize"],
            self._decoupled,
        )


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


class Adagrad(Optimizer):
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
                self.state[p] = {
                    "step": _step_counter(),
                    "sum": _C.full_like(p, group["initial_accumulator_value"]).contiguous(),
                }

    def _step_group(self, g):
        s = self._group_state(g, lambda p: None, ("step", "sum"))
        _F.adagrad_step(
            g["params"],
            s["sum"],
            s["step"],
            float(g["lr"]),
            g["lr_decay"],
            g["weight_decay"],
            g["eps"],
            g["maximize"],
        )


class RMSprop(Optimizer):
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

    def _step_group(self, g):
        momentum, centered = g["momentum"], g["centered"]

        def init(p):
            st = {"step": _step_counter(), "square_avg": _zeros_like(p)}
            if momentum > 0:
                st["momentum_buffer"] = _zeros_like(p)
            if centered:
                st["grad_avg"] = _zeros_like(p)
            return st

        s = self._group_state(g, init, ("step", "square_avg", "momentum_buffer", "grad_avg"))
        _F.rmsprop_step(
            g["params"],
            s["square_avg"],
            s["momentum_buffer"] if momentum > 0 else [],
            s["grad_avg"] if centered else [],
            s["step"],
            float(g["lr"]),
            g["alpha"],
            g["eps"],
            g["weight_decay"],
            momentum,
            centered,
            g["maximize"],
        )


class Adadelta(Optimizer):
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

    def _step_group(self, g):
        s = self._group_state(
            g,
            lambda p: {
                "step": _step_counter(),
                "square_avg": _zeros_like(p),
                "acc_delta": _zeros_like(p),
            },
            ("step", "square_avg", "acc_delta"),
        )
        _F.adadelta_step(
            g["params"],
            s["square_avg"],
            s["acc_delta"],
            s["step"],
            float(g["lr"]),
            g["rho"],
            g["eps"],
            g["weight_decay"],
            g["maximize"],
        )


class Adamax(Optimizer):
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

    def _step_group(self, g):
        s = self._group_state(
            g,
            lambda p: {
                "step": _step_counter(),
                "exp_avg": _zeros_like(p),
                "exp_inf": _zeros_like(p),
            },
            ("step", "exp_avg", "exp_inf"),
        )
        b1, b2 = g["betas"]
        _F.adamax_step(
            g["params"],
            s["exp_avg"],
            s["exp_inf"],
            s["step"],
            float(g["lr"]),
            b1,
            b2,
            g["eps"],
            g["weight_decay"],
            g["maximize"],
        )


class NAdam(Optimizer):
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

    def _step_group(self, g):
        s = self._group_state(
            g,
            lambda p: {
                "step": _step_counter(),
                "mu_product": _C.ones((), dtype=_C.float32),
                "exp_avg": _zeros_like(p),
                "exp_avg_sq": _zeros_like(p),
            },
            ("step", "mu_product", "exp_avg", "exp_avg_sq"),
        )
        b1, b2 = g["betas"]
        _F.nadam_step(
            g["params"],
            s["exp_avg"],
            s["exp_avg_sq"],
            s["mu_product"],
            s["step"],
            float(g["lr"]),
            b1,
            b2,
            g["eps"],
            g["weight_decay"],
            g["momentum_decay"],
        )


class RAdam(Optimizer):
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

    def _step_group(self, g):
        s = self._group_state(
            g,
            lambda p: {
                "step": _step_counter(),
                "exp_avg": _zeros_like(p),
                "exp_avg_sq": _zeros_like(p),
            },
            ("step", "exp_avg", "exp_avg_sq"),
        )
        b1, b2 = g["betas"]
        _F.radam_step(
            g["params"],
            s["exp_avg"],
            s["exp_avg_sq"],
            s["step"],
            float(g["lr"]),
            b1,
            b2,
            g["eps"],
            g["weight_decay"],
        )
