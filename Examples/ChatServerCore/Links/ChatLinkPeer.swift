//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A server this one may link with, as one of ngIRCd's `[Server]` blocks describes it: its
/// name, the passwords each side sends, and where to connect when this server links out.
public struct ChatLinkPeer: Sendable, Hashable {
    /// How a link this server opens is secured.
    public enum Security: Sendable, Hashable {
        /// No TLS.
        case plaintext
        /// TLS from the first byte (ngIRCd's `SSLConnect`), the peer's chain checked against the
        /// system's roots and its name or address against the host connected to.
        case verified
        /// TLS from the first byte, the peer's certificate accepted by its SHA-256 alone.
        case pinned(sha256: [UInt8])
        /// TLS from the first byte, the peer's chain checked against the certificates in a
        /// PEM file (a private CA) and its name or address against the host connected to.
        case certificateAuthority(pemFile: String)
    }

    /// The peer's server name, as its `SERVER` line must give it (`hub.example`).
    public var name: String
    /// Where to connect to; `nil` for a peer that only connects in (ngIRCd's `[Server]`
    /// block without `Port`).
    public var host: String?
    /// The port to connect to.
    public var port: Int?
    /// The password this server sends in its `PASS` line. (ngIRCd calls it `PeerPassword`:
    /// the peer's password, which ngIRCd sends to the peer.)
    public var sentPassword: String
    /// The password the peer must send. (ngIRCd calls it `MyPassword`: this server's own,
    /// which the peer must know.)
    public var expectedPassword: String
    /// How a link this server opens to the peer is secured. A link the peer opens is as
    /// secure as the port it connects to (``ChatServerConfiguration/tlsPort``).
    public var security = Security.plaintext

    /// A peer from its parts. One password for both directions is the usual set-up.
    public init(name: String, host: String? = nil, port: Int? = nil, sentPassword: String, expectedPassword: String) {
        self.name = name
        self.host = host
        self.port = port
        self.sentPassword = sentPassword
        self.expectedPassword = expectedPassword
    }

    /// Whether this server connects to the peer (it has an address), rather than waiting for
    /// the peer to connect in.
    public var connectsOut: Bool { host != nil && port != nil }

    /// A peer from a command-line argument: `NAME` for one that connects in, or
    /// `NAME=HOST:PORT` (an IPv6 address in brackets) for one this server connects to, with one
    /// password for both directions; `nil` when the argument has neither form.
    public init?(argument: String, password: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard let name = parts.first, !name.isEmpty, !name.contains(where: { $0 == " " || $0 == ":" }) else {
            return nil
        }
        guard parts.count == 2 else {
            self.init(name: name, sentPassword: password, expectedPassword: password)
            return
        }
        let address = parts[1]
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("[") else { return nil }
        self.init(name: name, host: host, port: port, sentPassword: password, expectedPassword: password)
    }
}
