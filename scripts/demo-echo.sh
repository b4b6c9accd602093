#!/usr/bin/env bash
# The echo demo: an echo server and client built on StreamTaskKit.
#
# Builds the two examples, starts echo-server on a free port, and sends lines through
# echo-client: a few sample lines, or, when standard input is a terminal, the lines you type
# (Ctrl-D to end). Then it stops the server. (scripts/demo.sh runs the chat demo.)
set -euo pipefail

# Run from the repository root, wherever we were called from.
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh demo

echo "demo: building the echo examples"
swift build --product echo-server
swift build --product echo-client
bin="$(swift build --show-bin-path)"

workdir="$(mktemp -d)"
source scripts/lib.sh

# On any exit: stop the server we started (by its PID only) and remove our scratch files.
cleanup() {
    stop_server
    rm -rf "$workdir"
}
trap cleanup EXIT

# Start the server on a free port; its first line of output names the port.
if ! start_server "$bin/echo-server" "$workdir/server.out" "$workdir/server.err"; then
    echo "demo: echo-server did not start" >&2
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
