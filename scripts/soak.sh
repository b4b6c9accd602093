#!/usr/bin/env bash
# Load and soak, bounded in time (not part of the test suite; see RELIABILITY.md):
#   1. the chat server with --clients clients (default 1,000) in one channel: every delivery
#      (at least 1,000,000) checked exactly once and in order per sender; 5% of the clients
#      never read and must be dropped (SendQ exceeded) while no one else loses a message;
#      the server's peak memory and CPU time reported;
#   2. --idle connections (default 10,000) held by one StreamListener (echo-server): memory
#      per connection.
#
#   scripts/soak.sh                 # debug build, the full sizes
#   scripts/soak.sh --release       # release build
#   SOAK_QUICK=1 scripts/soak.sh    # small sizes, for trying it out
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

configuration=debug
[[ "${1:-}" == "--release" ]] && configuration=release
clients=1000 senders=20 messages=60 rate=20 idle=10000
if [[ -n "${SOAK_QUICK:-}" ]]; then clients=100 senders=10 messages=100 rate=100 idle=500; fi

bash scripts/install-deps.sh test
# Thousands of sockets in one process: raise the descriptor limit for us and our children.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -H -n)"
echo "soak: descriptor limit $(ulimit -n)"

swift build -c "$configuration" --product chat-server
swift build -c "$configuration" --product echo-server
bin="$(swift build -c "$configuration" --show-bin-path)"

workdir="$(mktemp -d)"
source scripts/lib.sh
cleanup() {
    stop_server
    rm -rf "$workdir"
}
trap cleanup EXIT
status=0

# --- 1. Chat channel soak -------------------------------------------------------------------
start_server "$bin/chat-server" "$workdir/chat.out" "$workdir/chat.err" \
    --host 127.0.0.1 --no-advertise --no-tls --no-flood-limit --max-clients $((clients + 100)) --max-per-address 0
echo "soak: chat-server (pid $server_pid, $configuration) on port $port"
ticks="$(getconf CLK_TCK)"
cpu() { awk '{ print $14 + $15 }' "/proc/$server_pid/stat"; }
cpu_before="$(cpu)"
if ! timeout 1200 python3 scripts/soak/chat_load.py --port "$port" --clients "$clients" \
    --senders "$senders" --messages "$messages" --rate "$rate" >"$workdir/chat.json"; then
    status=1
fi
cpu_after="$(cpu)"
peak="$(awk '/^VmHWM:/ { print $2 }' "/proc/$server_pid/status")"
echo "soak: chat: $(cat "$workdir/chat.json")"
echo "soak: chat-server peak memory (VmHWM) ${peak} KiB; CPU $(( (cpu_after - cpu_before) / ticks )) s"
stop_server

# --- 2. Idle connections on one listener ----------------------------------------------------
start_server "$bin/echo-server" "$workdir/echo.out" "$workdir/echo.err" --host 127.0.0.1
echo "soak: echo-server (pid $server_pid, $configuration) on port $port"
if ! timeout 600 python3 scripts/soak/idle_connections.py --port "$port" --pid "$server_pid" \
    --count "$idle" >"$workdir/idle.json"; then
    status=1
fi
echo "soak: idle: $(cat "$workdir/idle.json")"
stop_server

echo "soak: $( [[ $status -eq 0 ]] && echo PASSED || echo FAILED )"
exit $status
