//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a link's connection has done, from its stream task's metrics, for `STATS l`: the state
/// is given these figures by the I/O around it, as it is given the time.
public struct ChatLinkTraffic: Sendable, Hashable {
    /// Bytes queued for the peer and not yet handed to the kernel.
    public var sendQueue: Int
    /// Bytes sent and received (application bytes, TLS records' contents).
    public var bytesSent: Int64
    public var bytesReceived: Int64
    /// When the connection was opened, in Unix time.
    public var openedAt: Int
    /// How the connection is carried: TLS version and suite or plaintext, the proxy it goes
    /// through, the addresses, and how long connecting took.
    public var carriage: String

    /// Figures from their parts.
    public init(sendQueue: Int, bytesSent: Int64, bytesReceived: Int64, openedAt: Int, carriage: String) {
        self.sendQueue = sendQueue
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.openedAt = openedAt
        self.carriage = carriage
    }
}
