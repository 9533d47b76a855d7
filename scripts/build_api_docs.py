#!/usr/bin/env python3
"""Builds the API reference site with Sphinx (autodoc + napoleon) from the installed package.

    .venv/bin/python scripts/build_api_docs.py [OUTDIR] [--builder html]

One page per public module (tensorcore._docs._api.PUBLIC_MODULES) plus the Tensor class; every
documented name gets an entry; names still without a docstring (tests/python/docs/doc_gaps.txt)
are listed at the end of their page as not yet documented. Warnings are errors (-W), and an entry
whose docstring is missing warns (docs/api/conf.py), so the build fails on it.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _entry(directive, qualname):
    return f".. {directive}:: {qualname}\n"


def _identity(obj):
    """The object behind wrappers (out= wrapper, bound method), so aliases are recognized."""
    obj = getattr(obj, "__wrapped__", obj) if hasattr(obj, "_tc_out") else obj
    return id(getattr(obj, "__func__", obj))


def write_pages(srcdir, only=None):
    import inspect

    from tensorcore import _docs
    from tensorcore._docs import _api

    pages = []
    first_name = {}  # object identity -> the qualified name it is documented under
    # An object reachable under several names is documented under the one its docstring's
    # signature line names (tc.gt rather than its alias tc.greater), the first one otherwise.
    for qualname, obj in _api.public_api():
        doc = _api.own_doc(obj).strip()
        if doc.split("(", 1)[0] == qualname.rpartition(".")[2]:
            first_name.setdefault(_identity(obj), qualname)
    emitted = set()
    by_module = {}
    for qualname, obj in _api.public_api():
        owner, _, name = qualname.rpartition(".")
        if qualname in _api.PUBLIC_MODULES:
            by_module.setdefault(qualname, [])
            continue
        by_module.setdefault(owner, []).append((name, obj))
    for owner, members in by_module.items():
        if only is not None and owner not in only:
            continue
        page = owner.replace(".", "_")
        owner_obj = _api.resolve(owner)
        is_class = isinstance(owner_obj, type)
        lines = [owner, "=" * len(owner), ""]
        if not is_class:
            lines += [f".. automodule:: {owner}", "   :no-members:", ""]
        gaps, derived = [], []
        for name, obj in members:
            qual = f"{owner}.{name}"
            if not _api.is_documented(obj):
                gaps.append(qual)
                continue
            if qual in _docs.DERIVED:
                # Method forms, in-place variants and aliases: one line each, linking the
                # original (keeps the site build short; their text is generated anyway).
                derived.append((qual, name, _docs.DERIVED[qual], _api.own_doc(obj)))
                continue
            key = _identity(obj)
            if first_name.setdefault(key, qual) != qual or key in emitted:
                # The same object under a second name (alias): a pointer, not a second entry.
                kind = "method" if is_class else "function"
                role = "meth" if is_class else ("class" if isinstance(obj, type) else "func")
                lines += [f".. py:{kind}:: {qual}", "   :noindex:", ""]
                lines += [f"   Alias for :{role}:`{first_name[key]}`.", ""]
                continue
            emitted.add(key)
            if is_class:
                directive = "autoproperty" if isinstance(obj, property) else "automethod"
            elif isinstance(obj, type):
                directive = "autoclass"
            else:
                directive = "autofunction"
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                directive = "autoexception"
            lines.append(_entry(directive, qual))
        if derived:
            lines += ["Method forms, in-place variants and aliases", "-" * 43, ""]
            for qual, name, original, text in derived:
                signature = text.strip().splitlines()[0].replace("*", "\\*")
                role = "meth" if "Tensor." in original or is_class else "func"
                lines.append(f"- ``{signature}``: see :{role}:`{original}`")
            lines.append("")
        if gaps:
            lines += ["Not yet documented", "------------------", ""]
            lines += [f"- ``{g}``" for g in gaps] + [""]
        with open(os.path.join(srcdir, page + ".rst"), "w") as f:
            f.write("\n".join(lines))
        pages.append(page)
    index = ["tensorcore API reference", "=" * 24, "", ".. toctree::", "   :maxdepth: 1", ""]
    index += [f"   {p}" for p in pages]
    with open(os.path.join(srcdir, "index.rst"), "w") as f:
        f.write("\n".join(index) + "\n")
    return pages


def build(outdir, builder="html", only=None):
    """Runs Sphinx; `only` limits the pages to those modules/classes (the tests build every page
    with the dummy builder, which reads and checks all docstrings without writing HTML, and a
    few pages as HTML)."""
    srcdir = tempfile.mkdtemp(prefix="tc-api-src-")
    try:
        shutil.copy(os.path.join(ROOT, "docs", "api", "conf.py"), srcdir)
        write_pages(srcdir, only)
        cmd = [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            builder,
            "-W",
            "--keep-going",
            "-q",
            "-j",
            "auto",
        ]
        cmd += ["-d", os.path.join(outdir, ".doctrees"), srcdir, outdir]
        return subprocess.run(cmd, capture_output=True, text=True)
    finally:
        shutil.rmtree(srcdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", nargs="?", default=os.path.join(ROOT, "build", "api-docs"))
    parser.add_argument("--builder", default="html", help="html, or dummy (check only)")
    parser.add_argument("--only", nargs="*", help="build only these modules' pages")
    args = parser.parse_args()
    result = build(args.outdir, args.builder, set(args.only) if args.only else None)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode == 0:
        print(f"API reference: {os.path.join(args.outdir, 'index.html')}")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
