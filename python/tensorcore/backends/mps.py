"""tensorcore.backends.mps (torch.backends.mps): Apple's Metal backend, which tensorcore does not
have; code that probes for it takes the CPU/CUDA path."""


def is_available():
    return False


def is_built():
    return False
