"""Runs a pipeline as the launcher's worker script while recording, through a Python audit hook,
every file this process creates, writes, renames or deletes under the output folder; the list
goes to AUDIT_DIR/rank<RANK>.json at exit (with the pid, written at start, so a test can signal
one rank). Usage: audited_pipeline.py PIPELINE ARGS... (the pipeline's own arguments)."""

import atexit
import json
import os
import runpy
import sys

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def main():
    pipeline, argv = sys.argv[1], sys.argv[2:]
    out_dir = os.path.abspath(argv[argv.index("--output-dir") + 1])
    audit_dir, rank = os.environ["AUDIT_DIR"], os.environ.get("RANK", "0")
    with open(os.path.join(audit_dir, f"pid{rank}"), "w") as f:
        f.write(str(os.getpid()))
    writes = []

    def inside(path):
        try:
            return os.path.abspath(os.fsdecode(path)).startswith(out_dir)
        except (TypeError, ValueError):
            return False  # a file descriptor, not a path

    def hook(event, args):
        if event == "open":
            path, mode, flags = args
            writing = (mode is not None and any(c in mode for c in "wax+")) or (flags & WRITE_FLAGS)
            if writing and inside(path):
                writes.append(f"open {os.fsdecode(path)}")
        elif event in ("os.rename", "os.replace", "os.remove", "os.mkdir", "os.rmdir"):
            if inside(args[0]) or (event in ("os.rename", "os.replace") and inside(args[1])):
                writes.append(f"{event} {os.fsdecode(args[0])}")

    def report():
        with open(os.path.join(audit_dir, f"rank{rank}.json"), "w") as f:
            json.dump(writes, f)

    atexit.register(report)
    sys.addaudithook(hook)
    sys.argv = [f"tensorcore.pipelines.{pipeline}", *argv]
    runpy.run_module(f"tensorcore.pipelines.{pipeline}", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
