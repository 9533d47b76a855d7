"""Docstrings of tensorcore.nn.init (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.nn.init"

DOCS = {}
