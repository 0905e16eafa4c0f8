#!/usr/bin/env bash
# The README's second command: installs what the tests need and runs every test.
#
# Tests start their own Postgres (unless SCORECAST_TEST_DATABASE_URL is given) and their own
# APNs simulator; nothing else needs to be running. Each test target runs as its own
# `swift test` process, one after another: inside a target tests run in parallel, and keeping
# targets apart keeps a 2-core machine from running hundreds of network tests at once.
#
#   Deploy/test.sh                 every target
#   Deploy/test.sh PostgresTests   only the targets named
set -uo pipefail
cd "$(dirname "$0")/.."
Deploy/setup.sh --tests || exit 1

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  # Every test target: each folder of Tests/ named *Tests (TestSupport is a helper library).
  for folder in Tests/*Tests; do targets+=("$(basename "$folder")"); done
fi

failed=()
passed_tests=0
failed_tests=0
# The format lint (Deploy/lint.sh, ~15 s) runs first; a finding fails CI like a failing target.
if [ $# -eq 0 ]; then
  echo "== lint"
  Deploy/lint.sh || failed+=("lint")
fi
for target in "${targets[@]}"; do
  echo "== $target"
  log=$(mktemp)
  swift test --skip-build --filter "^${target}\\." 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  summary=$(grep -E "Test run with [0-9]+ tests?" "$log" | tail -1)
  count=$(sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p' <<<"$summary")
  if [ "$status" -ne 0 ]; then
    failed+=("$target")
    issues=$(grep -cE "^✘ Test .* failed" "$log")
    failed_tests=$((failed_tests + issues))
    passed_tests=$((passed_tests + ${count:-0} - issues))
  else
    passed_tests=$((passed_tests + ${count:-0}))
  fi
  rm -f "$log"
done

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "failing targets: ${failed[*]}"
fi
echo "$passed_tests passed, $failed_tests failed"
[ ${#failed[@]} -eq 0 ]
