#!/usr/bin/env bash
# Writes seed inputs for fuzz_audio into DIR: short files of every format, made with the sox CLI,
# each prefixed with the selector byte fuzz_audio.cpp reads (format hint + call).
set -euo pipefail
out=${1:?usage: make_audio_seeds.sh DIR}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sox -n -r 8000 -c 2 -b 16 "$tmp/src.wav" synth 0.05 sine 300 sine 500
i=0
for spec in "wav:-b 8 -e unsigned" "wav:-b 16" "wav:-b 24" "wav:-e floating-point" "wav:-e u-law" \
            "wav:-e a-law" "flac:-b 16" "mp3:" "ogg:" "sph:-b 16" "au:-b 16"; do
  ext=${spec%%:*}; opts=${spec#*:}
  # shellcheck disable=SC2086
  sox "$tmp/src.wav" $opts "$tmp/seed$i.$ext"
  for sel in 0 8 16; do
    { printf "\\x$(printf %02x $sel)"; cat "$tmp/seed$i.$ext"; } > "$out/seed${i}_$sel"
  done
  i=$((i + 1))
done
sox "$tmp/src.wav" -r 8000 -c 1 "$tmp/a.amr-nb"
{ printf '\x06'; cat "$tmp/a.amr-nb"; } > "$out/seed_amr"
