"""tensorcore.backends.cuda: cuBLAS matmul settings (torch.backends.cuda.matmul)."""

from .. import _C


def is_built():
    return _C._cuda.is_compiled()


class _MatmulSettings:
    """`allow_tf32`: float32 matmuls may use TF32 tensor cores (default False, as in PyTorch
    >= 1.12). `allow_fp16_reduced_precision_reduction`: kept for API compatibility."""

    @property
    def allow_tf32(self):
        return _C._cuda.allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _C._cuda.set_allow_tf32(bool(value))

    @property
    def allow_fp16_reduced_precision_reduction(self):
        return _C._cuda.allow_reduced_precision_reduction()

    @allow_fp16_reduced_precision_reduction.setter
    def allow_fp16_reduced_precision_reduction(self, value):
        _C._cuda.set_allow_reduced_precision_reduction(bool(value))

    def __setattr__(self, name, value):
        if name not in ("allow_tf32", "allow_fp16_reduced_precision_reduction"):
            raise AttributeError(f"Unknown attribute {name}")
        object.__setattr__(self, name, value)


matmul = _MatmulSettings()


def _device_index(device):
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        from .. import device as _device_cls

        device = _device_cls(device)
    index = getattr(device, "index", None)
    if getattr(device, "type", "cuda") != "cuda":
        raise ValueError(f"cufft_plan_cache: expected a CUDA device, got {device}")
    return -1 if index is None else int(index)


class cuFFTPlanCache:
    """The cuFFT plan cache of one CUDA device (torch.backends.cuda.cuFFTPlanCache): `size`
    (plans held), `max_size` (capacity, default 4096; 0 disables caching) and `clear()`."""

    def __init__(self, device_index):
        self.device_index = device_index

    @property
    def size(self):
        return _C._cufft.plan_cache_size(self.device_index)

    @property
    def max_size(self):
        return _C._cufft.plan_cache_max_size(self.device_index)

    @max_size.setter
    def max_size(self, value):
        _C._cufft.set_plan_cache_max_size(int(value), self.device_index)

    def clear(self):
        _C._cufft.clear_plan_cache(self.device_index)

    def __repr__(self):
        return f"cuFFTPlanCache(device_index={self.device_index})"


class cuFFTPlanCacheManager:
    """`tc.backends.cuda.cufft_plan_cache[i]` is device i's cache; the attributes of
    `cufft_plan_cache` itself act on the current device's cache, as in PyTorch."""

    __initialized = False

    def __init__(self):
        self.caches = {}
        self.__initialized = True

    def __getitem__(self, device):
        index = _device_index(device)
        if index < 0:
            from .. import cuda as _cuda

            index = _cuda.current_device()
        if index not in self.caches:
            self.caches[index] = cuFFTPlanCache(index)
        return self.caches[index]

    def __getattr__(self, name):
        return getattr(self[None], name)

    def __setattr__(self, name, value):
        if self.__initialized:
            return setattr(self[None], name, value)
        return super().__setattr__(name, value)


cufft_plan_cache = cuFFTPlanCacheManager()
