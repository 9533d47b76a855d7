"""PowerSGD gradient compression (Vogels et al., 2019; torch 1.8's powerSGD_hook): each gradient
matrix M (n x m) is sent as two thin factors P (n x r) and Q (m x r) with one power iteration
per step, warm-started from the last step's Q; the compression error is fed back into the next
step's gradient. 1-d tensors (biases) are all-reduced uncompressed."""

from ... import distributed_c10d as c10d
from ..._future import Future


class PowerSGDState:
    def __init__(
        self,
        process_group,
        matrix_approximation_rank=1,
        start_powerSGD_iter=10,
        use_error_feedback=True,
        warm_start=True,
        random_seed=0,
    ):
        if matrix_approximation_rank < 1:
            raise ValueError("matrix_approximation_rank must be at least 1")
        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.random_seed = random_seed
        self.error_dict = {}
        self.q_memory_dict = {}
        self.iter = 0

    def maybe_increase_iter(self, bucket):
        if bucket.is_last():
            self.iter += 1


def _orthogonalize(m, eps=1e-8):
    """Gram-Schmidt on the columns of m, in place."""
    for i in range(m.shape[1]):
        col = m[:, i : i + 1]
        col.div_(col.norm() + eps)
        if i + 1 < m.shape[1]:
            rest = m[:, i + 1 :]
            rest.sub_(col * (col * rest).sum(0, keepdim=True))


def powerSGD_hook(state, bucket):
    from .... import Generator, cat, randn, zeros_like
    from . import default_hooks

    pg = state.process_group if state.process_group is not None else c10d._get_default_group()
    world = pg.size()
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        return default_hooks.allreduce_hook(pg, bucket)
    buf = bucket.buffer()
    index = bucket.index()
    if state.use_error_feedback:
        if index in state.error_dict:
            buf.add_(state.error_dict[index])
        else:
            state.error_dict[index] = zeros_like(buf)
        before = buf.clone()
    grads = bucket.gradients()
    flat_1d = [g for g in grads if g.dim() <= 1]
    mats = [g.reshape(g.shape[0], -1) for g in grads if g.dim() > 1]
    work_1d = None
    if flat_1d:
        vec = cat([g.reshape(-1) for g in flat_1d])
        work_1d = pg.allreduce([vec], c10d.ReduceOp.SUM)
    if mats:
        ranks = [min(m.shape[0], m.shape[1], state.matrix_approximation_rank) for m in mats]
        qs = state.q_memory_dict.get(index)
        if qs is None or not state.warm_start:
            gen = Generator()
            gen.manual_seed(state.random_seed + index)  # the same Q on every rank
            qs = [randn(m.shape[1], r, generator=gen, dtype=m.dtype) for m, r in zip(mats, ranks)]
            for q in qs:
                _orthogonalize(q)
            state.q_memory_dict[index] = qs
        ps = [m.matmul(q) for m, q in zip(mats, qs)]
        p_flat = cat([p.reshape(-1) for p in ps])
        pg.allreduce([p_flat], c10d.ReduceOp.SUM).wait()
        offset = 0
        for i, p in enumerate(ps):
            ps[i] = p_flat[offset : offset + p.numel()].reshape(p.shape).clone()
            offset += p.numel()
            _orthogonalize(ps[i])
        new_qs = [m.t().matmul(p) for m, p in zip(mats, ps)]
        q_flat = cat([q.reshape(-1) for q in new_qs])
        pg.allreduce([q_flat], c10d.ReduceOp.SUM).wait()
        offset = 0
        for i, q in enumerate(new_qs):
            new_qs[i] = q_flat[offset : offset + q.numel()].reshape(q.shape).div_(world)
            offset += q.numel()
        for m, p, q in zip(mats, ps, new_qs):
            m.copy_(p.matmul(q.t()))
        state.q_memory_dict[index] = [q.clone() for q in new_qs]
    if work_1d is not None:
        work_1d.wait()
        vec = work_1d.result()[0].div_(world)
        offset = 0
        for g in flat_1d:
            g.copy_(vec[offset : offset + g.numel()].reshape(g.shape))
            offset += g.numel()
    if state.use_error_feedback:
        state.error_dict[index] = before - buf
    state.maybe_increase_iter(bucket)
    fut = Future()
    fut.set_result(buf)
    return fut
