"""python -m tensorcore.pipelines.retinanet --data-root DIR --output-dir DIR [options]"""

import sys

from ..common.cli import main
from .task import RetinaNetTask, __doc__ as DESCRIPTION

if __name__ == "__main__":
    main(RetinaNetTask, DESCRIPTION.split("\n\n")[0], sys.argv[1:])
