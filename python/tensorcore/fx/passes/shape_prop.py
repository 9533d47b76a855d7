"""ShapeProp: runs a GraphModule on example inputs and records each node's tensor metadata."""

from typing import Any, NamedTuple, Optional, Tuple

from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: Tuple[int, ...]
    memory_format: Optional[Any]
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result):
    return TensorMetadata(
        shape=result.shape,
        dtype=result.dtype,
        requires_grad=result.requires_grad,
        stride=tuple(result.stride()),
        memory_format=None,
        is_quantized=False,
        qparams={},
    )


class ShapeProp(Interpreter):
    """``ShapeProp(gm).propagate(*inputs)`` stores node.meta['tensor_meta'] (a TensorMetadata, or
    a nested structure of them for tuple/list/dict results) and node.meta['type'] for every node,
    and, as torch 1.8 did, node.shape and node.dtype for tensor results."""

    def run_node(self, n):
        from ..._C import Tensor

        result = super().run_node(n)
        found_tensor = False

        def extract(obj):
            nonlocal found_tensor
            if isinstance(obj, Tensor):
                found_tensor = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, extract)
        if found_tensor:
            n.meta["tensor_meta"] = meta
            if isinstance(result, Tensor):
                n.shape = result.shape
                n.dtype = result.dtype
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Runs the graph on args (concrete example inputs); returns its result."""
        return super().run(*args)
