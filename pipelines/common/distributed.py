"""Multi-process data parallelism for the pipelines (what torchvision's and torchaudio's reference
scripts do): started by `python -m tensorcore.distributed.run`, each process trains a DDP replica
on its share of every epoch, and only rank 0 writes anything.

Every decision that ends or reshapes the loop (a stop condition, a checkpoint due by the clock, a
non-finite loss, a batch with nothing left to train on) is taken by all ranks together through a
small all-reduce, so no rank leaves a collective that the others are still waiting in.
"""

import math
import os
from datetime import timedelta

import tensorcore as tc

from .errors import PipelineError


class Context:
    """The process's place in the job; world_size 1 (no launcher) makes every method a local
    no-op, so the engine has one code path."""

    def __init__(self, rank=0, world_size=1, local_rank=0, backend=None, group=None):
        self.rank, self.world_size, self.local_rank = rank, world_size, local_rank
        self.backend = backend
        self.group = group  # the CPU (Gloo) group for control messages

    @property
    def enabled(self):
        return self.world_size > 1

    @property
    def is_main(self):
        return self.rank == 0

    def sum(self, values):
        """The element-wise sum over ranks of a few numbers (flags, counts, losses)."""
        if not self.enabled:
            return [float(v) for v in values]
        import tensorcore.distributed as dist

        t = tc.tensor([float(v) for v in values], dtype=tc.float64)
        dist.all_reduce(t, group=self.group)
        return t.tolist()

    def any(self, flags):
        return [v > 0 for v in self.sum([1.0 if f else 0.0 for f in flags])]

    def broadcast(self, obj):
        """rank 0's obj on every rank."""
        if not self.enabled:
            return obj
        import tensorcore.distributed as dist

        box = [obj]
        dist.broadcast_object_list(box, 0, group=self.group)
        return box[0]

    def all_gather(self, obj):
        if not self.enabled:
            return [obj]
        import tensorcore.distributed as dist

        out = [None] * self.world_size
        dist.all_gather_object(out, obj, group=self.group)
        return out

    def run_on_main(self, work):
        """work(heartbeat) on rank 0 while the other ranks wait; its result on every rank.

        work calls heartbeat() now and then (per evaluation batch): the waiting ranks answer
        each one, so a long evaluation never runs into the collective timeout and a rank 0
        that dies is noticed at once."""
        if not self.enabled:
            return work(lambda: None)
        if self.is_main:
            try:
                result = work(lambda: self.sum([1]))
            except BaseException as e:
                self.sum([0])  # the others stop waiting and raise too
                self.broadcast(("error", f"{type(e).__name__}: {e}"))
                raise
            self.sum([0])
            return self.broadcast(("ok", result))[1]
        while self.sum([0])[0] > 0:
            pass
        status, value = self.broadcast(None)
        if status == "error":
            raise PipelineError(f"rank 0 failed while the other ranks waited for it: {value}")
        return value

    def close(self):
        if self.enabled:
            import tensorcore.distributed as dist

            dist.destroy_process_group()


def _env_int(name, default):
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    try:
        return int(value)
    except ValueError:
        raise PipelineError(f"environment variable {name}={value!r} is not an integer") from None


def setup(args, device):
    """(Context, device): joins the process group when the launcher started several processes
    (WORLD_SIZE > 1); the device becomes cuda:LOCAL_RANK for a CUDA run without an index."""
    world_size = _env_int("WORLD_SIZE", 1)
    if world_size <= 1:
        return Context(), device
    rank, local_rank = _env_int("RANK", 0), _env_int("LOCAL_RANK", 0)
    import tensorcore.distributed as dist

    if device.type == "cuda" and device.index is None:
        device = tc.device("cuda", local_rank)
    if device.type == "cuda":
        tc.cuda.set_device(device)
    backend = args.dist_backend
    if backend == "auto":
        backend = "nccl" if device.type == "cuda" else "gloo"
    if backend == "gloo" and device.type == "cuda":
        raise PipelineError(
            "--dist-backend gloo takes CPU tensors only; use nccl for --device cuda, or --device cpu"
        )
    if backend == "nccl" and device.type != "cuda":
        raise PipelineError("--dist-backend nccl needs CUDA devices; use gloo for --device cpu")
    available = dist.is_nccl_available() if backend == "nccl" else dist.is_gloo_available()
    if not available:
        raise PipelineError(f"--dist-backend {backend}: this build of tensorcore has no {backend}")
    if not args.dist_timeout > 0:
        raise PipelineError(f"--dist-timeout must be positive minutes, got {args.dist_timeout}")
    timeout = timedelta(minutes=args.dist_timeout)
    if not dist.is_initialized():
        try:
            dist.init_process_group(backend, timeout=timeout)
        except (RuntimeError, ValueError) as e:
            raise PipelineError(
                f"WORLD_SIZE={world_size}: cannot join the process group ({e}). Start the "
                "pipeline with python -m tensorcore.distributed.run --nproc_per_node N -m "
                "tensorcore.pipelines.NAME ..., which sets RANK, WORLD_SIZE, MASTER_ADDR and "
                "MASTER_PORT"
            ) from None
    # Control messages (flags, metrics, RNG states) are small CPU objects: a Gloo group carries
    # them when the gradients go through NCCL.
    group = dist.new_group(backend="gloo", timeout=timeout) if backend == "nccl" else None
    return Context(rank, world_size, local_rank, backend, group), device


def wrap_distributed(model, ctx, device, sync_bn=False):
    """(module, training model): the module itself is what checkpoints and evaluation use (its
    state-dict keys are the single-process ones); training runs through its DDP wrapper."""
    if not ctx.enabled:
        return model, model
    from tensorcore.nn.parallel import DistributedDataParallel

    if sync_bn:
        model = tc.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    ids = [device.index] if device.type == "cuda" else None
    return model, DistributedDataParallel(model, device_ids=ids)


def shard(order, rank, world_size):
    """torch DistributedSampler's share of an epoch's order: padded by repetition to a multiple
    of world_size, then every world_size-th item from rank."""
    if world_size == 1:
        return order
    import numpy as np

    total = math.ceil(len(order) / world_size) * world_size
    if total > len(order):
        order = np.concatenate([order, np.resize(order, total - len(order))])
    return order[rank:total:world_size]
