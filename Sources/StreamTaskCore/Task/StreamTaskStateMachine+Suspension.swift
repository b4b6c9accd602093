//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamTaskStateMachine {
    /// Whether the task's operations may move (`StreamTask.suspend()` and `resume()`).
    enum Activity: Equatable {
        case running
        /// `suspend()` was called while operations queued before it still waited for the
        /// loop's pass: the next pass moves those (sequence below `from`) as it would have,
        /// then the task is suspended. So a suspension takes effect in the order of the
        /// operations issued around it, whichever thread queued them.
        case suspending(from: UInt64)
        /// Queued and new operations wait where they are: no read completes, not even from the
        /// buffer, no write goes to the channel, and no close, TLS step or capture starts.
        /// Operations already under way finish, input keeps coming until the buffer reaches
        /// `highWaterMark`, and the connection stays open.
        case suspended
    }

    /// Whether operations wait for `resume()`: the task is suspended and its connection is not
    /// gone. Once it is gone, they end as they would otherwise (reads get what is buffered, the
    /// rest fail), so that the task can complete.
    var holdsOperations: Bool {
        guard activity == .suspended else { return false }
        if case .closed = connection { return false }
        return true
    }

    /// Whether a pass must stop at `item`, queued after a suspension that is taking effect;
    /// the suspension is complete from here.
    mutating func suspensionStops(at item: Pending) -> Bool {
        guard case .suspending(let from) = activity, item.sequence >= from, !connection.isClosed else { return false }
        activity = .suspended
        return true
    }

    /// A pass is over: a suspension taking effect is complete.
    mutating func passEnded() {
        if case .suspending = activity { activity = .suspended }
    }

    /// The task was suspended: from now on its operations wait; those queued before it and
    /// still waiting for the loop's pass get that pass first. The owner suspends a running
    /// machine only.
    mutating func suspend() -> Actions {
        guard activity == .running else {
            preconditionFailure("suspended a task that was already suspended")
        }
        activity = undecidedFrom == nil ? .suspended : .suspending(from: queuedCount + 1)
        return Actions()
    }

    /// The suspended task goes on: what waited moves, in the order it was issued. The owner
    /// resumes a suspended machine only. Off the loop (`deciding` false) nothing is decided,
    /// and the loop must make a pass.
    mutating func resume(deciding: Bool = true) -> Actions {
        switch activity {
        case .running: preconditionFailure("resumed a task that was not suspended")
        case .suspending, .suspended: activity = .running
        }
        guard deciding else {
            if undecidedFrom == nil { undecidedFrom = queuedCount }
            return Actions()
        }
        return process()
    }
}
