"""Docstrings of tensorcore.utils.data (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.utils.data"

DOCS = {}
