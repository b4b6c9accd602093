#!/usr/bin/env bash
# Runs the test suite under a sanitizer: thread (ThreadSanitizer) or address (AddressSanitizer).
#
#   scripts/sanitize.sh thread      # builds into .build-tsan, then runs every test
#   scripts/sanitize.sh address     # builds into .build-asan, then runs every test
#
# Each sanitizer needs a build of its own (about 10 minutes from scratch on 2 cores). The
# DNS-SD tests need the loopback-only avahi-daemon: run scripts/start-services.sh first, or
# let scripts/test.sh call this (it does so under CI with `thread`). ThreadSanitizer reports
# that Swift's uninstrumented concurrency runtime causes are suppressed by
# scripts/tsan-suppressions.txt, which says why for each. Extra arguments go to `swift test`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

sanitizer="${1:?usage: $0 thread|address [swift test arguments]}"
shift
case "$sanitizer" in
    thread) scratch=.build-tsan ;;
    address) scratch=.build-asan ;;
    *) echo "sanitize.sh: unknown sanitizer $sanitizer (thread or address)" >&2; exit 2 ;;
esac

export TSAN_OPTIONS="suppressions=$PWD/scripts/tsan-suppressions.txt halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# LeakSanitizer is left off: the Swift runtime keeps metadata for the process's lifetime.
export ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}"

echo "sanitize.sh: building the tests with --sanitize=$sanitizer into $scratch"
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
echo "sanitize.sh: running the tests under the $sanitizer sanitizer"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
# At most four tests at a time: the sanitizer makes everything several times slower, and with
# every suite at once on two cores, tests that wait on real deadlines (a registration timeout,
# an external program's own 8-second wait) were starved past them. The plain run
# (scripts/test.sh) allows eight.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-4}"
env -u https_proxy -u HTTPS_PROXY -u all_proxy -u ALL_PROXY \
    swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --skip DaemonRestartTests "$@" 2>&1 |
    tee "$log" || status=$?
# A report does not always fail the run by itself (halt_on_error=0 lets every report show).
reports="$(grep -c -E '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer)' "$log" || true)"
echo "sanitize.sh: $sanitizer sanitizer: $reports report(s), swift test exit status $status"
if [[ "$reports" -ne 0 || "$status" -ne 0 ]]; then
    exit 1
fi
