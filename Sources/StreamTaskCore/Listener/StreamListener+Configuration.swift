//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamListener {
    /// Everything a ``StreamListener`` needs besides its address: TLS, limits, the kernel's
    /// queues and buffers, and the session accepted tasks belong to.
    ///
    /// ```swift
    /// var configuration = StreamListener.Configuration()
    /// configuration.maximumConnections = 1000
    /// configuration.maximumConnectionsPerAddress = 10
    /// let listener = StreamListener(host: "0.0.0.0", port: 7007, configuration: configuration)
    /// ```
    ///
    /// ## Limits
    /// - ``maximumConnections`` holds accepting back while that many accepted connections are
    ///   open: more wait in the kernel's backlog, nothing is refused.
    /// - ``maximumWaitingConnections`` holds accepting back while that many accepted
    ///   connections wait in ``StreamListener/connections`` for the consumer to take them: a
    ///   consumer that stops taking connections stops the accepting.
    /// - ``maximumConnectionsPerAddress`` refuses connections past the limit from one peer
    ///   (see ``PeerAddressGroup``: an IPv4 address, or an IPv6 /64) at accept: the listener
    ///   closes them at once, reads nothing from them and hands them to no one; each refusal
    ///   counts in ``StreamListener/Metrics/refusedOverAddressLimit``. It is a generic guard
    ///   that cannot tell the peer why: a server whose protocol has a way to say so (an IRC
    ///   `ERROR` line, an HTTP 503) keeps an account of its own and leaves this one off, or sets
    ///   it above its own so that it only bounds what refusing costs.
    public struct Configuration: Sendable {
        /// When set, every accepted connection starts with a TLS handshake as a server (TLS from
        /// the first byte); its operations wait for the handshake. `nil` for plaintext (accepted
        /// tasks can still upgrade with STARTTLS).
        public var tls: StreamTLSConfiguration?
        /// The most accepted connections open at once; more wait in the kernel's backlog.
        /// `Int.max` (the default) for no limit; at least 1.
        public var maximumConnections: Int
        /// The most accepted connections waiting in ``StreamListener/connections`` for the
        /// consumer to take them; while that many wait, the listener accepts nothing more and
        /// new connections wait in the kernel's backlog. 16 by default; at least 1.
        public var maximumWaitingConnections: Int
        /// The most connections open at once from one peer (an IPv4 address, or an IPv6 /64:
        /// ``PeerAddressGroup``); more are closed at accept, unread. `nil` (the default) for
        /// no limit; at least 1.
        public var maximumConnectionsPerAddress: Int?
        /// The kernel's queue of connections not yet accepted (`listen(2)`'s backlog).
        public var backlog: Int
        /// The kernel send buffer (`SO_SNDBUF`) of each accepted connection, in bytes; `nil`
        /// keeps the system's automatic sizing, which on Linux lets one connection's buffer
        /// grow to 4 MiB. A server with many slow peers sets it to bound what the kernel holds
        /// for each of them (Linux doubles the value for its bookkeeping).
        public var sendBufferSize: Int?
        /// The session accepted tasks belong to: they are in its ``StreamSession/allTasks``,
        /// use its timeouts and delegate, but do not count against its per-host limit.
        public var session: StreamSession

        /// A configuration with the defaults: plaintext, no limit on open connections, 16
        /// waiting to be taken, a backlog of 256, the system's send buffer, and a new default
        /// session.
        public init(
            tls: StreamTLSConfiguration? = nil,
            maximumConnections: Int = .max,
            maximumConnectionsPerAddress: Int? = nil,
            maximumWaitingConnections: Int = 16,
            backlog: Int = 256,
            sendBufferSize: Int? = nil,
            session: StreamSession = StreamSession()
        ) {
            self.tls = tls
            self.maximumConnections = maximumConnections
            self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
            self.maximumWaitingConnections = maximumWaitingConnections
            self.backlog = backlog
            self.sendBufferSize = sendBufferSize
            self.session = session
        }

        /// The values in their ranges: limits at least 1, the backlog within `Int32`.
        var normalized: Configuration {
            var normalized = self
            normalized.maximumConnections = max(1, maximumConnections)
            normalized.maximumConnectionsPerAddress = maximumConnectionsPerAddress.map { max(1, $0) }
            normalized.maximumWaitingConnections = max(1, maximumWaitingConnections)
            normalized.backlog = Int(Int32(clamping: backlog))
            normalized.sendBufferSize = sendBufferSize.map { max(1, $0) }
            return normalized
        }
    }
}
