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

/// The deadlines of a task's timed operations, and of the reads parked in its lending, kept
/// behind one timer: the task schedules a single loop task, for the earliest deadline, rather
/// than one per operation.
///
/// Adding a deadline later than the armed one changes nothing on the loop; an operation that
/// finishes leaves the timer as it is (it fires, finds nothing due for it, and moves on to the
/// earliest deadline left). So a stream of operations with the same timeout costs one scheduled
/// task per timeout's length, not one per operation. A plain value: the driver carries out
/// what it says, on the loop.
struct OperationDeadlines {
    /// What a deadline is for.
    enum Purpose {
        /// A timed operation in the machine's queue, withdrawn when its time runs out;
        /// `returnedEarly` says whether the write had returned to its caller already.
        case operation(StreamTaskStateMachine.Operation, returnedEarly: Bool)
        /// The reads parked in the lending (off the loop, under the task's lock), which decide
        /// for themselves which of them are due (``parkedReadsID``).
        case parkedReads
    }

    /// What a timed operation needs when its time runs out.
    struct Entry {
        let deadline: NIODeadline
        /// The caller's timeout, for the message.
        let timeout: TimeInterval
        let purpose: Purpose
        /// Issue order, among operations due at the same instant.
        let sequence: UInt64
    }

    /// The one entry for the parked reads: operation ids start at 1, so 0 names no operation.
    static let parkedReadsID = OperationID(rawValue: 0)

    private var entries: [OperationID: Entry] = [:]
    /// When the timer fires, while it is scheduled.
    private(set) var armedAt: NIODeadline?
    private var issued: UInt64 = 0

    /// Whether no operation is timed.
    var isEmpty: Bool { entries.isEmpty }

    /// Times operation `id`; returns when the timer must fire if that is earlier than it is
    /// armed for (or it is not armed): the caller schedules it there, replacing the old one.
    mutating func add(
        _ id: OperationID, deadline: NIODeadline, timeout: TimeInterval,
        operation: StreamTaskStateMachine.Operation, returnedEarly: Bool
    ) -> NIODeadline? {
        add(id, deadline: deadline, timeout: timeout, purpose: .operation(operation, returnedEarly: returnedEarly))
    }

    /// Times the parked reads for `deadline`, unless they are timed for then or earlier
    /// already; returns when the timer must fire, as ``add(_:deadline:timeout:operation:returnedEarly:)``.
    mutating func addParkedReads(at deadline: NIODeadline) -> NIODeadline? {
        if let timed = entries[Self.parkedReadsID], timed.deadline <= deadline { return nil }
        return add(Self.parkedReadsID, deadline: deadline, timeout: 0, purpose: .parkedReads)
    }

    private mutating func add(
        _ id: OperationID, deadline: NIODeadline, timeout: TimeInterval, purpose: Purpose
    ) -> NIODeadline? {
        issued += 1
        entries[id] = Entry(deadline: deadline, timeout: timeout, purpose: purpose, sequence: issued)
        if let armedAt, armedAt <= deadline { return nil }
        armedAt = deadline
        return deadline
    }

    /// Operation `id` finished: it is no longer timed. The timer stays as it is.
    mutating func remove(_ id: OperationID) {
        // Most operations are untimed: no hashing for them.
        guard !entries.isEmpty else { return }
        entries.removeValue(forKey: id)
    }

    /// The timer fired at `now`: takes the operations whose time is up, earliest deadline
    /// first (then in the order they were timed). The timer is no longer armed: call
    /// ``rearm()`` once they are dealt with.
    mutating func fired(now: NIODeadline) -> [(id: OperationID, entry: Entry)] {
        armedAt = nil
        var due: [(id: OperationID, entry: Entry)] = []
        for (id, entry) in entries where entry.deadline <= now {
            due.append((id, entry))
        }
        for (id, _) in due { entries.removeValue(forKey: id) }
        return due.sorted { ($0.entry.deadline, $0.entry.sequence) < ($1.entry.deadline, $1.entry.sequence) }
    }

    /// When the timer must fire next, if it must and is not armed for then or earlier: the
    /// caller schedules it there, replacing the old one.
    mutating func rearm() -> NIODeadline? {
        guard let earliest = entries.values.lazy.map(\.deadline).min() else { return nil }
        if let armedAt, armedAt <= earliest { return nil }
        armedAt = earliest
        return earliest
    }

    /// The task completed: nothing is timed, and the timer is to be cancelled.
    mutating func removeAll() {
        entries.removeAll()
        armedAt = nil
    }
}
