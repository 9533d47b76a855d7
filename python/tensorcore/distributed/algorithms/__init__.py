"""tensorcore.distributed.algorithms: DDP communication hooks."""
