#!/usr/bin/env bash
# Stops what `scripts/start-services.sh --state FILE` started, by the PIDs noted in FILE, in
# reverse order, and nothing else: a daemon that was already running is left alone.
#
#   scripts/stop-services.sh FILE
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh

state="${1:?usage: $0 STATE-FILE}"
[[ -s "$state" ]] || exit 0

as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
    as_root=(sudo)
fi
root() { ${as_root[@]+"${as_root[@]}"} "$@"; }

# Stops process $2 (named $1 in messages) with SIGTERM and waits for it (at most 10 s).
stop_pid() {
    local name="$1" pid="$2"
    is_running "$pid" || return 0
    # The PID must still be the daemon we started: if it died and the PID was reused, the
    # process there now is someone else's.
    local command
    command="$(ps -o comm= -p "$pid" 2>/dev/null || true)"
    if [[ "$command" != "$name"* ]]; then
        echo "stop-services: pid $pid is no longer $name (it is \"$command\"); leaving it alone" >&2
        return 0
    fi
    root kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
        is_running "$pid" || { echo "stop-services: stopped $name (pid $pid)"; return 0; }
        sleep 0.1
    done
    echo "stop-services: $name (pid $pid) did not stop" >&2
    return 1
}

status=0
while read -r what pid; do
    case "$what" in
        avahi-daemon | dbus-daemon) stop_pid "$what" "$pid" || status=1 ;;
        lo-multicast) root ip link set lo multicast off && echo "stop-services: switched multicast off for lo" ;;
    esac
done < <(tac "$state")
: >"$state"

if ! mdns_only_on_loopback; then
    echo "stop-services: the mDNS group is joined on an interface other than lo (by a daemon not started here)" >&2
fi
exit "$status"
