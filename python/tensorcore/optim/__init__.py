"""tensorcore.optim: torch.optim's optimizers (fused C++ steps) and learning-rate schedulers."""

from .optimizer import Optimizer  # noqa: F401
from .algorithms import SGD, Adam, AdamW, Adagrad, RMSprop, Adadelta, Adamax, NAdam, RAdam  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from . import lr_scheduler  # noqa: F401
