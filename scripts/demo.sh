#!/usr/bin/env bash
# The demo: a chat server and a chat client that finds it through DNS-SD.
#
# Builds chat-server and chat-client, uses the avahi-daemon the machine runs or, when none
# runs, starts a loopback-only one (scripts/start-services.sh), starts chat-server on a free
# port, which advertises itself as _irc._tcp, then runs chat-client with no address: it
# browses, finds the server, upgrades with STARTTLS pinned to the advertised certificate
# fingerprint, and joins #chat. With the loopback-only daemon the server listens on 127.0.0.1;
# with the machine's own daemon it listens on every interface, where that daemon advertises it
# (a chat on the LAN). In a terminal you chat (type /help; /quit or Ctrl-D ends); without one, a few scripted
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

# An avahi-daemon the machine already runs (a desktop's, on its network interfaces) is used
# as it is: a chat on a LAN is found there. Where none runs, a loopback-only one is started.
if ! bash scripts/start-services.sh --state "$workdir/services" --any-interface; then
    echo "demo: could not start avahi-daemon, so the client cannot find the server" >&2
    exit 1
fi

# The server's name on the LAN; unique, so that two demos on one network do not clash.
name="StreamTaskKit demo chat $$"
# Where the daemon advertises, the server must listen: the machine's own daemon gives clients
# its interfaces' addresses, so 127.0.0.1 alone would refuse them.
listen=127.0.0.1
if ! mdns_only_on_loopback; then
    listen=0.0.0.0
    echo "demo: the avahi-daemon in use advertises on this machine's network: chat-server listens on every interface"
fi
if ! start_server "$bin/chat-server" "$workdir/server.out" "$workdir/server.err" \
    --host "$listen" --name "$name" --server-name chat.demo; then
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
