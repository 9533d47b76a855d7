"""python -m tensorcore.pipelines.wavernn --data-root DIR --output-dir DIR [options]"""

import sys

from ..common.cli import main
from .task import WaveRNNTask, __doc__ as DESCRIPTION

if __name__ == "__main__":
    main(WaveRNNTask, DESCRIPTION.split("\n\n")[0], sys.argv[1:])
