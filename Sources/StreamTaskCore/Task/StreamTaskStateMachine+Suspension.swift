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
    enum Activity {
        case running
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

    /// The task was suspended: from now on its operations wait. The owner suspends a running
    /// machine only.
    mutating func suspend() -> Actions {
        guard activity == .running else {
            preconditionFailure("suspended a task that was already suspended")
        }
        activity = .suspended
        return []
    }

    /// The suspended task goes on: what waited moves, in the order it was issued. The owner
    /// resumes a suspended machine only.
    mutating func resume() -> Actions {
        guard activity == .suspended else {
            preconditionFailure("resumed a task that was not suspended")
        }
        activity = .running
        return process()
    }
}
