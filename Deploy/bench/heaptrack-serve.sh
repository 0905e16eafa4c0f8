#!/usr/bin/env bash
# Profiles `scorecast serve` with heaptrack (apt-get install heaptrack zstd) under the benchmark:
#   SCORECAST_REAL=/path/to/scorecast HEAPTRACK_OUT=/tmp/profiles \
#     scorecast-bench run --parts 4 --scorecast Deploy/bench/heaptrack-serve.sh …
# Every other subcommand runs the real binary unchanged. Unlike /usr/bin/heaptrack (a shell that
# waits for its child, so the bench's SIGTERM would stop the shell and not serve), this execs
# serve with heaptrack's preload library: the bench's pid is serve itself, its SIGTERM reaches
# serve, and /proc RSS is serve's. heaptrack_interpret reads the fifo and finishes the file
# (HEAPTRACK_OUT/heaptrack.serve.<time>.<pid>.zst) after serve exits.
set -u
real=${SCORECAST_REAL:?set SCORECAST_REAL to the scorecast binary to run}
out=${HEAPTRACK_OUT:-/tmp/heaptrack-serve}
if [ "${1:-}" != "serve" ]; then exec "$real" "$@"; fi
mkdir -p "$out"
stamp=$(date -u +%H%M%S).$$
pipe="$out/fifo.$stamp"
mkfifo "$pipe" || exit 1
( /usr/lib/heaptrack/libexec/heaptrack_interpret <"$pipe" | zstd -q -c >"$out/heaptrack.serve.$stamp.zst"
  rm -f "$pipe" ) </dev/null >/dev/null 2>"$out/interpret.$stamp.log" &
echo "heaptrack: $out/heaptrack.serve.$stamp.zst" >&2
LD_PRELOAD=/usr/lib/heaptrack/libheaptrack_preload.so DUMP_HEAPTRACK_OUTPUT="$pipe" exec "$real" "$@"
