"""Docstrings of tensorcore.Tensor (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.Tensor"

DOCS = {}
