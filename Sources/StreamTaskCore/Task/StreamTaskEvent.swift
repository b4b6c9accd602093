//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Something that happened to a task, delivered through ``StreamTask/events``.
///
/// When each one fires:
/// - ``readClosed``: no more bytes will arrive. It fires once, at the first of: the peer's end of
///   stream (its FIN) reaching the task, or ``StreamTask/closeRead()`` taking effect. Bytes that
///   arrived before the FIN may still be unread: reads return them, then end of stream. (The
///   FIN arriving is not the same as a read returning `atEOF == true`: that comes later, when the
///   buffer is empty.) A FIN that ends TLS without the peer's close_notify is no end of stream
///   but a truncation: it does not fire, and reads end with ``StreamTaskError/Code/tlsTruncated``.
/// - ``writeClosed``: ``StreamTask/closeWrite()`` took effect: every earlier write completed and
///   the end of stream was sent to the peer.
/// - ``metricsCollected(_:)``: the task completed; these are its final metrics. Fires once,
///   just before ``completed(_:)``.
/// - ``completed(_:)``: the connection is closed and the task is done: `nil` after an orderly
///   close (both directions ended), the error otherwise (cancellation, connect failure, reset).
///   It is always the last event.
/// - ``betterRouteDiscovered``: while the connection works, the system would now reach the peer
///   by another interface or from another local address (a better link came up, a better route
///   appeared). Fires once per new route; see <doc:Routes>.
/// - ``viabilityChanged(isViable:)``: the connection's local address or interface went away
///   (`false`) or came back (`true`). Connections start viable; see <doc:Routes>.
public enum StreamTaskEvent: Sendable {
    case readClosed
    case writeClosed
    case metricsCollected(StreamTaskMetrics)
    case completed(StreamTaskError?)
    case betterRouteDiscovered
    case viabilityChanged(isViable: Bool)
}
