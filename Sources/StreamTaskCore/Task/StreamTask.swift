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

/// A TCP connection that you read and write with queued, timed operations, like
/// `URLSessionStreamTask`.
///
/// A task made by ``StreamSession/streamTask(withHostName:port:)`` starts suspended: operations
/// issued before ``resume()`` wait, and run once the connection is up. A task accepted by a
/// ``StreamListener`` is already connected.
///
/// Reads complete in the order they were issued, and so do writes; the two are independent, so
/// a pending read never holds back a write. Every public method may be called from any thread.
public final class StreamTask: StreamSessionTask, @unchecked Sendable, CustomStringConvertible {
    // @unchecked only because the base class is: every stored property here is a `let` of a
    // Sendable type, as it was when this class was checked.

    /// How a task came to be.
    package enum Origin: Sendable {
        /// Made by a session to connect to a host.
        case connected
        /// Accepted by a ``StreamListener``.
        case accepted
        /// Made by a session to carry a ``StreamDataTask``'s HTTP exchange.
        case dataTask
    }

    /// The host the task connects to (for an accepted task: the peer's address).
    public let host: String
    /// The port the task connects to (for an accepted task: the peer's port).
    public let port: Int
    /// The session the task belongs to.
    public let session: StreamSession

    /// The event loop that carries the task's connection: its I/O, its timers and the
    /// completions of ``write(_:timeout:promise:)`` run there.
    public let eventLoop: any EventLoop
    let configuration: StreamSessionConfiguration.Values
    let origin: Origin
    /// Everything the task does on its event loop.
    package let driver: StreamTaskDriver

    typealias Outcome = StreamTaskDriver.Outcome

    /// The task's state, behind its one lock: what any thread may read, and the machine that
    /// the façade's calls and the event loop's events both step.
    package struct Shared {
        /// The task's life, its connection, its lanes of operations and its inbound buffer
        /// (see `StreamTaskStateMachine`): stepped by the façade and the driver, under this lock.
        var machine: StreamTaskStateMachine
        /// Where the task is in its life, as ``StreamTask/state`` reports it.
        var state: State { machine.taskState }
        /// Why the task completed, once it has (see ``StreamTask/streamTaskError``).
        var error: StreamTaskError? { machine.taskError }
        /// Whether the task was started (by its first ``resume()``, or connected by a
        /// listener): from then on ``suspend()`` and ``resume()`` pause it and let it go on.
        package var started: Bool { machine.hasStarted }
        var metrics: StreamTaskMetrics
        /// What the machine decided that waits for the loop (see `SubmissionInbox`).
        var inbox = SubmissionInbox()
        /// The task's one timer, for the earliest deadline of its operations, and when it fires.
        var deadlineTimer: (at: NIODeadline, timer: Scheduled<Void>)?
        var nextOperation: UInt64 = 0
        /// While set, the delegate hears nothing about this task: it carries a data task, or
        /// its connection was handed over to streams.
        package var delegateMuted = false
        /// What a feature above the core keeps about the task for its own public properties
        /// (for a task that was a data task: its request and response).
        package var record: (any Sendable)?
    }

    private let shared: NIOLockedValueBox<Shared>
    private let broadcaster = EventBroadcaster<StreamTaskEvent>()

    init(
        session: StreamSession,
        identifier: Int,
        host: String,
        port: Int,
        origin: Origin = .connected,
        eventLoop: (any EventLoop)? = nil,
        proxy: ProxyConfiguration? = nil,
        addressResolver: StreamTaskDriver.AddressResolver? = nil,
        failedWith failure: StreamTaskError? = nil
    ) {
        self.session = session
        self.host = host
        self.port = port
        self.origin = origin
        var configuration = session.settings
        if let proxy { configuration.proxy = proxy }
        self.configuration = configuration
        let eventLoop = eventLoop ?? session.eventLoopGroup.next()
        self.eventLoop = eventLoop
        let shared = NIOLockedValueBox(
            Shared(
                machine: StreamTaskStateMachine(
                    highWaterMark: configuration.inboundBufferLimit,
                    outboundHighWaterMark: StreamTaskDriver.channelWriteWaterMark.high),
                metrics: StreamTaskMetrics()))
        self.shared = shared
        self.driver = StreamTaskDriver(
            host: host, port: port, taskIdentifier: identifier, eventLoop: eventLoop,
            configuration: configuration, origin: origin, shared: shared, addressResolver: addressResolver)
        super.init(taskIdentifier: identifier)
        guard let failure else {
            driver.link(self)
            return
        }
        // A task the session refused: it is born completed.
        driver.bornFailed(failure)
        shared.withLockedValue { $0.metrics.taskEndDate = $0.metrics.taskStartDate }
        broadcaster.emit(.completed(failure), last: true)
    }

    // MARK: Public state

    /// Where the task is in its life.
    public override var state: State { withShared { $0.state } }

    /// Why the task completed, once it has, as Apple's API reports it: a `URLError` whose
    /// `streamTaskError` has the library's detail. `nil` while running and after
    /// an orderly close.
    public override var error: (any Error)? { streamTaskError?.urlError }

    /// Why the task completed, once it has, with the library's detail: `nil` while running and
    /// after an orderly close.
    public var streamTaskError: StreamTaskError? { withShared { $0.error } }

    /// The task's metrics so far.
    public var metrics: StreamTaskMetrics { withShared { $0.metrics } }

    /// The task's own bytes sent so far: the bytes of its completed writes, as they were
    /// given to them (under TLS, before encryption: record overhead, handshakes and
    /// close_notify are not counted, nor are a proxy's handshake bytes). It is
    /// ``StreamTaskMetrics/countOfBytesSent`` without copying the metrics. With the bytes given
    /// to writes, it tells how much is still queued, as a server needs to drop a client that
    /// stopped reading before its queue grows unbounded. Counted when the write completes on
    /// the connection's event loop, before any completion handler runs.
    public override var countOfBytesSent: Int64 { withShared { $0.metrics.countOfBytesSent } }

    /// The task's own bytes received so far, as they arrive and whether or not a read has taken
    /// them yet (under TLS, after decryption: record overhead, handshakes and close_notify are
    /// not counted, nor are a proxy's handshake bytes).
    public override var countOfBytesReceived: Int64 { withShared { $0.metrics.countOfBytesReceived } }

    /// An executor that runs Swift code on the thread that carries this task's connection.
    ///
    /// Reads and writes awaited from code that prefers this executor start and complete on
    /// that thread, without a hand-off to another thread in either direction: the fastest way
    /// to drive one connection, in particular for many small operations.
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(task.executor) {
    ///     while let line = try await task.readData(upToAndIncluding: Data("\r\n".utf8), maxLength: 512) {
    ///         try await task.write(line)
    ///     }
    /// }
    /// ```
    ///
    /// Or start a task on it: `Task(executorPreference: task.executor) { … }`.
    ///
    /// Everything that code runs goes to that thread, and so does the code of any default actor
    /// it calls (a default actor runs on its caller's preferred executor). Work that blocks or
    /// computes for long holds up every connection on the thread, so keep it elsewhere: an
    /// actor shared by many connections, for example, belongs on the cooperative pool, and
    /// callers on a loop should reach it from a task without this preference.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    public var executor: any TaskExecutor { EventLoopTaskExecutor(eventLoop) }

    /// The task's events, from its creation on: each iteration starts with the events that
    /// already happened, and the sequence ends after ``StreamTaskEvent/completed(_:)``.
    public var events: AsyncStream<StreamTaskEvent> { broadcaster.subscribe() }

    public var description: String {
        "StreamTask #\(taskIdentifier) \(StreamTaskError.endpoint(host: host, port: port))"
    }

    // MARK: Lifecycle

    /// Starts the task: waits for a connection slot for its host if the session's limit is
    /// reached, resolves the host name and connects. On a task paused by ``suspend()``, lets
    /// its operations go on, in the order they were issued. Otherwise it does nothing.
    public override func resume() {
        // Ask for the slot here, not after hopping to the task's event loop: tasks live on
        // different loops, and the session's queue must see them in the order they were resumed.
        let onLoop = eventLoop.inEventLoop
        var followUp = InboxFollowUp()
        let starts = withShared { shared -> Bool? in
            if shared.machine.start() { return true }
            guard shared.state == .suspended else { return nil }
            // The machine goes on as the call returns; what it then decides waits for the
            // loop unless this is the loop, with nothing waiting there.
            if onLoop {
                followUp.note(shared.machine.resume(), onLoop: onLoop, in: &shared)
            } else {
                _ = shared.machine.resume(deciding: false)
                followUp.notePass(onLoop: onLoop, in: &shared)
            }
            return false
        }
        guard let starts else { return }
        guard starts else {
            follow(followUp)
            inOrder { self.driver.suspensionChanged() }
            return
        }
        if let wait = earliestBeginDate?.timeIntervalSinceNow, wait > 0 {
            eventLoop.scheduleTask(in: .seconds(wait)) { self.session.requestConnectionSlot(for: self) }
        } else {
            session.requestConnectionSlot(for: self)
        }
    }

    /// Pauses the task, as `URLSessionTask.suspend()`: its operations wait until ``resume()``.
    ///
    /// While the task is suspended, queued and new operations wait where they are: no read
    /// completes, not even from bytes already buffered, no write is sent, and ``closeRead()``,
    /// ``closeWrite()``, TLS steps and capturing the streams do not start. Operations already
    /// under way finish (a write the socket has taken, a TLS handshake). The connection stays
    /// open and nothing is lost: the peer's bytes are buffered up to the session's inbound
    /// buffer limit, and beyond it wait in the peer, as for a slow reader. ``state`` is
    /// ``StreamSessionTask/State/suspended``; ``resume()`` lets everything go on in the order it
    /// was issued. A task suspended while it connects goes on connecting; its operations wait.
    ///
    /// Timeouts keep running: an operation's timeout bounds how long its caller waits, whatever
    /// it waits for, suspension included (as does the connect timeout). A read or a queued write
    /// that times out while suspended fails with ``StreamTaskError/Code/timedOut`` and loses
    /// nothing: the write was never sent, and the bytes stay buffered for the next read.
    ///
    /// Before the first ``resume()`` the task is suspended already, and this does nothing; nor
    /// does it on a task cancelling or completed, or whose streams were captured. ``cancel()``
    /// works on a suspended task as on any other.
    public override func suspend() {
        let suspends = withShared { shared -> Bool in
            guard shared.machine.isRunning else { return false }
            // As the call returns: nothing issued after it moves, and what was issued before
            // it and waits for the loop's pass still gets that pass (see `Activity`).
            _ = shared.machine.suspend()
            return true
        }
        guard suspends else { return }
        inOrder { self.driver.suspensionChanged() }
        // Writes waiting for room now wait for their outcome, as writes issued while suspended
        // do; they reach the loop after the suspension, and wait there.
        releaseRoomWaiters()
    }

    /// Cancels the task: every queued operation fails with ``StreamTaskError/Code/cancelled``
    /// and the connection closes. As Apple's does, it marks the task as cancelling before it
    /// returns: ``state`` reads `.canceling` from then on, until the task completes. Does
    /// nothing once the task's streams were captured: closing them ends the connection.
    ///
    /// Async writes that returned before their bytes left go out first, as the kernel still
    /// sends what a closed socket holds: the cancel waits for them, for at most 2 seconds.
    /// Async writes still waiting for room (see ``write(_:timeout:)-(Data,_)``) never returned:
    /// they fail with ``StreamTaskError/Code/cancelled``, and nothing of them is sent.
    public override func cancel() {
        // Writes waiting for room never returned: they fail as queued operations do. Those
        // that returned go out first (below).
        let (lingers, waiting) = withShared { shared -> (Bool, [RoomWaiter]) in
            shared.machine.writeBehind.stopEarlyReturns()
            let waiting = shared.machine.writeBehind.withdrawAll()
            let lingers = shared.machine.isRunning && shared.machine.writeBehind.outstanding > 0
            // As Apple's cancel() does, marks the task as cancelling before it returns: whoever
            // reads `state` after the call sees `.canceling` (then `.completed`), never `.running`.
            // Streams that took the task over left it completed already.
            shared.machine.cancelIssued()
            return (lingers, waiting)
        }
        fail(waiting, with: .cancelled)
        guard lingers else { return inOrder { self.driver.cancel() } }
        // An empty write completes once every earlier write has. The cancel then waits its own
        // turn on the loop: run inside that write's completion, it would close the channel in
        // the middle of the TLS handler's flush, which then sends no close_notify.
        deliver(
            OperationRequest(
                operation: .write(ByteBuffer()), id: makeOperationID(), timeout: Self.cancelLinger, startedAt: .now(),
                abandoned: nil, outlivesCancel: true,
                completion: .handler { _ in self.eventLoop.execute { self.driver.cancel() } }))
    }

    /// How long ``cancel()`` waits for writes that returned before their bytes left.
    static let cancelLinger: TimeInterval = 2

    // MARK: Operations

    package func makeOperationID() -> OperationID {
        withShared { $0.nextOperationID() }
    }

    /// Hands `operation` to the driver; `completion` runs on the event loop when it finishes.
    /// When `abandoned` is already set as the operation reaches the loop, it fails at once.
    func submit(
        _ operation: StreamTaskStateMachine.Operation,
        id: OperationID? = nil,
        timeout: TimeInterval,
        abandoned: NIOLockedValueBox<Bool>? = nil,
        fromStreams: Bool = false,
        returnedEarly: Bool = false,
        startedAt: NIODeadline? = nil,
        completion: @escaping StreamTaskDriver.Completion
    ) {
        submit(
            operation, id: id, timeout: timeout, abandoned: abandoned, fromStreams: fromStreams,
            returnedEarly: returnedEarly, startedAt: startedAt, reportingTo: .handler(completion))
    }

    /// Queues `operation`, whose outcome goes to `completion`.
    func submit(
        _ operation: StreamTaskStateMachine.Operation,
        id: OperationID? = nil,
        timeout: TimeInterval,
        abandoned: NIOLockedValueBox<Bool>? = nil,
        cancelledWithCaller: Bool = false,
        fromStreams: Bool = false,
        returnedEarly: Bool = false,
        startedAt: NIODeadline? = nil,
        reportingTo completion: OperationCompletion
    ) {
        var completion = completion
        if operation.isTLSTransition {
            // Writes issued after it wait for its outcome (writes waiting for room were issued
            // before it, and go first), until it is done, however it ends.
            releaseRoomWaiters { $0.transitionIssued() }
            let reportOutcome = completion
            completion = .handler { result in
                self.releaseRoomWaiters { $0.transitionFinished() }
                reportOutcome(result)
            }
        }
        // Numbered under the lock it is queued under: one lock, not two, per operation.
        deliver { shared in
            OperationRequest(
                operation: operation, id: id ?? shared.nextOperationID(), timeout: timeout, startedAt: startedAt,
                abandoned: abandoned, cancelledWithCaller: cancelledWithCaller, fromStreams: fromStreams,
                returnedEarly: returnedEarly, completion: completion)
        }
    }

    /// Queues `request` in the machine, from any thread, under the task's lock; what the
    /// machine decides is carried out at once on the loop while nothing waits before it, and
    /// otherwise waits for the loop in the task's inbox (see `SubmissionInbox`). Its completion
    /// runs on the loop when it finishes; a request refused as it is submitted (its caller
    /// stopped waiting already, or the task is cancelling) fails where it is.
    func deliver(_ request: OperationRequest) {
        deliver { _ in request }
    }

    /// Queues the request `make` builds under the task's lock, as `deliver(_:)` does.
    private func deliver(_ make: (inout Shared) -> OperationRequest) {
        let onLoop = eventLoop.inEventLoop
        var followUp = InboxFollowUp()
        let refused = withShared { shared -> (OperationRequest, StreamTaskError)? in
            let request = make(&shared)
            // Under the lock a cancellation's withdrawal is made under (see `abandon(_:)`).
            if let refusal = request.refusal(canceling: shared.machine.isCanceling) { return (request, refusal) }
            followUp.admit(request, onLoop: onLoop, in: &shared, by: driver)
            return nil
        }
        if let (request, refusal) = refused {
            return request.completion(.failure(refusal.at(host: host, port: port)))
        }
        follow(followUp)
    }

    /// Runs `change` on the loop in the order of what the machine decided around it (see
    /// `SubmissionInbox.Entry`): a cancel, suspend or resume neither overtakes the actions of
    /// an operation issued before it nor is overtaken by those of one issued after.
    func inOrder(_ change: @escaping @Sendable () -> Void) {
        let onLoop = eventLoop.inEventLoop
        var followUp = InboxFollowUp()
        withShared { followUp.note(control: change, onLoop: onLoop, in: &$0) }
        follow(followUp)
    }

    /// What steps of the machine under the task's lock call for, to be done once it is
    /// released: on the loop, what the steps decided; off it, the one job to schedule, and
    /// what to send to the loop alone.
    struct InboxFollowUp {
        fileprivate var job: (@Sendable () -> Void)?
        /// The first entry to carry out now, inline: one step makes one, and an array would
        /// cost every operation on the loop an allocation.
        fileprivate var runFirst: SubmissionInbox.Entry?
        fileprivate var runAfter: [SubmissionInbox.Entry] = []
        fileprivate var alone: [SubmissionInbox.Entry] = []

        /// On the loop: `entry` is carried out once the lock is released.
        mutating func runOnLoop(_ entry: SubmissionInbox.Entry) {
            if runFirst == nil { runFirst = entry } else { runAfter.append(entry) }
        }

        mutating func note(_ admission: SubmissionInbox.Admission, for entry: SubmissionInbox.Entry) {
            switch admission {
            case .joined: break
            case .schedule(let drain): job = drain
            case .unlinked: alone.append(entry)
            }
        }

        /// What one step decided: carried out after the lock on the loop, or sent there.
        mutating func note(_ actions: StreamTaskStateMachine.Actions, onLoop: Bool, in shared: inout StreamTask.Shared)
        {
            guard !actions.isEmpty else { return }
            let entry = SubmissionInbox.Entry.actions(actions, thenComplete: false)
            if onLoop { return runOnLoop(entry) }
            note(shared.inbox.admit(entry), for: entry)
        }

        /// A change of the task's life that runs on the loop in its place among the decisions.
        mutating func note(
            control change: @escaping @Sendable () -> Void, onLoop: Bool, in shared: inout StreamTask.Shared
        ) {
            let entry = SubmissionInbox.Entry.control(change)
            if onLoop { return runOnLoop(entry) }
            note(shared.inbox.admit(entry), for: entry)
        }

        /// A pass of the machine over what was queued without deciding: now on the loop,
        /// otherwise asked of it.
        mutating func notePass(onLoop: Bool, in shared: inout StreamTask.Shared) {
            if onLoop { return note(shared.machine.process(), onLoop: true, in: &shared) }
            note(shared.inbox.admit(.pass), for: .pass)
        }

        /// Queues `request` in the machine of `shared` (under the task's lock): decided now on
        /// the loop, and carried out once the lock is released; otherwise queued for a pass of
        /// the loop, behind what waits there.
        mutating func admit(
            _ request: OperationRequest, onLoop: Bool, in shared: inout StreamTask.Shared, by driver: StreamTaskDriver
        ) {
            let (actions, passNeeded) = driver.admit(request, into: &shared, deciding: onLoop)
            note(actions, onLoop: onLoop, in: &shared)
            if passNeeded { notePass(onLoop: onLoop, in: &shared) }
        }
    }

    /// Does what `followUp` noted, with the task's lock released.
    func follow(_ followUp: InboxFollowUp) {
        if let entry = followUp.runFirst { driver.take(entry) }
        for entry in followUp.runAfter { driver.take(entry) }
        if let job = followUp.job { eventLoop.execute(job) }
        for entry in followUp.alone {
            eventLoop.execute { self.driver.takeAlone(entry) }
        }
    }

    // MARK: Shared state and events

    /// Reads or changes what any thread may read, under its lock.
    package func withShared<T>(_ body: (inout Shared) -> T) -> T {
        shared.withLockedValue(body)
    }

    /// Tells the event subscribers and, unless muted, the delegate about `event`.
    func publish(_ event: StreamTaskEvent) {
        var last = false
        if case .completed(let error) = event {
            last = true
            if error == nil { finishProgress() }
        }
        broadcaster.emit(event, last: last)
        guard !withShared({ $0.delegateMuted }) else { return }
        guard let delegate = taskDelegate(in: session) else { return }
        let session = self.session
        session.callbackQueue.async {
            switch event {
            case .completed(let error):
                delegate.urlSession(session, task: self, didCompleteWithError: error?.urlError)
            case .metricsCollected(let metrics):
                delegate.urlSession(session, task: self, didFinishCollecting: StreamSessionTaskMetrics(metrics))
            default:
                guard let delegate = delegate as? any StreamSessionCoreStreamDelegate else { return }
                switch event {
                case .readClosed: delegate.urlSession(session, readClosedFor: self)
                case .writeClosed: delegate.urlSession(session, writeClosedFor: self)
                case .betterRouteDiscovered: delegate.urlSession(session, betterRouteDiscoveredFor: self)
                case .viabilityChanged(let isViable):
                    delegate.urlSession(session, viabilityDidChangeFor: self, isViable: isViable)
                case .completed, .metricsCollected: break
                }
            }
        }
    }
}

extension StreamTask.Shared {
    /// After the write ledger changed (under the task's lock): asks the loop for the pass that
    /// confirms what went unconfirmed, if writers now wait for room behind it
    /// (`StreamTaskStateMachine.roomWaitersNeedAPass`).
    mutating func noteRoomWaiters(onLoop: Bool, _ followUp: inout StreamTask.InboxFollowUp) {
        if machine.roomWaitersNeedAPass {
            followUp.notePass(onLoop: onLoop, in: &self)
        }
    }

    /// The id of the next operation of the task.
    mutating func nextOperationID() -> OperationID {
        nextOperation += 1
        return OperationID(rawValue: nextOperation)
    }
}

extension TimeAmount {
    /// A time amount from seconds, as `TimeInterval`s come in.
    ///
    /// Apple's stream tasks take any interval, `.infinity` included, and a timer that long
    /// never fires. `TimeAmount` counts nanoseconds in an `Int64` (about 292 years), so an
    /// interval past that (or NaN) becomes the longest amount there is, which SwiftNIO's
    /// deadlines turn into `NIODeadline.distantFuture`, instead of trapping in the conversion.
    package static func seconds(_ interval: TimeInterval) -> TimeAmount {
        guard interval < longestInterval else { return .nanoseconds(.max) }
        return .nanoseconds(Int64((interval * 1_000_000_000).rounded()))
    }

    /// The longest interval, in seconds, that converts to nanoseconds without overflow, less
    /// a margin for rounding.
    private static let longestInterval: TimeInterval = 9_000_000_000
}

extension StreamTask {
    /// Takes over a channel a listener accepted (see `StreamTaskDriver.takeOver(_:)`).
    func attach(_ channel: any Channel) throws {
        try driver.takeOver(channel)
    }
}
