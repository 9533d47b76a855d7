"""nn.DataParallel as programs use it: the wrapped model is `.module` (so checkpoints keep torch's
"module." key prefix) and calls go straight to it. With more than one CUDA device torch would
replicate the module per device; here the module runs once on its own device (multi-device
training is DistributedDataParallel's job), which gives the same results."""

from ..modules.module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(
                f"DataParallel: module must be an nn.Module, got {type(module).__name__}"
            )
        self.module = module
        self.device_ids = list(device_ids) if device_ids is not None else []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
