#!/bin/bash
# The JSON module's writer and parser at two commits, in one sitting: each side is compiled with
# swiftc -O from that commit's Sources/JSON and timed on broadcast-shaped bodies, alternating.
# Usage: Deploy/bench/json-codec-ab.sh BEFORE AFTER [ROUNDS]   (prints µs per body and after ÷ before)
set -euo pipefail
before=${1:?usage: json-codec-ab.sh BEFORE AFTER [ROUNDS]}
after=${2:?usage: json-codec-ab.sh BEFORE AFTER [ROUNDS]}
rounds=${3:-5}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in before after; do
  rev=${!side}
  mkdir -p "$work/$side"
  git -C "$root" archive "$rev" Sources/JSON | tar -x -C "$work/$side"
  cp "$root/Deploy/bench/json_codec_driver.swift" "$work/$side/main.swift"  # top-level code needs main.swift
  swiftc -O -module-name JSONCodecBench "$work/$side"/Sources/JSON/*.swift "$work/$side/main.swift" -o "$work/$side/driver"
done
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in encode parse; do
  : > "$work/before.$mode"; : > "$work/after.$mode"
  for _ in $(seq "$rounds"); do
    for side in before after; do "$work/$side/driver" "$mode" | cut -d' ' -f1 >> "$work/$side.$mode"; done
  done
  b=$(median < "$work/before.$mode"); a=$(median < "$work/after.$mode")
  echo "$mode: before $before $b µs, after $after $a µs per body (medians of $rounds), after ÷ before $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
done
