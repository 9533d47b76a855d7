"""The suite's libraries depend one way only (docs/architecture.md):

    tensorcore (core)  <-  io  <-  vision, audio  <-  models  <-  datasets, pipelines

Every #include in a library's folder must name a file of that library or of one below it, and
must resolve to a file of the source tree (so a stale path cannot hide behind a system header).
"""

import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

# folder -> the folders its sources may include from (itself included)
ALLOWED = {
    "tensorcore": {"tensorcore"},
    "io": {"tensorcore", "io"},
    "vision": {"tensorcore", "io", "vision"},
    "audio": {"tensorcore", "io", "audio"},
    "models": {"tensorcore", "io", "vision", "audio", "models"},
}
LIBRARY_FOLDERS = set(ALLOWED)
SOURCE_EXTENSIONS = (".h", ".cuh", ".cpp", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def sources(folder):
    for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
        for name in files:
            if name.endswith(SOURCE_EXTENSIONS):
                yield os.path.join(dirpath, name)


def include_violations(folder):
    """(file, included path, why) for each include in `folder` that breaks the layering."""
    bad = []
    for path in sources(folder):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        rel = os.path.relpath(path, ROOT)
        for bracket, included in INCLUDE.findall(text):
            top = included.split("/", 1)[0]
            if "/" not in included or top not in LIBRARY_FOLDERS:
                if bracket == '"' and not os.path.exists(
                    os.path.join(os.path.dirname(path), included)
                ):
                    if not os.path.exists(os.path.join(ROOT, included)):
                        bad.append((rel, included, "does not resolve to a file of the tree"))
                continue
            if top not in ALLOWED[folder]:
                bad.append((rel, included, f"{folder}/ may not include from {top}/"))
            elif not os.path.exists(os.path.join(ROOT, included)):
                bad.append((rel, included, "no such file in the source tree"))
    return bad


@pytest.mark.parametrize(
    "folder", sorted(f for f in ALLOWED if os.path.isdir(os.path.join(ROOT, f)))
)
def test_includes_point_down_the_stack(folder):
    bad = include_violations(folder)
    assert not bad, "\n".join(f"{f}: #include {inc}: {why}" for f, inc, why in bad)


def test_checker_catches_an_upward_include(tmp_path, monkeypatch):
    # The same check over a fake tree where the core includes a vision header must fail.
    for folder in ("tensorcore/core", "vision/ops"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "vision/ops/ops.h").write_text("#pragma once\n")
    (tmp_path / "tensorcore/core/bad.cpp").write_text('#include "vision/ops/ops.h"\n')
    (tmp_path / "vision/ops/ok.cpp").write_text('#include "vision/ops/ops.h"\n#include <vector>\n')
    monkeypatch.setattr(__import__(__name__), "ROOT", str(tmp_path))
    assert include_violations("tensorcore") == [
        ("tensorcore/core/bad.cpp", "vision/ops/ops.h", "tensorcore/ may not include from vision/")
    ]
    assert include_violations("vision") == []


def test_library_folders_are_where_the_layout_says():
    for folder in ("tensorcore", "io", "vision", "audio"):
        assert os.path.isfile(os.path.join(ROOT, folder, "CMakeLists.txt")), folder
    for moved in ("io", "vision", "audio"):
        assert not os.path.exists(os.path.join(ROOT, "tensorcore", moved)), (
            f"tensorcore/{moved} belongs at the top level ({moved}/)"
        )
