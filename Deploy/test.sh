#!/usr/bin/env bash
# The README's second command: installs what the tests need and runs every test.
# Tests start their own Postgres (unless SCORECAST_TEST_DATABASE_URL is given) and their own
# APNs simulator; nothing else needs to be running.
set -euo pipefail
cd "$(dirname "$0")/.."
Deploy/setup.sh --tests
swift test "$@"
