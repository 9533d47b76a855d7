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
