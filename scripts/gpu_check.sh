#!/usr/bin/env bash
# Builds tensorcore with CUDA in a fresh build dir and runs the CUDA tests and benchmark on a
# machine with a GPU. No apt, no virtualenv: uses whatever python3 is on PATH (it needs numpy,
# pybind11 and pytest; torch is optional, for the benchmark's side-by-side numbers).
# Logs go to $OUT when set (else build-gpu/logs).
#   scripts/gpu_check.sh            build + tests + benchmarks
#   TC_SKIP_BENCH=1 scripts/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${TC_GPU_BUILD_DIR:-$ROOT/build-gpu}
LOGS=${OUT:-$BUILD/logs}
mkdir -p "$LOGS"
PY=$(command -v python3)
JOBS=$(nproc)
status=0

{
  echo "== $(date -u) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  "$PY" --version
} | tee "$LOGS/env.txt"

# The package's Python files are copied to a private folder and the extension is built into it
# (its RUNPATH finds the libraries in $BUILD/lib); PYTHONPATH puts it first.
PKG=$BUILD/pkg
rm -rf "$PKG" && mkdir -p "$PKG"
cp -r "$ROOT/python/tensorcore" "$PKG/"
rm -f "$PKG"/tensorcore/_C*.so "$PKG"/tensorcore/libtensorcore*.so

# One libstdc++ for the whole process: a toolchain that links it statically (e.g. a custom
# /opt/gcc) gives libtensorcore.so and _C.so private copies whose locale facets clash (crashes
# in ostream). Default to the system compiler; TC_CXX / TC_CC override.
CXX_BIN=${TC_CXX:-/usr/bin/g++}
CC_BIN=${TC_CC:-/usr/bin/gcc}
COMPILERS=()
if [ -x "$CXX_BIN" ] && [ -x "$CC_BIN" ]; then
  # check_language(CUDA) probes nvcc's host compiler from the environment, not from -D flags.
  export CUDAHOSTCXX="$CXX_BIN" CXX="$CXX_BIN" CC="$CC_BIN"
  COMPILERS=(-DCMAKE_CXX_COMPILER="$CXX_BIN" -DCMAKE_C_COMPILER="$CC_BIN" -DCMAKE_CUDA_HOST_COMPILER="$CXX_BIN")
fi

start=$(date +%s)
# Leave out areas whose system libraries this machine lacks (GPU boxes often have no FFmpeg/SoX).
SKIP=""
pkg-config --exists libavformat libavcodec libswscale libswresample libavutil 2>/dev/null || SKIP="${SKIP:+$SKIP;}videoio"
pkg-config --exists sox 2>/dev/null || SKIP="${SKIP:+$SKIP;}audio"
[ -n "$SKIP" ] && echo "leaving out areas without their libraries: $SKIP" | tee -a "$LOGS/env.txt"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTC_CUDA=ON -DTC_PYTHON=ON -DTC_SKIP_AREAS="$SKIP" \
  -DTC_TESTS=ON -DPython3_EXECUTABLE="$PY" -DTC_PY_OUTPUT_DIR="$PKG/tensorcore" "${COMPILERS[@]}" \
  > "$LOGS/configure.log" 2>&1 || { echo "configure failed"; tail -40 "$LOGS/configure.log"; exit 1; }
cmake --build "$BUILD" -j"$JOBS" > "$LOGS/build.log" 2>&1 || { echo "build failed"; grep -E "error|Error" "$LOGS/build.log" | head -40; exit 1; }
echo "build: $(( $(date +%s) - start )) s with $JOBS jobs" | tee "$LOGS/build_time.txt"
if ! ldd "$BUILD/lib/libtensorcore.so" | grep -q libstdc++; then
  echo "warning: libtensorcore.so links libstdc++ statically; Python may crash formatting numbers" | tee -a "$LOGS/build_time.txt"
fi

"$BUILD/tc_tests" --gtest_filter='Cuda*' 2>&1 | tee "$LOGS/gtest_cuda.log" | tail -25
[ "${PIPESTATUS[0]}" = 0 ] || status=1

export PYTHONPATH="$PKG${PYTHONPATH:+:$PYTHONPATH}"
"$PY" -m pytest -q --no-header -p no:cacheprovider tests/python/cuda 2>&1 | tee "$LOGS/pytest_cuda.log" | tail -30
[ "${PIPESTATUS[0]}" = 0 ] || status=1

# The profiler with ProfilerActivity.CUDA: kernel event timing and CUDA allocator records
# (tests/python/cuda/test_profiler_cuda.py ran above; CudaProfiler.* in the gtest run), and the
# profiler's own folder, whose tests then run against the CUDA build.
"$BUILD/tc_tests" --gtest_filter='Profiler*:CudaProfiler*' 2>&1 | tee "$LOGS/gtest_profiler.log" | tail -15
[ "${PIPESTATUS[0]}" = 0 ] || status=1
"$PY" -m pytest -q --no-header -p no:cacheprovider tests/python/profiler 2>&1 | tee "$LOGS/pytest_profiler.log" | tail -15
[ "${PIPESTATUS[0]}" = 0 ] || status=1

if [ "${TC_SKIP_BENCH:-0}" != 1 ]; then
  "$PY" benchmarks/bench_cuda.py 2>&1 | tee "$LOGS/bench_cuda.log"
  # The vision / nn kernels against torchvision (bench_vision_cuda imports bench_cuda's timer).
  (cd benchmarks && "$PY" bench_vision_cuda.py) 2>&1 | tee "$LOGS/bench_vision_cuda.log"
fi
exit $status
