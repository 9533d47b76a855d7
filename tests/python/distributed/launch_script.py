"""Entry script for the launcher tests: python -m tensorcore.distributed.run ... launch_script.py
OUT_DIR MODE."""

import sys

import dist_workers

if __name__ == "__main__":
    out_dir, mode = sys.argv[1], sys.argv[2]
    if mode == "train":
        dist_workers.launched_train(out_dir)
    elif mode == "fail":
        import os

        if os.environ["RANK"] == "1":
            raise ValueError("rank 1 always fails")
        import time

        time.sleep(30)  # the launcher must stop this one when rank 1 fails
    elif mode == "wait":  # runs until a signal; SIGTERM leaves a mark
        import os
        import signal
        import time

        def on_term(signum, frame):
            open(os.path.join(out_dir, f"term_rank{os.environ['RANK']}"), "w").close()
            raise SystemExit(0)

        signal.signal(signal.SIGTERM, on_term)
        open(os.path.join(out_dir, f"up_rank{os.environ['RANK']}"), "w").close()
        time.sleep(60)
