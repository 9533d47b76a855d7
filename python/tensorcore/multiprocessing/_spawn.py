"""torch.multiprocessing.spawn: start nprocs processes running fn(i, *args), join them, and
raise in the parent when one fails (with the child's traceback)."""

import multiprocessing
import signal
import traceback

__all__ = [
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessRaisedException",
    "ProcessExitedException",
]


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.error_index, self.pid = error_index, pid


class ProcessRaisedException(ProcessException):
    pass


class ProcessExitedException(ProcessException):
    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name


def _wrap(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        error_queue.put(traceback.format_exc())
        raise SystemExit(1)


class ProcessContext:
    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """True when every process finished; raises when one failed (the others are stopped)."""
        from multiprocessing.connection import wait

        alive = [p for p in self.processes if p.exitcode is None]
        if alive:
            wait([p.sentinel for p in alive], timeout=timeout)
        # One snapshot: an exit code that appears after the failure check must not count as a
        # clean finish below.
        codes = [p.exitcode for p in self.processes]
        for i, (p, code) in enumerate(zip(self.processes, codes)):
            if code is not None and code != 0:
                for other in self.processes:
                    if other.is_alive():
                        other.terminate()
                    other.join()
                if not self.error_queues[i].empty():
                    raise ProcessRaisedException(
                        f"\n\n-- Process {i} terminated with the following error:\n"
                        + self.error_queues[i].get(),
                        i,
                        p.pid,
                    )
                if code < 0:
                    name = signal.Signals(-code).name
                    raise ProcessExitedException(
                        f"process {i} terminated with signal {name}", i, p.pid, code, name
                    )
                raise ProcessExitedException(
                    f"process {i} terminated with exit code {code}", i, p.pid, code
                )
        return all(code is not None for code in codes)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    ctx = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        q = ctx.SimpleQueue()
        p = ctx.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(q)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    return start_processes(fn, args, nprocs, join, daemon, start_method)
