import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Accepts TCP connections and hands each one over as a connected ``StreamTask``.
///
/// ```swift
/// let listener = StreamListener(host: "127.0.0.1", port: 0)
/// try await listener.start()
/// print("listening on", listener.port!)
/// for await task in listener.connections {
///     Task { try await serve(task) }
/// }
/// ```
///
/// Accepted tasks belong to the listener's session (they are in its ``StreamSession/allTasks``,
/// use its timeouts and delegate) but do not count against its per-host limit.
public final class StreamListener: Sendable {
    /// The host or address to bind.
    public let host: String
    /// The port asked for; 0 lets the system choose (see ``port``).
    public let requestedPort: Int
    /// The most accepted connections open at once; more wait in the kernel's backlog.
    public let maximumConnections: Int
    /// The session that accepted tasks belong to.
    public let session: StreamSession
    /// When set, every accepted connection starts with a TLS handshake as a server (TLS from
    /// the first byte); its operations wait for the handshake.
    public let tls: StreamTLSConfiguration?

    /// The accepted connections, in the order they arrived. One consumer at a time; the
    /// sequence ends when the listener shuts down.
    public let connections: AsyncStream<StreamTask>

    private let continuation: AsyncStream<StreamTask>.Continuation
    private let backlog: Int32
    /// The kernel send buffer of each accepted connection, if set.
    public let sendBufferSize: Int?

    private struct State {
        var channel: (any Channel)?
        /// Accepted connections still open, with the futures that complete when they close.
        var open: [Int: (task: StreamTask, closed: EventLoopFuture<Void>)] = [:]
        var closed = false
    }

    private let state = NIOLockedValueBox(State())

    /// Creates a listener; it binds when you call ``start()``.
    ///
    /// - Parameters:
    ///   - host: The address to bind, for example `"127.0.0.1"`, `"::1"` or `"0.0.0.0"`.
    ///   - port: The port; 0 picks a free one.
    ///   - maximumConnections: The most accepted connections open at once.
    ///   - backlog: The kernel's queue of connections not yet accepted.
    ///   - session: The session accepted tasks belong to; a new default one if omitted.
    ///   - tls: A server configuration to make the listener TLS from the first byte; `nil` for
    ///     plaintext (accepted tasks can still upgrade with STARTTLS).
    ///   - sendBufferSize: The kernel send buffer (`SO_SNDBUF`) of each accepted connection, in
    ///     bytes; `nil` keeps the system's automatic sizing, which on Linux lets one connection's
    ///     buffer grow to 4 MiB. A server with many slow peers sets it to bound what the kernel
    ///     holds for each of them (Linux doubles the value for its bookkeeping).
    public init(
        host: String,
        port: Int,
        maximumConnections: Int = .max,
        backlog: Int = 256,
        session: StreamSession = StreamSession(),
        tls: StreamTLSConfiguration? = nil,
        sendBufferSize: Int? = nil
    ) {
        self.tls = tls
        self.sendBufferSize = sendBufferSize.map { max(1, $0) }
        self.host = host
        self.requestedPort = port
        self.maximumConnections = max(1, maximumConnections)
        self.backlog = Int32(clamping: backlog)
        self.session = session
        (connections, continuation) = AsyncStream.makeStream(of: StreamTask.self, bufferingPolicy: .unbounded)
    }

    /// The address the listener is bound to, from `start()` until `shutdown()` has closed it.
    public var localAddress: SocketAddress? { state.withLockedValue { $0.channel?.localAddress } }

    /// The port the listener is bound to, once started (the real one when 0 was asked for).
    public var port: Int? { localAddress?.port }

    /// Binds the address and starts accepting.
    ///
    /// - Throws: ``StreamTaskError/Code/bindFailed`` when the address cannot be bound.
    public func start() async throws {
        let limit = maximumConnections
        var bootstrap = ServerBootstrap(group: session.eventLoopGroup)
            .serverChannelOption(ChannelOptions.backlog, value: backlog)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
        if limit != .max {
            // Accept one connection per read so the limit is exact.
            bootstrap = bootstrap.serverChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
        }
        if let sendBufferSize {
            bootstrap = bootstrap.childChannelOption(
                ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(clamping: sendBufferSize))
        }
        bootstrap = bootstrap
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptLimitHandler(limit: limit))
                }
            }
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try self.accept(channel) }
            }
        do {
            let channel = try await bootstrap.bind(host: host, port: requestedPort).get()
            let refused = state.withLockedValue { state -> Bool in
                guard !state.closed else { return true }
                state.channel = channel
                return false
            }
            if refused {
                try? await channel.close()
                throw StreamTaskError(.listenerClosed, "the listener was shut down before it started")
            }
        } catch let error as StreamTaskError {
            throw error
        } catch let error as IOError {
            // The errno's text goes into the description once, from the errno itself.
            throw StreamTaskError(
                .bindFailed,
                "could not listen on that address",
                host: host,
                port: requestedPort,
                errno: error.errnoCode,
                underlying: error
            )
        } catch {
            throw StreamTaskError(
                .bindFailed,
                "could not listen on that address: \(error)",
                host: host,
                port: requestedPort,
                underlying: error
            )
        }
    }

    private func accept(_ channel: any Channel) throws {
        let remote = channel.remoteAddress
        let adopted = session.adopt { id in
            StreamTask(
                session: session,
                identifier: id,
                host: remote?.ipAddress ?? "?",
                port: remote?.port ?? 0,
                origin: .accepted,
                eventLoop: channel.eventLoop
            )
        }
        guard let task = adopted else {
            throw StreamTaskError(.sessionInvalidated, "the listener's session was invalidated")
        }
        let accepted = state.withLockedValue { state -> Bool in
            guard !state.closed else { return false }
            state.open[task.taskIdentifier] = (task, channel.closeFuture)
            return true
        }
        guard accepted else {
            task.cancel()
            throw StreamTaskError(.listenerClosed, "the listener is shutting down")
        }
        try task.attach(channel)
        if let tls {
            task.startSecureConnection(asServerWith: tls)
        }
        channel.closeFuture.whenComplete { _ in
            self.state.withLockedValue { _ = $0.open.removeValue(forKey: task.taskIdentifier) }
        }
        continuation.yield(task)
    }

    /// The accepted connections that are still open.
    public var openConnections: [StreamTask] {
        state.withLockedValue { $0.open.values.map(\.task).sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    /// Stops accepting, ends ``connections``, and waits for the accepted connections to finish.
    ///
    /// - Parameter gracePeriod: How long open connections may go on; those still open after it
    ///   are cancelled. `nil` waits for them however long they take; 0 cancels them at once.
    public func shutdown(gracePeriod: TimeInterval? = nil) async {
        let channel = state.withLockedValue { state -> (any Channel)? in
            state.closed = true
            return state.channel
        }
        try? await channel?.close()
        // Only now that the socket is closed does the listener stop reporting its address.
        state.withLockedValue { $0.channel = nil }
        continuation.finish()
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                // Each connection is forgotten by a callback on its close future registered at
                // accept time, so it runs before this wait resumes.
                let closing = self.state.withLockedValue { $0.open.values.map(\.closed) }
                for closed in closing {
                    try? await closed.get()
                }
                return true
            }
            if let gracePeriod {
                group.addTask {
                    try? await Task.sleep(for: .seconds(gracePeriod))
                    guard !Task.isCancelled else { return false }
                    for task in self.openConnections { task.cancel() }
                    return false
                }
            }
            // Once every connection has finished, the grace timer has nothing left to do.
            while let allFinished = await group.next() {
                if allFinished { group.cancelAll() }
            }
        }
    }
}
