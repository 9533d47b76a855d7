"""Docstrings of tensorcore.autograd (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.autograd"

DOCS = {}
