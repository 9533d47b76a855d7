"""Runs the programs in programs/ as written (PyTorch imports) and ported by changing only
their import lines to tensorcore's."""

import contextlib
import io
import os
import re
import sys

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")

# Module prefixes, longest first: torchvision -> tensorcore.vision, torchaudio ->
# tensorcore.audio, torch -> tensorcore.
_RENAMES = [
    ("torchvision", "tensorcore.vision"),
    ("torchaudio", "tensorcore.audio"),
    ("torch", "tensorcore"),
]


def _port_module(name):
    for old, new in _RENAMES:
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return name


def port_imports(source):
    """The program with its import lines pointed at tensorcore; no other line changes."""
    out = []
    for line in source.splitlines(keepends=True):
        m = re.match(r"^(\s*)import ([\w.]+)( as \w+)?\s*$", line)
        if m and _port_module(m.group(2)) != m.group(2):
            indent, name, alias = m.groups()
            if alias is None:
                top = name.split(".")[0]
                if "." in name:  # `import torch.utils.data` loads it and binds `torch`
                    out.append(
                        f"{indent}import {_port_module(name)}, {_port_module(top)} as {top}\n"
                    )
                    continue
                alias = f" as {name}"  # `import torch` keeps the name torch
            out.append(f"{indent}import {_port_module(name)}{alias}\n")
            continue
        m = re.match(r"^(\s*)from ([\w.]+) import (.*)$", line)
        if m and _port_module(m.group(2)) != m.group(2):
            indent, name, rest = m.groups()
            out.append(f"{indent}from {_port_module(name)} import {rest}\n")
            continue
        out.append(line)
    return "".join(out)


def load(name, ported):
    """programs/<name>.py executed as a module (its main() not run); returns its namespace."""
    path = os.path.join(PROGRAMS, name + ".py")
    with open(path) as f:
        source = f.read()
    if ported:
        source = port_imports(source)
    namespace = {"__name__": f"compat_program_{name}", "__file__": path}
    exec(compile(source, path + (" (tensorcore)" if ported else ""), "exec"), namespace)
    return namespace


def run(name, argv, ported):
    """Runs programs/<name>.py's main(argv); returns (its namespace, what it printed)."""
    namespace = load(name, ported)
    out = io.StringIO()
    old_argv = sys.argv
    sys.argv = [namespace["__file__"]] + list(argv)
    try:
        with contextlib.redirect_stdout(out):
            namespace["main"](list(argv))
    finally:
        sys.argv = old_argv
    return namespace, out.getvalue()
