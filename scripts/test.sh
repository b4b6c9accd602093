#!/usr/bin/env bash
# The one test command: installs what the tests need, starts a loopback-only avahi-daemon for
# the DNS-SD tests (scripts/start-services.sh), builds, runs the unit and integration
# tests (`swift test`), under CI runs them again with ThreadSanitizer (scripts/sanitize.sh)
# and checks the DocC catalogs (scripts/docs.sh), then runs the example binaries end to end.
#
#   scripts/test.sh                      # everything
#   scripts/test.sh --filter Listener    # extra arguments go to `swift test`
#
# Exits non-zero if anything failed. The last line of standard output is always
# `e2e: N passed, N failed`, for CI to count.
set -euo pipefail

# Run from the repository root, wherever we were called from.
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The end-to-end checks (functions below), and how many have passed so far. A check that
# never ran (the script stopped early) counts as failed.
e2e_checks=(check_round_trip check_long_line check_graceful_shutdown check_refused)
passed=0
workdir="$(mktemp -d)"
source scripts/lib.sh

# On any exit, even an early one: stop the server we started (by its PID only), remove our
# scratch files, and print the summary line CI counts.
cleanup() {
    stop_server
    bash scripts/stop-services.sh "$workdir/services" || true
    rm -rf "$workdir"
    echo "e2e: $passed passed, $((${#e2e_checks[@]} - passed)) failed"
}
trap cleanup EXIT

bash scripts/install-deps.sh test
# The system account that dante's SOCKS5 password tests authenticate as (root only).
bash scripts/proxy-test-user.sh

# Tasks follow the proxy variables by default, but the tests and the examples below talk to
# peers on loopback directly (the proxy tests configure their own proxies), whatever proxy this
# shell was told to use.
run_without_proxy_variables() {
    env -u https_proxy -u HTTPS_PROXY -u all_proxy -u ALL_PROXY "$@"
}

# --- Build and unit tests ------------------------------------------------------------------
# A failure here is remembered rather than fatal, so the end-to-end checks still run and
# report; the script's exit status reflects both.
status=0

# The DNS-SD tests need the D-Bus system bus and avahi-daemon (loopback only). What is started
# here is stopped again on exit; a daemon that was already running is used and left alone.
if ! bash scripts/start-services.sh --state "$workdir/services"; then
    echo "test.sh: could not start avahi-daemon; the DNS-SD tests will fail" >&2
    status=1
fi
if ! swift build --build-tests; then
    echo "test.sh: swift build --build-tests failed" >&2
    status=1
elif ! run_without_proxy_variables swift test --skip DaemonRestartTests "$@"; then
    echo "test.sh: swift test failed" >&2
    status=1
fi
# Restarting avahi-daemon under a running browse would disturb the other DNS-SD tests, so that
# test runs on its own, told which daemon this script started (and so may restart).
if [[ $# -eq 0 ]]; then
    if ! grep -q '^avahi-daemon ' "$workdir/services" 2>/dev/null; then
        echo "test.sh: NOT RUN: DaemonRestartTests. avahi-daemon was running before this script, so it is" >&2
        echo "test.sh: not ours to restart; stop it and run scripts/test.sh again to run that test." >&2
        [[ -n "${CI:-}" ]] && status=1
    elif ! STK_SERVICES_STATE="$workdir/services" run_without_proxy_variables \
        swift test --skip-build --filter DaemonRestartTests; then
        echo "test.sh: the avahi-daemon restart test failed" >&2
        status=1
    fi
fi

# --- Sanitizers ---------------------------------------------------------------------------------
# Under CI (or with STK_SANITIZE=thread|address) the whole suite runs again under a sanitizer,
# in a build of its own; CI runs ThreadSanitizer every time. (`scripts/sanitize.sh address`
# runs AddressSanitizer the same way.)
sanitizer="${STK_SANITIZE:-}"
[[ -z "$sanitizer" && -n "${CI:-}" && $# -eq 0 ]] && sanitizer=thread
if [[ -n "$sanitizer" ]] && ! bash scripts/sanitize.sh "$sanitizer"; then
    echo "test.sh: the suite failed under the $sanitizer sanitizer" >&2
    status=1
fi

# --- Documentation -------------------------------------------------------------------------------
# Under CI (or with STK_DOCS=1) both DocC catalogs are built, and a warning (a link that does
# not resolve, or names more than one overload) fails the run.
if [[ ( -n "${CI:-}" || -n "${STK_DOCS:-}" ) && $# -eq 0 ]] && ! bash scripts/docs.sh; then
    echo "test.sh: the DocC catalogs have warnings" >&2
    status=1
fi

# --- End to end: the echo examples -----------------------------------------------------------
pass() { echo "e2e: PASS $1"; passed=$((passed + 1)); }
fail() { echo "e2e: FAIL $1" >&2; }

server=.build/debug/echo-server
client=.build/debug/echo-client

# Bounds every client run, so a hang fails the check instead of stalling CI.
run_client() { run_without_proxy_variables timeout 30 "$client" "$@"; }

# Three lines in, the same three lines out, and the count on stderr.
check_round_trip() {
    printf 'hello\nsecond line\n  spaces and \ttabs  \n' >"$workdir/input"
    run_client --port "$port" <"$workdir/input" >"$workdir/output" 2>"$workdir/client.err" &&
        cmp -s "$workdir/input" "$workdir/output" &&
        grep -qx 'echoed 3 lines' "$workdir/client.err"
}

# A line longer than the server's 4096-byte limit ends that connection only: the client fails,
# and the server goes on serving others.
check_long_line() {
    head -c 5000 /dev/zero | tr '\0' x >"$workdir/long"
    echo >>"$workdir/long"
    ! run_client --port "$port" <"$workdir/long" >/dev/null 2>&1 &&
        [[ "$(echo again | run_client --port "$port" 2>/dev/null)" == again ]]
}

# SIGTERM shuts the server down gracefully: with no connection open it exits 0 at once (we
# allow 10 s).
check_graceful_shutdown() {
    kill -TERM "$server_pid"
    for _ in $(seq 100); do
        if ! is_running "$server_pid"; then
            local code=0
            wait "$server_pid" || code=$?
            server_pid=""
            return "$code"
        fi
        sleep 0.1
    done
    return 1
}

# With nothing listening, the client prints the library's error and exits non-zero.
check_refused() {
    ! run_client --port "$port" </dev/null >/dev/null 2>"$workdir/refused.err" &&
        grep -q 'StreamTaskError.connectionRefused' "$workdir/refused.err"
}

# Build the two products explicitly: `--build-tests` above may have failed before linking them.
if swift build --product echo-server && swift build --product echo-client &&
    start_server "$server" "$workdir/server.out" "$workdir/server.err"; then
    for check in "${e2e_checks[@]}"; do
        if "$check"; then pass "$check"; else fail "$check"; fi
    done
else
    for check in "${e2e_checks[@]}"; do fail "$check"; done
fi

if [[ $passed -ne ${#e2e_checks[@]} ]]; then
    status=1
fi
exit "$status" # the EXIT trap prints the summary line last
