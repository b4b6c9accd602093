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
///
/// ``Configuration`` sets TLS, the limits (open connections, connections per peer address),
/// the backlog and buffer sizes, and the session. The listener is also a swift-service-lifecycle `Service`: in a `ServiceGroup`, it
/// starts, and it shuts down gracefully when the group does.
public final class StreamListener: Sendable {
    /// The host or address to bind.
    public let host: String
    /// The port asked for; 0 lets the system choose (see ``port``).
    public let requestedPort: Int
    /// The configuration the listener was made with (its values in range: limits at least 1).
    public let configuration: Configuration
    /// The most accepted connections open at once; more wait in the kernel's backlog.
    public var maximumConnections: Int { configuration.maximumConnections }
    /// The session that accepted tasks belong to.
    public var session: StreamSession { configuration.session }
    /// When set, every accepted connection starts with a TLS handshake as a server (TLS from
    /// the first byte); its operations wait for the handshake.
    public var tls: StreamTLSConfiguration? { configuration.tls }
    /// The kernel send buffer of each accepted connection, if set.
    public var sendBufferSize: Int? { configuration.sendBufferSize }

    /// The accepted connections, in the order they arrived. One consumer at a time; the
    /// sequence ends when the listener shuts down. It pushes back: while
    /// ``Configuration/maximumWaitingConnections`` wait to be taken, the listener stops
    /// accepting (see ``Connections``).
    public let connections: Connections

    let continuation: AsyncStream<StreamTask>.Continuation
    /// The accepted connections not yet taken from ``connections``.
    let ledger: AcceptedConnectionLedger

    struct State {
        var channel: (any Channel)?
        /// Accepted connections still open, with the futures that complete when they close.
        var open: [Int: (task: StreamTask, closed: EventLoopFuture<Void>)] = [:]
        /// Open connections by the peer they come from (only with a per-address limit).
        var perAddress: [PeerAddressGroup: Int] = [:]
        var metrics = Metrics()
        var closed = false
    }

    let state = NIOLockedValueBox(State())

    /// Creates a listener; it binds when you call ``start()`` (or runs as a `Service`).
    ///
    /// - Parameters:
    ///   - host: The address to bind, for example `"127.0.0.1"`, `"::1"` or `"0.0.0.0"`.
    ///   - port: The port; 0 picks a free one.
    ///   - configuration: TLS, limits, backlog, buffer sizes and session.
    public init(host: String, port: Int, configuration: Configuration) {
        self.host = host
        self.requestedPort = port
        self.configuration = configuration.normalized
        let ledger = AcceptedConnectionLedger(limit: self.configuration.maximumWaitingConnections)
        // The ledger bounds what this buffer holds; the stream itself need not.
        let (stream, continuation) = AsyncStream.makeStream(of: StreamTask.self, bufferingPolicy: .unbounded)
        self.ledger = ledger
        self.continuation = continuation
        self.connections = Connections(base: stream, ledger: ledger)
    }

    /// Creates a listener with a ``Configuration`` made of these values; it binds when you call
    /// ``start()``. New code passes a ``Configuration``, which has every setting.
    ///
    /// - Parameters:
    ///   - host: The address to bind, for example `"127.0.0.1"`, `"::1"` or `"0.0.0.0"`.
    ///   - port: The port; 0 picks a free one.
    ///   - maximumConnections: The most accepted connections open at once.
    ///   - backlog: The kernel's queue of connections not yet accepted.
    ///   - session: The session accepted tasks belong to; a new default one if omitted.
    ///   - tls: A server configuration to make the listener TLS from the first byte; `nil` for
    ///     plaintext (accepted tasks can still upgrade with STARTTLS).
    ///   - sendBufferSize: The kernel send buffer (`SO_SNDBUF`) of each accepted connection
    ///     (see ``Configuration/sendBufferSize``).
    public convenience init(
        host: String,
        port: Int,
        maximumConnections: Int = .max,
        backlog: Int = 256,
        session: StreamSession = StreamSession(),
        tls: StreamTLSConfiguration? = nil,
        sendBufferSize: Int? = nil
    ) {
        self.init(
            host: host,
            port: port,
            configuration: Configuration(
                tls: tls,
                maximumConnections: maximumConnections,
                backlog: backlog,
                sendBufferSize: sendBufferSize,
                session: session
            )
        )
    }

    /// The address the listener is bound to, from `start()` until `shutdown()` has closed it.
    public var localAddress: SocketAddress? { state.withLockedValue { $0.channel?.localAddress } }

    /// The port the listener is bound to, once started (the real one when 0 was asked for).
    public var port: Int? { localAddress?.port }

    /// Binds the address and starts accepting.
    ///
    /// - Throws: ``StreamTaskError/Code/bindFailed`` when the address cannot be bound;
    ///   ``StreamTaskError/Code/invalidArgument`` for a port outside 0 to 65535.
    public func start() async throws {
        // The resolver keeps the low 16 bits of a port past TCP's range: 70000 would listen on 4464.
        guard (0...65535).contains(requestedPort) else {
            throw StreamTaskError(
                .invalidArgument, "the port \(requestedPort) is out of range: a TCP port is 0 (any free one) to 65535",
                host: host, port: requestedPort)
        }
        let limit = maximumConnections
        let ledger = ledger
        var bootstrap = ServerBootstrap(group: session.eventLoopGroup)
            .serverChannelOption(ChannelOptions.backlog, value: Int32(clamping: configuration.backlog))
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            // One connection per read, so that the limits are exact.
            .serverChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
        if let sendBufferSize {
            bootstrap = bootstrap.childChannelOption(
                ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(clamping: sendBufferSize))
        }
        bootstrap =
            bootstrap
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptLimitHandler(limit: limit, ledger: ledger))
                }
            }
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: StreamTaskDriver.channelWriteWaterMark)
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
