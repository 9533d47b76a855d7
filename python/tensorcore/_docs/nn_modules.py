"""Docstrings of tensorcore.nn (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.nn"

DOCS = {}
