#!/usr/bin/env bash
# Checks the demo on a machine whose avahi-daemon already runs on a network interface, as on a
# Debian or Ubuntu desktop, without touching this machine's network: in a mount and network
# namespace of its own, it starts a D-Bus system bus and an avahi-daemon limited to a veth
# pair that exists only there (198.18.250.0/30, RFC 2544's benchmarking range), then:
# - scripts/start-services.sh, as the tests call it, refuses that daemon (the tests' services
#   must not be announced on a network);
# - scripts/demo.sh uses it: the server listens where the daemon advertises it, and the client
#   finds it, upgrades and registers.
# Multicast DNS goes out only on the namespace's own veth. Needs root and unshare (util-linux).
# Exits non-zero, saying why, if either does not hold.
#
#   scripts/check-demo-with-lan-daemon.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ "$(id -u)" -ne 0 ]] || ! command -v unshare >/dev/null; then
    echo "check-demo-with-lan-daemon: needs root and unshare" >&2
    exit 1
fi

# Everything below runs in the new namespaces, which end with the shell: the veth pair, the bus
# and the daemon go with them (the daemon and bus are also stopped by PID first).
exec unshare --mount --net --fork --propagation private bash -c '
set -euo pipefail
work="$(mktemp -d)"
# A /run of our own: the bus and the daemon keep their sockets and PID files there, apart
# from any this machine runs.
mount -t tmpfs stk-demo-run /run
mkdir -p /run/dbus /run/avahi-daemon
chown avahi:avahi /run/avahi-daemon 2>/dev/null || true

ip link set lo up
ip link add stkdemo0 type veth peer name stkdemo1
ip addr add 198.18.250.1/30 dev stkdemo0
ip addr add 198.18.250.2/30 dev stkdemo1
ip link set stkdemo0 up
ip link set stkdemo1 up

pids=()
stop() {
    for pid in ${pids[@]+"${pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap stop EXIT

dbus-daemon --system --fork --print-pid >"$work/dbus.pid"
pids+=("$(cat "$work/dbus.pid")")
# Like a desktop'"'"'s daemon: on a network interface (here the namespace'"'"'s veth), not lo.
cat >"$work/avahi.conf" <<CONF
[server]
allow-interfaces=stkdemo0
use-ipv4=yes
use-ipv6=no
enable-dbus=yes
[wide-area]
enable-wide-area=no
[publish]
publish-addresses=yes
publish-hinfo=no
publish-workstation=no
[reflector]
enable-reflector=no
CONF
avahi-daemon --daemonize --file "$work/avahi.conf"
for _ in $(seq 100); do
    avahi-browse --all --terminate --parsable >/dev/null 2>&1 && break
    sleep 0.1
done
pids+=("$(cat /run/avahi-daemon/pid)")

# The tests refuse a daemon on other interfaces than lo.
if bash scripts/start-services.sh >"$work/tests.out" 2>&1; then
    echo "check-demo-with-lan-daemon: start-services.sh took a daemon on a network interface for the tests" >&2
    cat "$work/tests.out" >&2
    exit 1
fi
grep -q "uses interfaces other than lo" "$work/tests.out"

# The demo uses it, and the client finds the server through it.
bash scripts/demo.sh </dev/null >"$work/demo.out" 2>&1 || true
for expected in "using the avahi-daemon already running" "chat-server listens on every interface" "registered as demo"; do
    if ! grep -q "$expected" "$work/demo.out"; then
        echo "check-demo-with-lan-daemon: the demo did not say \"$expected\"; it said:" >&2
        cat "$work/demo.out" >&2
        exit 1
    fi
done
echo "check-demo-with-lan-daemon: the tests refuse the daemon on the network interface, and the demo uses it"
'
