"""nn.parallel.DistributedDataParallel (torch 1.8): each process holds a replica of the module;
the C++ reducer (tensorcore/distributed/reducer.h) all-reduces gradient buckets during backward
so every replica ends each step with the gradients averaged over all processes."""

import contextlib

from ... import _C
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ..modules.module import Module

_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024


def _find_tensors(obj):
    if isinstance(obj, _C.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _find_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _find_tensors(o)]
    return []


class DistributedDataParallel(Module):
    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        process_group=None,
        bucket_cap_mb=25,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
    ):
        super().__init__()
        from ... import distributed as dist

        if not isinstance(module, Module):
            raise TypeError(
                f"DistributedDataParallel: module must be an nn.Module, got {type(module).__name__}"
            )
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter "
                "that requires a gradient."
            )
        if bucket_cap_mb is None or bucket_cap_mb <= 0:
            raise ValueError(f"bucket_cap_mb must be positive, got {bucket_cap_mb}")
        self.module = module
        self.device_ids = list(device_ids) if device_ids else None
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.process_group = (
            process_group if process_group is not None else dist._get_default_group()
        )
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self._join_enabled = False
        self._comm_hook_set = False
        pg = self.process_group
        params = [p for _, p in named]
        self._buffers_to_sync = [b for _, b in module.named_buffers()] if broadcast_buffers else []
        self._verify_same_model(params)
        # Every replica starts from rank 0's parameters and buffers.
        with no_grad():
            pg.broadcast_coalesced([p.detach() for p in params] + list(self._buffers_to_sync), 0)
        self.reducer = _C._distributed.Reducer(
            params,
            [n for n, _ in named],
            pg,
            float(bucket_cap_mb),
            _DEFAULT_FIRST_BUCKET_BYTES,
            bool(find_unused_parameters),
            bool(gradient_as_bucket_view),
            bool(static_graph),
        )

    def _verify_same_model(self, params):
        from ... import int64, tensor, zeros

        pg = self.process_group
        mine = tensor([len(params), sum(p.numel() for p in params)], dtype=int64)
        outs = [zeros(2, dtype=int64) for _ in range(pg.size())]
        pg.allgather(outs, mine).wait()
        for r, o in enumerate(outs):
            if o.tolist() != mine.tolist():
                raise RuntimeError(
                    f"DistributedDataParallel: rank {pg.rank()} has {mine.tolist()[0]} parameters "
                    f"({mine.tolist()[1]} elements) but rank {r} has {o.tolist()[0]} "
                    f"({o.tolist()[1]} elements); every process must wrap the same model"
                )

    def _sync_buffers(self):
        if self._buffers_to_sync and self.require_forward_param_sync:
            with no_grad():
                self.process_group.broadcast_coalesced(list(self._buffers_to_sync), 0)

    def forward(self, *inputs, **kwargs):
        if self._join_enabled:
            from ... import ones

            # One per forward: ranks that have joined answer with 0 (see join()).
            self.process_group.allreduce([ones(1)], _C._distributed.ReduceOp.SUM).wait()
        self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self.reducer.prepare_for_backward(_find_tensors(output))
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside the context; the first backward after it
        all-reduces the accumulated sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    @contextlib.contextmanager
    def join(
        self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False
    ):
        """Training with uneven inputs: a rank that runs out of batches leaves the `with` block and
        then shadows the other ranks' collectives with zero gradients until every rank is done."""
        if not divide_by_initial_world_size:
            raise NotImplementedError(
                "DistributedDataParallel.join: divide_by_initial_world_size=False is not supported"
            )
        self._join_enabled = enable
        try:
            yield
        finally:
            if enable:
                self._join_shadow(throw_on_early_termination)
            self._join_enabled = False

    def _join_shadow(self, throw):
        from ... import zeros

        pg = self.process_group
        while True:
            flag = zeros(1)
            pg.allreduce([flag], _C._distributed.ReduceOp.SUM).wait()
            if flag.item() == 0:
                break
            if throw:
                raise RuntimeError(
                    f"Rank {pg.rank()} exhausted all inputs while other ranks still train "
                    "(throw_on_early_termination=True)"
                )
            if self._buffers_to_sync:
                with no_grad():
                    pg.broadcast_coalesced(list(self._buffers_to_sync), 0)
            self.reducer.run_join_shadow()

    def register_comm_hook(self, state, hook):
        """hook(state, bucket) -> Future whose value is the reduced bucket buffer."""
        from ...distributed.algorithms.ddp_comm_hooks import default_hooks

        if self._comm_hook_set:
            raise RuntimeError("register_comm_hook can only be called once")
        if not callable(hook):
            raise TypeError("register_comm_hook: hook must be callable")
        self._comm_hook_set = True
        pg_matches = state is None or state is self.process_group
        if hook is default_hooks.allreduce_hook and pg_matches:
            self.reducer.register_builtin_comm_hook("allreduce")
        elif hook is default_hooks.fp16_compress_hook and pg_matches:
            self.reducer.register_builtin_comm_hook("fp16_compress")
        else:
            self.reducer.register_comm_hook(state, hook)

    def _register_builtin_comm_hook(self, comm_hook_type):
        self._comm_hook_set = True
        self.reducer.register_builtin_comm_hook(str(comm_hook_type))

    def _set_static_graph(self):
        raise RuntimeError("pass static_graph=True to the DistributedDataParallel constructor")

    def _get_unused_parameters(self):
        return list(self.reducer.last_unused_parameters())
