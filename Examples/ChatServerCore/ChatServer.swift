//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ChatProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import StreamTaskKit

/// The chat server: a listener, the protocol state, and one ``ChatConnection`` per client.
///
/// ```swift
/// let server = ChatServer(configuration: configuration)
/// try await server.start()
/// print("listening on", server.port!)
/// try await server.run()   // until shutdown()
/// ```
///
/// Or as a swift-service-lifecycle `Service`, which shuts down gracefully on `SIGTERM`:
///
/// ```swift
/// try await server.start()
/// try await ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
/// ```
///
/// The protocol logic lives in ``ChatServerState``; this actor only carries out its actions,
/// so every change to the state happens in one place, one event at a time.
public actor ChatServer: Service {
    /// The configuration the server was made with.
    public nonisolated let configuration: ChatServerConfiguration
    /// The listener clients connect to.
    public nonisolated let listener: StreamListener
    /// The listener that speaks TLS from the first byte, when
    /// ``ChatServerConfiguration/tlsPort`` is set.
    public nonisolated let tlsListener: StreamListener?
    var state: ChatServerState
    var outbounds: [ChatClientID: ChatOutbound] = [:]
    /// Outbounds given lines by the event being handled, written when it is done.
    private var unflushed: [ChatOutbound] = []
    /// Outbounds that the lines being handled found congested: the sender waits for them.
    private var congested: [ChatOutbound] = []
    private var nextID = 1
    /// The loops that keep this server's outgoing links up, cancelled at shutdown.
    var linkKeepers: [Task<Void, Never>] = []
    /// Set by ``shutdown(gracePeriod:)``: nothing more is sent or handled.
    private var shuttingDown = false
    private var logger: Logger { configuration.logger }

    /// A server that listens once ``start()`` is called.
    public init(configuration: ChatServerConfiguration) {
        self.configuration = configuration
        var identity = configuration.identity
        identity.offersSTARTTLS = configuration.tls != nil
        // Announced as they are enforced.
        identity.floodLimits = configuration.floodBurst.map {
            IRCFloodLimits(
                burst: $0, linesPerSecond: configuration.floodLinesPerSecond,
                queuedLines: configuration.floodQueuedLines)
        }
        state = ChatServerState(
            identity: identity,
            maximumClients: configuration.maximumClients,
            maximumClientsPerAddress: configuration.maximumClientsPerAddress)
        state.linkPeers = configuration.links
        // No per-address limit in the listener: it could only close a connection, where the
        // chat server tells the client which limit it hit (ChatServerState.connect).
        let listening = StreamListener.Configuration(
            sendBufferSize: configuration.socketSendBuffer, session: configuration.listenerSession ?? StreamSession())
        listener = StreamListener(host: configuration.host, port: configuration.port, configuration: listening)
        tlsListener = configuration.tlsPort.map {
            StreamListener(host: configuration.host, port: $0, configuration: listening)
        }
    }

    /// The port the server listens on, once started.
    public nonisolated var port: Int? { listener.port }

    /// The port that speaks TLS from the first byte, once started.
    public nonisolated var tlsPort: Int? { tlsListener?.port }

    /// Binds the listening sockets.
    public func start() async throws {
        try await listener.start()
        logger.info("listening", metadata: ["address": "\(listener.localAddress.map { "\($0)" } ?? "?")"])
        if let tlsListener {
            try await tlsListener.start()
            logger.info(
                "listening with TLS", metadata: ["address": "\(tlsListener.localAddress.map { "\($0)" } ?? "?")"])
        }
    }

    /// Serves connections until ``shutdown(gracePeriod:)``: called directly, or by a
    /// swift-service-lifecycle `ServiceGroup` that runs the server as a `Service` and shuts
    /// down gracefully (on `SIGTERM`, say), or cancels it. Returns once every connection ended.
    public nonisolated func run() async {
        let stopping = NIOLockedValueBox<Task<Void, Never>?>(nil)
        await keepLinksUp()
        await withTaskCancellationOrGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                if let tlsListener {
                    group.addTask {
                        await withDiscardingTaskGroup { secure in
                            for await task in tlsListener.connections {
                                secure.addTask { await self.serve(task, handshake: true) }
                            }
                        }
                    }
                }
                for await task in listener.connections {
                    group.addTask { await self.serve(task) }
                }
            }
        } onCancelOrGracefulShutdown: {
            stopping.withLockedValue { stopping in
                if stopping == nil { stopping = Task { await self.shutdown() } }
            }
        }
        await stopping.withLockedValue { $0 }?.value
    }

    /// Stops the server: every client gets a last `ERROR :Closing Link: <host> (Server shutting
    /// down)` (Protocol.md, section 5), and nothing more; the connections close once that line
    /// is written and the client has closed its side, or when `gracePeriod` is over.
    ///
    /// From the first call on, lines from clients are ignored and new connections are refused.
    public func shutdown(gracePeriod: Duration = .seconds(2)) async {
        let deadline = ContinuousClock.now + gracePeriod
        if !shuttingDown {
            shuttingDown = true
            for keeper in linkKeepers { keeper.cancel() }
            let closing = Array(outbounds.values)
            for outbound in closing {
                guard let bytes = Self.closingLine(host: outbound.task.host, reason: Self.shutdownReason) else {
                    continue
                }
                switch outbound.enqueueLast(bytes) {
                case .needsFlush: unflushed.append(outbound)
                case .queued, .congested: break
                case .overLimit: outbound.abort()  // too far behind to get even this
                }
            }
            flush()
            // The write side closes after the line, so a client that reads it sees the end
            // and closes too; its connection then ends without a reset that could lose the line.
            await withDiscardingTaskGroup { group in
                for outbound in closing {
                    group.addTask {
                        if await outbound.waitUntilIdle(timeout: gracePeriod) { outbound.task.closeWrite() }
                    }
                }
            }
        }
        let left = max(0, (deadline - ContinuousClock.now).inSeconds)
        async let secure: Void? = tlsListener?.shutdown(gracePeriod: left)
        await listener.shutdown(gracePeriod: left)
        _ = await secure
    }

    /// The reason in the last line that ``shutdown(gracePeriod:)`` sends.
    static let shutdownReason = "Server shutting down"

    /// The last line a client dropped for `reason` gets: `ERROR :Closing Link: <host> (<reason>)`.
    private static func closingLine(host: String, reason: String) -> [UInt8]? {
        try? IRCReplyBuilder.closingLink(host: IRCName.displayHost(host), reason: reason).wireBytes()
    }

    /// Clients connected now (registered or not).
    public var clientCount: Int { state.localClientCount }

    /// Serves one accepted connection; on the TLS port, after the handshake, which must be
    /// done within the registration timeout.
    private nonisolated func serve(_ task: StreamTask, handshake: Bool = false) async {
        if handshake {
            guard let tls = configuration.tls else { return task.cancel() }
            do {
                try await task.startTLS(asServerWith: tls, timeout: configuration.registrationTimeout.inSeconds)
            } catch {
                configuration.logger.notice(
                    "TLS handshake failed", metadata: ["host": "\(task.host)", "error": "\(error)"])
                return task.cancel()
            }
        }
        guard let connection = await admit(task, isSecure: handshake) else { return }
        await connection.run()
    }

    /// Registers a new connection with the state, or refuses it when the server is full.
    func admit(_ task: StreamTask, isSecure: Bool = false) async -> ChatConnection? {
        if shuttingDown {
            await ChatConnection.close(
                task, lastLine: Self.closingLine(host: task.host, reason: Self.shutdownReason).map { Data($0) })
            return nil
        }
        let (id, outbound) = newConnection(task)
        let directive = perform(state.connect(id, host: task.host, isSecure: isSecure), for: id)
        flush()
        if case .closed(let lastLine) = directive {
            logger.notice("refused a client", metadata: ["host": "\(task.host)"])
            await ChatConnection.close(task, lastLine: lastLine)
            return nil
        }
        logger.debug("client connected", metadata: ["id": "\(id)", "host": "\(task.host)"])
        return ChatConnection(id: id, task: task, outbound: outbound, server: self, configuration: configuration)
    }

    /// A number and an outbound for a new connection.
    private func newConnection(_ task: StreamTask) -> (ChatClientID, ChatOutbound) {
        let id = nextID
        nextID += 1
        let outbound = ChatOutbound(task: task, limit: configuration.sendQueueLimit)
        outbounds[id] = outbound
        return (id, outbound)
    }

    /// A link this server opened to `peer` on `task`: it sends its `PASS` and `SERVER` at once.
    func admitLink(_ task: StreamTask, to peer: ChatLinkPeer) -> ChatConnection? {
        guard !shuttingDown else { return nil }
        let (id, outbound) = newConnection(task)
        outbound.raiseLimit(to: configuration.linkSendQueueLimit)
        _ = perform(state.linkOpened(id, to: peer), for: id)
        flush()
        logger.info("linking", metadata: ["peer": "\(peer.name)", "id": "\(id)"])
        return ChatConnection(id: id, task: task, outbound: outbound, server: self, configuration: configuration)
    }

    /// What ``receive(_:from:)`` did with a batch of lines.
    struct Received {
        /// What the connection does next.
        var directive: ChatConnection.Directive
        /// How many of the lines were handled; the rest wait for the next call.
        var handled: Int
        /// Outbounds the lines found congested: the connection waits for room in each before
        /// it hands over more (``ChatOutbound/waitForRoom(stallTimeout:)``).
        var congested: [ChatOutbound] = []
        /// Whether the connection is a link to another server: no flood limit applies to it.
        var isLink = false
    }

    /// Lines from client `id`, handled in order until one makes the connection do something
    /// other than read on (STARTTLS, or the client dropped), or finds a client's send queue
    /// congested. What the lines send to anyone is written once they are handled.
    func receive(_ batch: [ChatConnection.Inbound], from id: ChatClientID) -> Received {
        defer { flush() }
        congested.removeAll(keepingCapacity: true)
        var handled = 0
        for inbound in batch {
            let directive: ChatConnection.Directive
            switch inbound {
            case .message(let message):
                let now = Int(Date().timeIntervalSince1970)
                if message.command == "STATS" { noteLinkTraffic() }
                directive = perform(state.receive(message, from: id, now: now), for: id)
            case .tooLong:
                directive = perform(state.receiveOverlongLine(from: id), for: id)
            case .dropped:
                directive = .proceed(registered: state.isRegistered(id))
            }
            handled += 1
            guard case .proceed = directive else { return Received(directive: directive, handled: handled) }
            if !congested.isEmpty { break }
        }
        let isLink = state.isLink(id)
        if isLink { outbounds[id]?.raiseLimit(to: configuration.linkSendQueueLimit) }
        return Received(
            directive: .proceed(registered: state.isRegistered(id)), handled: handled, congested: congested,
            isLink: isLink)
    }

    /// Client `id` is to be dropped for `reason`, or is gone.
    func disconnect(_ id: ChatClientID, reason: String) -> ChatConnection.Directive {
        defer { flush() }
        return perform(state.disconnect(id, reason: reason), for: id)
    }

    /// Client `id` finished the TLS handshake after `670`.
    func tlsEstablished(_ id: ChatClientID) {
        state.tlsEstablished(id)
    }

    /// Carries out `actions` in order, and tells the connection of client `caller` what to do
    /// next. Clients whose send queue overflows are dropped on the way (`SendQ exceeded`).
    /// Lines are queued, not written: every entry point calls ``flush()`` before it returns.
    private func perform(_ actions: [ChatServerAction], for caller: ChatClientID) -> ChatConnection.Directive {
        // Shutting down, every client has its last line: what the lines would do is moot.
        if shuttingDown { return .shuttingDown }
        var directive = ChatConnection.Directive.proceed(registered: false)
        var queue = actions[...]
        var overflowed: [ChatClientID] = []
        var overflowedEver: Set<ChatClientID> = []
        while let action = queue.popFirst() {
            switch action {
            case .send(let id, let message):
                deliver(message, to: [id], overflowed: &overflowed)
            case .broadcast(let ids, let message):
                deliver(message, to: ids, overflowed: &overflowed)
            case .startTLS(let id):
                if id == caller { directive = .startTLS }
            case .close(let id, let reason):
                let host = outbounds[id]?.task.host ?? "?"
                let outbound = outbounds.removeValue(forKey: id)
                if id == caller {
                    // Lines still gathered in the outbound go before the last one, in order.
                    let unsent = outbound?.takeUnsentAndClose() ?? Data()
                    let last = Self.closingLine(host: host, reason: reason).map { Data($0) }
                    directive = .closed(lastLine: unsent.isEmpty ? last : unsent + (last ?? Data()))
                } else if let outbound {
                    // Past its send queue a client cannot take even the last line.
                    if overflowedEver.contains(id) {
                        outbound.abort()
                    } else {
                        closeAfterLastLine(outbound, reason: reason)
                    }
                }
                logger.debug("client dropped", metadata: ["id": "\(id)", "reason": "\(reason)"])
            }
            if queue.isEmpty, !overflowed.isEmpty {
                for id in overflowed { queue += state.disconnect(id, reason: "SendQ exceeded") }
                overflowedEver.formUnion(overflowed)
                overflowed = []
            }
        }
        if case .proceed = directive {
            directive = .proceed(registered: state.isRegistered(caller))
        }
        return directive
    }

    /// Closes another client's connection (not the one whose event is being handled: its own
    /// loop reads it) after its last line: the write side once the line is out, the rest 2
    /// seconds later at most, which also ends that connection's loop.
    private func closeAfterLastLine(_ outbound: ChatOutbound, reason: String) {
        guard let line = Self.closingLine(host: outbound.task.host, reason: reason) else { return outbound.abort() }
        switch outbound.enqueueLast(line) {
        case .overLimit: return outbound.abort()
        case .needsFlush: unflushed.append(outbound)
        case .queued, .congested: break
        }
        Task {
            if await outbound.waitUntilIdle(timeout: .seconds(2)) { outbound.task.closeWrite() }
            try? await Task.sleep(for: .seconds(2))
            outbound.abort()
        }
    }

    private func deliver(_ message: IRCMessage, to ids: [ChatClientID], overflowed: inout [ChatClientID]) {
        guard let bytes = try? message.wireBytes() else {
            logger.error("could not serialize a message", metadata: ["command": "\(message.command)"])
            return
        }
        for id in ids {
            guard let outbound = outbounds[id] else { continue }
            switch outbound.enqueue(bytes) {
            case .overLimit:
                logger.notice("send queue exceeded", metadata: ["id": "\(id)", "pending": "\(outbound.pendingBytes)"])
                overflowed.append(id)
            case .needsFlush:
                unflushed.append(outbound)
            case .congested:
                if !congested.contains(where: { $0 === outbound }) { congested.append(outbound) }
            case .queued:
                break
            }
        }
    }

    /// Writes what the last event queued: one write per client, however many lines it got.
    /// (ngIRCd does the same once per pass of its event loop.)
    private func flush() {
        ChatOutbound.flush(unflushed)
        unflushed.removeAll(keepingCapacity: true)
    }
}

extension ChatServer {
    /// Connections the server has admitted or refused so far.
    var connectionsHandled: Int { nextID - 1 }

    /// Whether client `id` has registered.
    func isRegistered(_ id: ChatClientID) -> Bool {
        state.isRegistered(id)
    }
}
