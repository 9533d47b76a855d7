"""tensorcore.backends.openmp (torch.backends.openmp): CPU kernels run on OpenMP threads."""


def is_available():
    return True
