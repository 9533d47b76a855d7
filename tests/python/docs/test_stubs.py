"""The committed .pyi stubs are what scripts/gen_stubs.py makes from the current bindings and
docstrings (regenerate and compare), and they parse."""

import ast
import os

import pytest
from repo_scripts import ROOT, load_script

import tensorcore as tc


def _generator():
    return load_script("gen_stubs")


def test_committed_stubs_are_up_to_date():
    if not hasattr(tc._C, "_audio") or not hasattr(tc._C, "_vision"):
        pytest.skip("an area is left out of this build (TC_SKIP_AREAS): the stubs differ")
    stale = []
    for rel, text in _generator().generate().items():
        with open(os.path.join(ROOT, rel)) as f:
            if f.read() != text:
                stale.append(rel)
    assert not stale, f"stale stubs (run scripts/gen_stubs.py): {stale}"


def test_stubs_parse_and_carry_signatures_and_docs():
    stubs = _generator().generate()
    for rel, text in stubs.items():
        ast.parse(text, filename=rel)
    top = stubs["python/tensorcore/__init__.pyi"]
    assert "def hypot(input: Tensor, other: Any, *, out: Optional[Tensor] = None) -> Tensor:" in top
    assert "hypotenuse" in top
    assert "class Tensor:" in top and "    def add(self, other: Any, *, alpha: Any = 1)" in top
    assert "float32: dtype" in top
    # Each definition once: aliases, nn.functional's shared functions, Python sources.
    assert "\ngreater = gt\n" in top and "    greater = gt\n" in top
    assert (
        "from tensorcore import conv2d as conv2d\n" in stubs["python/tensorcore/nn/functional.pyi"]
    )
    assert "from tensorcore._math_more import frexp as frexp\n" in top
    assert os.path.exists(os.path.join(ROOT, "python", "tensorcore", "py.typed"))


def test_type_checker_accepts_the_stubs_and_infers_tensors(tmp_path):
    """mypy (Debian's, scripts/apt/docs.txt) reads the stubs without an error and types a small
    program through them: operators, functions and methods give Tensor."""
    import shutil
    import subprocess
    import sys

    mypy = shutil.which("mypy")
    if mypy is None:
        pytest.skip("mypy not installed (apt install mypy)")
    program = tmp_path / "use_stubs.py"
    program.write_text(
        "import tensorcore as tc\n"
        "import tensorcore.nn.functional as F\n"
        "x = tc.zeros(2, 3)\n"
        "reveal_type((x + 1) @ x.t())\n"
        "reveal_type(F.relu(tc.hypot(x, x)).sum(dim=0))\n"
        "reveal_type(x.numel())\n"
        "n: int = x.size(0)\n"
        # aliases written once (greater = gt) and a method re-exported from its Python source
        "reveal_type(x.greater(1))\n"
        "reveal_type(tc.less_equal(x, 1))\n"
        "reveal_type(x.frexp)\n"
    )
    env = dict(os.environ, MYPYPATH=os.path.join(ROOT, "python"))
    cmd = [mypy, "--no-incremental", "--python-executable", sys.executable]
    cmd += ["--follow-imports=silent", "--ignore-missing-imports", str(program)]
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    revealed = [line for line in result.stdout.splitlines() if "Revealed type" in line]
    assert revealed[0].endswith('"tensorcore.Tensor"') and revealed[1].endswith(
        '"tensorcore.Tensor"'
    )
    assert revealed[2].endswith('"builtins.int"')
    assert revealed[3].endswith('"tensorcore.Tensor"') and revealed[4].endswith(
        '"tensorcore.Tensor"'
    )
    assert revealed[5].endswith('"def () -> Any"'), revealed[5]  # frexp(input) bound to x
