#!/usr/bin/env bash
# Format and lint checks (CI runs them, .ci/run): clang-format over every tracked C++ file
# (.clang-format) and ruff (format + pyflakes/pycodestyle errors, settings in pyproject.toml) over
# the Python. `scripts/lint.sh --fix` rewrites the files instead of checking them.
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF_VERSION=0.17.6  # pinned: another version may format differently
if ! command -v clang-format >/dev/null; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get install -y -qq clang-format >/dev/null
fi
[ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
if [ "$(.venv/bin/python -m ruff --version 2>/dev/null)" != "ruff $RUFF_VERSION" ]; then
  .venv/bin/python -m pip install --quiet "ruff==$RUFF_VERSION"
fi
PY_DIRS="python tests benchmarks examples scripts datasets pipelines"
PY_DIRS=$(for d in $PY_DIRS; do if [ -d "$d" ]; then echo "$d"; fi; done)
mapfile -t CPP_FILES < <(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${CPP_FILES[@]}"
  .venv/bin/python -m ruff format $PY_DIRS
  .venv/bin/python -m ruff check --fix $PY_DIRS
  exit 0
fi
status=0
clang-format --dry-run --Werror "${CPP_FILES[@]}" || { echo "C++ not formatted: scripts/lint.sh --fix"; status=1; }
.venv/bin/python -m ruff format --check $PY_DIRS || { echo "Python not formatted: scripts/lint.sh --fix"; status=1; }
.venv/bin/python -m ruff check $PY_DIRS || status=1
exit $status
