#!/usr/bin/env python3
"""Opens many idle connections to one listener and reports its memory per connection.

Reads the server's resident memory (VmRSS of --pid) before, opens --count connections to
127.0.0.1:--port, proves each one was accepted and served by sending a line and reading its
echo, then reads the memory again while all are open and idle. Prints one JSON object.
Python's standard library only.
"""
import argparse
import asyncio
import json
import sys


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS for pid %d" % pid)


async def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--count", type=int, default=10000)
    args = parser.parse_args()

    before = rss_kib(args.pid)
    connections = []
    for start in range(0, args.count, 200):
        batch = await asyncio.gather(*(asyncio.open_connection("127.0.0.1", args.port) for _ in range(start, min(args.count, start + 200))))
        connections.extend(batch)
    # Each connection is accepted and served: one line there and back.
    for start in range(0, len(connections), 500):
        group = connections[start:start + 500]
        for _, writer in group:
            writer.write(b"x\n")
        replies = await asyncio.gather(*(reader.readline() for reader, _ in group))
        if any(reply != b"x\n" for reply in replies):
            raise RuntimeError("a connection was not echoed")
    await asyncio.sleep(1)
    during = rss_kib(args.pid)
    result = {
        "connections": len(connections),
        "rss_before_kib": before,
        "rss_with_connections_kib": during,
        "kib_per_connection": round((during - before) / len(connections), 2),
    }
    for _, writer in connections:
        writer.close()
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
