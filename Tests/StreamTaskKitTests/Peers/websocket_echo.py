#!/usr/bin/env python3
"""A WebSocket echo server for the data-task tests, on Debian's python3-websockets.

It binds 127.0.0.1 on a free port, prints the port on its first line, echoes every message
on every connection, and exits when its standard input closes (the test that started it
closes it, or kills it by its PID).
"""
import asyncio
import sys

import websockets


async def echo(websocket, path=None):
    async for message in websocket:
        await websocket.send(message)


async def main():
    async with websockets.serve(echo, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(port, flush=True)
        # Serve until the test closes our standard input.
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


if __name__ == "__main__":
    asyncio.run(main())
