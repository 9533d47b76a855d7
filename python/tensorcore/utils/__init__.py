"""tensorcore.utils: benchmark helpers, data loading (tensorcore.utils.data) and a progress bar."""

import os as _os

from . import benchmark  # noqa: F401
from . import data  # noqa: F401
from . import progress  # noqa: F401

# For C++ projects built against the installed package (as torch.utils.cmake_prefix_path):
#   cmake -DCMAKE_PREFIX_PATH=$(python -c 'import tensorcore; print(tensorcore.utils.cmake_prefix_path)')
# then find_package(tensorcore) gives tensorcore::core, ::io, ::vision, ::audio.
cmake_prefix_path = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
