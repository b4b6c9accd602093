//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Hands out stream tasks over TCP and keeps track of them, like `URLSession` does for
/// `URLSessionStreamTask`.
///
/// ```swift
/// let session = StreamSession()
/// let task = session.streamTask(withHostName: "example.com", port: 7)
/// task.resume()
/// try await task.write(Data("hello\r\n".utf8), timeout: 5)
/// let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 4096, timeout: 5)
/// ```
///
/// Every task of a session runs on one shared `EventLoopGroup` (SwiftNIO's singleton unless you
/// pass another): there is no thread per task.
public final class StreamSession: Sendable {
    /// A shared session with the default configuration and no delegate, as `URLSession.shared`:
    /// ``finishTasksAndInvalidate()`` and ``invalidateAndCancel()`` do nothing to it.
    public static let shared = StreamSession(
        configuration: .default, delegate: nil, callbackQueue: nil, isShared: true,
        eventLoopGroup: MultiThreadedEventLoopGroup.singleton)

    /// A copy of the configuration the session was created with: changing it changes nothing
    /// (as Apple's `configuration` property).
    public var configuration: StreamSessionConfiguration { StreamSessionConfiguration(values: settings) }
    /// Receives callbacks about the session's tasks; held until the session is invalidated.
    public var delegate: (any StreamSessionCoreDelegate)? { state.withLockedValue { $0.delegate } }
    /// The queue that delegate callbacks and completion handlers run on, one at a time: the one
    /// given at creation, or a serial queue of the session's own.
    public var delegateQueue: OperationQueue { callbackQueue.operationQueue }
    /// A description of the session for your own use (logs, debugging); `nil` until you set it.
    public var sessionDescription: String? {
        get { state.withLockedValue { $0.sessionDescription } }
        set { state.withLockedValue { $0.sessionDescription = newValue } }
    }
    /// The event loops the session's connections run on.
    public let eventLoopGroup: any EventLoopGroup

    /// The configuration's values, copied at creation: what the session's tasks read.
    package let settings: StreamSessionConfiguration.Values
    /// Where callbacks and completion handlers run.
    package let callbackQueue: CallbackQueue
    /// Whether this is ``shared``, which cannot be invalidated.
    private let isShared: Bool

    private struct State {
        var delegate: (any StreamSessionCoreDelegate)?
        var tasks: [Int: StreamTask] = [:]
        var nextTaskIdentifier = 1
        /// Stream tasks' connections per host (``StreamSessionConfiguration/maximumConnectionsPerHost``).
        var limiter: HostConnectionLimiter
        /// Data tasks' connections per host: the lower of that and Apple's
        /// ``StreamSessionConfiguration/httpMaximumConnectionsPerHost``.
        var httpLimiter: HostConnectionLimiter
        /// Tasks that have left `tasks` but not yet queued their completion callbacks: the
        /// session is not done until they have, or "invalid" could be queued before them.
        var completing: Set<Int> = []
        var invalidated = false
        var invalidationReported = false
        var sessionDescription: String?

        /// The limiter that counts `task`'s connection: data tasks have their own.
        static func limiter(for task: StreamTask) -> WritableKeyPath<State, HostConnectionLimiter> {
            task.origin == .dataTask ? \.httpLimiter : \.limiter
        }

        /// The next task identifier: unique within the session, whether the task runs or not.
        mutating func takeTaskIdentifier() -> Int {
            defer { nextTaskIdentifier += 1 }
            return nextTaskIdentifier
        }
    }

    private let state: NIOLockedValueBox<State>

    /// Creates a session with a configuration and no delegate, as `URLSession(configuration:)`.
    public convenience init(configuration: StreamSessionConfiguration) {
        self.init(configuration: configuration, delegate: nil, delegateQueue: nil)
    }

    /// Creates a session, as `URLSession(configuration:delegate:delegateQueue:)`.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, limits, TLS, proxy and logging for the session's tasks; the
    ///     session keeps a copy.
    ///   - delegate: Receives task and session callbacks; the session holds it strongly until
    ///     it is invalidated, as Apple's does.
    ///   - delegateQueue: Where callbacks and completion handlers run; a new serial queue if
    ///     `nil`. A queue that runs several operations at once gets them in order but may run
    ///     them together, as on Darwin. To use a serial `DispatchQueue`, give an
    ///     `OperationQueue` whose `underlyingQueue` it is.
    ///   - eventLoopGroup: Where connections run; SwiftNIO's shared group by default.
    public convenience init(
        configuration: StreamSessionConfiguration = .default,
        delegate: (any StreamSessionCoreDelegate)? = nil,
        delegateQueue: OperationQueue? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.init(
            configuration: configuration,
            delegate: delegate,
            callbackQueue: delegateQueue.map(CallbackQueue.init(operationQueue:)),
            isShared: false,
            eventLoopGroup: eventLoopGroup
        )
    }

    private init(
        configuration: StreamSessionConfiguration,
        delegate: (any StreamSessionCoreDelegate)?,
        callbackQueue: CallbackQueue?,
        isShared: Bool,
        eventLoopGroup: any EventLoopGroup
    ) {
        let settings = configuration.values
        self.settings = settings
        self.callbackQueue = callbackQueue ?? CallbackQueue(label: "StreamTaskKit.StreamSession.delegate")
        self.isShared = isShared
        self.eventLoopGroup = eventLoopGroup
        self.state = NIOLockedValueBox(
            State(
                delegate: delegate,
                limiter: HostConnectionLimiter(limit: settings.maximumConnectionsPerHost),
                httpLimiter: HostConnectionLimiter(
                    limit: min(settings.maximumConnectionsPerHost, settings.httpMaximumConnectionsPerHost)))
        )
    }

    /// Creates a task that will connect to `hostname` on `port` when you call
    /// ``StreamTask/resume()``. Operations issued before that wait for the connection.
    ///
    /// An IPv6 address may be given in brackets, as in a URL (`[::1]`); the task's
    /// ``StreamTask/host`` is the address without them.
    ///
    /// After the session is invalidated, the task returned has already completed and every
    /// operation on it fails with ``StreamTaskError/Code/sessionInvalidated``.
    public func streamTask(withHostName hostname: String, port: Int) -> StreamTask {
        streamTask(withHostName: hostname, port: port, proxy: nil)
    }

    /// `hostname` without the brackets around an IPv6 address: what the resolver, a CONNECT
    /// request (which adds its own), SOCKS and the no-proxy list expect.
    static func unbracketed(_ hostname: String) -> String {
        guard let inner = hostname.insideBrackets, inner.contains(":") else { return hostname }
        return String(inner)
    }

    /// A task whose proxy setting differs from the session's: the DNS-SD module connects to
    /// services it discovered on the local network directly, whatever proxy the session uses.
    package func streamTask(withHostName hostname: String, port: Int, proxy: ProxyConfiguration?) -> StreamTask {
        streamTask(withHostName: hostname, port: port, proxy: proxy, origin: .connected)
    }

    /// A task that finds its addresses with `resolver` as it starts, instead of resolving a
    /// host name, and connects directly: the DNS-SD module's task to a service, whose ``StreamTask/host``
    /// is the service's name and ``StreamTask/port`` 0.
    package func streamTask(
        serviceNamed name: String, resolvingWith resolver: @escaping StreamTaskDriver.AddressResolver
    ) -> StreamTask {
        streamTask(withHostName: name, port: 0, proxy: .direct, origin: .connected, addressResolver: resolver)
    }

    /// A registered task of `origin` (a refused one once the session is invalidated).
    package func streamTask(
        withHostName hostname: String,
        port: Int,
        proxy: ProxyConfiguration?,
        origin: StreamTask.Origin,
        addressResolver: StreamTaskDriver.AddressResolver? = nil
    ) -> StreamTask {
        let hostname = addressResolver == nil ? Self.unbracketed(hostname) : hostname
        let registered: StreamTask? = state.withLockedValue { state in
            guard !state.invalidated else { return nil }
            let id = state.takeTaskIdentifier()
            let task = StreamTask(
                session: self, identifier: id, host: hostname, port: port, origin: origin, proxy: proxy,
                addressResolver: addressResolver)
            state.tasks[id] = task
            return task
        }
        if let registered { return registered }
        return refusedTask(
            host: hostname,
            port: port,
            origin: origin,
            failure: StreamTaskError(.sessionInvalidated, "the session was invalidated; create a new session")
        )
    }

    /// A task born completed with `failure`: never registered, but with an identifier of its
    /// own like every other task of the session.
    package func refusedTask(host: String, port: Int, origin: StreamTask.Origin, failure: StreamTaskError) -> StreamTask
    {
        let id = state.withLockedValue { $0.takeTaskIdentifier() }
        return StreamTask(session: self, identifier: id, host: host, port: port, origin: origin, failedWith: failure)
    }

    /// The tasks that have not completed yet, suspended ones included, in creation order.
    public var allTasks: [StreamTask] {
        state.withLockedValue { $0.tasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    /// Calls `completionHandler` on the delegate queue with ``allTasks``.
    public func getAllTasks(completionHandler: @escaping @Sendable ([StreamTask]) -> Void) {
        let tasks = allTasks
        callbackQueue.async { completionHandler(tasks) }
    }

    /// Calls `completionHandler` on the delegate queue: the library keeps no cookies, caches or
    /// credentials to empty, and no connections that outlive their tasks.
    public func reset(completionHandler: @escaping @Sendable () -> Void) {
        callbackQueue.async(completionHandler)
    }

    /// Calls `completionHandler` on the delegate queue: the library keeps nothing to write out.
    public func flush(completionHandler: @escaping @Sendable () -> Void) {
        callbackQueue.async(completionHandler)
    }

    /// Lets running tasks finish, refuses new ones, and tells the delegate once every task has
    /// completed. Does nothing to ``shared``.
    public func finishTasksAndInvalidate() {
        guard !isShared else { return }
        state.withLockedValue { $0.invalidated = true }
        reportInvalidationIfDone()
    }

    /// Refuses new tasks and cancels every outstanding one. Does nothing to ``shared``.
    public func invalidateAndCancel() {
        guard !isShared else { return }
        let tasks = state.withLockedValue { state in
            state.invalidated = true
            return Array(state.tasks.values)
        }
        for task in tasks {
            task.cancel()
        }
        reportInvalidationIfDone()
    }

    // MARK: Internal bookkeeping

    var logger: Logger { settings.logger }

    /// Registers a task accepted by a listener; returns `false` once the session is invalidated.
    func adopt(_ makeTask: (Int) -> StreamTask) -> StreamTask? {
        state.withLockedValue { state in
            guard !state.invalidated else { return nil }
            let id = state.takeTaskIdentifier()
            let task = makeTask(id)
            state.tasks[id] = task
            return task
        }
    }

    /// Asks for a connection slot to the task's host; the task connects now or when granted.
    func requestConnectionSlot(for task: StreamTask) {
        let granted = state.withLockedValue { state -> Bool in
            // A task that completed meanwhile has left `tasks` under this same lock: it must
            // not take a slot it would never give back.
            guard state.tasks[task.taskIdentifier] != nil else { return false }
            return state[keyPath: State.limiter(for: task)].acquire(host: task.host, task: task.taskIdentifier)
        }
        if granted {
            task.driver.connectionSlotGranted()
        } else {
            logger.debug(
                "waiting for a connection slot",
                metadata: ["task": "\(task.taskIdentifier)", "host": "\(task.host)"]
            )
        }
    }

    /// A task completed: forget it, and hand any connection slot it held to the next waiting task.
    /// Until ``completionReported(for:)`` the session still waits for it before invalidating.
    func taskCompleted(_ task: StreamTask) {
        let next: StreamTask? = state.withLockedValue { state in
            if state.tasks.removeValue(forKey: task.taskIdentifier) != nil {
                state.completing.insert(task.taskIdentifier)
            }
            var freed = task.taskIdentifier
            // The slot passes to the next waiting task (of the same kind) that still exists.
            let limiter = State.limiter(for: task)
            while let id = state[keyPath: limiter].finished(task: freed) {
                if let next = state.tasks[id] { return next }
                freed = id
            }
            return nil
        }
        next?.driver.connectionSlotGranted()
    }

    /// A task that left the session (``taskCompleted(_:)``) has queued its completion callbacks:
    /// the session may now report invalidation, after them.
    func completionReported(for task: StreamTask) {
        reportInvalidationIfDone(reported: task.taskIdentifier)
    }

    /// Tells the delegate the session is invalid, once it is invalidated and has no tasks, none
    /// of them still to queue its completion callbacks (the delegate's last message is "invalid").
    func reportInvalidationIfDone(reported: Int? = nil) {
        let delegate: (any StreamSessionCoreDelegate)?? = state.withLockedValue { state in
            if let reported { state.completing.remove(reported) }
            guard state.invalidated, state.tasks.isEmpty, state.completing.isEmpty, !state.invalidationReported
            else { return .none }
            state.invalidationReported = true
            let delegate = state.delegate
            state.delegate = nil
            return .some(delegate)
        }
        if case .some(let delegate?) = delegate {
            callbackQueue.async { delegate.urlSession(self, didBecomeInvalidWithError: nil) }
        }
    }
}
