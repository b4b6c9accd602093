#!/usr/bin/env bash
# The demo: a chat server and a chat client that finds it through DNS-SD.
#
# Builds chat-server and chat-client, starts a loopback-only avahi-daemon when none is
# running (scripts/start-services.sh), starts chat-server on a free port of 127.0.0.1, which
# advertises itself as _irc._tcp, then runs chat-client with no address: it browses, finds the
# server, upgrades with STARTTLS pinned to the advertised certificate fingerprint, and joins
# #chat. In a terminal you chat (type /help; /quit or Ctrl-D ends); without one, a few scripted
# lines show the same path. On exit it stops what it started, by PID.
set -euo pipefail

# Run from the repository root, wherever we were called from.
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh demo

echo "demo: building chat-server and chat-client"
swift build --product chat-server
swift build --product chat-client
bin="$(swift build --show-bin-path)"

workdir="$(mktemp -d)"
source scripts/lib.sh

# On any exit: stop the server and the services we started (by PID only), remove scratch files.
cleanup() {
    stop_server
    bash scripts/stop-services.sh "$workdir/services" || true
    rm -rf "$workdir"
}
trap cleanup EXIT

if ! bash scripts/start-services.sh --state "$workdir/services"; then
    echo "demo: could not start avahi-daemon, so the client cannot find the server" >&2
    exit 1
fi

# The server's name on the LAN; unique, so that two demos on one network do not clash.
name="StreamTaskKit demo chat $$"
if ! start_server "$bin/chat-server" "$workdir/server.out" "$workdir/server.err" \
    --host 127.0.0.1 --name "$name" --server-name chat.demo; then
    echo "demo: chat-server did not start" >&2
    exit 1
fi
echo "demo: chat-server (pid $server_pid) is $(head -n 1 "$workdir/server.out")"
# It advertises itself once it listens; give the daemon that moment before browsing.
for _ in $(seq 50); do
    grep -q '^advertised as' "$workdir/server.out" && break
    sleep 0.1
done
sed -n '2,$p' "$workdir/server.out" | sed 's/^/demo: chat-server: /'

if [[ -t 0 && -t 1 ]]; then
    echo "demo: starting chat-client with no address: it finds the server through DNS-SD."
    echo "demo: type to chat in #chat, /help for commands, /quit to end."
    echo "demo: for a second user, run this in another terminal (it finds the same server):"
    echo "demo:     cd $(printf '%q' "$PWD") && swift run chat-client --nick visitor --channel '#chat'"
    "$bin/chat-client" --channel '#chat' || true
else
    echo "demo: no terminal, so chat-client runs a short script"
    { sleep 2; echo "hello from the demo"; echo "/me waves"; echo "/names"; sleep 1; echo "/quit demo over"; } |
        timeout 60 "$bin/chat-client" --nick demo --channel '#chat' --no-reconnect || true
fi

echo "demo: stopping chat-server (pid $server_pid)"
kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=""
echo "demo: done"
