#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs scorecast's demo on
# embedded defaults (a private Postgres and the built-in APNs simulator). Ctrl-C stops it all.
set -euo pipefail
cd "$(dirname "$0")/.."
Deploy/setup.sh
exec .build/release/scorecast demo "$@"
