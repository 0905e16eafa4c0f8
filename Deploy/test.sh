#!/usr/bin/env bash
# The README's second command: installs what the tests need and runs every test.
#
# Tests start their own Postgres (unless SCORECAST_TEST_DATABASE_URL is given) and their own
# APNs simulator; nothing else needs to be running. Each test target runs as its own
# `swift test` process, one after another: inside a target tests run in parallel, and keeping
# targets apart keeps a 2-core machine from running hundreds of network tests at once.
#
#   Deploy/test.sh                 lint, every target, then the sanitizer job (Deploy/sanitize.sh)
#   Deploy/test.sh PostgresTests   only the targets named
set -uo pipefail
cd "$(dirname "$0")/.."
Deploy/setup.sh --tests || exit 1

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  # Every test target: each folder of Tests/ named *Tests (TestSupport is a helper library).
  for folder in Tests/*Tests; do targets+=("$(basename "$folder")"); done
fi

# A target that runs past its limit is stopped and fails, naming the tests still running and
# (with gdb) every thread's stack: a hang must cost minutes and say where, never CI's 90.
# A hung target is run once more (a hang is a bug to fix from those stacks, but one rare hang
# should not cost a whole landing); a second hang fails it.
limit=${SCORECAST_TEST_TARGET_LIMIT_SECONDS:-600}

# Every process below `pid`, deepest last.
descendants() {
  local child
  for child in $(pgrep -P "$1"); do echo "$child"; descendants "$child"; done
}

# Tests that printed "started" and never "passed"/"failed" in `log`.
tests_in_flight() {
  comm -23 <(sed -nE 's/^◇ Test (.*) started\.$/\1/p' "$1" | sort) \
           <(sed -nE 's/^(✔|✘) Test (.*) (passed|failed) after .*/\2/p' "$1" | sort)
}

# run_target TARGET LOG: runs one target's tests, output line-buffered to the console and LOG.
run_target() {
  local target=$1 log=$2 started=$SECONDS pid
  # stdbuf: line-buffered output, so the log shows what ran up to a hang.
  stdbuf -oL -eL swift test --skip-build --filter "^${target}\\." >"$log" 2>&1 &
  pid=$!
  tail -f --pid="$pid" "$log" &
  local tailer=$!
  while kill -0 "$pid" 2>/dev/null; do
    if (( SECONDS - started > limit )); then
      echo "!! $target did not finish within ${limit}s (SCORECAST_TEST_TARGET_LIMIT_SECONDS); tests still running:"
      tests_in_flight "$log" | sed 's/^/!!   /'
      local process
      for process in $(descendants "$pid"); do
        # Our processes only (the test binary, `scorecast` children), not Postgres or tail.
        if command -v gdb >/dev/null && grep -q '^scorecast' /proc/"$process"/comm 2>/dev/null; then
          echo "!! threads of $(cat /proc/"$process"/comm) ($process):"
          gdb -p "$process" -batch -ex "thread apply all bt 12" 2>/dev/null | grep -E "^(Thread|#)" | head -400
        fi
      done
      kill -KILL $(descendants "$pid") "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      wait "$tailer" 2>/dev/null
      return 124
    fi
    sleep 2
  done
  wait "$pid"
  local status=$?
  wait "$tailer" 2>/dev/null
  return $status
}

failed=()
hung=()
passed_tests=0
failed_tests=0
# Every failing test's lines, printed again at the very end: CI shows only the tail of the
# output, and the sanitizer job's build log would otherwise push them out of it.
failures=$(mktemp)
# The format lint (Deploy/lint.sh, ~15 s) runs first; a finding fails CI like a failing target.
if [ $# -eq 0 ]; then
  echo "== lint"
  Deploy/lint.sh || failed+=("lint")
fi
for target in "${targets[@]}"; do
  echo "== $target"
  log=$(mktemp)
  run_target "$target" "$log"
  status=$?
  if [ "$status" -eq 124 ]; then
    hung+=("$target")
    echo "!! $target hung (stacks above); running it once more"
    run_target "$target" "$log"
    status=$?
    [ "$status" -eq 124 ] && echo "✘ Test $target (the whole target) failed after ${limit} seconds: hung twice." | tee -a "$log"
  fi
  summary=$(grep -E "Test run with [0-9]+ tests?" "$log" | tail -1)
  count=$(sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p' <<<"$summary")
  if [ "$status" -ne 0 ]; then
    failed+=("$target")
    # Tests that failed ("✘ Test run with …" is the target's summary, not a test).
    issues=$(grep -E "^✘ Test .* failed after" "$log" | grep -cv "^✘ Test run with")
    { echo "-- $target"; grep -E "^✘|^!! " "$log" | cut -c1-600 | head -80; } >>"$failures"
    failed_tests=$((failed_tests + issues))
    passed_tests=$((passed_tests + ${count:-0} - issues))
  else
    passed_tests=$((passed_tests + ${count:-0}))
  fi
  rm -f "$log"
done

# Then the sanitizer job: ThreadSanitizer and AddressSanitizer over the targets with C interop
# (Deploy/sanitize.sh; ~2 instrumented builds, see docs/contributing.md, "Sanitizers"). A report fails CI.
# SCORECAST_SANITIZE=0 skips it on a laptop.
if [ $# -eq 0 ] && [ "${SCORECAST_SANITIZE:-1}" != 0 ]; then
  echo "== sanitizers"
  Deploy/sanitize.sh || failed+=("sanitizers")
fi

echo
if [ -s "$failures" ]; then
  echo "failures (repeated from above):"
  cat "$failures"
  echo
fi
rm -f "$failures"
if [ ${#hung[@]} -gt 0 ]; then
  echo "hung once and run again: ${hung[*]}"
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "failing targets: ${failed[*]}"
fi
echo "$passed_tests passed, $failed_tests failed"
[ ${#failed[@]} -eq 0 ]
