"""Docstrings of tensorcore.nn.functional (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.nn.functional"

DOCS = {}
