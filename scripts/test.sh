#!/usr/bin/env bash
# The README's test command: set up everything on a fresh machine, then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
echo "== C++ tests (GoogleTest) =="
ctest --test-dir build --output-on-failure -j"$(nproc)"
echo "== Python tests (pytest) =="
.venv/bin/python -m pytest -q tests/python
echo "== CUDA kernels run on the host against the CPU ops (no GPU needed) =="
./scripts/cuda_host_emulation/run.sh
