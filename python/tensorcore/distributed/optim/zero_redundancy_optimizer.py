"""ZeroRedundancyOptimizer (ZeRO stage 1, torch 1.8): the optimizer state is sharded over the
processes. Each rank owns a partition of the parameters (greedy by size, so shards are about
equal), runs the wrapped optimizer on that partition only, then broadcasts its updated
parameters to the others. Gradients must already be averaged (as DistributedDataParallel does)."""

from ...optim.optimizer import Optimizer
from .. import distributed_c10d as c10d


class ZeroRedundancyOptimizer(Optimizer):
    def __init__(
        self,
        params,
        optimizer_class,
        process_group=None,
        parameters_as_bucket_view=False,
        overlap_with_ddp=False,
        **defaults,
    ):
        params = list(params)
        if not params:
            raise ValueError("ZeroRedundancyOptimizer: got an empty parameter list")
        if isinstance(params[0], dict):
            raise TypeError("ZeroRedundancyOptimizer: pass a list of tensors (param groups are "
                            "not supported)")  # fmt: skip
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer: overlap_with_ddp is not supported")
        super().__init__(params, defaults)
        self.process_group = process_group
        info = c10d._resolve(process_group)
        self._pg = info.pg
        self.world_size = info.pg.size()
        self.rank = info.pg.rank()
        self.global_rank = c10d._world_rank
        self._global_ranks = info.ranks
        self._all_params = params
        # Largest first onto the least loaded rank.
        loads = [0] * self.world_size
        self._owner = {}
        for i in sorted(range(len(params)), key=lambda i: -params[i].numel()):
            r = loads.index(min(loads))
            self._owner[i] = r
            loads[r] += params[i].numel()
        self._partitions = [
            [i for i in range(len(params)) if self._owner[i] == r] for r in range(self.world_size)
        ]
        mine = [params[i] for i in self._partitions[self.rank]]
        self._local_defaults = defaults
        self.optim = optimizer_class(mine, **defaults) if mine else None
        self._optimizer_class = optimizer_class
        self._all_state_dicts = None

    def partition_parameters(self):
        return [[self._all_params[i] for i in part] for part in self._partitions]

    def step(self, closure=None):
        loss = None
        if self.optim is not None:
            loss = self.optim.step(closure) if closure is not None else self.optim.step()
        elif closure is not None:
            loss = closure()
        # Every rank gets every owner's updated parameters.
        from ...autograd.grad_mode import no_grad

        with no_grad():
            for r, part in enumerate(self._partitions):
                if part:
                    self._pg.broadcast_coalesced([self._all_params[i].detach() for i in part], r)
        return loss

    def consolidate_state_dict(self, to=0):
        """Collects every rank's shard of the optimizer state on global rank `to` (a collective:
        all ranks call it)."""
        local = self.optim.state_dict() if self.optim is not None else None
        gathered = [None] * self.world_size
        c10d.all_gather_object(gathered, local, group=self.process_group)
        self._all_state_dicts = gathered if self.global_rank == to else None

    def state_dict(self):
        if self._all_state_dicts is None:
            raise RuntimeError(
                "Optimizer state has not been consolidated on this rank. Please call "
                "`consolidate_state_dict(to=<rank>)` on all ranks first."
            )
        state = {}
        for r, sd in enumerate(self._all_state_dicts):
            if sd is None:
                continue
            for local_index, value in sd["state"].items():
                state[self._partitions[r][local_index]] = value
        groups = [{k: v for k, v in self.param_groups[0].items() if k != "params"}]
        groups[0]["params"] = list(range(len(self._all_params)))
        return {"state": state, "param_groups": groups, "partitions": self._partitions}

    def load_state_dict(self, state_dict):
        if self.optim is None:
            return
        mine = self._partitions[self.rank]
        local = {
            "state": {
                j: state_dict["state"][i] for j, i in enumerate(mine) if i in state_dict["state"]
            },
            "param_groups": [dict(state_dict["param_groups"][0], params=list(range(len(mine))))],
        }
        self.optim.load_state_dict(local)
