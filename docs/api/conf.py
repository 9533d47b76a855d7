# Sphinx configuration of the API reference (scripts/build_api_docs.py writes the pages, one per
# public module, from tensorcore._docs._api; the docstrings are torch-style, read by napoleon).
import os
import sys

from sphinx.util import logging

project = "tensorcore"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# Parameter types stay plain text: as cross-references, "float" would resolve to
# Tensor.float and Module.float (ambiguous-target warnings).
napoleon_use_param = False
napoleon_use_rtype = False
napoleon_use_keyword = False
autodoc_typehints = "none"  # signatures as written in the docstrings, without annotations
autodoc_docstring_signature = True  # the first docstring line is the signature (torch's style)
autodoc_default_options = {"undoc-members": False}
html_theme = "alabaster"
root_doc = "index"
exclude_patterns = []
suppress_warnings = []
if os.environ.get("TC_DOCS_PYTHONPATH"):
    sys.path.insert(0, os.environ["TC_DOCS_PYTHONPATH"])

_log = logging.getLogger("tensorcore.docs")


def _warn_missing(app, what, name, obj, options, lines):
    """A page entry whose docstring is empty (or only its signature) is a warning, which the
    build turns into an error (-W)."""
    from tensorcore._docs import _api

    if what == "module":
        return
    if not _api.is_documented(obj):
        _log.warning("missing docstring: %s", name)


def setup(app):
    app.connect("autodoc-process-docstring", _warn_missing)
