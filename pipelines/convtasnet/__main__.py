"""python -m tensorcore.pipelines.convtasnet --data-root DIR --output-dir DIR [options]"""

import sys

from ..common.cli import main
from .task import ConvTasNetTask, __doc__ as DESCRIPTION

if __name__ == "__main__":
    main(ConvTasNetTask, DESCRIPTION.split("\n\n")[0], sys.argv[1:])
