#!/usr/bin/env python3
"""Load and soak for the chat server: many clients in one channel, every delivery checked.

Clients (split over several processes so that this generator is not the bottleneck) register,
join one channel and wait at a barrier; then the senders send their messages as fast as the
server takes them. Every other member must receive every message exactly once and, per sender,
in order. A fraction of the clients never read after joining (with a small receive buffer):
the server must drop them (`SendQ exceeded`), and every other client must see them quit and
lose nothing. Prints one JSON object with the counts; exits 1 if any check failed.

Python's standard library only.
"""
import argparse
import asyncio
import json
import multiprocessing
import socket
import sys
import time

CHANNEL = "#soak"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--senders", type=int, default=20)
    parser.add_argument("--messages", type=int, default=125, help="messages per sender")
    parser.add_argument("--payload", type=int, default=300, help="padding bytes per message")
    parser.add_argument("--quit-wait", type=float, default=60.0,
                        help="seconds to wait, once every message has arrived, for the slow clients' QUITs")
    parser.add_argument("--slow-percent", type=float, default=5.0)
    parser.add_argument("--rate", type=float, default=50.0,
                        help="messages per second from all senders together; 0 sends as fast as the server takes them")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds for the whole run")
    return parser.parse_args()


async def read_lines(reader):
    """Yields lines (bytes, without CR LF) until end of stream."""
    while True:
        line = await reader.readline()
        if not line:
            return
        yield line.rstrip(b"\r\n")


class Client:
    def __init__(self, index, args, slow_nicks, senders):
        self.index = index
        self.nick = "c%d" % index
        self.args = args
        self.slow = self.nick in slow_nicks
        self.slow_nicks = slow_nicks
        self.senders = senders
        self.next_seq = {}
        self.received = 0
        self.errors = []
        self.quits_seen = set()
        self.disconnected = False

    async def connect(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.slow:
            # A small receive buffer, so what the kernel holds for it is small too.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", self.args.port))
        self.reader, self.writer = await asyncio.open_connection(sock=sock, limit=1 << 16)
        self.writer.write(("NICK %s\r\nUSER %s 0 * :soak\r\nJOIN %s\r\n" % (self.nick, self.nick, CHANNEL)).encode())
        await self.writer.drain()
        async for line in read_lines(self.reader):
            parts = line.split(b" ")
            if len(parts) > 1 and parts[1] == b"366":
                return
        raise RuntimeError("%s: connection closed before joining" % self.nick)

    def expected_total(self):
        others = [s for s in self.senders if s != self.nick]
        return len(others) * self.args.messages

    async def receive(self):
        """Counts PRIVMSGs until every expected one has arrived and every slow client has been
        seen to quit; waits at most --quit-wait seconds for those QUITs after the last message.
        Reads in large chunks and looks at each line as little as counting needs, so that this
        generator stays cheaper than the server it loads."""
        expected = self.expected_total()
        buffer = b""
        while not (self.received >= expected and self.quits_seen >= self.slow_nicks):
            try:
                timeout = self.args.quit_wait if self.received >= expected else None
                data = await asyncio.wait_for(self.reader.read(1 << 16), timeout)
            except asyncio.TimeoutError:
                return
            except OSError as error:
                # Dropped by the server (it resets a client it gave up on): a failure for a
                # normal client, counted and reported rather than ending the run.
                self.errors.append("%s: connection lost: %s" % (self.nick, error))
                self.disconnected = True
                return
            if not data:
                self.disconnected = True
                return
            lines = (buffer + data).split(b"\r\n")
            buffer = lines.pop()
            for line in lines:
                self.handle(line)

    def handle(self, line):
        if line.startswith(b"PING"):
            self.writer.write(b"PONG" + line[4:] + b"\r\n")
            return
        first = line.find(b" ")
        second = line.find(b" ", first + 1)
        command = line[first + 1:second]
        if command == b"PRIVMSG":
            sender = line[1:line.find(b"!")]
            text = line[line.find(b" :", second) + 2:]
            seq = int(text[:text.find(b" ")])
            want = self.next_seq.get(sender, 0)
            if seq != want:
                kind = "duplicate" if seq < want else "loss or reorder"
                self.errors.append("%s: from %s got %d, expected %d (%s)" % (self.nick, sender.decode(), seq, want, kind))
            self.next_seq[sender] = seq + 1
            self.received += 1
        elif command == b"QUIT":
            who = line[1:line.find(b"!")].decode()
            reason = line[line.find(b" :", second) + 2:]
            if who in self.slow_nicks:
                if reason != b"SendQ exceeded":
                    self.errors.append("%s: %s quit with %r, not SendQ exceeded" % (self.nick, who, reason))
                self.quits_seen.add(who)
            else:
                self.errors.append("%s: %s, a normal client, quit: %r" % (self.nick, who, reason))

    async def send(self):
        padding = "x" * self.args.payload
        # Each sender's share of the rate, so that normal clients can keep up and only the
        # clients that do not read fall behind.
        interval = len(self.senders) / self.args.rate if self.args.rate > 0 else 0
        start = time.monotonic()
        for seq in range(self.args.messages):
            self.writer.write(("PRIVMSG %s :%d %s\r\n" % (CHANNEL, seq, padding)).encode())
            await self.writer.drain()
            if interval:
                delay = start + (seq + 1) * interval - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)


async def run_worker(indices, args, slow_nicks, senders, ready, go, results):
    clients = [Client(i, args, slow_nicks, senders) for i in indices]
    # Connect in small groups: the listener's backlog is finite.
    for start in range(0, len(clients), 50):
        await asyncio.gather(*(c.connect() for c in clients[start:start + 50]))
    ready.send("ready")
    await asyncio.get_running_loop().run_in_executor(None, go.recv)
    started = time.monotonic()
    tasks = []
    for c in clients:
        if c.slow:
            continue  # never reads again
        tasks.append(c.receive())
        if c.nick in senders:
            tasks.append(c.send())
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=args.timeout)
        timed_out = False
    except asyncio.TimeoutError:
        timed_out = True
    elapsed = time.monotonic() - started
    normal = [c for c in clients if not c.slow]
    summary = {
        "clients": len(clients),
        "deliveries": sum(c.received for c in normal),
        "expected": sum(c.expected_total() for c in normal),
        "errors": [e for c in normal for e in c.errors][:20],
        "error_count": sum(len(c.errors) for c in normal),
        "normal_disconnected": sum(1 for c in normal if c.disconnected),
        "slow_quits_missing": sum(len(set(slow_nicks) - c.quits_seen) for c in normal),
        "timed_out": timed_out,
        "elapsed": elapsed,
    }
    for c in clients:
        c.writer.close()
    results.send(summary)


def worker(indices, args, slow_nicks, senders, ready, go, results):
    asyncio.run(run_worker(indices, args, slow_nicks, senders, ready, go, results))


def main():
    args = parse_args()
    slow_count = int(args.clients * args.slow_percent / 100)
    # Slow clients are spread over the index range; senders are never slow.
    step = max(1, (args.clients - args.senders) // max(1, slow_count))
    slow_nicks = {"c%d" % (args.clients - 1 - i * step) for i in range(slow_count)}
    senders = ["c%d" % i for i in range(args.senders)]
    assert not (set(senders) & slow_nicks)
    pipes = []
    processes = []
    for p in range(args.processes):
        indices = list(range(p, args.clients, args.processes))
        ready_r, ready_w = multiprocessing.Pipe(False)
        go_r, go_w = multiprocessing.Pipe(False)
        res_r, res_w = multiprocessing.Pipe(False)
        proc = multiprocessing.Process(target=worker, args=(indices, args, slow_nicks, senders, ready_w, go_r, res_w))
        proc.start()
        processes.append(proc)
        pipes.append((ready_r, go_w, res_r))
    for ready_r, _, _ in pipes:
        ready_r.recv()
    started = time.monotonic()
    for _, go_w, _ in pipes:
        go_w.send("go")
    summaries = [res_r.recv() for _, _, res_r in pipes]
    elapsed = time.monotonic() - started
    for proc in processes:
        proc.join()
    total = {
        "clients": args.clients,
        "slow_clients": slow_count,
        "senders": args.senders,
        "messages_per_sender": args.messages,
        "deliveries": sum(s["deliveries"] for s in summaries),
        "expected_deliveries": sum(s["expected"] for s in summaries),
        "error_count": sum(s["error_count"] for s in summaries),
        "errors": [e for s in summaries for e in s["errors"]][:20],
        "normal_clients_disconnected": sum(s["normal_disconnected"] for s in summaries),
        "slow_quits_missing": sum(s["slow_quits_missing"] for s in summaries),
        "timed_out": any(s["timed_out"] for s in summaries),
        "seconds": round(elapsed, 2),
    }
    total["deliveries_per_second"] = round(total["deliveries"] / elapsed) if elapsed > 0 else 0
    ok = (total["deliveries"] == total["expected_deliveries"] and total["error_count"] == 0
          and total["normal_clients_disconnected"] == 0 and total["slow_quits_missing"] == 0 and not total["timed_out"])
    total["ok"] = ok
    print(json.dumps(total))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
