//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// What happened on one task's connection, in the spirit of `URLSessionTaskMetrics`.
///
/// Read it at any time from ``StreamTask/metrics``; it is also delivered once, when the task
/// completes, as ``StreamTaskEvent/metricsCollected(_:)``, and under Apple's shape as the
/// ``StreamSessionTaskMetrics`` that
/// ``StreamSessionCoreTaskDelegate/urlSession(_:task:didFinishCollecting:)`` receives.
/// A date is `nil` while its phase has not happened (a task accepted by a listener has no
/// domain lookup and no connect phase).
public struct StreamTaskMetrics: Sendable, Hashable {
    /// When the task was created.
    public var taskStartDate: Date
    /// When the task completed, or `nil` while it is still running.
    public var taskEndDate: Date?
    /// When name resolution started and ended.
    public var domainLookupStartDate: Date?
    public var domainLookupEndDate: Date?
    /// When the TCP connection attempt started and when the connection was established.
    public var connectStartDate: Date?
    public var connectEndDate: Date?
    /// When the TLS handshake started and ended.
    public var secureConnectionStartDate: Date?
    public var secureConnectionEndDate: Date?
    /// The TLS version negotiated by the last handshake, such as "TLS 1.3".
    public var negotiatedTLSVersion: String?
    /// The cipher suite negotiated by the last handshake, by its IANA name.
    public var negotiatedCipherSuite: String?
    /// The application protocol agreed with ALPN, if any.
    public var negotiatedApplicationProtocol: String?
    /// The certificate chain the peer presented in the last handshake, leaf first.
    public var peerCertificateChain: [TLSCertificate] = []
    /// Whether the connection goes through a proxy. The domain lookup dates then time the
    /// proxy's name (and, for `socks5://`, the target's too), the connect dates cover connecting
    /// to the proxy and its handshake, and the remote address is the proxy's.
    public var isProxyConnection: Bool
    /// Which kind of proxy the connection goes through; `nil` without one.
    public var proxyKind: ProxyKind?
    /// The local end of the connection, once connected.
    public var localAddress: String?
    public var localPort: Int?
    /// The peer's end of the connection, once connected.
    public var remoteAddress: String?
    public var remotePort: Int?
    /// The task's own bytes of completed writes (under TLS, before encryption: the bytes on the
    /// wire are more).
    public var countOfBytesSent: Int64
    /// The task's own bytes received from the peer, whether or not they have been read yet (under
    /// TLS, after decryption).
    public var countOfBytesReceived: Int64

    /// From the task's creation to its completion (or to now, while it runs).
    public var taskInterval: DateInterval {
        DateInterval(start: taskStartDate, end: max(taskStartDate, taskEndDate ?? Date()))
    }

    init(taskStartDate: Date = Date()) {
        self.taskStartDate = taskStartDate
        self.isProxyConnection = false
        self.countOfBytesSent = 0
        self.countOfBytesReceived = 0
    }
}
