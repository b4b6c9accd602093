//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// The async writes that returned before their bytes reached the kernel, counted under the
/// task's lock, and the writes waiting for room to do the same.
///
/// While fewer than the session's `outboundBufferLimit` bytes are outstanding and the channel
/// takes more, a write on a connected, running task is queued and returns at once. Past the
/// limit, or while the channel is full, it waits for room (``Admission/waitForRoom``), as
/// `NIOAsyncWriter` waits for writability: it is queued only once the outstanding bytes are down
/// to half the limit (and its own bytes fit) and the channel takes more, so a writer that keeps
/// ahead of the network keeps the socket fed instead of letting it drain before going on.
/// Writes wait in the order they came. A write larger than the limit, or one before the
/// connection is up or after early returns stopped, waits for its own outcome instead. A
/// failure of a write that returned is kept for the next write.
///
/// `Waiter` is what the task keeps of a write waiting for room (its bytes and its caller). The
/// ledger belongs to the task's state machine, which tells it what the task is like as it
/// decides (``Conditions``): it keeps no copy of the connection, the task's life or the
/// channel's writability.
struct WriteBehindLedger<Waiter: Sendable>: Sendable {
    /// What the ledger needs to know of the task as it decides, read from the task's machine.
    struct Conditions {
        /// The connection is up and the task runs (not suspended, cancelling or done). Before
        /// the connection, a write waits for its outcome, so that a refused or failed
        /// connection fails the write that was waiting for it.
        var connectedAndRunning: Bool
        /// The channel takes more: a full channel (its own buffer past SwiftNIO's high-water
        /// mark) makes writes wait for room.
        var channelWritable: Bool
    }

    /// What a write of some size may do now.
    enum Admission {
        /// Counted as outstanding: queue it and return.
        case reserved
        /// Park it (``park(_:id:count:)``) until ``release(limit:_:)`` lets it go.
        case waitForRoom
        /// Queue it and wait until its bytes reach the kernel, as the completion-handler form
        /// does.
        case waitForOutcome
        /// An earlier write that had returned failed: throw this, and send nothing.
        case failed(StreamTaskError)
    }

    /// What ``release(limit:_:)`` decided for the writes waiting for room, in the order
    /// they waited.
    enum Release {
        case none
        /// There is room for them, and they are counted as outstanding: queue them, and let
        /// their callers return.
        case granted([Waiter])
        /// Early returns stopped (`closeWrite()`, `captureStreams()`, the connection's close) or
        /// the task is suspended: queue them as writes that wait for their outcome, ahead of
        /// whatever stopped them. (A cancel takes them with ``withdrawAll()`` and fails them.)
        case resubmitted([Waiter])
        /// An earlier write that had returned failed: each fails with this, and sends nothing.
        case failed([Waiter], StreamTaskError)
    }

    /// Set by `closeWrite()`, `captureStreams()`, `cancel()` and the connection's close, and
    /// never cleared (a connection that comes up afterwards does not undo it): from then on
    /// every write waits for its outcome, so that one the task can no longer send fails at once.
    private(set) var stopped = false
    /// Bytes of writes that returned and have not completed yet. Their completions come back
    /// together, a confirmation for many (see `StreamTaskStateMachine.unconfirmedWrites`), and
    /// at once while a writer waits for room here.
    private(set) var outstanding = 0
    /// The first failure of a write that had returned, not yet reported.
    private var failure: StreamTaskError?
    /// TLS transitions (`startSecureConnection()`, `stopSecureConnection()`) issued and not
    /// done: while any is, every write waits for its outcome, so that none returns before the
    /// handshake it follows has succeeded (if it fails, so does every write after it).
    private(set) var transitionsAhead = 0
    /// The writes waiting for room, oldest first, each with the deadline of its wait, if it
    /// has one.
    private var waiting: [(id: OperationID, count: Int, deadline: NIODeadline?, waiter: Waiter)] = []

    /// How many writes wait for room.
    var waitingCount: Int { waiting.count }

    /// What a write of `count` bytes may do now; counts it as outstanding when it is
    /// ``Admission/reserved``.
    mutating func admit(_ count: Int, limit: Int, _ task: Conditions) -> Admission {
        if let failure = takeFailure() { return .failed(failure) }
        guard task.connectedAndRunning, !stopped, transitionsAhead == 0, count <= limit else { return .waitForOutcome }
        guard waiting.isEmpty, task.channelWritable, outstanding + count <= limit else { return .waitForRoom }
        outstanding += count
        return .reserved
    }

    /// Parks a write that was told to ``Admission/waitForRoom``, behind those waiting already.
    /// Its wait ends at `deadline`, if it has one: the task's one timer withdraws it then (see
    /// ``expired(at:)``).
    mutating func park(_ waiter: Waiter, id: OperationID, count: Int, deadline: NIODeadline? = nil) {
        waiting.append((id, count, deadline, waiter))
    }

    /// The writes whose wait for room is over at `now` (they stay parked: the caller
    /// withdraws each), and the earliest deadline of those still waiting.
    func expired(at now: NIODeadline) -> (due: [(id: OperationID, waiter: Waiter)], next: NIODeadline?) {
        var due: [(id: OperationID, waiter: Waiter)] = []
        var next: NIODeadline?
        for entry in waiting {
            guard let deadline = entry.deadline else { continue }
            if deadline <= now {
                due.append((entry.id, entry.waiter))
            } else if next.map({ deadline < $0 }) ?? true {
                next = deadline
            }
        }
        return (due, next)
    }

    /// Takes the parked waiter `id` away (its caller stopped waiting, or its time ran out).
    mutating func withdraw(_ id: OperationID) -> Waiter? {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
        return waiting.remove(at: index).waiter
    }

    /// Lets go the writes waiting for room that may go now: call it whenever a write completes,
    /// the channel becomes writable, early returns stop, or the task is suspended.
    ///
    /// Once the outstanding bytes are down to half of `limit`, while the channel takes more,
    /// the waiting writes get room in order for as many bytes as fit under the limit. The half
    /// is what keeps a fast writer from waking once a write: it goes on with the socket still
    /// holding half the limit.
    mutating func release(limit: Int, _ task: Conditions) -> Release {
        guard !waiting.isEmpty else { return .none }
        if let failure = takeFailure() { return .failed(withdrawAll(), failure) }
        guard task.connectedAndRunning, !stopped, transitionsAhead == 0 else { return .resubmitted(withdrawAll()) }
        guard task.channelWritable, outstanding <= limit / 2 else { return .none }
        var granted: [Waiter] = []
        while let first = waiting.first, outstanding + first.count <= limit {
            outstanding += first.count
            granted.append(first.waiter)
            waiting.removeFirst()
        }
        return granted.isEmpty ? .none : .granted(granted)
    }

    /// No write returns early from here on.
    mutating func stopEarlyReturns() {
        stopped = true
    }

    /// A TLS transition was issued: writes wait for their outcome until it is done.
    mutating func transitionIssued() {
        transitionsAhead += 1
    }

    /// A TLS transition issued earlier is done, however it ended.
    mutating func transitionFinished() {
        precondition(transitionsAhead > 0, "a TLS transition finished that was never issued")
        transitionsAhead -= 1
    }

    /// Takes every write waiting for room away, in order (a cancel fails them; ``release(limit:_:)``
    /// hands them on when they all go the same way).
    mutating func withdrawAll() -> [Waiter] {
        defer { waiting.removeAll() }
        return waiting.map(\.waiter)
    }

    /// A write that had returned completed, with `error` if it failed.
    mutating func complete(_ count: Int, error: StreamTaskError?) {
        outstanding -= count
        if failure == nil, let error { failure = error }
    }

    /// The failure of an earlier write that had returned, reported once.
    mutating func takeFailure() -> StreamTaskError? {
        defer { failure = nil }
        return failure
    }
}
