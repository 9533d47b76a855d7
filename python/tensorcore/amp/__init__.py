"""Automatic mixed precision: tc.autocast (also tc.amp.autocast), GradScaler, and the
torch.cuda.amp / torch.cpu.amp spellings (tc.cuda.amp, tc.cpu.amp). See docs/amp.md."""

import sys as _sys

from .. import _C
from .autocast_mode import autocast, custom_fwd, custom_bwd  # noqa: F401
from .grad_scaler import GradScaler, OptState  # noqa: F401

_amp_foreach_non_finite_check_and_unscale_ = _C._amp._amp_foreach_non_finite_check_and_unscale_
_amp_update_scale_ = _C._amp._amp_update_scale_

# torch.autocast and the torch._amp_* primitives are top-level names in torch.
_tc = _sys.modules[__name__.rpartition(".")[0]]
_tc.autocast = autocast
_tc._amp_foreach_non_finite_check_and_unscale_ = _amp_foreach_non_finite_check_and_unscale_
_tc._amp_update_scale_ = _amp_update_scale_

# tc.cuda.amp and tc.cpu.amp (submodules of packages owned elsewhere; importing them attaches them).
from ..cuda import amp as _cuda_amp  # noqa: E402,F401
from .. import cpu as _cpu  # noqa: E402,F401
from ..cpu import amp as _cpu_amp  # noqa: E402,F401
