#!/usr/bin/env bash
# The demo: an echo server and client built on StreamTaskKit.
#
# Builds the two examples, starts echo-server on a free port, and sends lines through
# echo-client: a few sample lines, or, when standard input is a terminal, the lines you type
# (Ctrl-D to end). Then it stops the server. (The chat example will replace this demo.)
set -euo pipefail

# Run from the repository root, wherever we were called from.
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh

echo "demo: building the echo examples"
swift build --product echo-server
swift build --product echo-client
bin="$(swift build --show-bin-path)"

server_pid=""
workdir="$(mktemp -d)"

# On any exit: stop the server we started (by its PID only) and remove our scratch files.
cleanup() {
    if [[ -n "$server_pid" ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$workdir"
}
trap cleanup EXIT

# Start the server on a free port; its first line of output names the port. Its errors go
# straight to the terminal.
: >"$workdir/server.out"
"$bin/echo-server" --port 0 >"$workdir/server.out" &
server_pid=$!
port=""
for _ in $(seq 300); do # at most 30 s
    port="$(sed -n 's/^listening on .*:\([0-9][0-9]*\)$/\1/p' "$workdir/server.out")"
    [[ -n "$port" ]] && break
    sleep 0.1
done
if [[ -z "$port" ]]; then
    echo "demo: echo-server did not report its port" >&2
    exit 1
fi
echo "demo: echo-server (pid $server_pid) is $(head -n 1 "$workdir/server.out")"

if [[ -t 0 ]]; then
    echo "demo: type lines; each one comes back from the server. Ctrl-D ends."
    "$bin/echo-client" --port "$port"
else
    echo "demo: sending three lines through echo-client"
    printf 'hello from StreamTaskKit\na second line\nand a third\n' | "$bin/echo-client" --port "$port"
fi

# Stop the server the way a service manager would, and wait for its graceful shutdown.
echo "demo: stopping echo-server (pid $server_pid)"
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=""
echo "demo: done"
