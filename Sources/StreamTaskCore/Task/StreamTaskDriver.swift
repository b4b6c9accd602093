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
    var phase = Phase.idle
    /// The task's state under its lock, shared with the façade: the machine lives there, so
    /// that both sides step the same value (see `step(_:thenComplete:)`).
    let shared: NIOLockedValueBox<StreamTask.Shared>
    /// The first error the channel reported; the connection closes with it.
    var channelFailure: StreamTaskError?
    package var tls = TLSProgress()
    /// The features riding on the connection (a data task's HTTP exchange until it becomes a
    /// stream, the route watch while connected): see ``StreamTaskAttachment``.
    var attachments: [any StreamTaskAttachment] = []
    /// The deadlines of the timed operations, and the one loop task that fires at the earliest.
    var deadlines = OperationDeadlines()
    private var deadlineTimer: Scheduled<Void>?
    /// The timer for reads parked in the lending (see `ReadAhead`), and when it fires.
    private var performing = false
    /// A flush the machine asked for waits in a loop job (see `flushSoon()`).
    var flushQueued = false
    /// Bytes handed to the channel since its last flush.
    var unflushedBytes = 0
    /// Set from the first bytes of a burst of channel reads to its end (`channelReadComplete`):
    /// lending waits for the end, so that a read parked off the loop is woken once a burst, not
    /// once a read (as `NIOAsyncChannel` hands its inbound stream a burst at a time).
    var readBurst = false
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
        inQueuedJob || (withUnsafeCurrentTask { $0 != nil } && unflushedBytes < Self.heldFlushLimit)
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
    func step(
        thenComplete: Bool = false,
        _ input: (inout StreamTaskStateMachine) -> StreamTaskStateMachine.Actions
    ) {
        carryOut(shared.withLockedValue { input(&$0.machine) }, thenComplete: thenComplete)
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
        _ = withMachine { $0.closed(error: failure) }
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

    /// The loop job of the task's inbox: hands every operation waiting there to the machine,
    /// oldest first, those that join meanwhile included. What reached the loop behind it is
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

    /// Hands what came through the inbox to the machine, on the loop.
    func take(_ entry: SubmissionInbox.Entry) {
        switch entry {
        case .operation(let request): enqueue(request)
        case .withdrawal(let id): step { $0.abandon(id, error: Self.abandonedError) }
        case .control(let change): change()
        }
    }

    /// Hands `request` to the machine, on the loop.
    func enqueue(_ request: OperationRequest) {
        eventLoop.preconditionInEventLoop()
        if request.operation.claimsInput { closeLending(arriving: true) }
        accept(request)
    }

    /// Queues `request` in the machine, on the loop, with its timer: an operation that reached
    /// the loop, or a read that waited in the lending and did not complete there.
    func accept(_ request: OperationRequest) {
        let (operation, id, timeout, completion) = (request.operation, request.id, request.timeout, request.completion)
        if request.abandoned?.withLockedValue({ $0 }) == true {
            // Withdrawn by a caller with a flag of its own, before it reached the machine.
            completion(.failure(Self.abandonedError))
            return
        }
        if timeout > 0 {
            // From the call, not from here: the hop to the loop, and a `Data` write's copy,
            // come out of the time the caller gave.
            let armAt = deadlines.add(
                id, deadline: request.startedAt + .seconds(timeout), timeout: timeout, operation: operation,
                returnedEarly: request.returnedEarly)
            if let armAt { armDeadlineTimer(at: armAt) }
        }
        step { $0.enqueue(operation, id: id, fromStreams: request.fromStreams, completion: completion) }
    }

    /// Schedules the task's one timer for `deadline`, in place of the one scheduled before.
    func armDeadlineTimer(at deadline: NIODeadline) {
        deadlineTimer?.cancel()
        deadlineTimer = eventLoop.scheduleTask(deadline: deadline) { self.deadlineTimerFired() }
    }

    /// Withdraws every operation whose time is up, then arms the timer for the next deadline.
    private func deadlineTimerFired() {
        deadlineTimer = nil
        for (id, entry) in deadlines.fired(now: .now()) {
            switch entry.purpose {
            case .parkedReads:
                parkedReadsTimedOut()
            case .operation where tls.unwrapping == id:
                stopTLSTimedOut(id, after: entry.timeout)
            case .operation(let operation, let returnedEarly):
                let error = Self.timeoutError(for: operation, after: entry.timeout)
                step { $0.abandon(id, error: error, returnedEarly: returnedEarly) }
            }
        }
        if let next = deadlines.rearm() { armDeadlineTimer(at: next) }
    }

    /// Fails every operation and closes the connection; does nothing once the connection was
    /// handed over to streams (closing them ends it).
    func cancel() {
        onLoop {
            guard !self.withMachine({ $0.streamsCaptured }) else { return }
            self.closeLending(arriving: false)
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
        holdingActions { carryOutNow(actions, thenComplete: thenComplete) }
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
        while let next = deferred.popFirst() {
            carryOutNow(next.actions, thenComplete: next.complete)
        }
        performing = false
        lendBuffer()
    }

    private func carryOutNow(_ actions: StreamTaskStateMachine.Actions, thenComplete: Bool) {
        defer {
            if thenComplete { complete() }
        }
        if withMachine({ $0.connection.isClosed }) {
            // Before any failure below reaches a caller: a write issued once the caller has
            // heard of the failure must not return early, as if it could still succeed.
            owner?.withShared { $0.writeBehind.stopEarlyReturns() }
        }
        for action in actions {
            switch action {
            case .succeedRead(let id, let bytes, let atEOF, let completion):
                finish(id, completion, .success((bytes, atEOF)))
            case .succeed(let id, let completion):
                finish(id, completion, .success((ByteBuffer(), false)))
            case .fail(let id, let error, let completion):
                finish(id, completion, .failure(error.at(host: host, port: port)))
            case .write(let id, let bytes):
                writeToChannel(bytes, id: id)
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
        deadlines.remove(id)
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
        tls.handler = nil
        deadlines.removeAll()
        deadlineTimer?.cancel()
        deadlineTimer = nil
        guard let task = owner else { return }
        owner = nil
        let error = withMachine { $0.closeError }
        let (metrics, leftovers) = task.withShared {
            shared -> (StreamTaskMetrics, [SubmissionInbox.Entry]) in
            shared.state = .completed
            shared.error = error
            shared.metrics.taskEndDate = Date()
            return (shared.metrics, shared.inbox.close())
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
            shared.writeBehind.connected = true
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
        readBurst = true
        carryOut(
            shared.withLockedValue { shared in
                shared.metrics.countOfBytesReceived += count
                return shared.machine.received(bytes)
            })
    }

    func channelReceiveCompleted() {
        readBurst = false
        step { $0.receiveCompleted() }
    }

    func channelInputClosed() {
        eventLoop.preconditionInEventLoop()
        readBurst = false
        // Under TLS, input closed from the TLS handler is the peer's close_notify: the stream
        // itself ends only when the transport says so (TransportInputObserver), and the
        // conversation may go on in plaintext after stopTLS.
        if tls.isActive {
            configuration.logger.debug("peer ended TLS (close_notify)", metadata: ["task": "\(taskIdentifier)"])
            tls.peerEndedTLS = true
            return
        }
        closeLending(arriving: false)
        step { $0.inputEnded() }
    }

    func channelWritabilityChanged(_ isWritable: Bool) {
        owner?.releaseRoomWaiters { $0.channelWritable = isWritable }
        step { $0.writabilityChanged(isWritable) }
    }

    func channelFailed(_ error: any Error) {
        eventLoop.preconditionInEventLoop()
        if tlsHandshakeFailed(error) { return }
        if tls.closingByThisSide, TLSErrorMapper.isUncleanShutdown(error) {
            // This side closed the socket beneath TLS on purpose, without the peer's close_notify.
            return
        }
        let failure = tlsFailure(error) ?? ChannelErrorMapper.map(error)
        if failure.code == .tlsTruncated {
            // Before SwiftNIO SSL passes the end of input on as if it were an orderly one.
            closeLending(arriving: false)
            step { $0.inputEnded(truncation: failure.at(host: host, port: port)) }
        }
        configuration.logger.debug("connection error", metadata: ["task": "\(taskIdentifier)", "error": "\(failure)"])
        if channelFailure == nil { channelFailure = failure }
        handler?.close()
    }

    /// The channel closed without ever having been active while the task's handler was in it
    /// (see `StreamTaskChannelHandler.handlerAdded(context:)`): no `channelInactive` will come,
    /// so the task completes here.
    func channelClosedBeforeActive() {
        guard handler != nil else { return }
        if channelFailure == nil {
            channelFailure = StreamTaskError(.connectionClosed, "the connection closed before it was established")
        }
        channelClosed()
    }

    func channelClosed() {
        closeLending(arriving: false)
        let task = owner
        step(thenComplete: true) { $0.closed(error: channelFailure) }
        // Writes waiting for room fail as queued writes do, with the reason the connection closed.
        task?.releaseRoomWaiters { $0.stopEarlyReturns() }
    }
}
