#!/usr/bin/env python3
"""Writes tests/python/docs/doc_gaps.txt: the public names still without a docstring.

    .venv/bin/python scripts/doc_gaps.py

Run it after documenting names (the list may only shrink; tests/python/docs/test_docstrings.py
fails when a listed name gained a docstring or an unlisted one has none)."""

import os

import tensorcore  # noqa: F401  (attaches the docstrings)
from tensorcore._docs import _api

PATH = os.path.join(os.path.dirname(__file__), "..", "tests", "python", "docs", "doc_gaps.txt")

if __name__ == "__main__":
    gaps = _api.undocumented()
    with open(PATH, "w") as f:
        f.write(
            f"# Public names still without a docstring ({len(gaps)}); the list may only shrink.\n"
        )
        f.write("# Regenerate with scripts/doc_gaps.py after documenting names.\n")
        f.write("\n".join(gaps) + "\n")
    print(f"{len(gaps)} gaps of {len(_api.public_api())} public names")
