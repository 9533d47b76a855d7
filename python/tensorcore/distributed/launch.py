"""`python -m tensorcore.distributed.launch` (torch.distributed.launch): the same launcher as
tensorcore.distributed.run; workers read LOCAL_RANK from the environment (--use_env behaviour)."""

from .run import main

if __name__ == "__main__":
    main()
