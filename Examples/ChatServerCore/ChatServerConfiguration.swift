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
import Logging
import StreamTaskKit

/// Everything a ``ChatServer`` needs to know before it starts.
public struct ChatServerConfiguration: Sendable {
    /// The address to bind (`0.0.0.0` for every IPv4 interface, `::` for every interface).
    public var host = "0.0.0.0"
    /// The port; 0 picks a free one (read it back from ``ChatServer/port``).
    public var port = 6667
    /// How the server presents itself.
    public var identity: ChatServerIdentity
    /// The certificate and key for STARTTLS (and ``tlsPort``); `nil` offers no STARTTLS.
    public var tls: StreamTLSConfiguration?
    /// A second port that speaks TLS from the first byte, as ngIRCd's `[SSL] Ports`: for
    /// clients that connect with TLS at once, and for servers that link with `SSLConnect`;
    /// 0 picks a free one, `nil` opens none. Needs ``tls``.
    public var tlsPort: Int?
    /// The most clients at once, registered or not; half of them at most still registering
    /// (``ChatServerState/maximumUnregisteredClients``).
    public var maximumClients = IRCLimits.defaultMaxClients
    /// The most clients at once from one address (an IPv4 address, or an IPv6 /64), as
    /// ngIRCd's `MaxConnectionsIP`; `nil` for no limit (benchmarks and load tests that open
    /// hundreds of loopback connections).
    public var maximumClientsPerAddress: Int? = Self.defaultMaximumClientsPerAddress
    /// The default of ``maximumClientsPerAddress``: 5, as ngIRCd's.
    public static let defaultMaximumClientsPerAddress = 5
    /// Time from connecting until registration must be complete.
    public var registrationTimeout = IRCLimits.registrationTimeout
    /// Time without a line before the server sends `PING`.
    public var idleTimeout = IRCLimits.idleTimeout
    /// Time after that `PING` before the client is dropped.
    public var pingTimeout = IRCLimits.pingTimeout
    /// Lines a client may send at once before throttling; `nil` switches flood control off
    /// (for benchmarks, as one lifts ngIRCd's penalty).
    public var floodBurst: Int? = IRCLimits.floodBurst
    /// Lines a second a throttled client's lines are processed at.
    public var floodLinesPerSecond = Double(IRCLimits.floodLinesPerSecond)
    /// Lines that may wait for throttling before the client is dropped (`Excess Flood`).
    public var floodQueuedLines = IRCLimits.floodQueuedLines
    /// Bytes not yet written to a client before it is dropped (`SendQ exceeded`).
    public var sendQueueLimit = IRCLimits.sendQueueBytes
    /// How long the senders wait for a client whose send queue passed half the limit to drain
    /// to a quarter of it. Meanwhile a sender whose line found that queue congested reads no
    /// more, so a client that reads, only slower than it is sent to, slows the senders instead
    /// of being dropped. A client that has not drained by then reads too slowly to hold the
    /// others back (or not at all): it slows no one, and is dropped at ``sendQueueLimit``.
    public var sendQueueStallTimeout: Duration = .seconds(1)
    /// The kernel send buffer of each client connection. Bounded, so that what a client that
    /// stops reading costs (kernel buffer plus send queue) stays small, and such a client is
    /// noticed after kilobytes rather than megabytes; `nil` leaves the system's sizing.
    public var socketSendBuffer: Int? = 64 * 1024
    /// The servers this one links with, as ngIRCd's `[Server]` blocks: it connects out to
    /// those with an address and accepts the others' links on its own listener; each must
    /// give its password (Protocol.md, "Server links").
    public var links: [ChatLinkPeer] = []
    /// The session the server's listeners accept connections into: its event loops serve the
    /// clients and the links that come in. `nil` makes a new default session, on the shared
    /// event loops.
    public var listenerSession: StreamSession?
    /// The session outgoing links are made with: its proxy, TLS and transport-security
    /// settings apply to them as to any stream task. `nil` uses ``StreamSession/shared``.
    public var linkSession: StreamSession?
    /// The send queue of a server link: a burst carries the whole network.
    public var linkSendQueueLimit = 16 * 1024 * 1024
    /// The first wait before this server connects out again after a link failed or ended; it
    /// doubles after each failure, up to ``linkRetryMaximum``, and starts over once a link
    /// has registered.
    public var linkRetryInterval: Duration = .seconds(1)
    /// Time without a line from a linked server before this server sends it `PING`.
    public var linkIdleTimeout = IRCLimits.idleTimeout
    /// Time after that `PING` before the link is given up (a netsplit).
    public var linkPingTimeout = IRCLimits.pingTimeout
    /// The longest wait between attempts to link out.
    public var linkRetryMaximum: Duration = .seconds(60)
    /// Where the server logs connections and drops; nothing by default (the command line sets
    /// a real one).
    public var logger = Logger(label: "chat-server", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A configuration with the protocol's default limits.
    public init(identity: ChatServerIdentity, tls: StreamTLSConfiguration? = nil) {
        self.identity = identity
        self.tls = tls
    }
}
