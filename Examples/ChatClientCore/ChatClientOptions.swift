//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import Foundation
import StreamTaskKit

/// What the chat client connects to, how, and as whom.
public struct ChatClientOptions: Sendable {
    /// Where to connect.
    public enum Target: Sendable {
        /// A host name or address and a port.
        case host(String, port: Int)
        /// A server found through DNS-SD.
        case discovered(DiscoveredChatServer)
    }

    /// How the connection is secured.
    public enum Security: Sendable, Hashable {
        /// Plaintext only.
        case none
        /// Upgrade with STARTTLS; anything short of a successful upgrade is fatal.
        case startTLS
        /// TLS from the first byte (port 6697 by convention).
        case tls
    }

    /// Where to connect.
    public var target: Target
    /// How the connection is secured.
    public var security: Security
    /// The certificate SHA-256 to pin to (from the TXT record's `fp` or `--fingerprint`);
    /// with a pin, chain and name are not checked.
    public var pinnedCertificateSHA256: [UInt8]?
    /// Check nothing about the server's certificate (no pin, no chain): for tests only.
    public var acceptsAnyCertificate = false
    /// App Transport Security for the connection, as an app's `NSAppTransportSecurity`: by
    /// default what a LAN chat app declares, `NSAllowsLocalNetworking` (servers found through
    /// DNS-SD are reached by IP address), with ATS's rules for every named host.
    public var transportSecurity = StreamTransportSecurity(allowsLocalNetworking: true)
    /// The nickname to register with.
    public var nick: String
    /// The real name sent with `USER`.
    public var realName: String
    /// Channels to join once registered.
    public var channels: [String]
    /// A server password, sent with `PASS` just before `NICK` and `USER` (so, under STARTTLS,
    /// after the upgrade). A bouncer such as ZNC takes `user/network:password`.
    public var password: String?
    /// The proxy to connect through (`.environment` honours `https_proxy`/`all_proxy`).
    public var proxy: ProxyConfiguration
    /// Whether to reconnect when the connection drops.
    public var reconnects = true
    /// How many lines (and pieces of long ones) go at once; after them, lines go at
    /// ``pacedLinesPerSecond``, whether they are pieces of one long message or many lines
    /// pasted together. With Protocol.md's flood limits (10 lines at once, then 2 a second, 30
    /// waiting at most) a long paste would otherwise be dropped as a flood.
    public var pacedAfterLines = IRCLimits.floodBurst / 2
    /// How many lines a second go after the first ``pacedAfterLines``.
    public var pacedLinesPerSecond = Double(IRCLimits.floodLinesPerSecond)
    /// How long to wait for the answer to `CAP LS` before STARTTLS, in seconds. A server
    /// without capability negotiation may say nothing at all (ircd 2.11 waits for `NICK` and
    /// `USER`), and then there is no STARTTLS either.
    public var capabilityTimeout: TimeInterval = 20

    /// Options for connecting to `target`.
    public init(
        target: Target, security: Security, nick: String, realName: String = "StreamTaskKit chat",
        channels: [String] = [], proxy: ProxyConfiguration = .environment
    ) {
        self.target = target
        self.security = security
        self.nick = nick
        self.realName = realName
        self.channels = channels
        self.proxy = proxy
    }

    /// The options for a server found through DNS-SD: STARTTLS pinned to its `fp` when the TXT
    /// record offers it, plaintext when it says `tls=none`.
    public static func discovered(_ server: DiscoveredChatServer, nick: String, channels: [String]) -> ChatClientOptions
    {
        let offers = server.record?.offersSTARTTLS ?? false
        var options = ChatClientOptions(
            target: .discovered(server), security: offers ? .startTLS : .none, nick: nick, channels: channels,
            proxy: .direct)
        options.pinnedCertificateSHA256 = offers ? server.record?.certificateSHA256 : nil
        return options
    }

    /// The TLS settings for the upgrade or the first-byte handshake.
    var tlsConfiguration: StreamTLSConfiguration {
        if let pin = pinnedCertificateSHA256 {
            return StreamTLSConfiguration(certificateVerification: .none, pins: [.certificateSHA256(pin)])
        }
        if acceptsAnyCertificate {
            return StreamTLSConfiguration(certificateVerification: .none)
        }
        return StreamTLSConfiguration()
    }

    /// `host:port` or the service name, for messages.
    var targetDescription: String {
        switch target {
        case .host(let host, let port):
            host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .discovered(let server): "\"\(server.name)\""
        }
    }

    /// A certificate fingerprint as a user types it: 64 hex digits, in either case, with or
    /// without colons between the bytes, after an optional `sha256:` (`SHA256:` too, as some
    /// tools print it). `nil` when it is anything else.
    public static func fingerprint(fromUserInput text: String) -> [UInt8]? {
        var hex = text.lowercased()
        if hex.hasPrefix("sha256:") { hex.removeFirst("sha256:".count) }
        hex.removeAll { $0 == ":" }
        return ChatServiceRecord.parseFingerprint("sha256:" + hex)
    }
}
