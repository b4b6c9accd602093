#!/usr/bin/env bash
# Starts what the DNS-SD tests and the demo talk to, loopback only: the D-Bus system bus and
# avahi-daemon.
#
#   scripts/start-services.sh                 # start what is missing and leave it running
#   scripts/start-services.sh --state FILE    # also note in FILE what was started, so that
#                                             # scripts/stop-services.sh FILE stops exactly that
#   scripts/start-services.sh --any-interface # the demo: an avahi-daemon that already runs is
#                                             # used whatever interfaces it uses
#
# Installs nothing (scripts/install-deps.sh does). An avahi-daemon that is already running is
# used as it is when it keeps to loopback; one on other interfaces (the default on a Debian or
# Ubuntu desktop) is refused, since the tests' services would be announced on the network,
# unless --any-interface says that is wanted (a chat on a LAN is advertised there; the user
# runs that daemon already). One started here always runs with scripts/avahi/avahi-daemon.conf,
# which allows only the loopback interface, never with the system's configuration. Needs root
# (uses sudo otherwise).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
config="$PWD/scripts/avahi/avahi-daemon.conf"
source scripts/lib.sh

state=/dev/null
any_interface=""
while [[ $# -gt 0 ]]; do
    if [[ "$1" == "--state" && -n "${2:-}" ]]; then
        state="$2"
        : >>"$state"
        shift 2
    elif [[ "$1" == "--any-interface" ]]; then
        any_interface=yes
        shift
    else
        echo "usage: $0 [--state FILE] [--any-interface]" >&2
        exit 2
    fi
done

as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
    as_root=(sudo)
fi
root() { ${as_root[@]+"${as_root[@]}"} "$@"; }

for tool in avahi-daemon avahi-browse dbus-daemon dbus-send ip; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "start-services: $tool is missing; run scripts/install-deps.sh first" >&2
        exit 1
    fi
done

# --- An avahi-daemon already running is used as it is --------------------------------------
if avahi-daemon --check 2>/dev/null; then
    if ! mdns_only_on_loopback && [[ -n "$any_interface" ]]; then
        echo "start-services: using the avahi-daemon already running (pid $(cat /run/avahi-daemon/pid 2>/dev/null || echo '?')) on this machine's interfaces: what is advertised through it can be found on the network"
        exit 0
    fi
    if ! mdns_only_on_loopback; then
        # The tests register and browse services: on that daemon they would be announced on
        # the network. Refuse rather than leak; stopping it is not ours to do.
        echo "start-services: an avahi-daemon is already running (not started here) and uses interfaces other than lo;" >&2
        echo "start-services: the DNS-SD tests must stay on loopback, so they will not use it. Stop it, or restart it" >&2
        echo "start-services: with scripts/avahi/avahi-daemon.conf (allow-interfaces=lo), then run the tests again." >&2
        exit 1
    fi
    echo "start-services: avahi-daemon is already running (pid $(cat /run/avahi-daemon/pid 2>/dev/null || echo '?')) on loopback only; using it"
    exit 0
fi

# --- Loopback multicast: mDNS needs it, and lo is the only interface our daemon uses ---------
if ! ip link show lo | grep -q MULTICAST; then
    root ip link set lo multicast on
    echo "lo-multicast" >>"$state"
    echo "start-services: switched multicast on for lo"
fi

# --- The D-Bus system bus, which avahi-daemon registers on -----------------------------------
bus_answers() {
    dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetId >/dev/null 2>&1
}
if ! bus_answers; then
    root mkdir -p /run/dbus
    # A bus that exited leaves its socket and pid file behind, and a pid file stops a new
    # dbus-daemon from starting.
    root rm -f /run/dbus/system_bus_socket /run/dbus/pid
    dbus_pid="$(root dbus-daemon --system --fork --print-pid)"
    echo "dbus-daemon $dbus_pid" >>"$state"
    echo "start-services: started the D-Bus system bus (dbus-daemon pid $dbus_pid)"
fi

# --- avahi-daemon, with our loopback-only configuration --------------------------------------
root avahi-daemon --daemonize --file "$config"
avahi_pid="$(cat /run/avahi-daemon/pid)"
echo "avahi-daemon $avahi_pid" >>"$state"
echo "start-services: started avahi-daemon (pid $avahi_pid) with $config"

# Ready once it answers on D-Bus (at most 10 s).
ready=false
for _ in $(seq 100); do
    if avahi-browse --all --terminate --parsable >/dev/null 2>&1; then
        ready=true
        break
    fi
    sleep 0.1
done
if ! $ready; then
    echo "start-services: avahi-daemon (pid $avahi_pid) does not answer on D-Bus" >&2
    exit 1
fi

# The whole point of the configuration: mDNS on lo and nowhere else.
if ! mdns_only_on_loopback; then
    echo "start-services: avahi-daemon joined the mDNS group on an interface other than lo; stopping it" >&2
    root kill "$avahi_pid"
    exit 1
fi
if [[ "$state" == /dev/null ]]; then
    echo "start-services: stop them with: kill $avahi_pid${dbus_pid:+ $dbus_pid}"
fi
