#!/usr/bin/env python3
"""A TCP peer for the tests, written with Python's standard library only.

It binds 127.0.0.1 on a free port, prints the port on its first line, serves one
connection in the mode named by its first argument, prints what it saw, and exits.
The test that started it reads its output; closing its standard input ends it early.
"""
import socket
import struct
import sys


def say(text):
    print(text, flush=True)


def receive_all(conn):
    data = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(0 if mode == "never-accept" else 8)
    say(server.getsockname()[1])

    if mode == "never-accept":
        # Accept nothing: once the backlog is full, further connection attempts hang.
        sys.stdin.read()
        return

    conn, _ = server.accept()
    if mode == "echo":
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            conn.sendall(chunk)
        conn.close()
    elif mode == "send-then-half-close":
        # Speak first, end our side, then report everything the client sent until its EOF.
        conn.sendall(args[0].encode())
        conn.shutdown(socket.SHUT_WR)
        say("received " + receive_all(conn).decode().encode("unicode_escape").decode())
        conn.close()
    elif mode == "reply-after-eof":
        # Read until the client half-closes, then answer on the still-open direction.
        data = receive_all(conn)
        conn.sendall(("got %d bytes: %s" % (len(data), data.decode())).encode())
        conn.close()
    elif mode == "reset-after":
        # Send some bytes, wait for one byte from the client, then reset the connection.
        conn.sendall(args[0].encode())
        conn.recv(1)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
    elif mode == "reset-after-reading":
        # Read the given number of bytes, then reset the connection (the client is mid-write).
        wanted, data = int(args[0]), b""
        while len(data) < wanted:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
    elif mode == "partial-proxy-reply":
        # An HTTP proxy that hangs up in the middle of its reply to CONNECT.
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        conn.sendall(b"HTTP/1.1 200 Conn")
        conn.close()
    elif mode == "garbage-after-read":
        # Read what the client sends first (a TLS ClientHello), answer with bytes that are not
        # TLS, then wait for the client to close.
        conn.recv(65536)
        conn.sendall(bytes(range(256)) * 4)
        receive_all(conn)
        conn.close()
    elif mode in ("tls-truncate", "tls-close-notify"):
        # TLS with the certificate and key given, one full line and the start of another,
        # then, once a byte arrives, the end: with tls-truncate the socket closes without
        # close_notify (Python's close never sends one); with tls-close-notify TLS ends in
        # order first, as GnuTLS and Go do (unwrap() sends close_notify, then waits in vain
        # for the client's).
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args[0], args[1])
        tls = context.wrap_socket(conn, server_side=True)
        tls.sendall(b"whole line\r\nhalf a li")
        tls.recv(1)
        if mode == "tls-close-notify":
            tls.settimeout(0.5)
            try:
                tls.unwrap()
            except (ssl.SSLError, OSError):
                pass
        tls.close()
    elif mode == "hold":
        # Say "ready", then never read: the client's writes fill the buffers. Ends when stdin
        # closes.
        conn.sendall(b"ready")
        sys.stdin.read()
        conn.close()
    else:
        raise SystemExit("unknown mode " + mode)
    say("done")


if __name__ == "__main__":
    main()
