"""Docstrings of tensorcore.vision.transforms (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.vision.transforms"

DOCS = {}
