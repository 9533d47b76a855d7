"""The command line every pipeline shares: common options, the output folder, the config file."""

import argparse
import os
import sys
import tempfile

from . import optim
from .errors import PipelineError


def build_parser(task_cls, description):
    parser = argparse.ArgumentParser(
        prog=f"python -m tensorcore.pipelines.{task_cls.name}",
        description=description,
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    g = parser.add_argument_group("run")
    g.add_argument("--data-root", required=True, help="folder holding the corpus")
    g.add_argument("--output-dir", required=True, help="checkpoints, logs, plots, config")
    g.add_argument("--epochs", type=int, default=10)
    g.add_argument(
        "--batch-size",
        type=int,
        default=8,
        help="items per step of each process (the reference scripts' meaning): a run of N "
        "processes steps on N x this many",
    )
    g.add_argument("--eval-batch-size", type=int, default=0, help="0: same as --batch-size")
    g.add_argument("--max-steps", type=int, default=0, help="stop after this many steps (0: off)")
    g.add_argument(
        "--max-minutes", type=float, default=0, help="stop after this wall time (0: off)"
    )
    g.add_argument("--max-train-items", type=int, default=0, help="0: the whole training set")
    g.add_argument("--max-eval-items", type=int, default=0, help="0: the whole held-out set")
    g.add_argument("--no-final-eval", action="store_true", help="skip the evaluation at the end")
    g.add_argument("--eval-every", type=int, default=1, help="evaluate every N epochs")
    g.add_argument("--early-stop-patience", type=int, default=0, help="epochs (0: off)")
    g.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--device", default="auto", help="auto (CUDA when present), cpu, cuda, cuda:N")
    g.add_argument("--threads", type=int, default=0, help="intra-op threads (0: library default)")
    g.add_argument("--amp", action="store_true", help="mixed precision (fp16 CUDA, bf16 CPU)")
    g.add_argument("--resume", action="store_true", help="continue from OUTPUT_DIR's checkpoint")
    g.add_argument("--init-weights", default=None, help="start from these model weights")
    g.add_argument("--test-only", action="store_true", help="evaluate the checkpoint and exit")
    g.add_argument("--checkpoint-every-steps", type=int, default=0, help="0: at epoch ends only")
    g.add_argument("--checkpoint-every-minutes", type=float, default=10.0)
    g.add_argument("--log-every", type=int, default=10, help="TensorBoard scalars every N steps")
    g.add_argument(
        "--on-bad-file",
        choices=("error", "skip"),
        default="error",
        help="an unreadable corpus file stops the run (naming it) or is skipped",
    )
    g.add_argument("--no-tensorboard", action="store_true")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g = parser.add_argument_group(
        "distributed",
        "multi-process data parallel training: start the pipeline with python -m "
        "tensorcore.distributed.run --nproc_per_node N -m tensorcore.pipelines.NAME ... "
        "(WORLD_SIZE > 1 in the environment turns it on); only rank 0 writes files",
    )
    g.add_argument(
        "--dist-backend",
        choices=("auto", "gloo", "nccl"),
        default="auto",
        help="auto: nccl for CUDA devices (cuda:LOCAL_RANK), gloo for the CPU",
    )
    g.add_argument(
        "--dist-timeout",
        type=float,
        default=30.0,
        help="minutes a rank waits in a collective before it fails (names the missing ranks)",
    )
    g.add_argument("--sync-bn", action="store_true", help="BatchNorm layers become SyncBatchNorm")
    optim.add_arguments(parser)
    task_cls.add_arguments(parser)
    return parser


def prepare_output_dir(path):
    """Creates the folder and proves it writable now, not after an hour of training."""
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-test"):
            pass
    except OSError as e:
        raise PipelineError(
            f"--output-dir {path}: cannot write there ({e.strerror or e}); choose a writable folder"
        ) from None
    return os.path.abspath(path)


def main(task_cls, description, argv=None):
    """Parses, runs, and turns a PipelineError into one line on stderr and exit status 2."""
    from .engine import Trainer

    args = build_parser(task_cls, description).parse_args(argv)
    try:
        result = Trainer(task_cls(args), args).run()
    except PipelineError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    if result.get("interrupted"):
        sys.exit(130)
    return result
