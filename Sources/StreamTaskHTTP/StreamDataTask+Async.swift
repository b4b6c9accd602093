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
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StreamDataTask {
    // MARK: Async use

    /// Resumes the task if it was never resumed (one you suspended stays suspended) and returns
    /// the response head once it has arrived. Called before the head arrives, it makes you the
    /// one who decides: call ``allow()``, ``cancel()`` or ``becomeStream()`` next.
    ///
    /// Cancelling the waiting Swift task cancels the data task.
    ///
    /// - Throws: The `StreamTaskError` the task failed with before a response arrived.
    public func receiveResponse() async throws -> HTTPURLResponse {
        shared.withLockedValue { shared in
            if shared.phase == .waitingForResponse { shared.callerDecides = true }
        }
        startIfNeverResumed()
        let future = responsePromise.futureResult
        return try await withTaskCancellationHandler {
            try await future.get()
        } onCancel: {
            self.cancel()
        }
    }

    /// Asks for the body (the ``ResponseDisposition/allow`` disposition), once the head has
    /// arrived if it has not yet. Does nothing if the owner already decided.
    public func allow() {
        decide(.allow)
    }

    /// Turns the connection into a stream task (the ``ResponseDisposition/becomeStream``
    /// disposition) and returns it. Its first bytes are whatever the server sent after the
    /// response head.
    ///
    /// - Throws: `StreamTaskError/Code/invalidArgument` if the owner already chose another
    ///   disposition, or the error the task failed with.
    public func becomeStream() async throws -> StreamTask {
        _ = try await receiveResponse()
        decide(.becomeStream)
        return try await streamPromise.futureResult.get()
    }

    /// The body, chunk by chunk, as it arrives; iterating it allows the body if nobody has
    /// decided yet. It ends with the body, and throws if the task fails first. Iterate it once.
    ///
    /// Without a delegate, chunks that arrive before you iterate are kept for you, up to the
    /// task's window (``bodyWindow``); then the task stops reading until you take some. With a
    /// delegate, the delegate gets every chunk, and `body` those that arrive once you iterate
    /// it: if some went to the delegate alone, iterating throws
    /// `StreamTaskError/Code/invalidArgument` rather than return part of the body. Either
    /// way the task reads no faster than the slower of the two takes the chunks: a consumer
    /// that stops taking them stops the download, and should cancel the task. An iterator
    /// let go before the body ended (the loop was left, or its Swift task was cancelled)
    /// cancels the data task, so that the connection does not wait for it for good.
    public var body: Body { Body(task: self, chunks: bodyStream) }

    /// The body of a data task, as an async sequence of chunks; see ``StreamDataTask/body``.
    public struct Body: AsyncSequence, Sendable {
        public typealias Element = Data

        let task: StreamDataTask
        let chunks: AsyncThrowingStream<Data, any Error>

        /// Allows the body (if nobody has decided yet), resumes the task if needed, as
        /// ``StreamDataTask/receiveResponse()`` does, and starts iterating the body.
        public func makeAsyncIterator() -> Iterator {
            let missed = task.shared.withLockedValue { shared -> Int in
                shared.bodyIterated = true
                return shared.bodyBytesNotInBody
            }
            task.allow()
            // Iterating a task nobody resumed would wait for good.
            task.startIfNeverResumed()
            let error =
                missed == 0
                ? nil
                : StreamTaskError(
                    .invalidArgument,
                    "the first \(missed) bytes of the body went to the delegate before body was iterated; "
                        + "iterate body (or call bodyData()) before the body arrives, or take it from the delegate")
            return Iterator(task: task, base: chunks.makeAsyncIterator(), missed: error, consumer: Consumer(task: task))
        }

        /// Lives as long as an iterator (and its copies): when the last goes before the body
        /// ended, nobody takes the rest, and the data task is cancelled.
        final class Consumer: Sendable {
            let task: StreamDataTask
            init(task: StreamDataTask) { self.task = task }
            deinit { task.cancel() }
        }

        /// Iterates the body; each chunk it returns frees its bytes in the task's window.
        public struct Iterator: AsyncIteratorProtocol {
            let task: StreamDataTask
            var base: AsyncThrowingStream<Data, any Error>.AsyncIterator
            /// Thrown by the first `next()` when the body's start went to the delegate alone.
            var missed: StreamTaskError?
            let consumer: Consumer

            /// The next chunk, or `nil` once the body has ended.
            public mutating func next() async throws -> Data? {
                if let missed {
                    self.missed = nil
                    throw missed
                }
                let chunk = try await base.next()
                if let chunk { task.bodyConsumed(chunk.count) }
                return chunk
            }
        }
    }

    /// Allows the body if the owner has not decided yet, and returns all of it.
    public func bodyData() async throws -> Data {
        _ = try await receiveResponse()
        var all = Data()
        for try await chunk in body {
            all.append(chunk)
        }
        return all
    }

    /// Waits until the task has completed; returns the error it completed with, if any.
    @discardableResult
    public func waitUntilCompleted() async -> StreamTaskError? {
        _ = try? await completionPromise.futureResult.get()
        return streamTaskError
    }
}
