"""Docstrings of tensorcore.nn.utils, tensorcore.nn.utils.rnn and tensorcore.autograd.functional."""

from ._style import doc

TARGET = "tensorcore.nn.utils"

_PARAMS = "parameters (Tensor or iterable of Tensors): the parameters (their ``.grad`` is used)."
_MOD = "module (Module): the module holding the parameter."
_NAME = "name (str): the parameter's name."

_UTILS = {
    "clip_grad_norm": doc(
        "clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False) -> Tensor",
        "Deprecated spelling of :func:`clip_grad_norm_`.",
        [
            _PARAMS,
            "max_norm (float): the largest allowed total norm.",
            "norm_type (float): the norm.",
            "error_if_nonfinite (bool): raise if the norm is NaN or infinite.",
        ],
    ),
    "clip_grad_value_": doc(
        "clip_grad_value_(parameters, clip_value, foreach=None) -> None",
        "Clamps every gradient element to ``[-clip_value, clip_value]`` in place.",
        [
            _PARAMS,
            "clip_value (float): the bound.",
            "foreach (bool, optional): accepted for torch compatibility.",
        ],
    ),
    "parameters_to_vector": doc(
        "parameters_to_vector(parameters) -> Tensor",
        "Flattens and concatenates the parameters into one 1-D tensor.",
        ["parameters (iterable of Tensors): the parameters."],
        example=">>> tc.nn.utils.parameters_to_vector(nn.Linear(2, 1).parameters()).shape\ntensorcore.Size([3])",
    ),
    "vector_to_parameters": doc(
        "vector_to_parameters(vec, parameters) -> None",
        "Copies consecutive slices of the 1-D ``vec`` into the parameters (the inverse of :func:`parameters_to_vector`).",
        [
            "vec (Tensor): 1-D values.",
            "parameters (iterable of Tensors): the parameters to overwrite.",
        ],
    ),
    "weight_norm": doc(
        "weight_norm(module, name='weight', dim=0) -> Module",
        "Reparametrizes ``module.<name>`` as ``g * v / ||v||`` with learnable magnitude ``<name>_g`` and direction ``<name>_v``, recomputed before every forward.",
        [_MOD, _NAME, "dim (int or None): the dimension kept by the norm (None: whole tensor)."],
    ),
    "remove_weight_norm": doc(
        "remove_weight_norm(module, name='weight') -> Module",
        "Undoes :func:`weight_norm`: the parameter becomes a plain parameter again.",
        [_MOD, _NAME],
    ),
    "spectral_norm": doc(
        "spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None) -> Module",
        "Divides ``module.<name>`` by its largest singular value, estimated by power iteration at every training forward (GAN discriminators).",
        [
            _MOD,
            _NAME,
            "n_power_iterations (int): iterations per forward.",
            "eps (float): numerical stability term.",
            "dim (int, optional): the output dimension (0, or 1 for transposed convolutions).",
        ],
    ),
    "remove_spectral_norm": doc(
        "remove_spectral_norm(module, name='weight') -> Module",
        "Undoes :func:`spectral_norm`.",
        [_MOD, _NAME],
    ),
}

_SEQ = "sequences (list of Tensors): variable-length sequences of shape ``(L_i, *)``."
_RNN = {
    "pad_sequence": doc(
        "pad_sequence(sequences, batch_first=False, padding_value=0.0) -> Tensor",
        "Stacks variable-length sequences into one tensor ``(L_max, N, *)`` (or ``(N, L_max, *)``), padding the shorter ones.",
        [
            _SEQ,
            "batch_first (bool): put the batch dimension first.",
            "padding_value (float): the padding value.",
        ],
        example=">>> from tensorcore.nn.utils.rnn import pad_sequence\n>>> pad_sequence([tc.tensor([1, 2, 3]), tc.tensor([4])], batch_first=True)\ntensor([[1, 2, 3],\n        [4, 0, 0]])",
    ),
    "unpad_sequence": doc(
        "unpad_sequence(padded_sequences, lengths, batch_first=False) -> list",
        "Splits a padded batch back into the list of its sequences (the inverse of :func:`pad_sequence`).",
        [
            "padded_sequences (Tensor): the padded batch.",
            "lengths (Tensor or list): the true lengths.",
            "batch_first (bool): the batch dimension comes first.",
        ],
    ),
    "pack_padded_sequence": doc(
        "pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True) -> PackedSequence",
        "Packs a padded batch so recurrent layers skip the padding.",
        [
            "input (Tensor): padded batch ``(L, N, *)`` or ``(N, L, *)``.",
            "lengths (Tensor or list): the true lengths.",
            "batch_first (bool): the batch dimension comes first.",
            "enforce_sorted (bool): require lengths in decreasing order (else sort and remember the order).",
        ],
    ),
    "pad_packed_sequence": doc(
        "pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None) -> (Tensor, Tensor)",
        "Unpacks a PackedSequence into a padded batch and the lengths.",
        [
            "sequence (PackedSequence): the packed batch.",
            "batch_first (bool): put the batch dimension first.",
            "padding_value (float): the padding value.",
            "total_length (int, optional): pad to this length.",
        ],
    ),
    "pack_sequence": doc(
        "pack_sequence(sequences, enforce_sorted=True) -> PackedSequence",
        "Packs a list of variable-length sequences (``pad_sequence`` then ``pack_padded_sequence``).",
        [_SEQ, "enforce_sorted (bool): require decreasing lengths."],
    ),
}

_F = "func (callable): takes tensors, returns a tensor (or a tuple of tensors)."
_IN = "inputs (Tensor or tuple of Tensors): the point at which derivatives are taken."
_V = "v (Tensor or tuple, optional): the vector of the product (may be omitted for a scalar function)."
_CG = (
    "create_graph (bool): make the result differentiable.",
    "strict (bool): raise when an output does not depend on an input (else zeros).",
)
_AF = {
    "vjp": doc(
        "vjp(func, inputs, v=None, create_graph=False, strict=False) -> (output, vjp)",
        "Vector-Jacobian product: ``func(inputs)`` and ``v^T J``.",
        [_F, _IN, "v (Tensor or tuple, optional): vector of the outputs' shape.", *_CG],
        example=">>> out, g = tc.autograd.functional.vjp(lambda x: (x ** 2).sum(), tc.tensor([1.0, 2.0]))\n>>> g\ntensor([2., 4.])",
    ),
    "jvp": doc(
        "jvp(func, inputs, v=None, create_graph=False, strict=False) -> (output, jvp)",
        "Jacobian-vector product: ``func(inputs)`` and ``J v`` (computed with the double-backward trick).",
        [_F, _IN, "v (Tensor or tuple, optional): vector of the inputs' shape.", *_CG],
    ),
    "hvp": doc(
        "hvp(func, inputs, v=None, create_graph=False, strict=False) -> (output, hvp)",
        "Hessian-vector product ``H v`` of a scalar function.",
        ["func (callable): returns a scalar tensor.", _IN, _V, *_CG],
    ),
    "vhp": doc(
        "vhp(func, inputs, v=None, create_graph=False, strict=False) -> (output, vhp)",
        "Vector-Hessian product ``v^T H`` of a scalar function.",
        ["func (callable): returns a scalar tensor.", _IN, _V, *_CG],
    ),
    "hessian": doc(
        "hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy='reverse-mode') -> Tensor",
        "The Hessian of a scalar function at ``inputs`` (a tensor, or nested tuples for several inputs).",
        [
            "func (callable): returns a scalar tensor.",
            _IN,
            *_CG,
            "vectorize (bool): accepted for torch compatibility.",
            "outer_jacobian_strategy (str): accepted for torch compatibility.",
        ],
        example=">>> tc.autograd.functional.hessian(lambda x: (x ** 3).sum(), tc.tensor([1.0, 2.0]))\ntensor([[ 6.,  0.],\n        [ 0., 12.]])",
    ),
}

TARGETS = {
    "tensorcore.nn.utils": _UTILS,
    "tensorcore.nn.utils.rnn": _RNN,
    "tensorcore.autograd.functional": _AF,
}
DOCS = _UTILS
