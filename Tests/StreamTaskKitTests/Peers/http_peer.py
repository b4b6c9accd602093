#!/usr/bin/env python3
"""An HTTP/1.1 server for the data-task tests, written with Python's standard library only.

It binds 127.0.0.1 on a free port, prints the port on its first line, serves one connection
in the mode named by its first argument, prints the request line it got, and exits. Each
response is written exactly as the mode says, so that the tests control what arrives in one
packet and how the body is framed.
"""
import socket
import sys


def say(text):
    print(text, flush=True)


def read_request(conn):
    """The request head (as text) and its body (by Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise SystemExit("the client closed before its request head ended")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return lines, body


def wait_for_close(conn):
    """Reads and drops whatever comes until the client closes, then says so."""
    while conn.recv(1):
        pass
    say("the client closed")


def echo_until_eof(conn):
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return
        conn.sendall(chunk)


def main():
    mode = sys.argv[1]
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    say(server.getsockname()[1])
    conn, _ = server.accept()
    if mode.startswith("https-"):
        # TLS with the certificate and key that follow the mode.
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        conn = context.wrap_socket(conn, server_side=True)
    lines, body = read_request(conn)
    say("request " + lines[0])
    for line in lines[1:]:
        if line.lower().startswith("host:"):
            say("host " + line.partition(":")[2].strip())

    if mode == "upgrade-with-trailing":
        # The 101 head and the upgraded protocol's first bytes in one send: one packet.
        conn.sendall(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x-test\r\nConnection: Upgrade\r\n\r\nEARLY-BYTES\n"
        )
        echo_until_eof(conn)
    elif mode == "ok-then-stream":
        # A 200 with no framing at all, and stream bytes right behind its head: a decoder
        # would take them for a body read to the end of the connection.
        conn.sendall(b"HTTP/1.1 200 Tunnel Ready\r\nServer: http_peer\r\n\r\nFIRST-BYTES\n")
        echo_until_eof(conn)
    elif mode == "echo-head":
        # The request head's lines back as the body, with Content-Length.
        reply = "\n".join(lines).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(reply) + reply)
        conn.recv(1)
    elif mode == "echo-body-length":
        # The request body back, with Content-Length, in two sends.
        reply = b"you sent: " + body
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % len(reply))
        conn.sendall(reply[:5])
        conn.sendall(reply[5:])
        conn.recv(1)
    elif mode == "chunked":
        # A chunked body, then the connection stays open (keep-alive): the client must end
        # the body at the last chunk, not at the end of the connection.
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Peer: chunked\r\n\r\n")
        for part in [b"first,", b"second,", b"third"]:
            conn.sendall(b"%x\r\n%s\r\n" % (len(part), part))
        conn.sendall(b"0\r\n\r\n")
        conn.recv(1)
    elif mode == "bare-lf":
        # A head whose lines end in LF alone (RFC 9112, section 2.2, lets a recipient accept
        # that), split so that no line arrives whole in one send, then a body that keeps its LFs.
        conn.sendall(b"HTTP/1.1 200 OK\nContent-Le")
        conn.sendall(b"ngth: 6\nX-Peer: bare-lf\n")
        conn.sendall(b"\nab\ncd\n")
        conn.recv(1)
    elif mode in ("https-close-delimited-truncated", "https-close-delimited"):
        # A body framed by the end of the connection; the connection then ends without
        # close_notify (Python's close sends none), or after one.
        conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe first part")
        if mode == "https-close-delimited":
            conn.settimeout(0.5)
            try:
                conn.unwrap()  # sends close_notify, then waits in vain for the client's
            except OSError:
                pass
    elif mode == "https-upgrade-truncated":
        # A 101 and the new protocol's first bytes, then the end without close_notify.
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x-test\r\nConnection: Upgrade\r\n\r\nEARLY\n")
        conn.recv(1)
    elif mode == "large-body":
        # 16 MiB with Content-Length, as fast as the client lets it through: "0123456789abcdef"
        # over and over, so the client can check the length and the last bytes.
        block = b"0123456789abcdef" * 4096
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (len(block) * 256))
        for _ in range(256):
            conn.sendall(block)
        conn.recv(1)
    elif mode == "silent":
        # Read the request, answer nothing, until the client closes.
        wait_for_close(conn)
    elif mode == "rest-when-told":
        # The head and the start of a 10-byte body at once; the rest only when standard input
        # ends (the test's cue), then silence until the client closes.
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nfirst")
        sys.stdin.read()
        conn.sendall(b"-last")
        wait_for_close(conn)
    elif mode == "stall-mid-body":
        # The head and the start of a 100-byte body, then silence until the client closes.
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nthe start")
        wait_for_close(conn)
    elif mode == "trickle-body":
        # A chunked body of one byte every INTERVAL seconds (the second argument) until at
        # least TOTAL seconds (the third) have passed: never silent for long, yet slower as a
        # whole than a client's idle timeout shorter than TOTAL.
        import time
        interval, total = float(sys.argv[2]), float(sys.argv[3])
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        start, count = time.monotonic(), 0
        while time.monotonic() - start < total:
            time.sleep(interval)
            conn.sendall(b"1\r\nx\r\n")
            count += 1
        conn.sendall(b"0\r\n\r\n")
        say("sent %d bytes in %.1f s" % (count, time.monotonic() - start))
        conn.recv(1)
    elif mode == "not-http":
        conn.sendall(b"SSH-2.0-not-an-http-server\r\n\r\n")
        conn.recv(1)
    else:
        raise SystemExit("unknown mode " + mode)
    conn.close()
    say("done")


if __name__ == "__main__":
    main()
