"""nn.utils: gradient clipping, parameter/vector conversion, weight norm, packed sequences."""

from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401
from .spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401
from . import rnn  # noqa: F401
