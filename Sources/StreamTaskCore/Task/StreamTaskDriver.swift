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
import NIOSSL

/// The one place where a task's life is decided: it owns the task's state machine, its
/// channel, its timers and the completions of its operations, and runs only on the task's
/// event loop.
///
/// ```
/// StreamTask (any thread)          StreamTaskDriver (event loop)                channel
///   readData / write / startTLS ──▶ submit ─▶ enqueue ─▶ machine.enqueue
///                                   carryOut(actions) ──────────────────────▶ write / read / close
///   completion ◀─────────────────── finish ◀── machine.received ◀──────────── channelReceived
/// ```
///
/// Every input, from the façade or from the channel, becomes an input of the
/// `StreamTaskStateMachine`; the actions it returns are carried out by
/// `carryOut(_:thenComplete:)`, in order and never nested. TLS and proxies are extensions of
/// this type in their own folders; data tasks and route watching plug in as
/// ``StreamTaskAttachment``s.
package final class StreamTaskDriver: @unchecked Sendable {
    // @unchecked Sendable: every stored `var` is touched only on `eventLoop`, and each entry
    // point checks that it runs there (`preconditionInEventLoop`) or hops there first.

    typealias Outcome = (bytes: ByteBuffer, atEOF: Bool)
    typealias Completion = @Sendable (Result<Outcome, StreamTaskError>) -> Void

    let eventLoop: any EventLoop
    package let configuration: StreamSessionConfiguration.Values
    /// Finds the addresses to connect to when the task has no host name to resolve (a task to
    /// a DNS-SD service resolves the service as it starts); `nil` for name resolution.
    let addressResolver: AddressResolver?

    /// Finds a task's addresses as it starts connecting.
    package typealias AddressResolver = @Sendable () async throws -> [SocketAddress]
    package let host: String
    package let port: Int
    package let taskIdentifier: Int
    package let origin: StreamTask.Origin

    /// The façade, until the task completes (the two hold each other until then).
    private(set) var owner: StreamTask?
    var phase = Phase.idle {
        didSet {
            if case .attached(let attached) = phase { handler = attached } else { handler = nil }
        }
    }
    /// The task's handler, while it is in the pipeline: `phase` says so too, but every write
    /// and flush asks, and reading one reference costs less than copying the enum.
    private(set) var handler: StreamTaskChannelHandler?
    /// The task's state under its lock, shared with the façade: the machine lives there, so
    /// that both sides step the same value (see `step(_:thenComplete:)`).
    let shared: NIOLockedValueBox<StreamTask.Shared>
    /// This task's own TLS handler, while it has one (not the one of a tunnel through an
    /// HTTPS proxy); the machine holds what its handshake learnt (``StreamTaskStateMachine/Security``).
    var tlsHandler: NIOSSLHandler?
    /// The features riding on the connection (a data task's HTTP exchange until it becomes a
    /// stream, the route watch while connected): see ``StreamTaskAttachment``.
    var attachments: [any StreamTaskAttachment] = []
    /// Whether an action list is being carried out (see `carryOut(_:thenComplete:)`).
    private var performing = false
    /// A flush the machine asked for waits in a loop job (see `flushSoon()`).
    var flushQueued = false
    /// Bytes handed to the channel since its last flush.
    var unflushedBytes = 0
    /// The writes handed to the channel with a promise, oldest first (see
    /// `writeToChannel(_:id:confirms:)`).
    var promisedWrites = LazyRing<OperationID>()
    /// Action lists that arrived while one was being carried out, in order. A ring buffer: a
    /// flush that completes thousands of writes at once defers a list for each, and taking
    /// them from the front of an array would move all the others every time.
    private var deferred = LazyRing<(actions: StreamTaskStateMachine.Actions, complete: Bool)>()
    /// Whether the loop is running a job that brings operations from the loop's queue: the
    /// task's inbox, or an operation sent by itself.
    private(set) var inQueuedJob = false

    /// Whether a flush asked for now waits for the jobs queued on the loop (see
    /// `flushSoon()`): for async code, whose writes come in runs (from the pool, through the
    /// task's inbox, as many per job as joined it meanwhile; on the task's executor, one after
    /// another until it suspends), and for writes the ledger let go. Code on the loop outside
    /// Swift concurrency (a promise's callback, an `execute` closure) is flushed at once, as by
    /// `writeAndFlush`: such code gathers its own writes, and a job per flush costs a server
    /// that writes to many connections more than it saves.
    /// Writes that came through the loop's queue wait whatever their size (what they wait for
    /// is queued already); code on the executor holds the flush only while less than
    /// ``heldFlushLimit`` waits, since the loop runs nothing else until that code suspends.
    var holdsFlush: Bool {
        inQueuedJob
            || (unflushedBytes < Self.heldFlushLimit && (HeldFlushes.jobRunning || withUnsafeCurrentTask { $0 != nil }))
    }

    init(
        host: String,
        port: Int,
        taskIdentifier: Int,
        eventLoop: any EventLoop,
        configuration: StreamSessionConfiguration.Values,
        origin: StreamTask.Origin,
        shared: NIOLockedValueBox<StreamTask.Shared>,
        addressResolver: AddressResolver? = nil
    ) {
        self.addressResolver = addressResolver
        self.eventLoop = eventLoop
        self.configuration = configuration
        self.host = host
        self.port = port
        self.taskIdentifier = taskIdentifier
        self.origin = origin
        self.shared = shared
    }

    /// Steps the machine with `input` under the task's lock, then carries out the actions it
    /// returns, with the lock released.
    ///
    /// What it decides is done when it returns (unless it runs inside another action list,
    /// which then carries it out as soon as it is done). Only the loop decides what the channel
    /// does (see `StreamTaskStateMachine.admit`), so what waits in the task's inbox meanwhile
    /// is outcomes and passes, which this step does not overtake in any way that matters.
    func step(
        thenComplete: Bool = false,
        _ input: (inout StreamTaskStateMachine) -> StreamTaskStateMachine.Actions
    ) {
        stepShared(thenComplete: thenComplete) { input(&$0.machine) }
    }

    /// Steps the task's state under its lock with `input`, which may change what lies beside
    /// the machine in the same step (the metrics, say), then carries out what it decides as
    /// ``step(thenComplete:_:)`` does.
    func stepShared(
        thenComplete: Bool = false,
        _ input: (inout StreamTask.Shared) -> StreamTaskStateMachine.Actions
    ) {
        let actions = shared.withLockedValue { input(&$0) }
        if !actions.isEmpty || thenComplete { carryOut(actions, thenComplete: thenComplete) }
    }

    /// Reads the machine under the task's lock. Never call it from inside `withShared`.
    func withMachine<T>(_ body: (inout StreamTaskStateMachine) -> T) -> T {
        shared.withLockedValue { body(&$0.machine) }
    }

    /// A copy of the machine, for tests and diagnostics.
    var machine: StreamTaskStateMachine { withMachine { $0 } }

    /// Links the façade, once it is initialised; a task born failed is never linked.
    func link(_ task: StreamTask) {
        owner = task
        // The job holds the task until it completes, as `owner` does (see `complete()`).
        task.withShared { $0.inbox.link { self.drainInbox(of: task) } }
    }

    /// A task the session refused: completed before it was ever linked.
    func bornFailed(_ failure: StreamTaskError) {
        // Refused, its connection reads as closed with `failure`.
        withMachine { $0.refuse(failure) }
        phase = .completed
    }

    // MARK: Entry points from the façade (any thread)

    /// Runs `body` on the event loop: at once when already there, else after a hop.
    package func onLoop(_ body: @escaping @Sendable () -> Void) {
        if eventLoop.inEventLoop {
            body()
        } else {
            eventLoop.execute(body)
        }
    }

    /// The loop job of the task's inbox: carries out everything the machine decided off the
    /// loop, oldest first, what joins meanwhile included. What reached the loop behind it is
    /// already queued, so a flush held to the end of the queue waits for no one's code.
    private func drainInbox(of task: StreamTask) {
        // Loop jobs never run inside one another, so there is no outer value to restore.
        inQueuedJob = true
        while let entry = task.withShared({ $0.inbox.next() }) { take(entry) }
        inQueuedJob = false
    }

    /// The loop job of an entry made off the loop for a task with no inbox job (born failed,
    /// or completed).
    func takeAlone(_ entry: SubmissionInbox.Entry) {
        inQueuedJob = true
        take(entry)
        inQueuedJob = false
    }

    /// Carries out what came through the inbox, on the loop.
    func take(_ entry: SubmissionInbox.Entry) {
        switch entry {
        case .actions(let actions, let thenComplete): carryOut(actions, thenComplete: thenComplete)
        // Entries before it are carried out and those after it are not: what it decides goes
        // out now, in its place.
        case .pass: carryOut(withMachine { $0.process() })
        case .control(let change): change()
        }
    }

    /// Queues `request` in the machine, under the task's lock (`shared` is the locked state),
    /// from any thread. `deciding` (on the loop, with nothing waiting for it) lets the machine
    /// decide what moves now; otherwise it only queues, and says whether the loop must make a
    /// pass. A timed operation's deadline goes with it, and the task's one timer is moved
    /// earlier if it must be.
    func admit(
        _ request: OperationRequest, into shared: inout StreamTask.Shared, deciding: Bool
    ) -> (actions: StreamTaskStateMachine.Actions, passNeeded: Bool) {
        let (operation, id, timeout, completion) = (request.operation, request.id, request.timeout, request.completion)
        if request.abandoned?.withLockedValue({ $0 }) == true {
            // Withdrawn by a caller with a flag of its own before it was queued.
            return (StreamTaskStateMachine.Actions(.fail(id, Self.abandonedError, to: completion)), false)
        }
        var deadline: StreamTaskStateMachine.Pending.Deadline?
        if timeout > 0 {
            // From the call, not from here: a `Data` write's copy, and a wait for room, come
            // out of the time the caller gave.
            deadline = .init(
                at: (request.startedAt ?? .now()) + .seconds(timeout), timeout: timeout,
                returnedEarly: request.returnedEarly)
        }
        let outcome: (actions: StreamTaskStateMachine.Actions, passNeeded: Bool)
        if deciding {
            outcome.actions = shared.machine.enqueue(
                operation, id: id, fromStreams: request.fromStreams, completion: completion, deadline: deadline)
            outcome.passNeeded = false
        } else {
            (outcome.actions, outcome.passNeeded) = shared.machine.admit(
                operation, id: id, fromStreams: request.fromStreams, completion: completion, deadline: deadline)
        }
        if let deadline { armDeadlineTimer(at: deadline.at, in: &shared) }
        return outcome
    }

    /// Schedules the task's one timer for `deadline`, in place of the one scheduled before,
    /// unless it fires at or before then already; under the task's lock.
    func armDeadlineTimer(at deadline: NIODeadline, in shared: inout StreamTask.Shared) {
        if let armed = shared.deadlineTimer, armed.at <= deadline { return }
        shared.deadlineTimer?.timer.cancel()
        let timer = eventLoop.scheduleTask(deadline: deadline) { self.deadlineTimerFired() }
        shared.deadlineTimer = (deadline, timer)
    }

    /// Withdraws every operation whose time is up, and every write whose wait for room is,
    /// then arms the timer for the next deadline.
    private func deadlineTimerFired() {
        let (due, dueForRoom, unwrapping) = shared.withLockedValue { shared in
            shared.deadlineTimer = nil
            let now = NIODeadline.now()
            let (due, next) = shared.machine.expired(at: now)
            let (dueForRoom, nextForRoom) = shared.machine.writeBehind.expired(at: now)
            if let next = [next, nextForRoom].compactMap({ $0 }).min() { armDeadlineTimer(at: next, in: &shared) }
            return (due, dueForRoom, shared.machine.tlsUnwrapping)
        }
        for (id, waiter) in dueForRoom {
            owner?.withdrawWaitingWrite(id, failingWith: waiter.timeoutError)
        }
        for (id, operation, deadline) in due {
            if unwrapping == id {
                stopTLSTimedOut(id, after: deadline.timeout)
            } else {
                let error = Self.timeoutError(for: operation, after: deadline.timeout)
                step { $0.abandon(id, error: error, returnedEarly: deadline.returnedEarly) }
            }
        }
    }

    /// Fails every operation and closes the connection; does nothing once the connection was
    /// handed over to streams (closing them ends it).
    func cancel() {
        onLoop {
            guard !self.withMachine({ $0.streamsCaptured }) else { return }
            switch self.phase {
            case .completed:
                return
            case .attached(let handler):
                // `StreamTask.cancel()` marked the task as cancelling already.
                self.step { $0.cancel() }
                handler.closeTransport()
            case .idle, .connecting:
                self.step(thenComplete: true) { $0.cancel() }
            }
        }
    }

    // MARK: Carrying out the machine's actions

    /// Carries out what the state machine decided, then completes the task if asked.
    ///
    /// Never nested: an action can make the channel call back at once (shutting the output
    /// down can close the channel), and the actions that callback produces wait until the
    /// current list is done, so events and completions keep their order.
    func carryOut(_ actions: StreamTaskStateMachine.Actions, thenComplete: Bool = false) {
        eventLoop.preconditionInEventLoop()
        if performing {
            deferred.append((actions, thenComplete))
            return
        }
        // As `holdingActions(_:)` runs a body, without a closure around the list: this is every
        // operation's path.
        performing = true
        carryOutNow(actions, thenComplete: thenComplete)
        carryOutDeferred()
    }

    /// Runs `body`, which acts on the channel, as `carryOut(_:thenComplete:)` runs an action
    /// list: what the channel's callbacks make the machine decide meanwhile waits until
    /// `body` is done.
    func holdingActions(_ body: () -> Void) {
        if performing {
            body()
            return
        }
        performing = true
        body()
        carryOutDeferred()
    }

    /// Carries out the lists that arrived meanwhile, in order, then ends the carrying out.
    private func carryOutDeferred() {
        while let next = deferred.popFirst() {
            carryOutNow(next.actions, thenComplete: next.complete)
        }
        performing = false
    }

    private func carryOutNow(_ actions: StreamTaskStateMachine.Actions, thenComplete: Bool) {
        defer {
            if thenComplete { complete() }
        }
        let count = actions.count
        var failures = false
        for index in 0..<count where actions[index].isFailure {
            failures = true
            break
        }
        if failures {
            // Before any failure below reaches a caller: once the connection is closed, a write
            // issued by a caller who has heard of the failure must not return early, as if it
            // could still succeed.
            shared.withLockedValue { shared in
                if shared.machine.connection.isClosed { shared.machine.writeBehind.stopEarlyReturns() }
            }
        }
        for index in 0..<count {
            switch actions[index] {
            case .succeedRead(let id, let bytes, let atEOF, let completion):
                finish(id, completion, .success((bytes, atEOF)))
            case .succeed(let id, let completion):
                finish(id, completion, .success((ByteBuffer(), false)))
            case .fail(let id, let error, let completion):
                finish(id, completion, .failure(error.at(host: host, port: port)))
            case .write(let id, let bytes, let confirm):
                writeToChannel(bytes, id: id, confirms: confirm)
            case .confirmWrites(let id):
                writeToChannel(ByteBuffer(), id: id, confirms: true)
            case .flush:
                flushAsAsked()
            case .shutdownOutput:
                flushNow()
                handler?.shutdownOutput()
            case .shutdownInput:
                handler?.shutdownInput()
            case .requestInput:
                handler?.read()
            case .close:
                flushNow()
                handler?.close()
            case .emit(.readClosed):
                owner?.publish(.readClosed)
            case .emit(.writeClosed):
                owner?.publish(.writeClosed)
            case .startTLS(let id, let role, let early):
                flushNow()
                beginTLS(id, role: role, early: early)
            case .stopTLS(let id):
                flushNow()
                endTLS(id)
            case .captureStreams(let id, let completion):
                flushNow()
                handOverStreams(id, reportingTo: completion)
            }
        }
    }

    private func finish(
        _ id: OperationID, _ completion: OperationCompletion?, _ result: Result<Outcome, StreamTaskError>
    ) {
        completion?(result)
    }

    /// Marks the task completed: reports its metrics and outcome, and leaves the session.
    /// Call it through `carryOut(_:thenComplete:)` so that it comes after the actions before it.
    private func complete() {
        let previous = phase
        phase = .completed
        switch previous {
        case .completed:
            return
        case .connecting(let timer, let channel):
            timer?.cancel()
            channel?.close(promise: nil)
        case .idle, .attached:
            break
        }
        // The metrics keep what TLS negotiated; the handler itself goes with the connection.
        tlsHandler = nil
        shared.withLockedValue { shared in
            shared.deadlineTimer?.timer.cancel()
            shared.deadlineTimer = nil
        }
        guard let task = owner else { return }
        owner = nil
        let (error, metrics, leftovers) = task.withShared {
            shared -> (StreamTaskError?, StreamTaskMetrics, [SubmissionInbox.Entry]) in
            let error = shared.machine.closeError
            shared.machine.complete()
            shared.metrics.taskEndDate = Date()
            return (error, shared.metrics, shared.inbox.close())
        }
        // Submitted before the task completed and not yet taken by the inbox's job: the machine
        // refuses them now, as it refuses whatever comes later, by itself (see `enqueueAlone`).
        for entry in leftovers { take(entry) }
        task.publish(.metricsCollected(metrics))
        // Leave the session before announcing completion, so that whoever hears of it finds
        // the task gone from `allTasks` and its connection slot passed on.
        task.session.taskCompleted(task)
        releaseAttachments(after: error)
        task.publish(.completed(error))
        task.session.completionReported(for: task)
    }

    // MARK: Channel events (from StreamTaskChannelHandler, on the event loop)

    /// The channel is connected and registered: record its addresses and start the machine.
    func channelBecameActive(_ channel: any Channel) {
        eventLoop.preconditionInEventLoop()
        switch withMachine({ $0.connection }) {
        case .notConnected:
            break
        case .open, .closing:
            // Activated twice: the handler joined a channel that was already active, and the
            // channel's own activation reached it afterwards.
            return
        case .closed:
            // Cancelled while the channel was coming up (an accepted task's handler joins its
            // channel before activation, and `invalidateAndCancel` reaches every task): no
            // action closed a channel that was not active yet, so close it now, or it stays
            // open and the task never completes.
            handler?.close()
            return
        }
        owner?.withShared { shared in
            shared.metrics.localAddress = channel.localAddress?.ipAddress
            shared.metrics.localPort = channel.localAddress?.port
            shared.metrics.remoteAddress = channel.remoteAddress?.ipAddress
            shared.metrics.remotePort = channel.remoteAddress?.port
        }
        configuration.logger.debug(
            "connected",
            metadata: ["task": "\(taskIdentifier)", "remote": "\(channel.remoteAddress.map { "\($0)" } ?? "?")"]
        )
        ConnectionAttachmentRegistry.attachFeatures(to: channel, of: self)
        for attachment in attachments {
            attachment.connectionBecameActive(channel, driver: self)
        }
        step { $0.connected() }
    }

    func channelReceived(_ bytes: ByteBuffer) {
        eventLoop.preconditionInEventLoop()
        let count = Int64(bytes.readableBytes)
        stepShared { shared in
            shared.metrics.countOfBytesReceived += count
            // Before the reads these bytes complete: whoever reads a reply finds the request
            // counted. The machine's pass follows (here, or at the read pass's end). Only here:
            // settled again at the pass's end, a reply written during the pass would cost a
            // question to the channel per request, for a count the next bytes bring anyway.
            var actions = settleUnconfirmedWrites(in: &shared, passing: false)
            actions += shared.machine.received(bytes)
            return actions
        }
    }

    func channelReceiveCompleted() {
        step { $0.receiveCompleted() }
    }

    func channelInputClosed() {
        eventLoop.preconditionInEventLoop()
        // Under TLS, input closed from the TLS handler is the peer's close_notify: the stream
        // itself ends only when the transport says so (TransportInputObserver), and the
        // conversation may go on in plaintext after stopTLS.
        if withMachine({ $0.tlsPeerEnded() }) {
            configuration.logger.debug("peer ended TLS (close_notify)", metadata: ["task": "\(taskIdentifier)"])
            return
        }
        stepShared { shared in
            var actions = settleUnconfirmedWrites(in: &shared, passing: true)
            actions += shared.machine.inputEnded()
            return actions
        }
    }

    func channelWritabilityChanged(_ isWritable: Bool) {
        step { $0.writabilityChanged(isWritable) }
        owner?.releaseRoomWaiters()
    }

    /// This side closes the connection (or the socket beneath TLS): a missing close_notify
    /// from the peer is then no truncation.
    package func thisSideCloses() {
        withMachine { $0.thisSideCloses() }
    }

    /// Whether this side is closing the connection (see ``thisSideCloses()``).
    package var closingByThisSide: Bool { withMachine { $0.closingByThisSide } }

    func channelFailed(_ error: any Error) {
        eventLoop.preconditionInEventLoop()
        if tlsHandshakeFailed(error) { return }
        if closingByThisSide, TLSErrorMapper.isUncleanShutdown(error) {
            // This side closed the socket beneath TLS on purpose, without the peer's close_notify.
            return
        }
        let failure = tlsFailure(error) ?? ChannelErrorMapper.map(error)
        if failure.code == .tlsTruncated {
            // Before SwiftNIO SSL passes the end of input on as if it were an orderly one.
            step { $0.inputEnded(truncation: failure.at(host: host, port: port)) }
        }
        configuration.logger.debug("connection error", metadata: ["task": "\(taskIdentifier)", "error": "\(failure)"])
        withMachine { $0.channelFailed(failure) }
        handler?.close()
    }

    /// The channel closed without ever having been active while the task's handler was in it
    /// (see `StreamTaskChannelHandler.handlerAdded(context:)`): no `channelInactive` will come,
    /// so the task completes here.
    func channelClosedBeforeActive() {
        guard handler != nil else { return }
        withMachine {
            $0.channelFailed(StreamTaskError(.connectionClosed, "the connection closed before it was established"))
        }
        channelClosed()
    }

    func channelClosed() {
        let task = owner
        step(thenComplete: true) { $0.channelClosed() }
        // Writes waiting for room fail as queued writes do, with the reason the connection closed.
        task?.releaseRoomWaiters { $0.stopEarlyReturns() }
    }
}
