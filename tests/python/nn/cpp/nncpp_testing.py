"""Runs the C++ half of an interop test: the Python test writes torch's inputs and results into a
folder, the gtest case named by the filter reads them from the folder its environment variable
names and writes what tc::nn computed there for the test to check."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[4]
TC_TESTS = ROOT / "build" / "tests" / "tc_tests"

needs_tc_tests = pytest.mark.skipif(not TC_TESTS.exists(), reason="build/tests/tc_tests not built")


def run_gtest(gtest_filter, env_var, folder, passed=None):
    """Runs tc_tests --gtest_filter=gtest_filter with env_var=folder; fails the test with the
    C++ output when it fails, or when passed is given and not that many tests passed."""
    env = dict(os.environ, **{env_var: str(folder)})
    run = subprocess.run(
        [str(TC_TESTS), f"--gtest_filter={gtest_filter}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    if passed is not None:
        summary = f"[  PASSED  ] {passed} test{'s' if passed != 1 else ''}"
        assert summary in run.stdout, run.stdout
    return run
