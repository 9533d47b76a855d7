"""The examples in the docstrings run and print what they show (doctest), so the docs cannot
drift from the behaviour."""

import doctest

import pytest

import tensorcore as tc
from tensorcore._docs import _api


def _examples():
    seen, out = set(), []
    for name, obj in _api.public_api():
        doc = _api.own_doc(obj)
        if ">>>" in doc and id(obj) not in seen:
            seen.add(id(obj))
            out.append((name, doc))
    return out


EXAMPLES = _examples()


def test_there_are_examples_to_run():
    assert len(EXAMPLES) >= 50, len(EXAMPLES)


@pytest.mark.parametrize("name,doc", EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_example_runs(name, doc, tmp_path, monkeypatch):
    # Examples that save files (traced.save("m.tcj")) write into a scratch folder, not the tree.
    monkeypatch.chdir(tmp_path)
    parser = doctest.DocTestParser()
    globs = {"tc": tc, "tensorcore": tc, "nn": tc.nn, "F": tc.nn.functional}
    if hasattr(tc, "vision"):
        globs["transforms"] = tc.vision.transforms
    if hasattr(tc, "audio"):
        globs["ta"] = tc.audio
    test = parser.get_doctest(doc, globs, name, None, 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    tc.manual_seed(0)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
