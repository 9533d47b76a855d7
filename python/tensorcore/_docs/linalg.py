"""Docstrings of tensorcore.linalg (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.linalg"

DOCS = {}
