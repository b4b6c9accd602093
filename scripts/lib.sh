# Shared by the demo and test scripts: start a server we own in the background, learn its port,
# and stop it again by its PID only. Source this file; it defines no traps of its own.

server_pid=""

# Whether process $1 is still running. (`kill -0` is not enough: it also succeeds on a child
# that has exited but has not been waited for yet.)
is_running() {
    local state
    state="$(ps -o stat= -p "$1" 2>/dev/null)" && [[ "$state" != Z* ]]
}

# start_server BINARY OUT ERR [ARGS...]: runs BINARY --port 0 ARGS in the background, output to
# OUT and ERR, and sets $port from its `listening on HOST:PORT` line (at most 30 s).
start_server() {
    local binary="$1" out="$2" err="$3"
    shift 3
    : >"$out" # exists before the loop below reads it
    "$binary" --port 0 "$@" >"$out" 2>"$err" &
    server_pid=$!
    port=""
    for _ in $(seq 300); do
        port="$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$out")"
        [[ -n "$port" ]] && return 0
        is_running "$server_pid" || break # it exited: no point waiting
        sleep 0.1
    done
    echo "$(basename "$binary") did not report its port; its stderr:" >&2
    cat "$err" >&2
    return 1
}

# Stops the server we started, if it is still there.
stop_server() {
    if [[ -n "$server_pid" ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}

# Whether the mDNS multicast group (224.0.0.251, FB0000E0 in /proc/net/igmp) is joined on no
# interface other than lo: the DNS-SD tests must not announce anything beyond this machine.
mdns_only_on_loopback() {
    # IPv4: group 224.0.0.251 (FB0000E0) in /proc/net/igmp; IPv6: ff02::fb in /proc/net/igmp6.
    ! awk '/^[0-9]/ { iface = $2 } /FB0000E0/ && iface != "lo" { found = 1 } END { exit !found }' /proc/net/igmp &&
        ! awk '$3 == "ff0200000000000000000000000000fb" && $2 != "lo" { found = 1 } END { exit !found }' /proc/net/igmp6 2>/dev/null
}
