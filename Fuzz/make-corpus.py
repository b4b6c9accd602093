#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/Corpus/<target>/: small real inputs for each fuzz target.

Run from anywhere; rewrites the folders it owns. The seeds come from Protocol.md's example
session, the kernel bytes in Tests/StreamTaskKitTests/Routes/NetlinkMessageTests.swift,
replies that real proxies (squid, tinyproxy, dante, microsocks) and TLS servers send,
App Transport Security settings as Apple documents them, and certificates made by the openssl
command-line tool. openssl makes new keys each time, so the certificate seeds, once made, are
kept: pass --new-certificates to make them again.
"""
import hashlib
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile

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
    3 to 6 send the body as a line from connection op/8 among those open, 7 is a line over the
    length limit from that connection."""
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
    # A link that abuses the protocol (issue 50): a user on an unknown server, a redundant
    # NJOIN, PART and KICK of members not there, a token still in use, then an over-long line.
    abuse = [line(0), line(0), line(3, "PASS pw 0210-IRC+ ngIRCd|26.1:CHLMSXZ PZ"), line(3, "SERVER hub.fuzz :hub"),
             line(11, "NICK alice"), line(11, "USER a 0 * :A"), line(11, "JOIN #c"),
             line(3, ":hub.fuzz SERVER leaf.fuzz 2 2 :leaf"), line(3, ":hub.fuzz NICK ghost 2 g h 77 + :G"),
             line(3, ":hub.fuzz NICK ghost0 2 g h 0 + :G"), line(3, ":hub.fuzz NICK rudi 1 r h 1 + :R"),
             line(3, ":hub.fuzz NJOIN #c :@rudi"), line(3, ":hub.fuzz NJOIN #c :@rudi"),
             line(3, ":rudi PART #nowhere"), line(3, ":rudi KICK #c ghost :x"),
             line(3, ":hub.fuzz SERVER twin.fuzz 2 2 :twin"), line(3, "SERVER hub.fuzz :again"),
             line(3, ":hub.fuzz NICK lena 1 l h 1 + :L"), line(3, ":lena JOIN #c"), line(7), line(15)]
    write("chat-server-state", [bytes([10, 0, 0]) + b"\n".join(session) for session in (users, link, abuse)])


def ats(words, shape=0, arbitrary=None, local=None, media=None, web=None, entries=None, extra=()):
    """An ats-exceptions input: a count, the steering bytes that build the settings (in the order
    the harness reads them), then the words, one a line. shape: 0 bare, 2 inside
    NSAppTransportSecurity (+4 pinned domains, +8 an unknown key, +16 a CFBundleIdentifier).
    A Boolean is True, False, or raw steering bytes. entries: one per word, (form, keys): form 0
    the word, 3 in upper case, ("/", n) with a prefix length, 6 the next word, a dot and the
    word, 7 the word, a dot and the next; keys among includes, insecure, forward (Booleans) and version ("TLSv1.0"...)."""
    def boolean(value):
        return value if isinstance(value, list) else [8 if value else 0]

    steer = [shape]
    for value in (arbitrary, local, media, web):  # NSAllowsArbitraryLoads, then the overriding keys
        steer += [0] if value is None else [1] + boolean(value)
    if entries is None:
        steer.append(0)
    else:
        steer.append(2)
        for form, keys in entries:
            steer += [4, form[1]] if isinstance(form, tuple) else [form]
            bits = [k in keys for k in ("includes", "insecure", "forward", "version", "other")]
            steer.append(sum(1 << i for i, on in enumerate(bits) if on))
            for key in ("includes", "insecure", "forward"):
                if key in keys:
                    steer += boolean(keys[key])
            if "version" in keys:
                version = keys["version"]
                steer += version if isinstance(version, list) else [["TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"].index(version) << 3]
            if "other" in keys:
                steer += [0, 8]  # NSRequiresCertificateTransparency = YES
    steer += list(extra)
    assert len(steer) < 256
    return bytes([len(steer)] + steer) + "\n".join(words).encode()


def ats_exceptions():
    yes = {"includes": True}
    inputs = [
        # Apple's example: a legacy server and a private network, in an Info.plist.
        ats(["legacy.example.com", "10.0.0.0"], shape=2 + 16, local=True,
            entries=[(0, {"includes": True, "insecure": True, "version": "TLSv1.1", "forward": False}),
                     (("/", 8), {"insecure": False})]),
        # Arbitrary loads, with a parent entry and a more specific one below it.
        ats(["example.org", "www.example.org", "strict.example.com", "api"], arbitrary=True,
            entries=[(0, yes), (0, {"version": "TLSv1.3"}), (0, {}), (7, yes)]),
        # NSAllowsArbitraryLoads beside the keys that make it ignored.
        ats(["media.example.net"], arbitrary=True, media=False, entries=[(0, {"forward": False})]),
        ats(["web.example.net"], shape=2, arbitrary=True, web=True),
        ats(["10.1.2.3"], arbitrary=[12], local=[4]),  # JSON's true and false (NSNumbers)
        # Nested ranges: the narrowest wins; an address key; a zone; loopback.
        ats(["10.0.0.0", "10.1.0.0", "10.1.2.0", "10.1.2.3", "2001:db8::", "2001:db8:1::", "fe80::1%eth0", "::1"],
            shape=2, local=True,
            entries=[(("/", 8), {"version": "TLSv1.0"}), (("/", 16), {"version": "TLSv1.1"}),
                     (("/", 24), {"version": "TLSv1.3"}), (0, {"forward": False}), (("/", 32), {"insecure": True}),
                     (("/", 48), {"version": "TLSv1.3"}), (0, {}), (0, {"version": "TLSv1.0"})], extra=[0x5A, 0xA5, 0x0F]),
        # Keys in any case, set in code as well.
        ats(["Legacy.Example.COM", "EXAMPLE.org", "2001:DB8::"],
            entries=[(0, {"version": "TLSv1.0"}), (3, yes), (("/", 32), {"version": "TLSv1.3"})], extra=[0, 1]),
        # Names below and above one another, and an address key that is no parent of names.
        ats(["example.com", "1.2.3.4", "2.3.4", "www"], entries=[(0, yes), (0, yes), (0, yes), (7, {})]),
        # Unqualified and .local names, and the other systems' keys.
        ats(["printer", "printer.local", "a.b.local.", "localhost", "printer."], shape=2 + 4 + 8 + 16,
            entries=[(0, {"other": True}), (0, {}), (0, yes), (0, {}), (0, {})]),
        # Wrong values: a string for a Boolean, an unknown TLS version, an entry that is no dictionary.
        ats(["example.com"], local=[6, 3]),
        ats(["example.com"], entries=[(0, {"version": [5]})]),
        ats(["example.com", "10.0.0.0"], entries=[(0, {"includes": [6, 4]}), (("/", 33), {})]),
        bytes([4, 0, 0, 0, 0]) + b"example.com",  # no settings at all
        bytes([2, 3, 3]) + b"example.com",  # NSAppTransportSecurity = "YES"
        bytes([8, 0, 0, 0, 0, 0, 2, 0, 0xE3]) + b"example.com",  # an entry that is a string
    ]
    write("ats-exceptions", inputs)


def certificates():
    """Real certificates, made with openssl as Tests/.../TransportSecurityPolicyTests.swift makes
    them: roots (RSA 2048 with SHA-256 and SHA-1, EC P-256, Ed25519) and leaves the first one
    issued (RSA 1024, 2048 and 4096, EC P-224, P-256, P-384 and P-521, one signed with SHA-1)."""
    made = {}
    with tempfile.TemporaryDirectory() as directory:
        def run(*arguments):
            subprocess.run(("openssl",) + arguments, cwd=directory, check=True, capture_output=True)

        def der(name):
            run("x509", "-in", name + ".pem", "-outform", "DER", "-out", name + ".der")
            made[name] = (pathlib.Path(directory) / (name + ".der")).read_bytes()

        def root(name, key, *extra):
            run("req", "-x509", "-newkey", *key, "-nodes", "-keyout", name + ".key", "-out", name + ".pem",
                "-days", "3650", "-subj", "/CN=" + name, *extra)
            der(name)

        def leaf(name, key, *extra):
            run("req", "-newkey", *key, "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name)
            run("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".pem", "-days", "3650", *extra)
            der(name)

        (pathlib.Path(directory) / "leaf.ext").write_text("subjectAltName=DNS:example.com\n")
        root("ca", ["rsa:2048"], "-sha256")
        root("sha1root", ["rsa:2048"], "-sha1")
        root("ecroot", ["ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"], "-sha256")
        root("edroot", ["ed25519"])
        leaf("rsa2048", ["rsa:2048"], "-sha256", "-extfile", "leaf.ext")
        leaf("rsa1024", ["rsa:1024"], "-sha256")
        leaf("rsa4096", ["rsa:4096"], "-sha512")
        leaf("p256", ["ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"], "-sha256")
        leaf("p384", ["ec", "-pkeyopt", "ec_paramgen_curve:secp384r1"], "-sha384")
        leaf("p224", ["ec", "-pkeyopt", "ec_paramgen_curve:secp224r1"], "-sha256")
        leaf("p521", ["ec", "-pkeyopt", "ec_paramgen_curve:secp521r1"], "-sha512")
        leaf("sha1", ["rsa:2048"], "-sha1")
    return made


def long_length(der):
    """The certificate with its outer length written in four bytes."""
    header = 2 + (der[1] & 0x7F if der[1] & 0x80 else 0)
    contents = der[header:]
    return bytes([der[0], 0x84]) + struct.pack(">I", len(contents)) + contents


def certificate_der():
    folder = CORPUS / "certificate-der"
    if folder.is_dir() and any(folder.iterdir()) and "--new-certificates" not in sys.argv:
        return  # kept: new ones would differ in every byte of their keys
    c = certificates()

    def chain(certs, flags=0):
        """A flags byte (bit 0: forward secrecy not required), the count less one, the lengths
        of all but the last (2 bytes each), then the certificates, leaf first."""
        lengths = b"".join(struct.pack(">H", len(cert)) for cert in certs[:-1])
        return bytes([flags, len(certs) - 1]) + lengths + b"".join(certs)

    inputs = [chain([cert]) for cert in c.values()]
    inputs += [
        chain([c["rsa2048"], c["ca"]]), chain([c["p256"], c["p384"], c["ca"]]), chain([c["rsa2048"], c["sha1root"]]),
        chain([c["sha1"], c["ca"]]), chain([c["rsa2048"], c["sha1"]]), chain([c["rsa1024"], c["ca"]]),
        chain([c["rsa1024"], c["ca"]], flags=1), chain([c["rsa4096"], c["ecroot"], c["edroot"], c["ca"]], flags=0x32),
        chain([c["rsa2048"][:300]]), chain([c["p256"] + b"\x00"]), chain([bytes([0x30, 0x03, 0x02, 0x01, 0x00])]),
        chain([long_length(c["p256"])]),  # its length in 4 bytes: not DER's shortest, still read
    ]
    write("certificate-der", inputs)



def framers():
    """Seeds for the framers' targets: option bytes, read sizes, then a stream of frames."""
    def prefixed(messages, width=4, order="big", counts=False):
        out = b""
        for m in messages:
            n = len(m) + (width if counts else 0)
            out += n.to_bytes(width, order) + m
        return out

    lines = b"NICK alice\r\nUSER a 0 * :A\r\n\r\nPING x\nlast"
    write("line-framer", [
        bytes([1, 63, 3, 1, 7, 200]) + lines,                 # CR LF, fail
        bytes([0, 4, 1, 1, 1, 1]) + b"abcd\nabcde\n",        # LF, a line one over
        bytes([5, 4, 5, 1, 2, 3]) + b"abcd\r\nabcdefghij\r\nok\r\n",  # cut
        bytes([10, 8, 0, 0, 0, 0]) + b"\r\r\n\n\rend",    # either, unended last line
    ])
    messages = [b"", b"a", b"hello", b"x" * 300]
    write("length-prefixed-framer", [
        bytes([2, 100, 3, 1, 9, 64]) + prefixed(messages),
        bytes([0, 255, 1, 1, 1, 1]) + prefixed([b"abc", b"defg"], width=1),
        bytes([5, 100, 2, 2, 2, 2]) + prefixed(messages[:3], width=2, order="little"),
        bytes([3 | 8, 100, 4, 4, 4, 4]) + prefixed(messages, width=8, counts=True),
        bytes([3, 10, 1, 1, 1, 1]) + (1 << 63).to_bytes(8, "big") + b"hostile",
    ])
    def tlv(items, type_width=2, length_width=4):
        return b"".join(t.to_bytes(type_width, "big") + len(v).to_bytes(length_width, "big") + v for t, v in items)
    write("tlv-framer", [
        bytes([1 | (2 << 2), 100, 3, 5, 7, 11]) + tlv([(1, b"one"), (0, b""), (513, b"x" * 40)]),
        bytes([0, 10, 1, 1, 1, 1]) + tlv([(7, b"seven")], type_width=1, length_width=1),
        bytes([3 | (3 << 2), 2, 1, 1, 1, 1]) + tlv([(1, b"too long for two")], type_width=4, length_width=8),
    ])
    write("delimiter-framer", [
        bytes([4, 13, 10, 46, 13, 60, 3, 1, 7, 2]) + b"first\r\n.\r\nsecond\r\n.\r\nrest",
        bytes([0, 0, 0, 0, 0, 8, 1, 1, 1, 1]) + b"a\x00bc\x00defghijkl\x00",
        bytes([1, 13, 10, 0, 0, 20, 1, 2, 3, 4]) + b"crlf\r\nends\r\n\r",
    ])


irc()
chat_server_state()
txt_records()
netlink()
no_proxy()
http_connect()
socks5()
server_hello()
ats_exceptions()
certificate_der()
framers()
