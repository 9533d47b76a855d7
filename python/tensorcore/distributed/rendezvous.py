"""init_method URLs -> (store, rank, world_size): env://, tcp://host:port, file:///path
(torch.distributed.rendezvous)."""

import os
import urllib.parse
from datetime import timedelta

from .. import _C

_D = _C._distributed


# When RANK / WORLD_SIZE are unset, the job may have been started by Slurm's srun or by mpirun
# (Open MPI, or MPICH/Intel MPI's PMI), which set their own variables.
_FALLBACKS = {
    "RANK": ("SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"),
    "WORLD_SIZE": ("SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"),
    "LOCAL_RANK": ("SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"),
}


def _env(name):
    value = os.environ.get(name)
    for alt in _FALLBACKS.get(name, ()):
        if value is not None:
            break
        value = os.environ.get(alt)
    return value


def _env_int(name, given):
    if given is not None and given >= 0:
        return given
    value = _env(name)
    if value is None:
        raise ValueError(
            f"Error initializing torch.distributed using env:// rendezvous: environment variable "
            f"{name} expected, but not set"
        )
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"environment variable {name} must be an integer, got {value!r}") from None


def _check_rank(rank, world_size):
    if world_size <= 0:
        raise ValueError(f"world_size must be positive, got {world_size}")
    if rank < 0 or rank >= world_size:
        raise ValueError(f"rank {rank} is out of range for world_size {world_size}")


def rendezvous(init_method, rank=-1, world_size=-1, timeout=timedelta(minutes=30)):
    """Returns (store, rank, world_size, master_addr) for an init_method URL."""
    url = urllib.parse.urlparse(init_method)
    query = dict(urllib.parse.parse_qsl(url.query))
    if "rank" in query:
        rank = int(query["rank"])
    if "world_size" in query:
        world_size = int(query["world_size"])
    if url.scheme == "env":
        rank = _env_int("RANK", rank)
        world_size = _env_int("WORLD_SIZE", world_size)
        addr = os.environ.get("MASTER_ADDR", os.environ.get("SLURM_LAUNCH_NODE_IPADDR"))
        if addr is None:
            raise ValueError(
                "Error initializing torch.distributed using env:// rendezvous: environment "
                "variable MASTER_ADDR expected, but not set"
            )
        port = _env_int("MASTER_PORT", None)
        _check_rank(rank, world_size)
        store = _D.TCPStore(addr, port, world_size, rank == 0, timeout, True)
        return store, rank, world_size, addr
    if url.scheme == "tcp":
        if rank < 0 or world_size < 0:
            raise ValueError("tcp:// rendezvous needs rank and world_size (arguments or ?rank=)")
        _check_rank(rank, world_size)
        if url.port is None:
            raise ValueError(f"tcp:// init_method needs a port: {init_method!r}")
        store = _D.TCPStore(url.hostname, url.port, world_size, rank == 0, timeout, True)
        return store, rank, world_size, url.hostname
    if url.scheme == "file":
        if rank < 0 or world_size < 0:
            raise ValueError("file:// rendezvous needs rank and world_size (arguments or ?rank=)")
        _check_rank(rank, world_size)
        path = url.path if not url.netloc else url.netloc + url.path
        store = _D.FileStore(path, world_size, timeout)
        return store, rank, world_size, None
    raise ValueError(f"No rendezvous handler for {url.scheme}:// (use env://, tcp:// or file://)")
