//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat

/// A stream task's connection after ``StreamTask/captureStreams()``: what the captured
/// streams share. Reads and writes go through the task's state machine, marked as the
/// streams' own; once neither side holds it any more, an unclosed connection is closed.
final class CapturedConnection: Sendable {
    let task: StreamTask

    init(task: StreamTask) {
        self.task = task
    }

    deinit {
        // Both streams are gone: close what they left open, so that the connection ends.
        task.closeCapturedConnection()
    }

    // MARK: Async

    func read(maxLength: Int) async throws -> (Data, atEOF: Bool) {
        let outcome = try await task.awaitOperation(
            .read(minLength: 1, maxLength: maxLength), timeout: 0, fromStreams: true)
        return (Data(buffer: outcome.bytes, byteTransferStrategy: .automatic), outcome.atEOF)
    }

    func write(_ data: Data) async throws {
        _ = try await task.awaitOperation(.write(ByteBuffer(data: data)), timeout: 0, fromStreams: true)
    }

    func closeWrite() {
        task.submit(.closeWrite, timeout: 0, fromStreams: true) { _ in }
    }

    func closeRead() {
        task.submit(.closeRead, timeout: 0, fromStreams: true) { _ in }
    }

    // MARK: Blocking (Foundation streams)

    /// The error of a Foundation stream that would wait on the task's own event loop.
    static var usedOnItsEventLoop: StreamTaskError {
        StreamTaskError(
            .invalidArgument, "a captured stream was used on its own event loop, which it would block forever")
    }

    /// Waits on the calling thread for `operation`. Refuses to run on the task's event loop,
    /// which it would deadlock.
    func blocking(_ operation: StreamTaskStateMachine.Operation) -> Result<StreamTask.Outcome, StreamTaskError> {
        if task.eventLoop.inEventLoop { return .failure(Self.usedOnItsEventLoop) }
        let done = DispatchSemaphore(value: 0)
        let outcome = NIOLockedValueBox<Result<StreamTask.Outcome, StreamTaskError>?>(nil)
        task.submit(operation, timeout: 0, fromStreams: true) { result in
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLockedValue { $0! }
    }
}

extension StreamTask {
    /// Closes both directions of a captured connection that its streams left open.
    func closeCapturedConnection() {
        submit(.closeWrite, timeout: 0, fromStreams: true) { _ in }
        submit(.closeRead, timeout: 0, fromStreams: true) { _ in }
    }
}
