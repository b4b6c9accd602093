//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Callbacks about a session and its tasks, shaped like `URLSessionStreamDelegate`.
///
/// Every method has an empty default implementation: implement the ones you need. Callbacks
/// arrive on the session's delegate queue, one at a time and in the order the events happened;
/// ``StreamTaskEvent`` documents when each one fires.
public protocol StreamSessionDelegate: AnyObject, Sendable {
    /// No more bytes will arrive on the task (the peer's FIN, or `closeRead()`). Not called
    /// when a TLS connection is cut without close_notify: reads end with
    /// ``StreamTaskError/Code/tlsTruncated`` instead.
    func streamSession(_ session: StreamSession, readClosedFor streamTask: StreamTask)
    /// `closeWrite()` took effect: the peer has been sent the end of the stream.
    func streamSession(_ session: StreamSession, writeClosedFor streamTask: StreamTask)
    /// The task's final metrics, delivered once just before it completes.
    func streamSession(_ session: StreamSession, task: StreamTask, didFinishCollecting metrics: StreamTaskMetrics)
    /// The task completed: `nil` after an orderly close, the error otherwise.
    func streamSession(_ session: StreamSession, task: StreamTask, didCompleteWithError error: (any Error)?)
    /// The session was invalidated and every one of its tasks has completed.
    func streamSession(_ session: StreamSession, didBecomeInvalidWithError error: (any Error)?)
    /// The system would now reach the task's peer by a better route than the connection's
    /// (like `urlSession(_:betterRouteDiscoveredFor:)`); the connection still works.
    func streamSession(_ session: StreamSession, betterRouteDiscoveredFor streamTask: StreamTask)
    /// The task's local address or interface went away (`false`) or came back (`true`).
    func streamSession(_ session: StreamSession, viabilityDidChangeFor streamTask: StreamTask, isViable: Bool)

    // MARK: Stream handover (DataTasks.md)

    /// A stream task handed its connection over with ``StreamTask/captureStreams()``; like
    /// `urlSession(_:streamTask:didBecome:outputStream:)`. The streams are yours: open them,
    /// and read and write them off the event loops and Swift's cooperative pool.
    func streamSession(
        _ session: StreamSession,
        streamTask: StreamTask,
        didBecome inputStream: InputStream,
        outputStream: OutputStream
    )
}

extension StreamSessionDelegate {
    public func streamSession(_ session: StreamSession, readClosedFor streamTask: StreamTask) {}
    public func streamSession(_ session: StreamSession, writeClosedFor streamTask: StreamTask) {}
    public func streamSession(
        _ session: StreamSession, task: StreamTask, didFinishCollecting metrics: StreamTaskMetrics
    ) {}
    public func streamSession(_ session: StreamSession, task: StreamTask, didCompleteWithError error: (any Error)?) {}
    public func streamSession(_ session: StreamSession, didBecomeInvalidWithError error: (any Error)?) {}
    public func streamSession(_ session: StreamSession, betterRouteDiscoveredFor streamTask: StreamTask) {}
    public func streamSession(_ session: StreamSession, viabilityDidChangeFor streamTask: StreamTask, isViable: Bool) {}
    public func streamSession(
        _ session: StreamSession,
        streamTask: StreamTask,
        didBecome inputStream: InputStream,
        outputStream: OutputStream
    ) {}
}
