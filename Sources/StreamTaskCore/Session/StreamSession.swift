//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
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
    /// The configuration the session was created with.
    public let configuration: Configuration
    /// Receives callbacks about the session's tasks; held until the session is invalidated.
    public var delegate: (any StreamSessionDelegate)? { state.withLockedValue { $0.delegate } }
    /// The serial queue that delegate callbacks and completion handlers run on.
    public let delegateQueue: DispatchQueue
    /// The event loops the session's connections run on.
    public let eventLoopGroup: any EventLoopGroup

    private struct State {
        var delegate: (any StreamSessionDelegate)?
        var tasks: [Int: StreamTask] = [:]
        var nextTaskIdentifier = 1
        var limiter: HostConnectionLimiter
        var invalidated = false
        var invalidationReported = false

        /// The next task identifier: unique within the session, whether the task runs or not.
        mutating func takeTaskIdentifier() -> Int {
            defer { nextTaskIdentifier += 1 }
            return nextTaskIdentifier
        }
    }

    private let state: NIOLockedValueBox<State>

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, limits and logging for the session's tasks.
    ///   - delegate: Receives task and session callbacks.
    ///   - delegateQueue: Where callbacks and completion handlers run; a new serial queue if `nil`.
    ///   - eventLoopGroup: Where connections run; SwiftNIO's shared group by default.
    public init(
        configuration: Configuration = .default,
        delegate: (any StreamSessionDelegate)? = nil,
        delegateQueue: DispatchQueue? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "StreamTaskKit.StreamSession.delegate")
        self.eventLoopGroup = eventLoopGroup
        self.state = NIOLockedValueBox(
            State(delegate: delegate, limiter: HostConnectionLimiter(limit: configuration.maximumConnectionsPerHost))
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

    /// A registered task of `origin` (a refused one once the session is invalidated).
    package func streamTask(
        withHostName hostname: String,
        port: Int,
        proxy: ProxyConfiguration?,
        origin: StreamTask.Origin
    ) -> StreamTask {
        let hostname = Self.unbracketed(hostname)
        let registered: StreamTask? = state.withLockedValue { state in
            guard !state.invalidated else { return nil }
            let id = state.takeTaskIdentifier()
            let task = StreamTask(
                session: self, identifier: id, host: hostname, port: port, origin: origin, proxy: proxy)
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
        delegateQueue.async { completionHandler(tasks) }
    }

    /// Lets running tasks finish, refuses new ones, and tells the delegate once every task has
    /// completed.
    public func finishTasksAndInvalidate() {
        state.withLockedValue { $0.invalidated = true }
        reportInvalidationIfDone()
    }

    /// Refuses new tasks and cancels every outstanding one.
    public func invalidateAndCancel() {
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

    var logger: Logger { configuration.logger }

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
            return state.limiter.acquire(host: task.host, task: task.taskIdentifier)
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
    func taskCompleted(_ task: StreamTask) {
        let next: StreamTask? = state.withLockedValue { state in
            state.tasks.removeValue(forKey: task.taskIdentifier)
            var freed = task.taskIdentifier
            // The slot passes to the next waiting task that still exists.
            while let id = state.limiter.finished(task: freed) {
                if let next = state.tasks[id] { return next }
                freed = id
            }
            return nil
        }
        next?.driver.connectionSlotGranted()
    }

    /// Tells the delegate the session is invalid, once it is invalidated and has no tasks.
    func reportInvalidationIfDone() {
        let delegate: (any StreamSessionDelegate)?? = state.withLockedValue { state in
            guard state.invalidated, state.tasks.isEmpty, !state.invalidationReported else { return .none }
            state.invalidationReported = true
            let delegate = state.delegate
            state.delegate = nil
            return .some(delegate)
        }
        if case .some(let delegate?) = delegate {
            delegateQueue.async { delegate.streamSession(self, didBecomeInvalidWithError: nil) }
        }
    }
}
