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
