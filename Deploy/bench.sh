#!/usr/bin/env bash
# scorecast's benchmark, one command: installs what it needs, builds release binaries, runs
# every part and writes .build/bench/results.md and .build/bench/results.json.
#
#   Deploy/bench.sh              full run (the memory run lasts 10 minutes; about 20 minutes in all)
#   Deploy/bench.sh --quick      short runs for iteration (memory run ~60 s; about 6 minutes)
#   Deploy/bench.sh --parts 1,2  only some parts (1 client vs h2load, 2 peer, 3 end to end,
#                                4 memory, 5 scaling, 6 kick-off fan-out, 7 a "Saturday" of matches);
#                                see `.build/release/scorecast-bench --help`
#
# All traffic stays on loopback; every load loop is bounded in count and time.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "bench: need root or sudo to install: $*" >&2; exit 1
  fi
}

missing=()
for package in $(cat Deploy/packages.txt Deploy/bench/packages.txt | grep -v '^\s*#' | grep -v '^\s*$'); do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench: installing ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

swift build -c release --product scorecast
swift build -c release --product scorecast-bench
mkdir -p .build/bench
exec .build/release/scorecast-bench run --scorecast .build/release/scorecast --scripts Deploy/bench "$@"
