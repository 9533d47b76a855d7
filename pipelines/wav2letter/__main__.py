"""python -m tensorcore.pipelines.wav2letter --data-root DIR --output-dir DIR [options]"""

import sys

from ..common.cli import main
from .task import Wav2LetterTask, __doc__ as DESCRIPTION

if __name__ == "__main__":
    main(Wav2LetterTask, DESCRIPTION.split("\n\n")[0], sys.argv[1:])
