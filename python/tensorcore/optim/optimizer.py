"""Optimizer base class: param groups, per-parameter state, state_dict, zero_grad.

Subclasses implement _step_group(group) with ONE call into tensorcore._C._optim that updates
every parameter of the group in place; the lists of state tensors handed to C++ are cached per
group, so a steady-state step does no per-parameter Python work.
"""

from collections import defaultdict
from copy import deepcopy
from itertools import chain

from .. import _C
from .._profiler_spans import profiled_method
from .._C import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.utils.clip_grad import _zero_grads


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    def __init_subclass__(cls, **kwargs):
        # Subclasses' own step/zero_grad are profiler spans too (Optimizer.step#SGD.step).
        super().__init_subclass__(**kwargs)
        for name in ("step", "zero_grad"):
            if name in cls.__dict__:
                setattr(cls, name, _profiled(cls.__dict__[name], name))

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = {}
        self._optimizer_step_post_hooks = {}
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {type(params).__name__}"
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        self._caches = {}
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._caches = {}

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param group must be a dict, got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering "
                "of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}"
                )
        # torch's order: the parameters' own rules before the group's options
        _C._optim_rules.check_param_group([p.is_leaf for p in param_group["params"]], False)
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        existing = set()
        for group in self.param_groups:
            existing.update(id(p) for p in group["params"])
        _C._optim_rules.check_param_group([], any(id(p) in existing for p in param_group["params"]))
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            _zero_grads(group["params"], set_to_none)

    # ---- state ----
    def state_dict(self):
        index_of = {}
        start = 0
        packed_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            ids = list(range(start, start + len(group["params"])))
            index_of.update({id(p): i for p, i in zip(group["params"], ids)})
            packed["params"] = ids
            start += len(ids)
            packed_groups.append(packed)
        packed_state = {index_of[id(p)]: v for p, v in self.state.items() if id(p) in index_of}
        return {"state": packed_state, "param_groups": packed_groups}

    def load_state_dict(self, state_dict):
        state_dict = deepcopy_state(state_dict)
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError(
                f"loaded state dict has {len(saved_groups)} parameter groups but the optimizer has "
                f"{len(groups)}"
            )
        for i, (g, sg) in enumerate(zip(groups, saved_groups)):
            if len(g["params"]) != len(sg["params"]):
                raise ValueError(
                    f"loaded state dict contains a parameter group ({i}) that doesn't match the size of "
                    f"optimizer's group: {len(sg['params'])} saved vs {len(g['params'])} parameters"
                )
        id_map = {
            old: p
            for old, p in zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        }
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k not in id_map:
                continue
            param = id_map[k]
            converted = {}
            for key, value in v.items():
                if isinstance(value, Tensor) and key not in ("step", "mu_product"):
                    value = value.to(dtype=param.dtype, device=param.device).contiguous()
                elif isinstance(value, Tensor):
                    # Counters live on the host whatever the parameter's device (the steps read them there).
                    value = value.to(dtype=_C.float32, device="cpu").contiguous()
                elif key in ("step", "mu_product") and isinstance(value, (int, float)):
                    value = _C.full((), float(value), dtype=_C.float32)
                converted[key] = value
            state[param] = converted
        new_groups = []
        for g, sg in zip(groups, saved_groups):
            sg = dict(sg)
            sg["params"] = g["params"]
            new_groups.append(sg)
        self.state = state
        self.param_groups = new_groups
        self._caches = {}

    def _group_state(self, group, init_fn, keys):
        """The per-key lists of state tensors for a group, creating state for params that got a
        gradient for the first time. Cached while every parameter has its state."""
        cache = self._caches.get(id(group))
        params = group["params"]
        if cache is not None and cache[0] is params and cache[1] == len(params):
            return cache[2]
        lists = {k: [] for k in keys}
        complete = True
        with no_grad():
            for p in params:
                st = self.state.get(p)
                if not st:
                    if p.grad is None:
                        complete = False
                        for k in keys:
                            lists[k].append(None)
                        continue
                    st = init_fn(p)
                    self.state[p] = st
                for k in keys:
                    lists[k].append(st.get(k))
        if complete:
            self._caches[id(group)] = (params, len(params), lists)
        return lists

    @no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            from ..autograd.grad_mode import enable_grad

            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._step_group(group)
        return loss

    def _step_group(self, group):
        raise NotImplementedError


def deepcopy_state(state_dict):
    out = {"param_groups": [dict(g) for g in state_dict["param_groups"]], "state": {}}
    for k, v in state_dict["state"].items():
        out["state"][k] = {
            key: (val.clone() if isinstance(val, Tensor) else deepcopy(val))
            for key, val in v.items()
        }
    return out


def _step_counter():
    return _C.zeros((), dtype=_C.float32)


def _zeros_like(p):
    return _C.zeros_like(p).contiguous()


def _profiled(fn, what):
    return profiled_method(fn, lambda self: f"Optimizer.{what}#{type(self).__name__}.{what}")


Optimizer.step = _profiled(Optimizer.step, "step")
Optimizer.zero_grad = _profiled(Optimizer.zero_grad, "zero_grad")
