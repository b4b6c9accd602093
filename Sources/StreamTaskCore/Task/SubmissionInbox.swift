//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Operations on their way to the task's event loop, in the order they were submitted; kept
/// under the task's lock.
///
/// An operation submitted off the loop joins the inbox, and one loop job takes every
/// operation that joined before it ran: consecutive writes from the cooperative pool cost the
/// loop one job and one wake-up, not one each. The job is made once per task, so that joining
/// costs no allocation. An operation submitted on the loop goes to the machine at once only
/// while nothing waits here; otherwise it joins too, behind what was submitted before it.
struct SubmissionInbox {
    /// What waits for the loop: an operation, the withdrawal of one whose caller stopped
    /// waiting, or a change of the task's life (cancel, suspend, resume). Each goes the same
    /// way as operations, so it reaches the machine after every operation issued before it and
    /// before every one issued after it.
    enum Entry {
        case operation(OperationRequest)
        case withdrawal(OperationID)
        case control(@Sendable () -> Void)
    }

    /// What became of an entry offered to the inbox.
    enum Admission {
        /// Nothing waits and the caller is on the loop: hand it to the machine now.
        case runNow
        /// It joined; the job already scheduled takes it.
        case joined
        /// It joined, and nothing is scheduled to take it: schedule `job` on the loop.
        case schedule(@Sendable () -> Void)
        /// The task has no inbox job (it was born failed, or has completed): send the operation
        /// to the loop by itself.
        case unlinked
    }

    private var entries = LazyRing<Entry>()
    /// Whether a job that drains the inbox is scheduled or running.
    private var drainScheduled = false
    /// The loop job that drains the inbox, linked by the driver; `nil` before that and after
    /// the task completed.
    private var drain: (@Sendable () -> Void)?

    /// Links the job that drains the inbox.
    mutating func link(_ job: @escaping @Sendable () -> Void) {
        drain = job
    }

    /// Offers `entry`, made on the loop or off it.
    mutating func admit(_ entry: Entry, onLoop: Bool) -> Admission {
        guard let drain else { return onLoop ? .runNow : .unlinked }
        if onLoop && !drainScheduled { return .runNow }
        entries.append(entry)
        if drainScheduled { return .joined }
        drainScheduled = true
        return .schedule(drain)
    }

    /// Adds `request` behind what waits, whichever thread this is: for callers that hold the
    /// task's lock and so cannot hand anything to the machine now.
    mutating func join(_ request: OperationRequest) -> Admission {
        admit(.operation(request), onLoop: false)
    }

    /// The next entry for the drain job, oldest first; `nil` ends the job, and the next entry
    /// admitted schedules another.
    mutating func next() -> Entry? {
        guard let entry = entries.popFirst() else {
            drainScheduled = false
            return nil
        }
        return entry
    }

    /// The task completed: takes what still waits, and unlinks the job (so that nothing
    /// holds the task any more). Operations submitted from now on go to the loop one by one.
    mutating func close() -> [Entry] {
        drain = nil
        return entries.removeAll()
    }
}
