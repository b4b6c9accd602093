//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging

extension StreamSession {
    /// How a session's tasks behave. A `Sendable` value: change a copy, then create a session.
    ///
    /// Later features (TLS, proxies) add their own properties with defaults, so code written
    /// against this initializer keeps compiling.
    public struct Configuration: Sendable {
        /// The timeout used by reads that are not given one, in seconds; 0 means none.
        public var timeoutIntervalForRead: TimeInterval
        /// The timeout used by writes that are not given one, in seconds; 0 means none.
        public var timeoutIntervalForWrite: TimeInterval
        /// How long name resolution plus connecting may take, in seconds; 0 means none.
        public var timeoutIntervalForConnect: TimeInterval
        /// How many connections to one host may be open at once. Tasks resumed over the limit
        /// wait, in the order they were resumed, until one of that host's tasks completes.
        /// Tasks accepted by a listener do not count.
        public var maximumConnectionsPerHost: Int
        /// How many received bytes a task buffers before it stops reading from the socket until
        /// its owner reads: a slow reader slows the peer instead of growing memory.
        public var inboundBufferLimit: Int
        /// How client tasks speak TLS after ``StreamTask/startSecureConnection()``: secure
        /// defaults (TLS 1.2 or newer, the system's trust store, host name checked).
        public var tls: StreamTLSConfiguration
        /// Where the session and its tasks log. Silent by default; the library logs nothing at
        /// `info` or above.
        public var logger: Logger
        /// How tasks reach their hosts: ``ProxyConfiguration/environment-swift.type.property`` by default, that is
        /// through the proxy named by `https_proxy` or `all_proxy`, if any.
        public var proxy: ProxyConfiguration
        /// Whether connected tasks report ``StreamTaskEvent/betterRouteDiscovered`` and
        /// ``StreamTaskEvent/viabilityChanged(isViable:)`` (see <doc:Routes>). On by default;
        /// the whole process shares one monitor, running only while some task uses it.
        public var monitorsRoutes: Bool = true

        /// A configuration with every default.
        public static var `default`: Configuration { Configuration() }

        public init(
            timeoutIntervalForRead: TimeInterval = 0,
            timeoutIntervalForWrite: TimeInterval = 0,
            timeoutIntervalForConnect: TimeInterval = 60,
            maximumConnectionsPerHost: Int = .max,
            inboundBufferLimit: Int = 256 * 1024,
            tls: StreamTLSConfiguration = StreamTLSConfiguration(),
            logger: Logger = Logger(label: "StreamTaskKit", factory: { _ in SwiftLogNoOpLogHandler() }),
            proxy: ProxyConfiguration = .environment
        ) {
            self.timeoutIntervalForRead = timeoutIntervalForRead
            self.timeoutIntervalForWrite = timeoutIntervalForWrite
            self.timeoutIntervalForConnect = timeoutIntervalForConnect
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.inboundBufferLimit = inboundBufferLimit
            self.tls = tls
            self.logger = logger
            self.proxy = proxy
        }
    }
}
