#!/usr/bin/env python3
"""A point-to-point IP link with delay, loss and reordering, as `tc netem` makes one, in user
space, for kernels built without sch_netem. Standard library only.

    impaired_link.py <tun-a> <tun-b> <delay-ms> <jitter-ms> <loss> <reorder> <seed>

It opens two TUN devices (the test then moves each into a namespace of its own and gives it
an address); every IP packet read from one is written to the other:
  - dropped with probability <loss>;
  - else sent at once, ahead of the packets waiting, with probability <reorder> (as netem's
    `reorder`: those packets overtake the delayed ones);
  - else after <delay-ms> plus or minus up to <jitter-ms>.
At most 20,000 packets wait; past that a packet is dropped, as a full queue drops it. Prints
"ready" once both devices exist; ends when its standard input closes.
"""
import fcntl
import heapq
import os
import random
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
QUEUE_LIMIT = 20000


def open_tun(name):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    os.set_blocking(fd, False)
    return fd


def main():
    name_a, name_b = sys.argv[1], sys.argv[2]
    delay, jitter = float(sys.argv[3]) / 1000, float(sys.argv[4]) / 1000
    loss, reorder = float(sys.argv[5]), float(sys.argv[6])
    rng = random.Random(int(sys.argv[7]))
    a, b = open_tun(name_a), open_tun(name_b)
    other = {a: b, b: a}
    waiting = []  # (due, sequence, fd, packet)
    sequence = 0
    stats = {"forwarded": 0, "dropped": 0, "reordered": 0}
    print("ready", flush=True)
    stdin = sys.stdin.fileno()
    while True:
        now = time.monotonic()
        timeout = max(0.0, waiting[0][0] - now) if waiting else 1.0
        readable, _, _ = select.select([a, b, stdin], [], [], timeout)
        if stdin in readable and not os.read(stdin, 4096):
            break
        now = time.monotonic()
        for fd in (a, b):
            if fd not in readable:
                continue
            while True:
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                if rng.random() < loss or len(waiting) >= QUEUE_LIMIT:
                    stats["dropped"] += 1
                    continue
                if rng.random() < reorder:
                    stats["reordered"] += 1
                    due = now
                else:
                    due = now + max(0.0, delay + rng.uniform(-jitter, jitter))
                sequence += 1
                heapq.heappush(waiting, (due, sequence, other[fd], packet))
        while waiting and waiting[0][0] <= time.monotonic():
            _, _, fd, packet = heapq.heappop(waiting)
            try:
                os.write(fd, packet)
                stats["forwarded"] += 1
            except OSError:
                stats["dropped"] += 1
    print("stats %(forwarded)d forwarded, %(dropped)d dropped, %(reordered)d reordered" % stats, flush=True)


if __name__ == "__main__":
    main()
