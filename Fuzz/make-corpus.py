#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/Corpus/<target>/: small real inputs for each fuzz target.

Run from anywhere; rewrites the folders it owns. The seeds come from Protocol.md's example
session, the kernel bytes in Tests/StreamTaskKitTests/Routes/NetlinkMessageTests.swift, and
replies that real proxies (squid, tinyproxy, dante, microsocks) and TLS servers send.
"""
import hashlib
import pathlib
import re
import shutil
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "Corpus"


def write(target, inputs):
    folder = CORPUS / target
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for data in inputs:
        if isinstance(data, str):
            data = data.encode()
        (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def protocol_lines():
    """Every C:/S: line of Protocol.md's examples, with \\x01 made the byte it stands for."""
    lines = []
    for line in (ROOT / "Protocol.md").read_text().splitlines():
        match = re.match(r"^[CS]: (.*)$", line)
        if match:
            lines.append(match.group(1).replace("\\x01", "\x01"))
    return lines


def irc():
    lines = protocol_lines()
    tagged = [
        "@time=2026-11-21T09:00:00Z;+example.com/x=a\\sb\\:c\\\\d;flag :n!u@h PRIVMSG #a :hi",
        "@msgid=abc;account=alice :alice!alice@127.0.0.1 PRIVMSG #chat :hello",
        "@+draft/reply=123;+typing=active TAGMSG #chat",
        "@k= PING x",
        "@a=\\ PING x",
    ]
    odd = ["  :server   privmsg   #a    b  ", "CAP * LS :", "PRIVMSG #chat ::-)", "QUIT", "001", ": PING",
           "PRIVMSG #chat :h\xc3\xa9llo", "PRIVMSG a b c d e f g h i j k l m n o :p"]
    write("irc-message", lines + tagged + odd)
    write("irc-tag", ["a\\sb", "x;y z\\", "2026-11-21T09:00:00Z", "a b;c\\d\r\n", "\\:\\s\\\\\\r\\n", "héllo", "+example.com/key", "", "=", "k=v"])
    # irc-line-framer: limit byte, four read-size bytes, then the stream.
    stream = "\r\n".join(lines[:20]) + "\r\n"
    framer = [bytes([63, 7, 1, 200, 33]) + stream.encode(),
              bytes([9, 1, 2, 3, 4]) + b"NICK alice\r\nUSER al\nice 0 * :A\r\n",
              bytes([4, 255, 255, 255, 255]) + b"a very long line with no end",
              bytes([20, 5, 5, 5, 5]) + b"@tag=" + b"v" * 100 + b" PING x\r\nPING y\n",
              bytes([1, 0, 0, 0, 0]) + b"\n\r\n\r\r\n"]
    write("irc-line-framer", framer)


def txt(entries):
    return b"".join(bytes([len(e)]) + e for e in entries)


def txt_records():
    records = [
        txt([b"txtvers=1", b"name=Team Chat", b"tls=starttls", b"fp=sha256:" + b"ab" * 32]),
        txt([b"txtvers=1", b"name=chat.example", b"tls=none"]),
        txt([b"TXTVERS=1", b"Name=Caps", b"TLS=starttls", b"FP=SHA256:" + b"0F" * 32]),
        txt([b"txtvers=2", b"name=later"]),
        txt([b"path=/chat", b"version=2", b"secure", b"empty=", b"key=\x00\xff"]),
        txt([b"a=1", b"A=2", b"=skipped", b"", b"b"]),
        b"\x00",
        b"\x05abc",  # runs past the end
        txt([b"txtvers=1", b"fp=sha256:zz"]),
    ]
    write("dnssd-txt-record", records)
    write("chat-service-record", records)
    # netservice-txt reads a steering byte first (how it cuts the rest into keys and values).
    write("netservice-txt", [bytes([i]) + record for i, record in enumerate(records)])


def swift_array(source, name):
    body = re.search(r"static let " + name + r": \[UInt8\] = \[(.*?)\]", source, re.S).group(1)
    return bytes(int(x, 16) for x in re.findall(r"0x([0-9a-fA-F]+)", body))


def netlink():
    source = (ROOT / "Tests/StreamTaskKitTests/Routes/NetlinkMessageTests.swift").read_text()
    fixtures = [swift_array(source, n) for n in ("routeReply", "addressDump", "loopbackLink", "done")]
    error = bytes([0x24, 0, 0, 0, 0x02, 0, 0, 0, 0x07, 0, 0, 0, 0, 0, 0, 0, 0x9B, 0xFF, 0xFF, 0xFF])
    noop = bytes([0x10, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    # An IPv6 route: rtmsg for AF_INET6 /64 and RTA_DST, RTA_GATEWAY, RTA_OIF, RTA_PRIORITY.
    attrs = (struct.pack("<HH", 20, 1) + bytes.fromhex("20010db8000000000000000000000000")
             + struct.pack("<HH", 20, 5) + bytes.fromhex("fe800000000000000000000000000001")
             + struct.pack("<HHI", 8, 4, 2) + struct.pack("<HHI", 8, 6, 1024))
    body = bytes([10, 64, 0, 0, 254, 3, 0, 1]) + struct.pack("<I", 0) + attrs
    v6route = struct.pack("<IHHII", 16 + len(body), 24, 0, 1, 0) + body
    write("netlink-message", fixtures + [b"".join(fixtures), error, noop, v6route, fixtures[0][:40]])


def no_proxy():
    values = ["localhost,127.0.0.1,.example.com", "*", "example.com:8080, [::1]:443", "10.0.0.0/8,192.168.0.0/16",
              "fe80::/10, 2001:db8::1", ".internal.  ,  Example.ORG.", "host.example:notaport", "[::1", "::1/129"]
    hosts = ["www.example.com", "127.0.0.1", "[::1]", "10.1.2.3", "fe80::1", "example.org.", "nonexample.com"]
    write("no-proxy-list", [v.encode() + b"\x00" + h.encode() for v, h in zip(values, hosts * 2)])


def http_connect():
    replies = [
        b"HTTP/1.1 200 Connection established\r\n\r\n",
        b"HTTP/1.1 200 Connection established\r\nProxy-Agent: tinyproxy/1.11.1\r\n\r\n",
        b"HTTP/1.0 200 Connection established\r\n\r\nSSH-2.0-OpenSSH_9.6\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
        b"HTTP/1.1 407 Proxy Authentication Required\r\nServer: squid/6.6\r\nProxy-Authenticate: Basic realm=\"proxy\"\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 401 Unauthorized\r\nServer: tinyproxy/1.11.1\r\n\r\n",
        b"HTTP/1.1 403 Forbidden\r\nServer: squid/6.6\r\nX-Squid-Error: ERR_ACCESS_DENIED 0\r\n\r\n",
        b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\n\r\n<html>",
        b"HTTP/1.1 503 Service Unavailable\r\n\r\n",
        b"SSH-2.0-OpenSSH_9.6\r\n",
        b"HTTP/1.1 200\r\n\r\n",
        b"HTTP/1.1 2000 OK\r\n\r\n",
    ]
    # Byte 0: credentials or not; bytes 1-4: read sizes.
    write("http-connect", [bytes([i % 2, 3, 17, 1, 64]) + r for i, r in enumerate(replies)])


def socks5():
    ok_v4 = bytes([5, 0, 0, 1, 192, 0, 2, 1, 0x01, 0xBB])
    ok_v6 = bytes([5, 0, 0, 4]) + bytes(16) + b"\x01\xbb"
    ok_name = bytes([5, 0, 0, 3, 11]) + b"example.com" + b"\x01\xbb"
    replies = [
        (0, b"\x05\x00" + ok_v4 + b"hello"),
        (2, b"\x05\x00" + ok_v6),
        (4, b"\x05\x00" + ok_name),
        (1, b"\x05\x02\x01\x00" + ok_v4),
        (1, b"\x05\x02\x01\x01"),
        (0, b"\x05\xff"),
        (1, b"\x05\xff"),
        (0, b"\x05\x00\x05\x05\x00\x01" + bytes(6)),
        (0, b"\x05\x00\x05\x00\x00\x09" + bytes(6)),
        (0, b"\x04\x5a"),
        (0, b"\x05\x02"),
    ]
    # Byte 0: credentials (bit 0) and target kind (bits 1-2); bytes 1-4: read sizes.
    write("socks5", [bytes([mode, 1, 2, 5, 9]) + r for mode, r in replies])


def server_hello():
    def record(handshake, content_type=22):
        return bytes([content_type, 3, 3]) + struct.pack(">H", len(handshake)) + handshake

    def hello(suite, session=32):
        body = b"\x03\x03" + bytes(range(32)) + bytes([session]) + bytes(session) + struct.pack(">H", suite) + b"\x00"
        body += struct.pack(">H", 6) + b"\x00\x2b\x00\x02\x03\x04"  # supported_versions: TLS 1.3
        return b"\x02" + struct.pack(">I", len(body))[1:] + body

    tls13 = record(hello(0x1301))
    tls12 = record(hello(0xC02F, 0))
    split = hello(0x1302)
    inputs = [tls13, tls12, record(split[:20]) + record(split[20:]), record(b"\x0b\x00\x00\x00"),
              record(b"alert", 21), tls13[:30], record(hello(0xCCA8) + b"\x0b\x00\x00\x03abc")]
    # Bytes 0-3: read sizes.
    write("server-hello", [bytes([1, 4, 16, 250]) + i for i in inputs])


def chat_server_state():
    """Sessions of the chat server's state: a header (client limit, per-address limit, STARTTLS),
    then lines of an operation byte and a body: 0 and 1 connect (from host op/8), 2 disconnects,
    3 to 7 send the body as a line from connection op/8 among those open."""
    def line(op, body=""):
        return bytes([op]) + body.encode()

    users = [line(0), line(11, "NICK alice"), line(11, "USER a 0 * :A"), line(11, "JOIN #c"),
             line(11, "PRIVMSG #c :hi"), line(11, "TOPIC #c :t"), line(11, "QUIT :bye")]
    link = [line(0), line(0), line(3, "PASS pw 0210-IRC+ ngIRCd|26.1:CHLMSXZ PZ"), line(3, "SERVER hub.fuzz :hub"),
            line(3, ":hub.fuzz SERVER leaf.fuzz 2 2 :leaf"), line(3, ":hub.fuzz NICK rudi 1 r h 1 +i :R"),
            line(3, ":leaf.fuzz NICK lena 2 l h 2 +a :L"), line(3, ":hub.fuzz CHANINFO #c +nt :topic"),
            line(3, ":hub.fuzz NJOIN #c :@rudi,+lena"), line(11, "NICK alice"), line(11, "USER a 0 * :A"),
            line(11, "JOIN #c"), line(11, "PRIVMSG #c :hi"), line(11, "AWAY :x"), line(11, "WHOIS rudi rudi"),
            line(11, "LUSERS"), line(11, "MAP"), line(11, "STATS l"), line(3, ":rudi PRIVMSG alice :hey"),
            line(3, ":rudi KICK #c alice :out"), line(3, ":lena NICK alice"),
            line(3, ":hub.fuzz SQUIT leaf.fuzz :gone"), line(2)]
    write("chat-server-state", [bytes([10, 0, 0]) + b"\n".join(session) for session in (users, link)])


irc()
chat_server_state()
txt_records()
netlink()
no_proxy()
http_connect()
socks5()
server_hello()
