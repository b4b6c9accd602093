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

/// What every task of a session has, as `URLSessionTask`: the class that ``StreamTask``
/// (`StreamSessionStreamTask`) and the HTTP module's data task derive from, and the type the
/// task delegate methods are called with.
///
/// You do not create or subclass it (its initializer is the package's own); sessions hand out
/// its subclasses. It is `open` only so that the HTTP module's data task can derive from it.
open class StreamSessionTask: @unchecked Sendable {
    // @unchecked: the few stored values of its own live in the lock box; subclasses keep
    // their state behind their own locks.

    /// Where a task is in its life, with Apple's cases and raw values.
    public enum State: Int, Sendable, Equatable {
        /// Resumed: waiting for a connection slot, connecting, or connected.
        case running = 0
        /// Created and not resumed yet, or suspended.
        case suspended = 1
        /// `cancel()` was called and the connection is closing.
        case canceling = 2
        /// The connection is closed and every operation has finished.
        case completed = 3
    }

    /// The priority of a task that was given none, as Apple's (`0.5`).
    public static let defaultPriority: Float = 0.5
    /// A low priority, as Apple's (`0.25`): above the minimum of 0, below the default.
    public static let lowPriority: Float = 0.25
    /// A high priority, as Apple's (`0.75`): above the default, below the maximum of 1.
    public static let highPriority: Float = 0.75

    /// A size not known in advance: `NSURLSessionTransferSizeUnknown` (-1), which Foundation
    /// defines only in FoundationNetworking on Linux.
    public static let transferSizeUnknown: Int64 = -1

    /// A number that identifies the task within its session, unique among its tasks.
    public let taskIdentifier: Int

    private struct Record {
        var taskDescription: String?
        var priority = StreamSessionTask.defaultPriority
        var earliestBeginDate: Date?
        var countOfBytesClientExpectsToSend = StreamSessionTask.transferSizeUnknown
        var countOfBytesClientExpectsToReceive = StreamSessionTask.transferSizeUnknown
        var prefersIncrementalDelivery = true
        var delegate: (any StreamSessionCoreTaskDelegate)?
    }

    private let record = NIOLockedValueBox(Record())

    /// How far the task has come, as Apple's `progress`: indeterminate while a stream task
    /// runs, finished once it completes without error; for a data task, the body's bytes
    /// against its `Content-Length` (indeterminate without one), finished once it completes
    /// without error.
    public let progress: Progress

    package init(taskIdentifier: Int) {
        self.taskIdentifier = taskIdentifier
        self.progress = Progress(totalUnitCount: -1)
    }

    /// Marks ``progress`` finished: its total becomes what it counted (at least 1), and all of
    /// it is done.
    package func finishProgress() {
        let total = max(progress.completedUnitCount, progress.totalUnitCount, 1)
        progress.totalUnitCount = total
        progress.completedUnitCount = total
    }

    /// A delegate for this task only, as Apple's: when `nil`, the session's delegate hears
    /// about the task. Held strongly until the task completes.
    public var delegate: (any StreamSessionCoreTaskDelegate)? {
        get { record.withLockedValue { $0.delegate } }
        set { record.withLockedValue { $0.delegate = newValue } }
    }

    /// The delegate that hears about this task: its own, or else the session's when that is a
    /// task delegate (as `URLSession` asks only a task delegate about tasks).
    package func taskDelegate(in session: StreamSession) -> (any StreamSessionCoreTaskDelegate)? {
        delegate ?? session.delegate as? any StreamSessionCoreTaskDelegate
    }

    /// A description of the task for your own use (logs, debugging); `nil` until you set it.
    public var taskDescription: String? {
        get { record.withLockedValue { $0.taskDescription } }
        set { record.withLockedValue { $0.taskDescription = newValue } }
    }

    /// How important the task is to you, from 0 to 1 (values outside are clamped), as
    /// ``lowPriority``, ``defaultPriority`` and ``highPriority`` name them. Kept, as Apple's, as a hint: the library runs every task's I/O as
    /// it comes, whatever its priority.
    public var priority: Float {
        get { record.withLockedValue { $0.priority } }
        set { record.withLockedValue { $0.priority = min(max(newValue, 0), 1) } }
    }

    /// The earliest time the task may start connecting: ``resume()`` before then waits until
    /// that time. `nil` (the default) starts at once.
    public var earliestBeginDate: Date? {
        get { record.withLockedValue { $0.earliestBeginDate } }
        set { record.withLockedValue { $0.earliestBeginDate = newValue } }
    }

    /// How many bytes you expect the task to send, as a hint; kept with no effect
    /// (``transferSizeUnknown`` by default).
    public var countOfBytesClientExpectsToSend: Int64 {
        get { record.withLockedValue { $0.countOfBytesClientExpectsToSend } }
        set { record.withLockedValue { $0.countOfBytesClientExpectsToSend = newValue } }
    }

    /// How many bytes you expect the task to receive, as a hint; kept with no effect
    /// (``transferSizeUnknown`` by default).
    public var countOfBytesClientExpectsToReceive: Int64 {
        get { record.withLockedValue { $0.countOfBytesClientExpectsToReceive } }
        set { record.withLockedValue { $0.countOfBytesClientExpectsToReceive = newValue } }
    }

    /// Whether the body should reach the delegate as it arrives (`true` by default); kept, as a
    /// hint with no effect: a data task always hands its body over as it comes, and a stream
    /// task has no body.
    public var prefersIncrementalDelivery: Bool {
        get { record.withLockedValue { $0.prefersIncrementalDelivery } }
        set { record.withLockedValue { $0.prefersIncrementalDelivery = newValue } }
    }

    // MARK: What each kind of task provides

    /// Where the task is in its life.
    open var state: State { preconditionFailure("StreamSessionTask.state must be overridden") }

    /// Why the task completed, once it has: a `URLError` as Apple's API reports it (its
    /// `streamTaskError` has the detail), or `nil` while it runs and after an
    /// orderly end.
    open var error: (any Error)? { preconditionFailure("StreamSessionTask.error must be overridden") }

    /// Bytes of the task's own data handed to the system so far.
    open var countOfBytesSent: Int64 { preconditionFailure("StreamSessionTask.countOfBytesSent must be overridden") }

    /// Bytes of the task's own data received so far.
    open var countOfBytesReceived: Int64 {
        preconditionFailure("StreamSessionTask.countOfBytesReceived must be overridden")
    }

    /// How many bytes the task is known to have to send; 0 when nothing is known in advance.
    open var countOfBytesExpectedToSend: Int64 { 0 }

    /// How many bytes the task is known to have to receive; ``transferSizeUnknown`` when
    /// nothing is known in advance.
    open var countOfBytesExpectedToReceive: Int64 { Self.transferSizeUnknown }

    /// Starts the task, or lets a suspended one go on.
    open func resume() { preconditionFailure("StreamSessionTask.resume() must be overridden") }

    /// Pauses a started task until ``resume()``: its operations wait, its connection stays
    /// open. Each kind of task says what it holds back.
    open func suspend() { preconditionFailure("StreamSessionTask.suspend() must be overridden") }

    /// Cancels the task.
    open func cancel() { preconditionFailure("StreamSessionTask.cancel() must be overridden") }
}

extension StreamSessionTask: Hashable {
    /// Whether `lhs` and `rhs` are the same task: a task equals only itself, as Apple's
    /// `NSObject`-based tasks do, so that tasks can be dictionary keys and set members.
    public static func == (lhs: StreamSessionTask, rhs: StreamSessionTask) -> Bool {
        lhs === rhs
    }

    /// Hashes the task's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
