import Foundation
import NIOConcurrencyHelpers
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A TCP connection that you read and write with queued, timed operations, like
/// `URLSessionStreamTask`.
///
/// A task made by ``StreamSession/streamTask(withHostName:port:)`` starts suspended: operations
/// issued before ``resume()`` wait, and run once the connection is up. A task accepted by a
/// ``StreamListener`` is already connected.
///
/// Reads complete in the order they were issued, and so do writes; the two are independent, so
/// a pending read never holds back a write. Every public method may be called from any thread.
public final class StreamTask: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: the `var`s below are touched only on `eventLoop` (each entry point
    // hops there first); what other threads read lives in `shared`, behind a lock.

    /// Where a task is in its life.
    public enum State: Sendable, Equatable {
        /// Created and not resumed yet.
        case suspended
        /// Resumed: waiting for a connection slot, connecting, or connected.
        case running
        /// `cancel()` was called and the connection is closing.
        case canceling
        /// The connection is closed and every operation has finished.
        case completed
    }

    /// A number that identifies the task within its session.
    public let taskIdentifier: Int
    /// The host the task connects to (for an accepted task: the peer's address).
    public let host: String
    /// The port the task connects to (for an accepted task: the peer's port).
    public let port: Int
    /// The session the task belongs to.
    public let session: StreamSession

    /// The event loop that carries the task's connection: its I/O, its timers and the
    /// completions of ``write(_:timeout:promise:)`` run there.
    public let eventLoop: any EventLoop
    let configuration: StreamSession.Configuration

    /// The event loop's view: `idle` until the session grants a connection slot (whether or not
    /// `resume()` was called; ``State`` tells those apart).
    enum Lifecycle {
        case idle
        case connecting
        case running
        case completed
    }

    typealias Outcome = (bytes: ByteBuffer, atEOF: Bool)
    typealias Completion = @Sendable (Result<Outcome, StreamTaskError>) -> Void

    var lifecycle: Lifecycle
    var queue: StreamTaskStateMachine
    var handler: StreamTaskChannelHandler?
    var connectTimer: Scheduled<Void>?
    /// A channel connected but not handed to the task yet (during a proxy handshake): closed if
    /// the task completes first.
    var connectingChannel: (any Channel)?
    /// The first error the channel reported; the connection closes with it.
    var channelFailure: StreamTaskError?
    var tls = TLSProgress()
    /// The route monitor's registration while connected (see StreamTask+Routes.swift).
    var routeRegistration: Int?
    /// The HTTP data task this task carries until it becomes a stream (see `StreamDataTask`).
    var dataTask: StreamDataTask?
    private var completions: [OperationID: Completion] = [:]
    private var performing = false
    private var deferred: [(actions: [StreamTaskStateMachine.Action], complete: Bool)] = []
    private var timers: [OperationID: Scheduled<Void>] = [:]

    struct Shared {
        var state: State
        var error: StreamTaskError?
        var metrics: StreamTaskMetrics
        var delegate: (any StreamSessionDelegate)?
        var nextOperation: UInt64 = 0
        /// While set, the delegate hears nothing about this task: it carries a data task, or
        /// its connection was handed over to streams.
        var delegateMuted = false
        /// For a task that was a data task: its request and response.
        var originalRequest: URLRequest?
        var response: HTTPURLResponse?
    }

    private let shared: NIOLockedValueBox<Shared>
    private let broadcaster = EventBroadcaster<StreamTaskEvent>()

    init(
        session: StreamSession,
        identifier: Int,
        host: String,
        port: Int,
        eventLoop: (any EventLoop)? = nil,
        proxy: ProxyConfiguration? = nil,
        failedWith failure: StreamTaskError? = nil
    ) {
        self.session = session
        self.taskIdentifier = identifier
        self.host = host
        self.port = port
        var configuration = session.configuration
        if let proxy { configuration.proxy = proxy }
        self.configuration = configuration
        self.eventLoop = eventLoop ?? session.eventLoopGroup.next()
        self.queue = StreamTaskStateMachine(highWaterMark: session.configuration.inboundBufferLimit)
        self.lifecycle = .idle
        self.shared = NIOLockedValueBox(Shared(state: .suspended, metrics: StreamTaskMetrics()))
        if let failure {
            // A task the session refused: it is born completed.
            _ = queue.closed(error: failure)
            lifecycle = .completed
            shared.withLockedValue {
                $0.state = .completed
                $0.error = failure
                $0.metrics.taskEndDate = $0.metrics.taskStartDate
            }
            broadcaster.emit(.completed(failure), last: true)
        }
    }

    // MARK: Public state

    /// Where the task is in its life.
    public var state: State { shared.withLockedValue { $0.state } }

    /// Why the task completed, once it has: `nil` while running and after an orderly close.
    public var error: StreamTaskError? { shared.withLockedValue { $0.error } }

    /// The task's metrics so far.
    public var metrics: StreamTaskMetrics { shared.withLockedValue { $0.metrics } }

    /// Bytes handed to the kernel so far (``StreamTaskMetrics/countOfBytesSent`` without copying
    /// the metrics): with the bytes given to writes, it tells how much is still queued, as a
    /// server needs to drop a client that stopped reading before its queue grows unbounded.
    /// Counted when the write completes on the connection's event loop, before any completion
    /// handler runs.
    public var countOfBytesSent: Int64 { shared.withLockedValue { $0.metrics.countOfBytesSent } }

    /// A delegate for this task only; when `nil`, the session's delegate hears about it.
    public var delegate: (any StreamSessionDelegate)? {
        get { shared.withLockedValue { $0.delegate } }
        set { shared.withLockedValue { $0.delegate = newValue } }
    }

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
    /// reached, resolves the host name and connects. Calling it again does nothing.
    public func resume() {
        // Ask for the slot here, not after hopping to the task's event loop: tasks live on
        // different loops, and the session's queue must see them in the order they were resumed.
        let resumed = shared.withLockedValue { shared -> Bool in
            guard shared.state == .suspended else { return false }
            shared.state = .running
            return true
        }
        if resumed {
            session.requestConnectionSlot(for: self)
        }
    }

    /// Cancels the task: every queued operation fails with ``StreamTaskError/Code/cancelled``
    /// and the connection closes. Does nothing once the task's streams were captured: closing
    /// them ends the connection.
    public func cancel() {
        onLoop {
            guard !self.queue.streamsCaptured else { return }
            switch self.lifecycle {
            case .completed:
                return
            case .running where self.handler != nil:
                self.updateShared { $0.state = .canceling }
                let handler = self.handler
                self.run(self.queue.cancel())
                handler?.closeTransport()
            default:
                self.run(self.queue.cancel(), thenComplete: true)
            }
        }
    }

    /// Marks the task completed: reports its metrics and outcome, and leaves the session.
    /// Call it through `run(_:thenComplete:)` so that it comes after the actions before it.
    private func complete() {
        guard lifecycle != .completed else { return }
        lifecycle = .completed
        connectTimer?.cancel()
        connectTimer = nil
        connectingChannel?.close(promise: nil)
        connectingChannel = nil
        handler = nil
        stopWatchingRoutes()
        // The metrics keep what TLS negotiated; the handler itself goes with the connection.
        tls.handler = nil
        let error = queue.closeError
        let metrics = shared.withLockedValue { shared -> StreamTaskMetrics in
            shared.state = .completed
            shared.error = error
            shared.metrics.taskEndDate = Date()
            return shared.metrics
        }
        publish(.metricsCollected(metrics))
        // Leave the session before announcing completion, so that whoever hears of it finds
        // the task gone from `allTasks` and its connection slot passed on.
        session.taskCompleted(self)
        if let dataTask {
            self.dataTask = nil
            dataTask.carrierCompleted(error)
        }
        publish(.completed(error))
        session.reportInvalidationIfDone()
    }

    // MARK: Operations

    func makeOperationID() -> OperationID {
        shared.withLockedValue { shared in
            shared.nextOperation += 1
            return OperationID(rawValue: shared.nextOperation)
        }
    }

    /// Queues `operation`; `completion` runs on the event loop when it finishes. When
    /// `abandoned` is already set as the operation reaches the loop, it fails at once.
    func submit(
        _ operation: StreamTaskStateMachine.Operation,
        id: OperationID? = nil,
        timeout: TimeInterval,
        abandoned: NIOLockedValueBox<Bool>? = nil,
        fromStreams: Bool = false,
        completion: @escaping Completion
    ) {
        let id = id ?? makeOperationID()
        // Not through `onLoop`: on the loop, as code on the task's executor is, no closure
        // is made for the hop that is not taken.
        if eventLoop.inEventLoop {
            enqueue(operation, id: id, timeout: timeout, abandoned: abandoned, fromStreams: fromStreams, completion: completion)
        } else {
            eventLoop.execute {
                self.enqueue(
                    operation, id: id, timeout: timeout, abandoned: abandoned, fromStreams: fromStreams,
                    completion: completion)
            }
        }
    }

    /// `submit`, on the loop.
    private func enqueue(
        _ operation: StreamTaskStateMachine.Operation,
        id: OperationID,
        timeout: TimeInterval,
        abandoned: NIOLockedValueBox<Bool>?,
        fromStreams: Bool,
        completion: @escaping Completion
    ) {
        if abandoned?.withLockedValue({ $0 }) == true {
            completion(.failure(Self.abandonedError))
            return
        }
        completions[id] = completion
        if timeout > 0 {
            let error = Self.timeoutError(for: operation, after: timeout)
            timers[id] = eventLoop.scheduleTask(in: .seconds(timeout)) {
                self.timers[id] = nil
                self.run(self.queue.abandon(id, error: error))
            }
        }
        run(queue.enqueue(operation, id: id, fromStreams: fromStreams))
    }

    /// The caller stopped waiting for operation `id` (its Swift task was cancelled).
    func abandon(_ id: OperationID) {
        onLoop { self.run(self.queue.abandon(id, error: Self.abandonedError)) }
    }

    static let abandonedError = StreamTaskError(
        .cancelled,
        "the Swift task waiting for this operation was cancelled; unread bytes stay buffered"
    )

    private static func timeoutError(for operation: StreamTaskStateMachine.Operation, after seconds: TimeInterval)
        -> StreamTaskError
    {
        switch operation {
        case .read, .readThrough:
            return StreamTaskError(
                .timedOut,
                "the read timed out after \(seconds) s; no bytes were lost, the next read gets them"
            )
        case .write:
            return StreamTaskError(.timedOut, "the write timed out after \(seconds) s")
        case .startTLS, .stopTLS:
            return StreamTaskError(.timedOut, "the TLS transition timed out after \(seconds) s")
        case .captureStreams:
            return StreamTaskError(.timedOut, "capturing the streams timed out after \(seconds) s")
        case .closeRead, .closeWrite:
            return StreamTaskError(.timedOut, "closing timed out after \(seconds) s")
        }
    }

    /// Carries out what the operation queue decided, then completes the task if asked.
    ///
    /// Never nested: an action can make the channel call back at once (shutting the output
    /// down can close the channel), and the actions that callback produces wait until the
    /// current list is done, so events and completions keep their order.
    func run(_ actions: [StreamTaskStateMachine.Action], thenComplete: Bool = false) {
        if performing {
            deferred.append((actions, thenComplete))
            return
        }
        performing = true
        perform(actions, thenComplete: thenComplete)
        while !deferred.isEmpty {
            let next = deferred.removeFirst()
            perform(next.actions, thenComplete: next.complete)
        }
        performing = false
    }

    private func perform(_ actions: [StreamTaskStateMachine.Action], thenComplete: Bool) {
        defer {
            if thenComplete { complete() }
        }
        for action in actions {
            switch action {
            case .succeedRead(let id, let bytes, let atEOF):
                finish(id, .success((bytes, atEOF)))
            case .succeed(let id):
                finish(id, .success((ByteBuffer(), false)))
            case .fail(let id, let error):
                finish(id, .failure(error.at(host: host, port: port)))
            case .write(let id, let bytes):
                write(bytes, id: id)
            case .flush:
                handler?.flush()
            case .shutdownOutput:
                handler?.shutdownOutput()
            case .shutdownInput:
                handler?.shutdownInput()
            case .requestInput:
                handler?.read()
            case .close:
                handler?.close()
            case .emit(.readClosed):
                publish(.readClosed)
            case .emit(.writeClosed):
                publish(.writeClosed)
            case .startTLS(let id, let role, let early):
                beginTLS(id, role: role, early: early)
            case .stopTLS(let id):
                endTLS(id)
            case .captureStreams(let id):
                handOverStreams(id)
            }
        }
    }

    private func write(_ bytes: ByteBuffer, id: OperationID) {
        let promise = eventLoop.makePromise(of: Void.self)
        let count = Int64(bytes.readableBytes)
        promise.futureResult.whenComplete { result in
            switch result {
            case .success:
                self.updateShared { $0.metrics.countOfBytesSent += count }
                self.run(self.queue.writeCompleted(id, error: nil))
            case .failure(let error):
                var failure = ChannelErrorMapper.map(error)
                if failure.code == .connectionClosed, let cause = self.channelFailure {
                    // Closed because of an error seen first (a reset noticed by a read): the
                    // write failed for that reason, so it says so.
                    failure = cause
                } else if self.channelFailure == nil, failure.code != .connectionClosed {
                    self.channelFailure = failure
                }
                self.run(self.queue.writeCompleted(id, error: failure))
            }
        }
        if let handler {
            handler.write(bytes, promise: promise)
        } else {
            promise.fail(ChannelError.ioOnClosedChannel)
        }
    }

    private func finish(_ id: OperationID, _ result: Result<Outcome, StreamTaskError>) {
        timers.removeValue(forKey: id)?.cancel()
        completions.removeValue(forKey: id)?(result)
    }

    // MARK: Helpers

    func onLoop(_ body: @escaping @Sendable () -> Void) {
        if eventLoop.inEventLoop {
            body()
        } else {
            eventLoop.execute(body)
        }
    }

    func updateShared(_ body: (inout Shared) -> Void) {
        shared.withLockedValue(body)
    }

    func publish(_ event: StreamTaskEvent) {
        var last = false
        if case .completed = event { last = true }
        broadcaster.emit(event, last: last)
        guard !shared.withLockedValue({ $0.delegateMuted }) else { return }
        guard let delegate = self.delegate ?? session.delegate else { return }
        let session = self.session
        session.delegateQueue.async {
            switch event {
            case .readClosed:
                delegate.streamSession(session, readClosedFor: self)
            case .writeClosed:
                delegate.streamSession(session, writeClosedFor: self)
            case .metricsCollected(let metrics):
                delegate.streamSession(session, task: self, didFinishCollecting: metrics)
            case .completed(let error):
                delegate.streamSession(session, task: self, didCompleteWithError: error)
            case .betterRouteDiscovered:
                delegate.streamSession(session, betterRouteDiscoveredFor: self)
            case .viabilityChanged(let isViable):
                delegate.streamSession(session, viabilityDidChangeFor: self, isViable: isViable)
            }
        }
    }
}

extension TimeAmount {
    /// A time amount from seconds, as `TimeInterval`s come in.
    static func seconds(_ interval: TimeInterval) -> TimeAmount {
        .nanoseconds(Int64((interval * 1_000_000_000).rounded()))
    }
}
