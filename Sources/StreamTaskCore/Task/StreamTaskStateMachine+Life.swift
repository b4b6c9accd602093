//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension StreamTaskStateMachine {
    /// The task's life, as its owner sees it: the one record of it, from which the task's
    /// public `state` and `error` are read, under the task's lock. Each case carries what
    /// exists only in it: whether operations may move exists only while the task runs.
    ///
    /// ```
    /// created ──start──▶ started(activity, connection) ──cancelIssued──▶ canceling(activity, connection)
    ///    │  │               │        ▲ suspend/resume                               │
    ///    │  │               │        └──────┘                                       │
    ///    │  │               ├──captureStreams──▶ handedToStreams(connection)         │
    ///    │  └───────────────┴──────────────────complete─────────────────────────────┴──▶ completed(error)
    ///    └──refuse──▶ refused(error)
    /// ```
    ///
    /// The connection (``Connection``) exists only in the cases that carry it: a task never
    /// started has none, a completed or refused one has none left (it completes only once its
    /// connection has closed), and the streams that took a connection over keep it after the
    /// task has completed. Before the cases that carry it, it reads as not connected; after
    /// them, as closed with the task's error.
    enum Life {
        /// Made and never resumed: operations queue and wait for a connection.
        case created
        /// The session refused the task as it was made (an invalid argument, an invalidated
        /// session): it is born completed with `error`, and never starts.
        case refused(StreamTaskError)
        /// Resumed (or accepted by a listener): connecting or connected, running or paused
        /// by `suspend()`.
        case started(Activity, Connection)
        /// `cancel()` was called: the task takes nothing new, and completes once its
        /// connection is closed. Until the loop carries the cancel out, operations move or
        /// wait as they did (`activity`).
        case canceling(Activity, Connection)
        /// `captureStreams` took effect: the task completed, and the connection is the
        /// streams'. Only their own operations are accepted.
        case handedToStreams(Connection)
        /// The task is over: its connection closed with `error` (`nil` for an orderly
        /// close), or it never had one.
        case completed(StreamTaskError?)
    }

    /// The task's public state, as `URLSessionTask.state` names it.
    var taskState: StreamSessionTask.State {
        switch life {
        case .created: .suspended
        case .started(.running, _): .running
        case .started(.suspending, _), .started(.suspended, _): .suspended
        case .canceling: .canceling
        case .refused, .handedToStreams, .completed: .completed
        }
    }

    /// Why the task completed, once it has; `nil` until then and after an orderly close.
    var taskError: StreamTaskError? {
        switch life {
        case .completed(let error): error
        case .refused(let error): error
        case .created, .started, .canceling, .handedToStreams: nil
        }
    }

    /// Whether the task was started (by its first `resume()`, or connected by a listener):
    /// from then on `suspend()` and `resume()` pause it and let it go on.
    var hasStarted: Bool {
        switch life {
        case .created, .refused: false
        case .started, .canceling, .handedToStreams, .completed: true
        }
    }

    /// Whether the task runs: started, not paused, not cancelling and not over.
    var isRunning: Bool {
        if case .started(.running, _) = life { return true }
        return false
    }

    /// The connection, as the operations see it (see ``Life``).
    var connection: Connection {
        switch life {
        case .created: .notConnected
        case .started(_, let connection), .canceling(_, let connection), .handedToStreams(let connection): connection
        case .refused(let error): .closed(error)
        case .completed(let error): .closed(error)
        }
    }

    /// Whether the task is cancelling or over: nothing new is asked of its attachments.
    var hasEnded: Bool {
        switch life {
        case .created, .started: false
        case .refused, .canceling, .handedToStreams, .completed: true
        }
    }

    /// Whether `cancel()` was called and the task has not completed yet.
    var isCanceling: Bool {
        if case .canceling = life { return true }
        return false
    }

    /// `captureStreams` took effect: the connection belongs to the streams.
    var streamsCaptured: Bool {
        if case .handedToStreams = life { return true }
        return false
    }

    /// Whether the task's operations may move (`suspend()` and `resume()`); a task that is
    /// not started, or is over, has nothing to hold.
    var activity: Activity {
        switch life {
        case .started(let activity, _), .canceling(let activity, _): activity
        case .created, .refused, .handedToStreams, .completed: .running
        }
    }

    // MARK: Inputs

    /// The session refused the task as it was made: it completes with `error` before anything
    /// else happens to it.
    mutating func refuse(_ error: StreamTaskError) {
        guard case .created = life else { preconditionFailure("a task refused after it was made") }
        life = .refused(error)
    }

    /// The task starts: its first `resume()`, or a listener handing it a connection. Returns
    /// whether it did (only a task never started starts).
    mutating func start() -> Bool {
        guard case .created = life else { return false }
        life = .started(.running, .notConnected)
        return true
    }

    /// `cancel()` was called: from now on the task is cancelling (as on Darwin, before the
    /// call returns). A task that completed, or whose streams took its connection, stays so.
    mutating func cancelIssued() {
        switch life {
        case .created: life = .canceling(.running, .notConnected)
        case .started(let activity, let connection): life = .canceling(activity, connection)
        case .refused, .canceling, .handedToStreams, .completed: break
        }
    }

    /// The task completed: its error is the connection's. Completing twice, or with the
    /// connection still up, traps; the streams that took the connection over end it as they
    /// close, and the task, completed when they took it, keeps no error of theirs.
    mutating func complete() {
        switch life {
        case .created, .started(_, .notConnected), .canceling(_, .notConnected):
            life = .completed(nil)
        case .started(_, .closed(let error)), .canceling(_, .closed(let error)):
            life = .completed(error)
        case .started(_, .open), .started(_, .closing), .canceling(_, .open), .canceling(_, .closing):
            preconditionFailure("a task completed with its connection up")
        case .handedToStreams:
            break
        case .refused, .completed:
            preconditionFailure("a task completed twice")
        }
    }

    /// Records that `captureStreams` took effect.
    mutating func handOverToStreams() {
        switch life {
        case .started(_, let connection), .canceling(_, let connection):
            life = .handedToStreams(connection)
        case .created, .refused, .handedToStreams, .completed:
            preconditionFailure("streams captured from a task that was not running")
        }
    }

    /// Changes whether operations move, for a started (or cancelling) task only: see
    /// ``suspend()`` and ``resume(deciding:)``.
    private mutating func setActivity(_ activity: Activity) {
        switch life {
        case .started(_, let connection): life = .started(activity, connection)
        case .canceling(_, let connection): life = .canceling(activity, connection)
        case .created, .refused, .handedToStreams, .completed:
            preconditionFailure("operations held or let go on a task that is not started")
        }
    }

    /// Changes the connection, in the cases that carry one. A task never started has no
    /// connection to change; a refused or completed one has only its closed one.
    mutating func setConnection(_ connection: Connection) {
        switch life {
        case .started(let activity, _): life = .started(activity, connection)
        case .canceling(let activity, _): life = .canceling(activity, connection)
        case .handedToStreams: life = .handedToStreams(connection)
        case .created:
            preconditionFailure("the connection of a task that was not started changed")
        case .refused, .completed:
            preconditionFailure("the connection of a completed task changed")
        }
    }
}

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
        setActivity(.suspended)
        return true
    }

    /// A pass is over: a suspension taking effect is complete.
    mutating func passEnded() {
        if case .suspending = activity { setActivity(.suspended) }
    }

    /// The task was suspended: from now on its operations wait; those queued before it and
    /// still waiting for the loop's pass get that pass first. The owner suspends a running
    /// task only (``isRunning``).
    mutating func suspend() -> Actions {
        guard isRunning else {
            preconditionFailure("suspended a task that was not running")
        }
        setActivity(undecidedFrom == nil ? .suspended : .suspending(from: queuedCount + 1))
        return Actions()
    }

    /// The suspended task goes on: what waited moves, in the order it was issued. The owner
    /// resumes a suspended task only (one started and paused). Off the loop (`deciding`
    /// false) nothing is decided, and the loop must make a pass.
    mutating func resume(deciding: Bool = true) -> Actions {
        switch life {
        case .started(.suspending, _), .started(.suspended, _): setActivity(.running)
        case .created, .refused, .started(.running, _), .canceling, .handedToStreams, .completed:
            preconditionFailure("resumed a task that was not suspended")
        }
        guard deciding else {
            if undecidedFrom == nil { undecidedFrom = queuedCount }
            return Actions()
        }
        return process()
    }
}
