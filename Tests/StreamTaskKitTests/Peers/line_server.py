#!/usr/bin/env python3
"""A line server for the ported Darwin line client, with Python's standard library only.

    line_server.py ADDRESS PORT [CERTIFICATE KEY]

Listens on ADDRESS:PORT (PORT 0 picks a free one) and prints "ready PORT" once it does; serves
each connection on a thread of its own, one command a line, each answered with one line:

    HELLO text   -> HELLO text
    STATUS       -> STATUS tls, or STATUS plain
    STARTTLS     -> OK starttls, then TLS as the server, with CERTIFICATE and KEY
    STOPTLS      -> OK stoptls (protected), then close_notify both ways and plaintext again
    anything     -> ERR unknown command

It prints what it sees ("tls started", "tls stopped", "client closed"), and goes on until it
is killed.
"""
import socket
import socketserver
import ssl
import sys


def say(text):
    print(text, flush=True)


class Connection(socketserver.BaseRequestHandler):
    def setup(self):
        self.conn = self.request
        self.pending = b""
        self.tls = False

    def read_line(self):
        while b"\n" not in self.pending:
            chunk = self.conn.recv(4096)
            if not chunk:
                return None
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.rstrip(b"\r").decode()

    def answer(self, text):
        self.conn.sendall((text + "\r\n").encode())

    def handle(self):
        while (line := self.read_line()) is not None:
            command, _, rest = line.partition(" ")
            if command == "HELLO":
                self.answer("HELLO " + rest)
            elif command == "STATUS":
                self.answer("STATUS " + ("tls" if self.tls else "plain"))
            elif command == "STARTTLS" and not self.tls and self.server.context:
                self.answer("OK starttls")
                # The client waits for the answer before its handshake: nothing is pending.
                self.conn = self.server.context.wrap_socket(self.conn, server_side=True)
                self.tls = True
                say("tls started: " + self.conn.version())
            elif command == "STOPTLS" and self.tls:
                self.answer("OK stoptls")
                # close_notify, then the client's; the socket goes on in plaintext.
                self.conn = self.conn.unwrap()
                self.tls = False
                say("tls stopped")
            else:
                self.answer("ERR unknown command")
        say("client closed")


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True

    def __init__(self, address, context):
        self.context = context
        super().__init__(address, Connection)

    def server_activate(self):
        super().server_activate()
        say("ready %d" % self.server_address[1])


def main():
    address, port = sys.argv[1], int(sys.argv[2])
    context = None
    if len(sys.argv) > 4:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
    Server((address, port), context).serve_forever()


if __name__ == "__main__":
    main()
