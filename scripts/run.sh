#!/usr/bin/env bash
# The README's main command: set up everything, then run the main job (for now the demo).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
.venv/bin/python examples/demo.py
