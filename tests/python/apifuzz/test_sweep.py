"""The committed API sweep (tests/python/apifuzz/fuzz.py in its CI mode, about 30-60 s on two
cores): every public callable with hostile arguments, each call in a supervised child process.

- A crash (signal, abort, std::terminate) or a hang of any call fails the test, naming the call;
  so does a target after whose calls tensorcore's CPU allocator holds more memory (a leak).
- Unclear errors (MemoryError for absurd sizes, AttributeError / ZeroDivisionError / ... from
  Python code that did not check its input, messages naming C++ internals) are compared with
  known_findings.json: a target that gains a new kind of finding fails; the known ones are the
  backlog listed in docs/robustness.md. Regenerate the file after fixing some with
  `python tests/python/apifuzz/fuzz.py --write-known`.
"""

import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fuzz  # noqa: E402


@pytest.fixture(scope="module")
def findings():
    if os.environ.get("TC_FUZZ_SKIP"):
        pytest.skip("TC_FUZZ_SKIP set")
    return fuzz.run(workers=int(os.environ.get("TC_FUZZ_WORKERS", "2")))


def test_no_crash_or_hang(findings):
    fatal = [f for f in findings if f["kind"] in ("crash", "hang", "setup", "resolve", "leak")]
    assert not fatal, "calls that crashed or hung:\n" + fuzz.format_findings(fatal)


def test_no_new_unclear_errors(findings):
    with open(os.path.join(HERE, "known_findings.json")) as f:
        known = {k: set(v) for k, v in json.load(f).items()}
    new = [
        f
        for f in findings
        if f["kind"] not in ("crash", "hang", "setup", "resolve", "leak")
        and f["kind"] not in known.get(f.get("target", "?"), ())
    ]
    assert not new, (
        "new unclear errors (fix them, or if intended run fuzz.py --write-known):\n"
        + fuzz.format_findings(new)
    )


def test_supervisor_reports_crash_and_hang():
    """The harness itself: every call of selftest_targets.crash segfaults and every call of
    selftest_targets.hang sleeps past the timeout; each is reported with the exact call and the
    child is restarted so that the calls after it still run."""
    found = fuzz.run_shard(
        ["py:selftest_targets:crash", "py:selftest_targets:hang"], timeout=1.0, max_calls=3
    )
    crashes = [f for f in found if f["kind"] == "crash"]
    hangs = [f for f in found if f["kind"] == "hang"]
    assert len(crashes) == 3 and all(
        f["call"].startswith("py:selftest_targets:crash(") for f in crashes
    ), found
    assert "py:selftest_targets:crash(<f32[2,3]>)" in {f["call"] for f in crashes}, crashes
    assert len(hangs) == 3 and all(
        f["call"].startswith("py:selftest_targets:hang(") for f in hangs
    ), found


def test_supervisor_reports_leak():
    found = fuzz.run_shard(["py:selftest_targets:leak"], timeout=5.0, max_calls=3)
    assert [f["kind"] for f in found] == ["leak"], found
    assert "192 bytes still allocated" in found[0]["msg"], found
