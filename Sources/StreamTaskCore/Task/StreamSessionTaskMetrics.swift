//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// A task's metrics shaped as `URLSessionTaskMetrics`, as
/// ``StreamSessionCoreTaskDelegate/urlSession(_:task:didFinishCollecting:)`` delivers them.
///
/// A stream task makes one connection, so ``transactionMetrics`` holds one transaction
/// (none for a task that completed before it was resumed), and ``redirectCount`` is 0. The
/// values are read from the task's ``StreamTaskMetrics``, the library's own and richer record
/// (``StreamTask/metrics``, ``StreamTaskEvent/metricsCollected(_:)``): this is a view of it
/// under Apple's names. Like Apple's, it is a class; unlike Apple's, it is not an `NSObject`,
/// and it is immutable, so it is `Sendable`.
public final class StreamSessionTaskMetrics: Sendable {
    /// How a transaction's resource was fetched, with Apple's cases and raw values.
    public enum ResourceFetchType: Int, Sendable, Hashable {
        case unknown = 0
        /// Over the network: always so for a stream task.
        case networkLoad = 1
        case serverPush = 2
        case localCache = 3
    }

    /// How the host name was resolved, with Apple's cases and raw values.
    public enum DomainResolutionProtocol: Int, Sendable, Hashable {
        /// Not known: always so here, since the system resolver (`getaddrinfo`) does not say
        /// whether it asked DNS over UDP, read a hosts file, or had nothing to resolve.
        case unknown = 0
        case udp = 1
        case tcp = 2
        case tls = 3
        case https = 4
    }

    /// The task's one transaction, or none when the task never started to connect.
    public let transactionMetrics: [StreamSessionTaskTransactionMetrics]
    /// From the task's creation to its completion (to when these metrics were made, for a task
    /// still running).
    public let taskInterval: DateInterval
    /// Always 0: a stream task follows no redirects.
    public let redirectCount: Int

    /// The metrics that `metrics` records, under Apple's names.
    public init(_ metrics: StreamTaskMetrics) {
        let connected = metrics.domainLookupStartDate != nil || metrics.remoteAddress != nil
        self.transactionMetrics = connected ? [StreamSessionTaskTransactionMetrics(metrics)] : []
        self.taskInterval = metrics.taskInterval
        self.redirectCount = 0
    }
}
