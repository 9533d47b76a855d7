#!/usr/bin/env bash
# Installs system packages, creates .venv (with Debian's numpy/torch visible), builds the C++
# libraries and the Python extension, and makes `import tensorcore` work inside .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

APT_PACKAGES="build-essential cmake ninja-build ccache pkg-config libgtest-dev libopenblas-dev
  python3 python3-dev python3-venv python3-numpy python3-pytest python3-pybind11 pybind11-dev"
# Each area lists the Debian packages it needs in scripts/apt/<area>.txt (one per line, # comments).
for list_file in scripts/apt/*.txt; do
  if [ -e "$list_file" ]; then APT_PACKAGES="$APT_PACKAGES $(sed 's/#.*//' "$list_file" | tr '\n' ' ')"; fi
done
# Reference implementations for comparison tests (tests skip cleanly without them).
APT_OPTIONAL="python3-torch python3-torchvision python3-torchaudio"

missing=$(dpkg-query -W -f='${Package} ${Status}\n' $APT_PACKAGES 2>/dev/null | grep -v "install ok installed" | cut -d' ' -f1 || true)
missing="$missing $(for p in $APT_PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)"
if [ -n "$(echo $missing | tr -d ' ')" ] || [ "${TC_INSTALL_OPTIONAL:-1}" = 1 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  need=""
  for p in $APT_PACKAGES $APT_OPTIONAL; do dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"; done
  if [ -n "$need" ]; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq $APT_PACKAGES >/dev/null
    # Optional references: best effort.
    $SUDO apt-get install -y -qq $APT_OPTIONAL >/dev/null 2>&1 || echo "note: optional reference packages not installed"
  fi
fi

if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv
fi

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
export CCACHE_BASEDIR="$ROOT"
PY=.venv/bin/python

# The PEP 517 backend (scikit-build-core) comes from the package index once, into a local
# wheelhouse that the packaging test reuses offline for its fresh virtual environment.
WHEELHOUSE=build/wheelhouse
if ! ls "$WHEELHOUSE"/scikit_build_core-*.whl >/dev/null 2>&1; then
  $PY -m pip download --quiet --dest "$WHEELHOUSE" "scikit-build-core>=0.10"
fi
if ! $PY -c "import scikit_build_core" 2>/dev/null; then
  $PY -m pip install --quiet --no-index --find-links "$WHEELHOUSE" "scikit-build-core>=0.10"
fi

# COCO's reference evaluator for the datasets and detection tests (they skip without it);
# --no-deps keeps Debian's NumPy.
if ! $PY -c "import pycocotools" 2>/dev/null; then
  $PY -m pip install --quiet --no-deps "pycocotools>=2.0.7" ||
    echo "note: pycocotools not installed; the tests that compare with it skip"
fi

# TensorBoard: SummaryWriter writes through its protobufs and the tests read the files back with
# its EventAccumulator; torch-tb-profiler's parser checks our profiler traces. --no-deps: their
# wheels would pull NumPy 2 (pandas and matplotlib come from apt, scripts/apt/profiler.txt).
if ! $PY -c "import tensorboard, google.protobuf, absl, torch_tb_profiler" 2>/dev/null; then
  $PY -m pip install --quiet --no-deps "tensorboard==2.21.0" "protobuf==7.36.2" "absl-py==2.5.1" \
    "torch-tb-profiler==0.4.3" ||
    echo "note: tensorboard not installed; tensorcore.utils.tensorboard and its tests are unavailable"
fi

# ONNX export (tc.onnx) writes through the onnx package; its tests run the files in onnxruntime.
# --no-deps: NumPy stays Debian's (both wheels work with 1.24; protobuf comes from above).
if ! $PY -c "import onnx, onnxruntime" 2>/dev/null; then
  $PY -m pip install --quiet --no-deps "onnx==1.17.0" "onnxruntime==1.20.1" ||
    echo "note: onnx/onnxruntime not installed; tc.onnx.export and its tests are unavailable"
fi

# Older checkouts built the extension into python/tensorcore and used it through a .pth file.
site=$($PY -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
rm -f "$site/tensorcore-dev.pth" python/tensorcore/_C*.so python/tensorcore/libtensorcore*.so
# Development links (docs/adding_ops.md) must not end up in the wheel twice.
for link in python/tensorcore/lib python/tensorcore/datasets python/tensorcore/pipelines; do
  if [ -L "$link" ]; then rm "$link"; fi
done

# `pip install .` builds the wheel (CMake + Ninja + ccache) and installs it into .venv. The build
# tree is build/, shared with the C++ tests (ctest --test-dir build) and the tools that link
# build/lib; an unchanged tree rebuilds nothing. --no-deps: NumPy is Debian's (never NumPy 2).
$PY -m pip install --no-build-isolation --no-deps -v \
  --config-settings=build-dir=build --config-settings=cmake.define.TC_TESTS=ON .
(cd /tmp && "$ROOT/$PY" -c "import tensorcore")
