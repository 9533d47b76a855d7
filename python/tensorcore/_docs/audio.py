"""Docstrings of tensorcore.audio.functional (attached at import by tensorcore._docs)."""

TARGET = "tensorcore.audio.functional"

DOCS = {}
