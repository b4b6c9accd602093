//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore

extension StreamTask {
    // MARK: URLSessionStreamTask's form

    /// Once every queued read and write has completed, hands the connection over as a
    /// Foundation `InputStream` and `OutputStream`, delivered to the delegate's
    /// ``StreamSessionCoreStreamDelegate/urlSession(_:streamTask:didBecome:outputStream:)``.
    ///
    /// The task then leaves the session: it no longer counts against the per-host limit, is no
    /// longer in ``StreamSession/allTasks``, and its state is ``StreamSessionTask/State/completed``. Operations
    /// on it fail with ``StreamTaskError/Code/streamsCaptured``; unread bytes go to the input
    /// stream. The streams read and write the same connection; scheduled in a run loop, they
    /// tell their `delegate` of events as Darwin's do, and a read or write may block the
    /// calling thread: see <doc:StreamHandover> for the events and which threads may use them.
    public func captureStreams() {
        // Writes issued after this fail at once rather than returning early; writes waiting for
        // room were issued before it, and go first.
        releaseRoomWaiters { $0.stopEarlyReturns() }
        submit(.captureStreams, timeout: 0) { result in
            guard case .success = result,
                let delegate = self.taskDelegate(in: self.session) as? any StreamSessionCoreStreamDelegate
            else { return }
            let session = self.session
            session.callbackQueue.async {
                let (input, output) = self.makeFoundationStreams()
                delegate.urlSession(session, streamTask: self, didBecome: input, outputStream: output)
            }
        }
    }

    // MARK: Async forms

    /// Like ``captureStreams()``, but returns the streams (the delegate is not told).
    ///
    /// - Parameter timeout: Seconds to wait for the operations queued before it; 0 means none.
    public func captureFoundationStreams(timeout: TimeInterval = 0) async throws -> (InputStream, OutputStream) {
        stopWritesReturningEarly()
        _ = try await awaitOperation(.captureStreams, timeout: timeout)
        return makeFoundationStreams()
    }

    /// Like ``captureStreams()``, for async code: returns the connection's incoming bytes as a
    /// sequence of chunks and a writer for its outgoing side. Nothing blocks a thread.
    ///
    /// - Parameter timeout: Seconds to wait for the operations queued before it; 0 means none.
    public func captureByteStreams(
        timeout: TimeInterval = 0
    ) async throws -> (bytes: CapturedBytes, writer: CapturedWriter) {
        stopWritesReturningEarly()
        _ = try await awaitOperation(.captureStreams, timeout: timeout)
        let connection = CapturedConnection(task: self)
        return (CapturedBytes(connection: connection), CapturedWriter(connection: connection))
    }

    /// Writes issued from here on wait for their outcome, which fails once the streams have the
    /// connection; writes waiting for room were issued before, and are queued first.
    private func stopWritesReturningEarly() {
        releaseRoomWaiters { $0.stopEarlyReturns() }
    }

    func makeFoundationStreams() -> (InputStream, OutputStream) {
        foundationStreams(on: CapturedConnection(task: self))
    }

    private func foundationStreams(on connection: CapturedConnection) -> (InputStream, OutputStream) {
        (CapturedInputStream(connection: connection), CapturedOutputStream(connection: connection))
    }

    /// Hands a task that has not been resumed over as Foundation streams at once, through
    /// Darwin's pointers, as `NetService.getInputStream(_:outputStream:)` and
    /// `Stream.getStreamsToHost(withName:port:inputStream:outputStream:)` return their pair
    /// before connecting: the first stream opened resumes the task. The streams are `.opening`
    /// until the connection is theirs, then send `openCompleted`; a failure to connect is their
    /// error (`errorOccurred`). Streams released unopened cancel the task.
    package func captureFoundationStreamsBeforeResuming(
        into inputStream: UnsafeMutablePointer<InputStream?>?,
        _ outputStream: UnsafeMutablePointer<OutputStream?>?
    ) {
        stopWritesReturningEarly()
        let connection = CapturedConnection(task: self, ready: false)
        submit(.captureStreams, timeout: 0) { [weak connection] result in
            if case .failure(let error) = result {
                connection?.connected(error)
            } else {
                connection?.connected(nil)
            }
        }
        let (input, output) = foundationStreams(on: connection)
        inputStream?.pointee = input
        outputStream?.pointee = output
    }

}

extension StreamTaskDriver {
    /// Every operation before `captureStreams` has completed: the task leaves the session and
    /// the operation succeeds; the streams take over the connection.
    func handOverStreams(_ id: OperationID, reportingTo completion: OperationCompletion?) {
        if let task = owner {
            // The machine completed the task as it handed the connection over
            // (`StreamTaskStateMachine.Life.handedToStreams`). The streams' owner has the
            // connection now; its end is theirs, not the task's.
            task.withShared { $0.delegateMuted = true }
            task.session.taskCompleted(task)
            task.session.completionReported(for: task)
        }
        carryOut(StreamTaskStateMachine.Actions(.succeed(id, to: completion)))
    }
}
