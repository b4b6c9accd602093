//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Callbacks about a session, as `URLSessionDelegate`: the root of the delegate protocols.
///
/// The protocols and their methods have Apple's names and hierarchy, so a delegate written for
/// `URLSession` ports by the type rename alone: ``StreamSessionTaskDelegate`` adds what every
/// task reports, ``StreamSessionStreamDelegate`` what stream tasks report, and the HTTP module's
/// `StreamSessionDataDelegate` what data tasks report. A delegate is asked a method only if it
/// declares the protocol that has it, as on Darwin. Every method has an empty default.
///
/// Callbacks arrive on the session's delegate queue, one at a time and in the order the events
/// happened; ``StreamTaskEvent`` documents when each one fires. Errors are `URLError` values, as
/// Apple's; `streamTaskError` has the library's detail.
///
/// The protocols are `Sendable` and marked `@preconcurrency`: code in the Swift 5 language
/// mode, as most Darwin code is, conforms without warnings, as it does to Foundation's.
@preconcurrency public protocol StreamSessionDelegate: AnyObject, Sendable {
    /// The session was invalidated and every one of its tasks has completed.
    func urlSession(_ session: StreamSession, didBecomeInvalidWithError error: (any Error)?)
}

/// Callbacks about a session's tasks, as `URLSessionTaskDelegate`.
public protocol StreamSessionTaskDelegate: StreamSessionDelegate {
    /// The task's final metrics, delivered once just before it completes.
    func urlSession(
        _ session: StreamSession, task: StreamSessionTask, didFinishCollecting metrics: StreamSessionTaskMetrics)
    /// The task completed: `nil` after an orderly close, a `URLError` otherwise.
    func urlSession(_ session: StreamSession, task: StreamSessionTask, didCompleteWithError error: (any Error)?)
}

/// Callbacks about a session's stream tasks, as `URLSessionStreamDelegate`, and the library's
/// viability callback beside Apple's better-route one.
public protocol StreamSessionStreamDelegate: StreamSessionTaskDelegate {
    /// No more bytes will arrive on the task (the peer's FIN, or `closeRead()`). Not called
    /// when a TLS connection is cut without close_notify: reads end with
    /// ``StreamTaskError/Code/tlsTruncated`` instead.
    func urlSession(_ session: StreamSession, readClosedFor streamTask: StreamSessionStreamTask)
    /// `closeWrite()` took effect: the peer has been sent the end of the stream.
    func urlSession(_ session: StreamSession, writeClosedFor streamTask: StreamSessionStreamTask)
    /// The system would now reach the task's peer by a better route than the connection's;
    /// the connection still works.
    func urlSession(_ session: StreamSession, betterRouteDiscoveredFor streamTask: StreamSessionStreamTask)
    /// The task handed its connection over with ``StreamTask/captureStreams()``. The streams
    /// are yours: open them, and read and write them off the event loops and Swift's
    /// cooperative pool.
    func urlSession(
        _ session: StreamSession,
        streamTask: StreamSessionStreamTask,
        didBecome inputStream: InputStream,
        outputStream: OutputStream
    )
    /// The library's own: the task's local address or interface went away (`false`) or came
    /// back (`true`).
    func urlSession(_ session: StreamSession, viabilityDidChangeFor streamTask: StreamSessionStreamTask, isViable: Bool)
}

extension StreamSessionDelegate {
    public func urlSession(_ session: StreamSession, didBecomeInvalidWithError error: (any Error)?) {}
}

extension StreamSessionTaskDelegate {
    public func urlSession(
        _ session: StreamSession, task: StreamSessionTask, didFinishCollecting metrics: StreamSessionTaskMetrics
    ) {}
    public func urlSession(_ session: StreamSession, task: StreamSessionTask, didCompleteWithError error: (any Error)?)
    {}
}

extension StreamSessionStreamDelegate {
    public func urlSession(_ session: StreamSession, readClosedFor streamTask: StreamSessionStreamTask) {}
    public func urlSession(_ session: StreamSession, writeClosedFor streamTask: StreamSessionStreamTask) {}
    public func urlSession(_ session: StreamSession, betterRouteDiscoveredFor streamTask: StreamSessionStreamTask) {}
    public func urlSession(
        _ session: StreamSession,
        streamTask: StreamSessionStreamTask,
        didBecome inputStream: InputStream,
        outputStream: OutputStream
    ) {}
    public func urlSession(
        _ session: StreamSession, viabilityDidChangeFor streamTask: StreamSessionStreamTask, isViable: Bool
    ) {}
}

/// A stream task under the name the porting rule gives `URLSessionStreamTask`.
public typealias StreamSessionStreamTask = StreamTask
