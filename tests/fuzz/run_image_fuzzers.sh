#!/usr/bin/env bash
# Builds the image decoder fuzz targets (clang, libFuzzer, ASan+UBSan) and runs each for a
# bounded time on the generated test corpus. CI: tests/fuzz/run_image_fuzzers.sh 60
# Usage: run_image_fuzzers.sh [seconds per target, default 120] [work dir, default /tmp/tc_image_fuzz]
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_TARGET=${1:-120}
WORK=${2:-/tmp/tc_image_fuzz}
PY=${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}
mkdir -p "$WORK"
CODEC="tensorcore/io/image/jpeg_codec.cpp tensorcore/io/image/png_codec.cpp tensorcore/io/image/exif.cpp"
for t in jpeg png; do
  clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I. tests/fuzz/fuzz_$t.cpp $CODEC -ljpeg -lpng -o "$WORK/fuzz_$t"
done
"$PY" tests/fuzz/make_image_corpus.py "$WORK/seeds"
status=0
for t in jpeg png; do
  mkdir -p "$WORK/corpus_$t"
  echo "== fuzz_$t for ${SECONDS_PER_TARGET}s"
  # -timeout: a single input taking over 10 s counts as a hang; -rss_limit_mb caps memory.
  "$WORK/fuzz_$t" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$WORK/crash_${t}_" ${FUZZ_EXTRA_FLAGS:-} \
    "$WORK/corpus_$t" "$WORK/seeds/$t" 2>&1 | tail -n 25 || status=1
done
exit $status
