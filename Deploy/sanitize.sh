#!/usr/bin/env bash
# The sanitizer job: the test targets over our C interop (libpq, libcurl, libmicrohttpd,
# nghttp2 + OpenSSL, posix_spawn), built and run once under ThreadSanitizer and once under
# AddressSanitizer. Any report fails it, as does a run that crashes or hangs. Deploy/test.sh
# runs it after the normal suite.
#
#   Deploy/sanitize.sh                   both sanitizers
#   Deploy/sanitize.sh thread            one of them (thread or address)
#
# Each sanitizer needs a build of its own (in .build/sanitize-<name>, reused by the next run);
# that build is most of the cost, so only the targets whose modules call C are built, not the
# application (docs/contributing.md, "Sanitizers", has the measured times). ThreadSanitizer's known false
# positives on Linux are suppressed, one type or function each, in Deploy/tsan-suppressions.txt.
set -uo pipefail
cd "$(dirname "$0")/.."

sanitizers=("$@")
[ ${#sanitizers[@]} -eq 0 ] && sanitizers=(thread address)

# The modules with C interop, through their own test targets:
#   ChildProcesses (posix_spawn, wait4), ScorecastCrypto (OpenSSL), CurlHTTP (libcurl easy),
#   HTTPServer (libmicrohttpd), Postgres (libpq), APNsSimulator (nghttp2 + OpenSSL),
#   APNs (libcurl multi, HTTP/2).
targets=(ChildProcessesTests ScorecastCryptoTests CurlHTTPTests HTTPServerTests PostgresTests APNsSimulatorTests APNsTests)

# A target that runs past this is stopped and fails (instrumented code runs several times slower).
limit=${SCORECAST_SANITIZER_TARGET_LIMIT_SECONDS:-900}

# halt_on_error=0 + exitcode: every report is printed, then the run fails.
export TSAN_OPTIONS="suppressions=$PWD/Deploy/tsan-suppressions.txt halt_on_error=0 exitcode=66 second_deadlock_stack=1"
# Leak checking off: the Swift runtime's metadata caches and the test runner's globals live until
# exit by design, and a leak is not memory unsafety; every other ASan check stays on.
export ASAN_OPTIONS="detect_leaks=0 halt_on_error=1"

# Only those targets and what they depend on are built: a package of its own, generated from
# Package.swift (Deploy/sanitize-package.py), over the same sources.
package=.build/sanitize-package
swift package dump-package | Deploy/sanitize-package.py "$package" "${targets[@]}" || exit 1

failed=()
for sanitizer in "${sanitizers[@]}"; do
  case "$sanitizer" in
    thread | address) ;;
    *) echo "usage: Deploy/sanitize.sh [thread|address]..." >&2; exit 2 ;;
  esac
  scratch=$PWD/.build/sanitize-$sanitizer
  echo "== build (--sanitize=$sanitizer)"
  started=$SECONDS
  # gold's "Cannot export local symbol '__asan_…'" warnings (hundreds of lines per link, harmless)
  # are left out of the log.
  if ! swift build --package-path "$package" --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" \
    > >(grep -v "Cannot export local symbol '__asan_") 2>&1; then
    failed+=("$sanitizer build")
    continue
  fi
  echo "-- built in $((SECONDS - started)) s"
  for target in "${targets[@]}"; do
    echo "== $target (--sanitize=$sanitizer)"
    started=$SECONDS
    log=$(mktemp)
    timeout --kill-after=30 "$limit" \
      swift test --package-path "$package" --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --filter "^${target}\\." >"$log" 2>&1
    status=$?
    reports=$(grep -cE "^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer)" "$log")
    # Tests' own lines are long; show the summary, and every sanitizer report in full.
    grep -E "Test run with|^✘" "$log" | tail -20
    sed -n '/^==================$/,/^==================$/p; /ERROR: AddressSanitizer/,/^==[0-9]*==ABORTING/p' "$log"
    finished=$(grep -cE "Test run with [0-9]+ tests?" "$log")
    echo "-- $target: exit $status, $reports sanitizer report(s), $((SECONDS - started)) s"
    # The verdict is the sanitizer's: a report, or a run that died or hung before its summary
    # (an ASan abort, a crash). A test that merely failed is the normal suite's business: under
    # instrumentation code runs several times slower, so tests with deadlines of a few hundred
    # milliseconds time out here on a loaded machine.
    if [ "$reports" -ne 0 ] || [ "$finished" -eq 0 ]; then failed+=("$target ($sanitizer)"); fi
    rm -f "$log"
  done
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "sanitizers: failing: ${failed[*]}"
  exit 1
fi
echo "sanitizers: clean (${sanitizers[*]})"
