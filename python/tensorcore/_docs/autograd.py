"""Docstrings of tensorcore.autograd and its grad-mode contexts (also at the top level)."""

from ._style import doc

TARGET = "tensorcore.autograd"

DOCS = {
    "no_grad": doc(
        "no_grad()",
        "Context manager (or decorator) that disables gradient recording: results computed inside do not require grad.",
    ),
    "backward": doc(
        "backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None) -> None",
        "Accumulates the gradients of ``tensors`` with respect to the graph leaves into their ``.grad``. "
        "A non-scalar tensor needs its ``grad_tensors`` entry (the vector of the vector-Jacobian product).",
        [
            "tensors (Tensor or sequence): the roots.",
            "grad_tensors (Tensor or sequence, optional): gradients with respect to the roots.",
            "retain_graph (bool, optional): keep the graph for another backward (default: ``create_graph``).",
            "create_graph (bool): record the backward pass, for higher-order derivatives.",
            "inputs (sequence of Tensors, optional): accumulate only into these.",
        ],
    ),
    "grad": doc(
        "grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False) -> tuple",
        "Computes and returns the gradients of ``outputs`` with respect to ``inputs`` (without touching ``.grad``).",
        [
            "outputs (Tensor or sequence): what is differentiated.",
            "inputs (Tensor or sequence): with respect to what.",
            "grad_outputs (sequence, optional): vector of the vector-Jacobian product (ones for scalars).",
            "retain_graph (bool, optional): keep the graph.",
            "create_graph (bool): make the result differentiable (higher-order derivatives).",
            "allow_unused (bool): return None for inputs that do not reach the outputs instead of raising.",
        ],
        example=">>> x = tc.tensor(3.0, requires_grad=True)\n>>> (g,) = tc.autograd.grad(x ** 2, x)\n>>> g\ntensor(6.)",
    ),
    "set_grad_enabled": doc(
        "set_grad_enabled(mode)",
        "Context manager (or function) that turns gradient recording on or off.",
        ["mode (bool): enable (True) or disable recording."],
        example=">>> x = tc.ones(1, requires_grad=True)\n>>> with tc.set_grad_enabled(False):\n...     y = x * 2\n>>> y.requires_grad\nFalse",
    ),
    "enable_grad": doc(
        "enable_grad()",
        "Context manager (or decorator) that enables gradient recording, e.g. inside a :class:`no_grad` block.",
    ),
    "inference_mode": doc(
        "inference_mode(mode=True)",
        "Context manager (or decorator) for inference: like :class:`no_grad`, and tensors created inside cannot later be used in autograd.",
        ["mode (bool): enable inference mode."],
    ),
    "is_grad_enabled": doc(
        "is_grad_enabled() -> bool", "Whether gradient recording is currently on."
    ),
    "once_differentiable": doc(
        "once_differentiable(fn)",
        "Decorator for the ``backward`` of a custom :class:`Function`: it runs without recording, and a double backward through it raises.",
    ),
    "FunctionCtx": doc(
        "FunctionCtx()",
        "The ``ctx`` object of a custom :class:`Function`: ``save_for_backward(*tensors)`` / ``saved_tensors``, ``mark_dirty``, ``mark_non_differentiable``, ``set_materialize_grads`` and ``needs_input_grad``.",
    ),
}
