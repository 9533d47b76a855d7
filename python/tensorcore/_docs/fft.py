"""Docstrings of tensorcore.fft (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.fft"

DOCS = {}
