#!/usr/bin/env bash
# Runs the vision / nn CUDA kernels' code on the host, without a GPU, against the CPU ops: each
# launch runs its blocks in turn, each block as blockDim.x std::threads with a std::barrier for
# __syncthreads and atomic adds (host stand-ins in inc/tensorcore/kernels/cuda/common.cuh). This
# checks index arithmetic, per-element math, barrier placement and atomics on the host; the GPU
# memory model, launch limits, occupancy and speed still need scripts/gpu_check.sh on a GPU.
# Needs a built build/lib/libtensorcore.so (scripts/setup.sh).
#   scripts/cuda_host_emulation/run.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
KERNELS="vision/cuda/transforms_cuda.cu vision/cuda/ops_cuda.cu
         vision/cuda/deform_cuda.cu vision/cuda/resize_cuda.cu
         tensorcore/kernels/cuda/nn_ops.cu tensorcore/kernels/cuda/random.cu"
for f in $KERNELS; do cp "$ROOT/$f" "$WORK/$(basename "$f" .cu).cpp"; done
# Each launch `kernel<T><<<grid, block, smem, stream>>>(args);` becomes
# `emu_launch(dim3(grid), dim3(block), [&] { kernel<T>(args); });`.
python3 - "$WORK" <<'PY'
import glob, sys
def split_top(text):
    parts, depth, cur = [], 0, ""
    for c in text:
        depth += c in "(<{[" and 1 or 0
        depth -= c in ")>}]" and 1 or 0
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    return parts + [cur]
for path in glob.glob(sys.argv[1] + "/*.cpp"):
    s = open(path).read()
    while "<<<" in s:
        i = s.index("<<<")
        end = i  # the kernel name, template arguments included (maybe on the line before)
        while s[end - 1].isspace():
            end -= 1
        j, depth = end - 1, 0
        while j >= 0 and (depth > 0 or not (s[j].isspace() or s[j] in "({;")):
            depth += s[j] == ">"
            depth -= s[j] == "<"
            j -= 1
        name = s[j + 1:end]
        k = s.index(">>>", i)
        grid, block = split_top(s[i + 3:k])[:2]
        a, depth = k + 3, 0
        e = a
        while True:
            depth += s[e] == "("
            depth -= s[e] == ")"
            e += 1
            if depth == 0:
                break
        s = (s[:j + 1] + "emu_launch(dim3(" + grid + "), dim3(" + block + "), [&] { " + name +
             s[a:e] + "; })" + s[e:])
    open(path, "w").write(s)
PY
LIB="$ROOT/build/lib"
g++ -std=gnu++20 -O1 -w -fopenmp -pthread -I"$HERE/inc" -I"$ROOT" "$HERE/check_kernels.cpp" "$WORK"/*.cpp \
  -o "$WORK/check_kernels" -L"$LIB" -ltensorcore_vision -ltensorcore_io -ltensorcore -Wl,-rpath,"$LIB"
"$WORK/check_kernels"
