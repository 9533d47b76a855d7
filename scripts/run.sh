#!/usr/bin/env bash
# The README's main command: set up everything, then run the main job: the four training
# pipelines end to end on freshly generated data (examples/pipelines_demo.py, a few minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
.venv/bin/python examples/pipelines_demo.py --out runs/demo
