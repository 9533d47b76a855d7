"""The standard DDP hooks. DistributedDataParallel.register_comm_hook recognises these two and
runs their C++ versions (no Python call per bucket); called directly they run here."""

from ... import distributed_c10d as c10d


def _pg(process_group):
    return process_group if process_group is not None else c10d._get_default_group()


def allreduce_hook(process_group, bucket):
    """Averages the bucket: divide by the world size, then all-reduce SUM."""
    pg = _pg(process_group)
    buf = bucket.buffer()
    buf.div_(pg.size())
    return pg.allreduce([buf], c10d.ReduceOp.SUM).get_future().then(lambda f: f.value()[0])


def fp16_compress_hook(process_group, bucket):
    """Sends the bucket as float16 (half the bytes), then casts the average back."""
    from .... import float16

    pg = _pg(process_group)
    buf = bucket.buffer()
    half = buf.to(float16).div_(pg.size())

    def decompress(fut):
        buf.copy_(fut.value()[0])
        return buf

    return pg.allreduce([half], c10d.ReduceOp.SUM).get_future().then(decompress)
