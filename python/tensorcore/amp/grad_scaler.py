"""GradScaler: dynamic loss scaling for mixed-precision training (torch.cuda.amp.GradScaler).

Unlike torch 1.13, whose GradScaler disables itself without CUDA, this one works with tensors on
any device: the scale lives on the device of the first output passed to scale(), and the
inf/nan checks and the scale update run there through native kernels (no host sync until step()
reads found_inf).
"""

from collections import defaultdict
from enum import Enum

from .. import _C
from ..autograd.grad_mode import no_grad

_amp = _C._amp


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class _MultiDeviceReplicator:
    """Lazily copies a master tensor to each device that asks for it (one copy per device)."""

    def __init__(self, master):
        self.master = master
        self._per_device = {}

    def get(self, device):
        key = str(device)
        t = self._per_device.get(key)
        if t is None:
            t = self.master.to(device=device)
            self._per_device[key] = t
        return t


class GradScaler:
    """Scales the loss so small float16 gradients do not flush to zero, unscales the gradients
    before the optimizer step, skips steps whose gradients hold inf/nan and adapts the scale:
    multiplied by backoff_factor after a skipped step, by growth_factor after growth_interval
    consecutive good steps::

        scaler = tc.amp.GradScaler()
        with tc.autocast("cuda"):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    """

    def __init__(
        self,
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        self._enabled = bool(enabled)
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if not 0.0 < backoff_factor < 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
            if int(growth_interval) <= 0:
                raise ValueError(f"growth_interval must be a positive int, got {growth_interval}")
            self._init_scale = float(init_scale)
            self._scale = None
            self._growth_factor = float(growth_factor)
            self._backoff_factor = float(backoff_factor)
            self._growth_interval = int(growth_interval)
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise RuntimeError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise RuntimeError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        self._scale = _C.full((1,), self._init_scale, dtype=_C.float32, device=dev)
        self._growth_tracker = _C.full((1,), self._init_growth_tracker, dtype=_C.int32, device=dev)

    def scale(self, outputs):
        """Multiplies a tensor, or the tensors in a (nested) list/tuple, by the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, _C.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        stash = []

        def apply_scale(val):
            if isinstance(val, _C.Tensor):
                if len(stash) == 0:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(val.device)
                    stash.append(_MultiDeviceReplicator(self._scale))
                return val * stash[0].get(val.device)
            if isinstance(val, (list, tuple)):
                scaled = [apply_scale(v) for v in val]
                return (
                    type(val)(scaled)
                    if isinstance(val, list) or type(val) is tuple
                    else type(val)(*scaled)
                )
            if hasattr(val, "__iter__") and not isinstance(val, (str, bytes, dict)):
                return map(apply_scale, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        per_device_inv_scale = _MultiDeviceReplicator(inv_scale)
        per_device_found_inf = _MultiDeviceReplicator(found_inf)
        # Grads grouped by (device, dtype): one native call per group.
        groups = defaultdict(list)
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if not allow_fp16 and grad.dtype == _C.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    groups[(str(grad.device), grad.dtype)].append(grad)
            for (dev, _), grads in groups.items():
                _amp._amp_foreach_non_finite_check_and_unscale_(
                    grads, per_device_found_inf.get(dev), per_device_inv_scale.get(dev)
                )
        return per_device_found_inf._per_device

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale in place (e.g. before clipping them);
        once per optimizer per iteration."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # Reciprocal in double, as torch does, so inv_scale is exact for powers of two.
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _C.full((1,), 0.0, dtype=_C.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, state, *args, **kwargs):
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer, *args, **kwargs):
        """Unscales (unless unscale_ was called) and runs optimizer.step() unless the gradients
        hold inf/nan. Returns optimizer.step()'s result, or None for a skipped step."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise RuntimeError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, state, *args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Updates the scale for the next iteration: `new_scale` (a float or a 1-element float32
        tensor) when given, else backoff/growth from the inf checks of this iteration."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, (float, int)) and not isinstance(new_scale, bool):
                self._scale.fill_(float(new_scale))
            else:
                reason = "new_scale should be a float or a 1-element float32 tensor with requires_grad=False."
                if not (isinstance(new_scale, _C.Tensor) and new_scale.dtype == _C.float32):
                    raise TypeError(reason)
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise ValueError(reason)
                self._scale.copy_(new_scale)
        else:
            found_infs = [
                found_inf.to(device=_scale.device)
                for state in self._per_optimizer_states.values()
                for found_inf in state["found_inf_per_device"].values()
            ]
            if len(found_infs) == 0:
                raise RuntimeError("No inf checks were recorded prior to update.")
            found_inf_combined = found_infs[0]
            for other in found_infs[1:]:
                found_inf_combined = found_inf_combined + other
            _amp._amp_update_scale_(
                _scale,
                _growth_tracker,
                found_inf_combined,
                self._growth_factor,
                self._backoff_factor,
                self._growth_interval,
            )
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = int(new_interval)

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return (
            self._init_growth_tracker
            if self._growth_tracker is None
            else int(self._growth_tracker.item())
        )

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker ({} when
        disabled), as torch's."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise RuntimeError(
                    "A GradScaler instance may only be pickled at the beginning "
                    "of an iteration, or at the end after scaler.update()."
                )
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.__dict__.get("_enabled"):
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_inf_per_device(self, optimizer):
        _scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")
        dummy_inv_scale = _C.full((1,), 1.0, dtype=_C.float32, device=_scale.device)
        found_inf = _C.full((1,), 0.0, dtype=_C.float32, device=_scale.device)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = self._unscale_grads_(
            optimizer, dummy_inv_scale, found_inf, True
        )
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
