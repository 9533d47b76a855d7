"""Tiny corpora made by tensorcore.datasets.generate, for the session fixtures of the dataset and
pipeline tests (each conftest.py picks its sizes and seeds)."""

import shutil

import pytest


def generate(*argv):
    """Runs the generator's command line; arguments are passed as strings."""
    from tensorcore.datasets.generate import main

    return main([str(a) for a in argv])


def generated(tmp_path_factory, folder, corpus, *argv, speech=False):
    """Generates `corpus` into a fresh temporary folder and returns its path. Speech corpora are
    synthesized with espeak-ng and sox: the test skips where they are not installed."""
    if speech and (shutil.which("espeak-ng") is None or shutil.which("sox") is None):
        pytest.skip("espeak-ng / sox not installed")
    out = tmp_path_factory.mktemp(folder)
    generate(corpus, "--out", out, *argv)
    return str(out)
