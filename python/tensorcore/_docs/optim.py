"""Docstrings of tensorcore.optim (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.optim"

DOCS = {}
