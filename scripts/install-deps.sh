#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages that one use of the project needs, if any is missing.
#
#   scripts/install-deps.sh demo    # what scripts/demo.sh needs: the DNS-SD daemon and library
#   scripts/install-deps.sh test    # what scripts/test.sh needs (the default): the demo's, and
#                                   # the real peers the tests talk to
#   scripts/install-deps.sh bench   # what scripts/bench.sh needs on top: iperf3, perf, valgrind
#
# Idempotent: when every package is already installed it does nothing (no apt-get update, no
# sudo). Otherwise it runs `apt-get update` once and installs only the missing packages.
# Uses sudo only when not running as root.
set -euo pipefail

# The packages each use needs, one per line. Add new ones here.
DEMO_PACKAGES=(
    procps   # pgrep/pkill/ps for checking on background processes
    avahi-daemon                  # the mDNS/DNS-SD daemon (started on loopback only by scripts/start-services.sh)
    libavahi-compat-libdnssd-dev  # dns_sd.h and libdns_sd, which the StreamTaskDNSSD module builds on
    dbus                          # the system bus avahi-daemon needs
    iproute2                      # `ip link set lo multicast on` for mDNS on loopback; `ip netns`/veth for the route tests
)
TEST_PACKAGES=(
    "${DEMO_PACKAGES[@]}"
    socat    # a scriptable TCP peer for end-to-end tests
    python3  # helper peers and scripts in tests; scripts/check-samples.py
    openssl  # test certificates and a TLS peer (`openssl s_server`)
    python3-aiosmtpd  # a real SMTP server offering STARTTLS, for the TLS tests
    tinyproxy-bin # tinyproxy, an HTTP CONNECT proxy for the proxy tests (the binary only, no service)
    dante-server  # danted, a SOCKS5 proxy for the proxy tests (they start their own)
    stunnel4      # TLS in front of tinyproxy: an HTTPS proxy for the proxy tests
    avahi-utils   # avahi-browse and avahi-publish, to cross-check the DNS-SD module
    ngircd  # a real IRC server the chat client is tested against (the tests start their own)
    irssi   # a real IRC client the chat server is tested against
    tmux    # drives irssi's and chat-client's terminal UI in the tests
    python3-websockets  # a real WebSocket server for the data-task tests (upgrade, then raw frames)
)
BENCH_PACKAGES=(
    "${TEST_PACKAGES[@]}"
    iperf3      # the benchmarks' TCP baseline (scripts/bench.sh runs its own `iperf3 -s -1`; no daemon)
    linux-perf  # profiling where a benchmark misses its goal (`perf record`, `perf stat`)
    valgrind    # callgrind, the instruction-counting profiler, when perf has no counters
)

case "${1:-test}" in
demo) PACKAGES=("${DEMO_PACKAGES[@]}") ;;
test) PACKAGES=("${TEST_PACKAGES[@]}") ;;
bench) PACKAGES=("${BENCH_PACKAGES[@]}") ;;
*)
    echo "usage: scripts/install-deps.sh [demo|test|bench]" >&2
    exit 2
    ;;
esac

# A package counts as installed when dpkg says so ("ii"); a command of the same name found
# elsewhere on PATH (say, a pyenv python3) does not count.
is_installed() {
    [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" == ii* ]]
}

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: not a Debian/Ubuntu system (no dpkg/apt-get); install these yourself if missing: ${PACKAGES[*]}" >&2
    exit 0
fi

missing=()
for package in "${PACKAGES[@]}"; do
    if ! is_installed "$package"; then
        missing+=("$package")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps: all present (${PACKAGES[*]})"
    exit 0
fi

# Root runs apt-get directly; anyone else goes through sudo.
as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "install-deps: missing ${missing[*]}, and not root and no sudo to install them" >&2
        exit 1
    fi
    as_root=(sudo)
fi

# No package may start its service: avahi-daemon's would announce this machine on every
# network interface, and ngircd's would take port 6667 from the chat demo. While apt-get runs, a
# policy-rc.d (unless the system already has one) tells the packages not to start services;
# scripts/start-services.sh starts avahi-daemon later with the project's loopback-only config,
# and the tests start their own ngircd.
policy=/usr/sbin/policy-rc.d
if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\n# install-deps.sh: no service starts while it installs packages\nexit 101\n' |
        ${as_root[@]+"${as_root[@]}"} tee "$policy" >/dev/null
    ${as_root[@]+"${as_root[@]}"} chmod 755 "$policy"
    trap '${as_root[@]+"${as_root[@]}"} rm -f "$policy"' EXIT
fi

echo "install-deps: installing ${missing[*]}"
${as_root[@]+"${as_root[@]}"} apt-get update
${as_root[@]+"${as_root[@]}"} env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
