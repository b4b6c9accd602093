//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What the task's state machine decided that only the event loop can carry out, in the order
/// it was decided; kept under the task's lock, beside the machine.
///
/// Any thread steps the machine under the task's lock: an operation submitted off the loop
/// is queued in the machine at once, and what the machine decides (hand a write to the
/// channel, complete a read, ask for input) waits here for the loop. One loop job carries out
/// everything that joined before it ran: consecutive writes from the cooperative pool cost
/// the loop one job and one wake-up, not one each. The job is made once per task, so that
/// joining costs no allocation. A step on the loop decides at once and carries out what it
/// decided then and there: only the loop decides what the channel does, so what waits here is
/// outcomes decided off the loop (refusals, withdrawals), passes the loop owes the machine,
/// and changes of the task's life that run on the loop.
struct SubmissionInbox {
    /// What waits for the loop: actions the machine decided (then the task's completion, if
    /// the step ended the task), a pass of the machine over operations queued off the loop
    /// (only the loop knows whether the channel takes more), or a change of the task's life
    /// that runs on the loop (a cancel), in its place among them.
    enum Entry {
        case actions(StreamTaskStateMachine.Actions, thenComplete: Bool)
        case pass
        case control(@Sendable () -> Void)
    }

    /// What became of an entry offered to the inbox.
    enum Admission {
        /// It joined; the job already scheduled carries it out.
        case joined
        /// It joined, and nothing is scheduled to carry it out: schedule `job` on the loop.
        case schedule(@Sendable () -> Void)
        /// The task has no inbox job (it was born failed, or has completed): send the entry
        /// to the loop by itself.
        case unlinked
    }

    private var entries = LazyRing<Entry>()
    /// Whether a job that drains the inbox is scheduled or running.
    private var drainScheduled = false
    /// Whether the newest entry is a pass: a pass asked for behind it is the same pass.
    private var endsWithPass = false
    /// The loop job that drains the inbox, linked by the driver; `nil` before that and after
    /// the task completed.
    private var drain: (@Sendable () -> Void)?

    /// Links the job that drains the inbox.
    mutating func link(_ job: @escaping @Sendable () -> Void) {
        drain = job
    }

    /// Offers `entry`, made off the loop (on the loop, steps carry out what they decide at
    /// once).
    mutating func admit(_ entry: Entry) -> Admission {
        guard let drain else { return .unlinked }
        if case .pass = entry {
            if endsWithPass { return .joined }
            endsWithPass = true
        } else {
            endsWithPass = false
        }
        entries.append(entry)
        if drainScheduled { return .joined }
        drainScheduled = true
        return .schedule(drain)
    }

    /// The next entry for the drain job, oldest first; `nil` ends the job, and the next entry
    /// admitted schedules another.
    mutating func next() -> Entry? {
        guard let entry = entries.popFirst() else {
            drainScheduled = false
            return nil
        }
        if entries.isEmpty { endsWithPass = false }
        return entry
    }

    /// The task completed: takes what still waits, and unlinks the job (so that nothing
    /// holds the task any more). Entries made from now on go to the loop one by one.
    mutating func close() -> [Entry] {
        drain = nil
        endsWithPass = false
        return entries.removeAll()
    }
}
