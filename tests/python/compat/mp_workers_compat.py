"""Functions run in child processes by test_multiprocessing_sharing.py (importable by spawn)."""

import tensorcore as tc
import tensorcore.multiprocessing as mp  # noqa: F401  (registers the reducers in the child)


def add_in_place(queue, done):
    t = queue.get()
    t.add_(10)  # writes to the shared memory the parent maps too
    done.put((t.is_shared(), t.dtype == tc.float64, tuple(t.shape)))


def send_back(queue_in, queue_out):
    obj = queue_in.get()
    queue_out.put(obj)


def make_and_send(queue, ack, strategy):
    mp.set_sharing_strategy(strategy)
    t = tc.arange(12, dtype=tc.int32).reshape(3, 4)
    queue.put(t[:, 1:])  # a view: its whole storage is shared, offset and strides kept
    # Keep the tensor alive until the parent has mapped it (file_system unlinks on death).
    ack.get(timeout=60)


def hogwild_train(rank, model, steps, lock_free_seed):
    tc.manual_seed(lock_free_seed + rank)
    opt = tc.optim.SGD(model.parameters(), lr=0.05)
    x = tc.randn(64, 4)
    y = x @ tc.tensor([[1.0], [-2.0], [0.5], [3.0]]) + 0.25
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()


def fail(rank, message):
    if rank == 1:
        raise ValueError(message)
