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

/// An async write waiting for room among the bytes outstanding (see `WriteBehindLedger`): what
/// it sends, and the caller it resumes. Nothing of it is with the loop until it is let go.
struct RoomWaiter: Sendable {
    let id: OperationID
    let buffer: ByteBuffer
    let timeout: TimeInterval
    let startedAt: NIODeadline
    /// Set when the caller's Swift task is cancelled (see `StreamTask.awaitOperation`).
    let abandoned: NIOLockedValueBox<Bool>
    /// Set as the write is queued to wait for its outcome: from then on a cancellation withdraws
    /// it from the loop. A write let go with room is the caller's as if it had returned at once,
    /// and a cancellation after that leaves it alone.
    let waitsForOutcome: NIOLockedValueBox<Bool>
    let continuation: UnsafeContinuation<Void, any Error>

    /// Why its wait for room failed when its time ran out: nothing of it was sent.
    var timeoutError: StreamTaskError {
        StreamTaskError(
            .timedOut,
            "the write timed out after \(timeout) s waiting for room among the bytes not yet sent; nothing of it was sent"
        )
    }
}

extension StreamTask {
    /// Queues `buffer` as a write that returned before its bytes left: its completion counts
    /// it off the ledger, and lets go the writes that were waiting for the room.
    func submitWriteBehind(_ buffer: ByteBuffer, id: OperationID, timeout: TimeInterval, startedAt: NIODeadline) {
        deliver(writeBehindRequest(buffer, id: id, timeout: timeout, startedAt: startedAt))
    }

    /// The request of a write that returned before its bytes left.
    func writeBehindRequest(
        _ buffer: ByteBuffer, id: OperationID, timeout: TimeInterval, startedAt: NIODeadline
    ) -> OperationRequest {
        OperationRequest(
            operation: .write(buffer), id: id, timeout: timeout, startedAt: startedAt, abandoned: nil,
            returnedEarly: true, completion: .writeBehind(count: buffer.readableBytes, of: self))
    }

    /// Waits until the ledger has room for `buffer`, then queues it and returns; or, when the
    /// ledger says so as the write parks, fails, or waits for its outcome instead. A wait that
    /// times out or whose caller is cancelled is withdrawn: nothing of it is sent.
    func writeWhenRoom(_ buffer: ByteBuffer, timeout: TimeInterval, startedAt: NIODeadline) async throws {
        let id = makeOperationID()
        let abandoned = NIOLockedValueBox(false)
        let waitsForOutcome = NIOLockedValueBox(false)
        let count = buffer.readableBytes
        let limit = configuration.outboundBufferLimit
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let waiter = RoomWaiter(
                    id: id, buffer: buffer, timeout: timeout, startedAt: startedAt, abandoned: abandoned,
                    waitsForOutcome: waitsForOutcome, continuation: continuation)
                // Asked again where the write parks: room may have come since the first answer.
                // A cancellation before this point finds nothing parked, so it is checked here.
                let onLoop = eventLoop.inEventLoop
                var followUp = InboxFollowUp()
                let admission = withShared { shared -> WriteBehindLedger<RoomWaiter>.Admission? in
                    let admission = shared.machine.admitWriteBehind(count, limit: limit)
                    guard case .waitForRoom = admission, !Task.isCancelled else { return admission }
                    // Its wait ends at its deadline, by the task's one timer, as a queued
                    // operation's does.
                    let deadline = timeout > 0 ? startedAt + .seconds(timeout) : nil
                    shared.machine.writeBehind.park(waiter, id: id, count: count, deadline: deadline)
                    if let deadline { driver.armDeadlineTimer(at: deadline, in: &shared) }
                    shared.noteRoomWaiters(onLoop: onLoop, &followUp)
                    return nil
                }
                follow(followUp)
                switch admission {
                case nil:
                    break
                case .reserved:
                    submitWriteBehind(buffer, id: id, timeout: timeout, startedAt: startedAt)
                    continuation.resume()
                case .waitForOutcome:
                    resubmit(waiter)
                case .failed(let error):
                    continuation.resume(throwing: error)
                case .waitForRoom:
                    continuation.resume(throwing: StreamTaskDriver.abandonedError)
                }
            }
        } onCancel: {
            // Flag first: a write queued after this looks fails as it reaches the loop.
            abandoned.withLockedValue { $0 = true }
            if !withdrawWaitingWrite(id, failingWith: StreamTaskDriver.abandonedError),
                waitsForOutcome.withLockedValue({ $0 })
            {
                abandon(id)
            }
        }
    }

    /// Changes the ledger with `change`, then carries out what it decides for the writes
    /// waiting for room. Writes let go join the task's inbox in the order they waited.
    ///
    /// Always through the inbox, even on the loop: writes their callers issued before may
    /// still be on their way there, and these must not overtake them. They join under the
    /// task's lock, so an operation that another thread submits after this (a `closeWrite()`
    /// that found no write waiting, say) follows them, and so does one submitted on the loop,
    /// which waits in the inbox while anything does (see `SubmissionInbox`). Callers let go
    /// resume only once their writes have joined, so nothing they write next overtakes them.
    func releaseRoomWaiters(after change: (inout WriteBehindLedger<RoomWaiter>) -> Void = { _ in }) {
        let limit = configuration.outboundBufferLimit
        var followUp = InboxFollowUp()
        let release = withShared { shared -> WriteBehindLedger<RoomWaiter>.Release in
            change(&shared.machine.writeBehind)
            let release = shared.machine.releaseWriteBehind(limit: limit)
            switch release {
            case .granted(let waiters):
                for waiter in waiters {
                    // Its timeout starts again: its caller goes on as if it had just returned,
                    // and the wait for room is over.
                    let request = writeBehindRequest(
                        waiter.buffer, id: waiter.id, timeout: waiter.timeout, startedAt: .now())
                    followUp.admit(request, onLoop: false, in: &shared, by: driver)
                }
            case .resubmitted(let waiters):
                for waiter in waiters {
                    let request = resubmission(of: waiter)
                    followUp.admit(request, onLoop: false, in: &shared, by: driver)
                }
            case .none, .failed:
                break
            }
            shared.noteRoomWaiters(onLoop: false, &followUp)
            return release
        }
        follow(followUp)
        switch release {
        case .granted(let waiters):
            for waiter in waiters { waiter.continuation.resume() }
        case .resubmitted:
            // Their callers now wait for their outcome (see `resubmission(of:)`).
            break
        case .failed(let waiters, let error):
            fail(waiters, with: error)
        case .none:
            break
        }
    }

    /// Takes write `id` out of the ledger and fails it with `error`, if it still waits for room
    /// (its caller was cancelled, or its time ran out); the writes behind it may then have room.
    /// Returns whether it was waiting.
    @discardableResult
    func withdrawWaitingWrite(_ id: OperationID, failingWith error: StreamTaskError) -> Bool {
        guard let waiter = withShared({ $0.machine.writeBehind.withdraw(id) }) else { return false }
        fail([waiter], with: error)
        releaseRoomWaiters()
        return true
    }

    /// Fails writes taken out of the ledger: none of their bytes were sent.
    func fail(_ waiters: [RoomWaiter], with error: StreamTaskError) {
        for waiter in waiters { waiter.continuation.resume(throwing: error) }
    }

    /// Queues `waiter`'s write as one that waits for its outcome, and resumes its caller then.
    private func resubmit(_ waiter: RoomWaiter) {
        deliver(resubmission(of: waiter))
    }

    /// The request of a write that waited for room and now waits for its outcome instead; its
    /// caller's cancellation from here on withdraws it from the loop.
    private func resubmission(of waiter: RoomWaiter) -> OperationRequest {
        waiter.waitsForOutcome.withLockedValue { $0 = true }
        return OperationRequest(
            operation: .write(waiter.buffer), id: waiter.id, timeout: waiter.timeout, startedAt: waiter.startedAt,
            abandoned: waiter.abandoned,
            completion: .handler { result in
                waiter.continuation.resume(with: result.map { _ in () }.mapError { $0 as any Error })
            })
    }
}
