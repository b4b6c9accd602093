//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// What a captured input stream has received and its reader has not taken yet: read from the
/// connection ahead of the reader, as a Darwin socket stream's buffer is, so that the stream can
/// say whether bytes are there (`hasBytesAvailable`) and tell its delegate when they come.
///
/// At most one read is with the task at a time, and none while ``limit`` bytes or more wait:
/// a reader that does not keep up stops the reading, and TCP then slows the peer, so what is
/// held stays under ``limit`` plus one read.
///
/// While TLS starts on the connection (see ``hold()``), nothing is read: the read with the
/// task is withdrawn, since the handshake waits for every read before it.
final class CapturedReadAhead: @unchecked Sendable {
    // @unchecked Sendable: every `var` is behind `condition`.

    /// Bytes held before reading stops until the reader takes some.
    static let limit = 64 * 1024

    let connection: CapturedConnection
    private let condition = NSCondition()
    private var buffer = ByteBuffer()
    private var ended = false
    private var failure: StreamTaskError?
    /// Whether a read is with the task.
    private var reading = false
    /// Set by ``stop()``: the stream was closed, and nothing more is read.
    private var stopped = false
    /// Set by ``hold()`` until ``release()``: TLS starts, and no read may stand before it.
    private var held = false
    /// The read with the task, to withdraw it (see ``hold()``).
    private var current: Read?
    /// Told, on the task's event loop, after each read the task completed; set before ``start()``.
    private var changed: (@Sendable () -> Void)?

    init(connection: CapturedConnection) {
        self.connection = connection
    }

    /// A read handed to the task: its id, and the flag that withdraws it before it arrives.
    private struct Read {
        let id: OperationID
        let abandoned: NIOLockedValueBox<Bool>
    }

    /// What a reader would find now.
    struct State {
        /// Bytes held.
        var buffered: Int
        /// The peer ended the stream (bytes may still be held).
        var ended: Bool
        /// The connection failed (bytes may still be held).
        var failure: StreamTaskError?
        /// The stream was closed.
        var stopped: Bool
    }

    var state: State {
        condition.lock()
        defer { condition.unlock() }
        return State(buffered: buffer.readableBytes, ended: ended, failure: failure, stopped: stopped)
    }

    /// Starts reading ahead; `changed` is called on the task's event loop after every read
    /// the task completes (bytes held, the end, or a failure).
    func start(changed: @escaping @Sendable () -> Void) {
        condition.lock()
        self.changed = changed
        let read = beginReadIfDue()
        condition.unlock()
        if read { readFromTask() }
    }

    /// Stops reading, and wakes a reader that waits (it finds the end).
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Reads nothing more until ``release()``, and withdraws the read with the task: for TLS
    /// to start, which waits for every read queued before it. Bytes held stay for the reader
    /// (they came before TLS was asked for), and so do bytes the withdrawn read would have got.
    func hold() {
        condition.lock()
        held = true
        let withdrawn = reading ? current : nil
        condition.unlock()
        guard let withdrawn else { return }
        withdrawn.abandoned.withLockedValue { $0 = true }
        connection.task.abandon(withdrawn.id)
    }

    /// Reads again after ``hold()``.
    func release() {
        condition.lock()
        held = false
        let read = beginReadIfDue()
        condition.unlock()
        if read { readFromTask() }
    }

    /// The connection failed outside a read (TLS could not start): the reader finds `error`
    /// once the bytes held are taken, and nothing more is read.
    func fail(_ error: StreamTaskError) {
        condition.lock()
        if failure == nil { failure = error }
        condition.broadcast()
        let changed = self.changed
        condition.unlock()
        changed?()
    }

    /// What ``take(into:maxLength:)`` found.
    enum Taken {
        case bytes(Int)
        case end
        case failure(StreamTaskError)
    }

    /// Copies at most `maxLength` held bytes into `pointer`; while none are held and the stream
    /// has not ended, waits on the calling thread until some are. Refuses to wait on the task's
    /// event loop, which it would deadlock.
    func take(into pointer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Taken {
        condition.lock()
        while buffer.readableBytes == 0 && !ended && failure == nil && !stopped {
            if connection.task.eventLoop.inEventLoop {
                condition.unlock()
                return .failure(CapturedConnection.usedOnItsEventLoop)
            }
            condition.wait()
        }
        guard buffer.readableBytes > 0 else {
            defer { condition.unlock() }
            return failure.map { .failure($0) } ?? .end
        }
        let count = min(maxLength, buffer.readableBytes)
        buffer.readWithUnsafeReadableBytes { raw in
            UnsafeMutableRawBufferPointer(start: pointer, count: count).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: raw.prefix(count)))
            return count
        }
        // Keep the storage from growing: start again when empty, move the rest down when
        // what was taken passes the limit.
        if buffer.readableBytes == 0 {
            buffer.clear()
        } else if buffer.readerIndex >= Self.limit {
            buffer.discardReadBytes()
        }
        let read = beginReadIfDue()
        condition.unlock()
        if read { readFromTask() }
        return .bytes(count)
    }

    /// With `condition` locked: whether to read now, marking the read as under way if so.
    private func beginReadIfDue() -> Bool {
        guard changed != nil, !reading, !held, !ended, failure == nil, !stopped, buffer.readableBytes < Self.limit
        else {
            return false
        }
        reading = true
        return true
    }

    /// Hands one read to the task (withdrawn at once if ``hold()`` came first). Held weakly: a
    /// stream released while the read waits (the connection then closes, which completes it)
    /// is not kept alive by it.
    private func readFromTask() {
        let read = Read(id: connection.task.makeOperationID(), abandoned: NIOLockedValueBox(false))
        condition.lock()
        current = read
        if held { read.abandoned.withLockedValue { $0 = true } }
        condition.unlock()
        connection.submit(.read(minLength: 1, maxLength: Self.limit), id: read.id, abandoned: read.abandoned) {
            [weak self] result in
            self?.received(result, withdrawn: read.abandoned.withLockedValue { $0 })
        }
    }

    /// On the task's event loop: the read's outcome. A read ``hold()`` withdrew failed for
    /// that alone: it is no failure of the connection.
    private func received(_ result: Result<StreamTask.Outcome, StreamTaskError>, withdrawn: Bool) {
        condition.lock()
        reading = false
        current = nil
        switch result {
        case .success(var outcome):
            buffer.writeBuffer(&outcome.bytes)
            if outcome.atEOF { ended = true }
        case .failure where withdrawn:
            break
        case .failure(let error):
            failure = error
        }
        condition.broadcast()
        let read = beginReadIfDue()
        let changed = self.changed
        condition.unlock()
        changed?()
        if read { readFromTask() }
    }
}
