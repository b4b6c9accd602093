//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The one connection of a stream task, shaped as `URLSessionTaskTransactionMetrics`.
///
/// A date is `nil` when its phase did not happen: a task accepted by a listener has no domain
/// lookup and no connect phase, and a task without TLS no secure connection. A stream is not a
/// request and a response, so Apple's request and response dates mean the two directions of
/// the stream here: both open when the connection is established (``requestStartDate`` and
/// ``responseStartDate`` are ``connectEndDate``, or ``fetchStartDate`` for an accepted
/// connection) and both end when the task completes (``requestEndDate`` and
/// ``responseEndDate``). With STARTTLS the secure connection dates fall between the two. The
/// library does not time single reads and writes.
///
/// Apple's `request` and `response` are FoundationNetworking types on Linux, which the core
/// module does not import: they are left out.
public final class StreamSessionTaskTransactionMetrics: Sendable {
    /// When the task was created.
    public let fetchStartDate: Date?
    /// When name resolution started and ended. Through a proxy they time the proxy's name.
    public let domainLookupStartDate: Date?
    public let domainLookupEndDate: Date?
    /// When connecting started, and when the connection was established (through a proxy: when
    /// the proxy's handshake finished).
    public let connectStartDate: Date?
    public let connectEndDate: Date?
    /// When the last TLS handshake started and ended.
    public let secureConnectionStartDate: Date?
    public let secureConnectionEndDate: Date?
    /// When the task could start writing, and when it completed.
    public let requestStartDate: Date?
    public let requestEndDate: Date?
    /// When the task could start reading, and when it completed.
    public let responseStartDate: Date?
    public let responseEndDate: Date?

    /// The TLS version the last handshake negotiated, `nil` without TLS.
    public let negotiatedTLSProtocolVersion: tls_protocol_version_t?
    /// The cipher suite the last handshake negotiated; `nil` without TLS, or for a suite that
    /// `tls_ciphersuite_t` does not name (``StreamTaskMetrics/negotiatedCipherSuite`` still
    /// gives its number).
    public let negotiatedTLSCipherSuite: tls_ciphersuite_t?

    /// Application bytes written by completed writes (before TLS protects them).
    public let countOfRequestBodyBytesSent: Int64
    /// The same as ``countOfRequestBodyBytesSent``: a stream task encodes nothing.
    public let countOfRequestBodyBytesBeforeEncoding: Int64
    /// Application bytes received from the peer (after TLS), read yet or not.
    public let countOfResponseBodyBytesReceived: Int64
    /// The same as ``countOfResponseBodyBytesReceived``: a stream task decodes nothing.
    public let countOfResponseBodyBytesAfterDecoding: Int64
    /// Always 0: a stream task sends no headers.
    public let countOfRequestHeaderBytesSent: Int64
    /// Always 0: a stream task receives no headers.
    public let countOfResponseHeaderBytesReceived: Int64

    /// The local end of the connection, once connected.
    public let localAddress: String?
    public let localPort: Int?
    /// The peer's end of the connection, once connected (through a proxy, the proxy's).
    public let remoteAddress: String?
    public let remotePort: Int?

    /// Whether the connection goes through a proxy (``StreamTaskMetrics/proxyKind`` says which).
    public let isProxyConnection: Bool
    /// Always `false`: every stream task has a connection of its own.
    public let isReusedConnection: Bool
    /// Always `false`: the library does not ask what kind of interface carries the connection.
    public let isCellular: Bool
    /// Always `false`, for the same reason.
    public let isExpensive: Bool
    /// Always `false`, for the same reason.
    public let isConstrained: Bool
    /// Always `false`: connections are plain TCP.
    public let isMultipath: Bool
    /// Always `nil`: a stream task speaks no protocol the library knows by name (ALPN's choice
    /// is ``StreamTaskMetrics/negotiatedApplicationProtocol``).
    public let networkProtocolName: String?
    /// Always ``StreamSessionTaskMetrics/ResourceFetchType/networkLoad``.
    public let resourceFetchType: StreamSessionTaskMetrics.ResourceFetchType
    /// Always ``StreamSessionTaskMetrics/DomainResolutionProtocol/unknown``: see there why.
    public let domainResolutionProtocol: StreamSessionTaskMetrics.DomainResolutionProtocol

    /// The transaction that `metrics` records, under Apple's names.
    public init(_ metrics: StreamTaskMetrics) {
        fetchStartDate = metrics.taskStartDate
        domainLookupStartDate = metrics.domainLookupStartDate
        domainLookupEndDate = metrics.domainLookupEndDate
        connectStartDate = metrics.connectStartDate
        connectEndDate = metrics.connectEndDate
        secureConnectionStartDate = metrics.secureConnectionStartDate
        secureConnectionEndDate = metrics.secureConnectionEndDate
        let opened = metrics.connectEndDate ?? (metrics.remoteAddress != nil ? metrics.taskStartDate : nil)
        requestStartDate = opened
        responseStartDate = opened
        requestEndDate = metrics.taskEndDate
        responseEndDate = metrics.taskEndDate

        negotiatedTLSProtocolVersion = metrics.negotiatedTLSVersion.flatMap(tls_protocol_version_t.init(metricsName:))
        negotiatedTLSCipherSuite = metrics.negotiatedCipherSuite.flatMap(tls_ciphersuite_t.init(metricsName:))

        countOfRequestBodyBytesSent = metrics.countOfBytesSent
        countOfRequestBodyBytesBeforeEncoding = metrics.countOfBytesSent
        countOfResponseBodyBytesReceived = metrics.countOfBytesReceived
        countOfResponseBodyBytesAfterDecoding = metrics.countOfBytesReceived
        countOfRequestHeaderBytesSent = 0
        countOfResponseHeaderBytesReceived = 0

        localAddress = metrics.localAddress
        localPort = metrics.localPort
        remoteAddress = metrics.remoteAddress
        remotePort = metrics.remotePort

        isProxyConnection = metrics.isProxyConnection
        isReusedConnection = false
        isCellular = false
        isExpensive = false
        isConstrained = false
        isMultipath = false
        networkProtocolName = nil
        resourceFetchType = .networkLoad
        domainResolutionProtocol = .unknown
    }
}
