#!/usr/bin/env bash
# Builds every fuzz target (clang, libFuzzer, ASan+UBSan) and runs each for a bounded time on
# generated seeds. CI runs it after the tests: tests/fuzz/run_all.sh 15
# The audio and video targets link the libtensorcore.so built by scripts/setup.sh.
# Usage: run_all.sh [seconds per target, default 60] [work dir, default /tmp/tc_fuzz]
# FUZZ_ONLY="jpeg png" builds and runs only the named targets (default: all of them).
# FUZZ_EXTRA_FLAGS adds libFuzzer flags to every run; CI uses "-seed=1 -runs=N" in a fresh work
# dir so its runs are reproducible (a failure there is a real regression, not luck).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-60}
WORK=${2:-/tmp/tc_fuzz}
mkdir -p "$WORK"
CXX_FUZZ="clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I."
LIBTC="-Lbuild/lib -ltensorcore -Wl,-rpath,$PWD/build/lib"
PY=${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}
status=0

wanted() { [ -z "${FUZZ_ONLY:-}" ] || [[ " $FUZZ_ONLY " == *" $1 "* ]]; }

run() {  # name, extra libFuzzer flags..., then corpus dirs after "--"
  local name=$1; shift
  local flags=() dirs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  dirs=("$@")
  mkdir -p "$WORK/corpus_$name"
  echo "== fuzz_$name for ${SECS}s"
  if ! "$WORK/fuzz_$name" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$WORK/crash_${name}_" ${FUZZ_EXTRA_FLAGS:-} "${flags[@]}" \
      "$WORK/corpus_$name" "${dirs[@]}" > "$WORK/$name.log" 2>&1; then
    echo "fuzz_$name FAILED:"; tail -n 40 "$WORK/$name.log"; status=1
  else
    grep -E "stat::number_of_executed_units|Done" "$WORK/$name.log" | tail -n 2
  fi
}

# Serialization formats (standalone: no tensors involved).
for t in safetensors pt; do
  wanted $t && $CXX_FUZZ tests/fuzz/fuzz_$t.cpp tensorcore/serialize/*.cpp -o "$WORK/fuzz_$t"
done
wanted safetensors && run safetensors -max_len=4096 -dict=tests/fuzz/safetensors.dict --
wanted pt && run pt -max_len=8192 -dict=tests/fuzz/pt.dict --

# Image decoders (standalone codec sources), seeded with every JPEG/PNG kind the tests cover.
IMAGE_CODEC="io/image/jpeg_codec.cpp io/image/png_codec.cpp io/image/exif.cpp"
if wanted jpeg || wanted png; then "$PY" tests/fuzz/make_image_corpus.py "$WORK/seeds_image"; fi
for t in jpeg png; do
  wanted $t || continue
  $CXX_FUZZ tests/fuzz/fuzz_$t.cpp $IMAGE_CODEC -ljpeg -lpng -o "$WORK/fuzz_$t"
  run $t -max_len=65536 -- "$WORK/seeds_image/$t"
done

# Video reader.
if wanted video; then
$CXX_FUZZ tests/fuzz/fuzz_video.cpp io/video/*.cpp $LIBTC \
  $(pkg-config --cflags --libs libavformat libavcodec libswscale libswresample libavutil) \
  -o "$WORK/fuzz_video"
mkdir -p "$WORK/seeds_video"
ffmpeg -loglevel error -y -f lavfi -i testsrc=s=32x24:r=10:d=0.6 -f lavfi -i sine=d=0.6 \
  -c:v libx264 -g 3 -c:a aac "$WORK/seed.mp4"
for sel in 0 1 2; do { printf "\\x0$sel"; cat "$WORK/seed.mp4"; } > "$WORK/seeds_video/mp4_$sel"; done
run video -max_len=32768 -- "$WORK/seeds_video"
fi

# Audio loader (libsox is not instrumented; its known leaks are not ours).
if wanted audio; then
$CXX_FUZZ tests/fuzz/fuzz_audio.cpp io/audio/*.cpp $LIBTC -lsox -lFLAC -o "$WORK/fuzz_audio"
tests/fuzz/make_audio_seeds.sh "$WORK/seeds_audio"
ASAN_OPTIONS=detect_leaks=0:suppressions=tests/fuzz/audio_asan_suppressions.txt \
  run audio -max_len=8192 -- "$WORK/seeds_audio"
fi

# FLAC through libFLAC (audio::load's own path), seeded with the FLAC files of every sample size
# and block size; the same suppressions (info still goes through libsox).
if wanted flac; then
$CXX_FUZZ tests/fuzz/fuzz_flac.cpp io/audio/*.cpp $LIBTC -lsox -lFLAC -o "$WORK/fuzz_flac"
mkdir -p "$WORK/seeds_flac"
sox -n -r 8000 -c 2 -b 16 "$WORK/flac_src.wav" synth 0.4 sine 300 sine 500
for spec in "8:0" "16:0" "16:8" "24:5"; do
  sox "$WORK/flac_src.wav" -b "${spec%%:*}" -C "${spec#*:}" "$WORK/flac_seed.flac"
  sox "$WORK/flac_src.wav" -b "${spec%%:*}" -C "${spec#*:}" -c 1 "$WORK/flac_seed_mono.flac"
  for sel in 0 1 $((0x93)) $((0x2a)); do
    for f in flac_seed flac_seed_mono; do
      { printf "\\x$(printf %02x $sel)"; cat "$WORK/$f.flac"; } > "$WORK/seeds_flac/${f}_${spec/:/_}_$sel"
    done
  done
done
ASAN_OPTIONS=detect_leaks=0:suppressions=tests/fuzz/audio_asan_suppressions.txt \
  run flac -max_len=16384 -- "$WORK/seeds_flac"
fi

exit $status
