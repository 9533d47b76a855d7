"""Runs one worker of `python -m tensorcore.distributed.run`: the training script (or module) as
__main__, writing an uncaught exception's traceback to TORCHELASTIC_ERROR_FILE so the launcher
can report why the rank failed."""

import json
import os
import runpy
import sys
import time
import traceback


def _write_error(exc):
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not path:
        return
    data = {
        "message": {
            "message": f"{type(exc).__name__}: {exc}",
            "extraInfo": {
                "py_callstack": "".join(
                    traceback.format_exception(type(exc), exc, exc.__traceback__)
                ),
                "timestamp": str(int(time.time())),
            },
        }
    }
    with open(path, "w") as f:
        json.dump(data, f)


def main():
    is_module = sys.argv[1] == "-m"
    target = sys.argv[2] if is_module else sys.argv[1]
    sys.argv = sys.argv[2:] if is_module else sys.argv[1:]
    try:
        if is_module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
            runpy.run_path(target, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as exc:
        _write_error(exc)
        raise


if __name__ == "__main__":
    main()
