"""Docstrings of the top-level tensorcore functions (attached at import by tensorcore._docs)."""

TARGET = "tensorcore"

DOCS = {
    "hypot": r"""
        hypot(input, other, *, out=None) -> Tensor

        Element-wise length of the hypotenuse, :math:`\sqrt{input^2 + other^2}`, computed
        without intermediate overflow. The inputs broadcast to a common shape.

        Args:
            input (Tensor): first leg.
            other (Tensor or Number): second leg.

        Keyword Args:
            out (Tensor, optional): tensor the result is written into.

        Example:
            >>> tc.hypot(tc.tensor([3.0, 5.0]), tc.tensor([4.0, 12.0]))
            tensor([ 5., 13.])
        """,
    "add": r"""
        add(input, other, *, alpha=1, out=None) -> Tensor

        Adds ``other``, scaled by ``alpha``, to ``input``: :math:`out = input + alpha \times
        other`. The operands broadcast; the result dtype follows type promotion.

        Args:
            input (Tensor): the tensor to add to.
            other (Tensor or Number): what is added.

        Keyword Args:
            alpha (Number): multiplier of ``other``.
            out (Tensor, optional): tensor the result is written into.

        Example:
            >>> a = tc.tensor([1.0, 2.0, 3.0])
            >>> tc.add(a, 10)
            tensor([11., 12., 13.])
            >>> tc.add(a, tc.tensor([1.0, 1.0, 1.0]), alpha=2)
            tensor([3., 4., 5.])
        """,
}
