#!/usr/bin/env bash
# Runs the vision / nn CUDA kernels' code on the host, without a GPU, against the CPU ops:
# every kernel becomes a plain function run as one thread of one block (grid-stride loops then
# cover all the work; the block-per-sample kernels are called once per block in turn), with a
# host stand-in for the CUDA helpers (inc/tensorcore/kernels/cuda/common.cuh). This checks the
# kernels' index arithmetic and per-element math, not their parallel behaviour (races, barriers,
# atomics, launch limits): that still needs scripts/gpu_check.sh on a GPU.
# Needs a built python/tensorcore/libtensorcore.so (scripts/setup.sh).
#   scripts/cuda_host_emulation/run.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
KERNELS="tensorcore/vision/cuda/transforms_cuda.cu tensorcore/vision/cuda/ops_cuda.cu
         tensorcore/vision/cuda/deform_cuda.cu tensorcore/nn/kernels_cuda.cu"
for f in $KERNELS; do
  # A launch `kernel<<<grid, block, 0, stream>>>(args)` becomes the call `kernel(args)`.
  sed -E 's/<<<[^>]*>>>\(/(/' "$ROOT/$f" > "$WORK/$(basename "$f" .cu).cpp"
done
# Kernels indexed by block (one block per sample / plane) run once per block.
python3 - "$WORK" <<'PY'
import sys
work = sys.argv[1]
def per_block(path, call, count):
    s = open(path).read()
    i = s.rindex(call + "(")  # the launch, after the definition
    j, depth = i, 0
    while True:
        c = s[j]
        depth += c == "("
        depth -= c == ")"
        if c == ";" and depth == 0:
            break
        j += 1
    s = (s[:i] + "for (unsigned emu_b = 0; emu_b < unsigned(" + count + "); ++emu_b) { "
         "blockIdx.x = emu_b; " + s[i:j + 1] + " } blockIdx.x = 0;" + s[j + 1:])
    open(path, "w").write(s)
per_block(f"{work}/kernels_cuda.cpp", "ctc_alpha_kernel<T>", "N")
per_block(f"{work}/kernels_cuda.cpp", "ctc_grad_kernel<T>", "N")
per_block(f"{work}/transforms_cuda.cpp", "equalize_kernel", "planes")
PY
LIB="$ROOT/python/tensorcore"
g++ -std=gnu++20 -O1 -w -fopenmp -I"$HERE/inc" -I"$ROOT" "$HERE/check_kernels.cpp" "$WORK"/*.cpp \
  -o "$WORK/check_kernels" -L"$LIB" -ltensorcore -Wl,-rpath,"$LIB"
"$WORK/check_kernels"
