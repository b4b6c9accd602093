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
import StreamTaskKit

/// One client's connection: reads lines, applies the flood limit and the registration and idle
/// timeouts, hands each parsed message to the ``ChatServer``, and performs the STARTTLS
/// upgrade and the final close when the server says so.
struct ChatConnection: Sendable {
    /// What the connection does after the server handled an event.
    enum Directive: Sendable, Equatable {
        /// Go on reading.
        case proceed(registered: Bool)
        /// `670` is queued: upgrade to TLS before reading another byte.
        case startTLS
        /// Send `lastLine` (the `ERROR` line) if there is one, then close.
        case closed(lastLine: Data?)
        /// The server is shutting down and has queued the last line: read and ignore until
        /// the client closes, or the server cancels the connection.
        case shuttingDown
    }

    /// What the framer found, waiting for the flood limit.
    private enum Input {
        case line([UInt8])
        case tooLong
    }

    /// How a client's lines are read: CR LF or LF (Protocol.md, "Lines"), at most 512 bytes
    /// with CR LF, or longer by the tag section when tagged (`@…`). A tagless line over 512
    /// bytes passes here and is refused by the parser; a line over even the tagged limit fails
    /// the read, and the rest of it is skipped (``StreamTask/skipLine(timeout:)``).
    static let lines = LineFramer(
        ending: .crlf, maximumLineLength: IRCLimits.messageLength + IRCLimits.tagSectionLength)

    /// One line for the server, parsed.
    enum Inbound: Sendable {
        case message(IRCMessage)
        /// Over the length limit: the server answers `417`.
        case tooLong
        /// A line the protocol drops silently (empty, NUL, a stray CR, too many parameters, no
        /// command). It still counts as a line, so one after STARTTLS is refused like any other.
        case dropped
    }

    let id: ChatClientID
    let task: StreamTask
    let outbound: ChatOutbound
    let server: ChatServer
    let configuration: ChatServerConfiguration

    /// Reads and handles lines until the connection ends; returns whether it registered (as
    /// a client, or as a server link).
    @discardableResult
    func run() async -> Bool {
        let clock = ContinuousClock()
        let connectedAt = clock.now
        var pending: [Input] = []
        // Set when a line over the limit failed its read: its rest is dropped before the next.
        var skippingLine = false
        var bucket = configuration.floodBurst.map {
            FloodBucket(burst: $0, linesPerSecond: configuration.floodLinesPerSecond, now: connectedAt)
        }
        var registered = false
        var everRegistered = false
        var isLink = false
        var lastLine = connectedAt
        var pingSent = false
        // A link's path, as the route monitor sees it; and when a PING went out because the
        // path went away.
        var pathWatch: ChatLinkPathWatch?
        defer { pathWatch?.stop() }
        var probedAt: ContinuousClock.Instant?
        var probedThisLoss = false
        var atEOF = false

        // Lines the flood limit let through that the server has not handled yet: it stops
        // early when a line finds someone's send queue congested, and takes the rest later.
        var admitted: [Inbound] = []

        while true {
            // Hand the server what the flood limit lets through, in one call: it writes the
            // replies and relays of the whole batch at the end, so a client that several lines
            // are sent to gets them in one write.
            while !pending.isEmpty || !admitted.isEmpty {
                var taken = 0
                while taken < pending.count, atEOF || bucket?.take(now: clock.now) ?? true {
                    admitted.append(Self.parse(pending[taken]))
                    taken += 1
                }
                pending.removeFirst(taken)
                if admitted.isEmpty { break }
                let received = await server.receive(admitted, from: id)
                admitted.removeFirst(received.handled)
                switch received.directive {
                case .proceed(let isRegistered):
                    registered = isRegistered
                    everRegistered = everRegistered || isRegistered
                    // A server link carries a whole network's lines: no flood limit, and
                    // timeouts of its own.
                    if received.isLink {
                        bucket = nil
                        isLink = true
                        if isRegistered, pathWatch == nil {
                            pathWatch = ChatLinkPathWatch(task: task, logger: configuration.logger)
                        }
                    }
                    // Someone it sent to is behind: read no more of this client until they
                    // catch up (or are found to have stopped reading).
                    for outbound in received.congested {
                        await outbound.waitForRoom(stallTimeout: configuration.sendQueueStallTimeout)
                    }
                case .startTLS:
                    // Protocol.md, section 7: nothing may follow STARTTLS before the handshake.
                    // (Plaintext still buffered in the task is refused by `startTLS` itself.)
                    if skippingLine || !pending.isEmpty || !admitted.isEmpty {
                        await finish(server.disconnect(id, reason: "Plaintext after STARTTLS"))
                        return everRegistered
                    }
                    // The handshake runs into the registration deadline like any other step
                    // of registering: a client that stalls in it is dropped in time.
                    let registrationDeadline = connectedAt + configuration.registrationTimeout
                    let timedOut = "Registration timed out"
                    // `670` may still be gathered behind an earlier reply: it must be handed to
                    // the task before the handshake is, or it would go out encrypted.
                    guard await outbound.waitUntilIdle(timeout: min(.seconds(10), registrationDeadline - clock.now))
                    else {
                        let reason = clock.now >= registrationDeadline ? timedOut : "SendQ not draining"
                        await finish(server.disconnect(id, reason: reason), abort: true)
                        return everRegistered
                    }
                    let left = min(30, (registrationDeadline - clock.now).inSeconds)
                    guard left > 0 else {
                        await finish(server.disconnect(id, reason: timedOut), abort: true)
                        return everRegistered
                    }
                    do {
                        try await task.startTLS(asServerWith: configuration.tls!, timeout: left)
                        await server.tlsEstablished(id)
                    } catch {
                        let reason = clock.now >= registrationDeadline ? timedOut : "TLS handshake failed"
                        await finish(server.disconnect(id, reason: reason), abort: true)
                        return everRegistered
                    }
                case .closed(let line):
                    await Self.close(task, lastLine: line)
                    return everRegistered
                case .shuttingDown:
                    await drainUntilClosed()
                    return everRegistered
                }
            }
            if atEOF {
                await finish(server.disconnect(id, reason: "Remote host closed the connection"), abort: true);
                return everRegistered
            }
            if bucket != nil, pending.count > configuration.floodQueuedLines {
                await finish(server.disconnect(id, reason: "Excess Flood"))
                return everRegistered
            }

            // Decide how long to wait for the next bytes.
            let now = clock.now
            let idleTimeout = isLink ? configuration.linkIdleTimeout : configuration.idleTimeout
            let pingTimeout = isLink ? configuration.linkPingTimeout : configuration.pingTimeout
            // Once per loss of the path: a peer that still answers is fine.
            let pathLost = pathWatch?.isLost == true
            if !pathLost { probedThisLoss = false }
            if registered, pathLost, !probedThisLoss, !pingSent, let ping = Self.ping(configuration) {
                probedThisLoss = true
                pingSent = true
                probedAt = now
                _ = outbound.send(ping)
            }
            var deadline: ContinuousClock.Instant
            var expiry: String?
            if !registered {
                deadline = connectedAt + configuration.registrationTimeout
                expiry = "Registration timed out"
            } else if pingSent {
                deadline = lastLine + idleTimeout + pingTimeout
                var waited = idleTimeout + pingTimeout
                if let probedAt, probedAt + pingTimeout < deadline {
                    deadline = probedAt + pingTimeout
                    waited = pingTimeout
                }
                expiry = "Ping timeout: \(waited.components.seconds) seconds"
            } else {
                deadline = lastLine + idleTimeout
                expiry = nil
            }
            if deadline <= now {
                if let expiry {
                    await finish(server.disconnect(id, reason: expiry))
                    return everRegistered
                }
                pingSent = true
                if let ping = Self.ping(configuration) { _ = outbound.send(ping) }
                continue
            }
            if !pending.isEmpty, let next = bucket?.nextToken(now: now) { deadline = min(deadline, next) }

            // A watched link wakes every 2 s, to notice a path that went away.
            let wake = pathWatch == nil ? deadline : min(deadline, now + .seconds(2))
            let wait = max(0.001, (wake - now).inSeconds)
            do {
                if skippingLine {
                    if try await task.skipLine(timeout: wait) { skippingLine = false } else { atEOF = true }
                    continue
                }
                // The first line waits; those that came with it are taken as one batch.
                guard let first = try await task.readMessage(framedBy: Self.lines, timeout: wait) else {
                    atEOF = true
                    continue
                }
                pending.append(.line(Array(first.readableBytesView)))
                while let line = try task.readBufferedMessage(framedBy: Self.lines) {
                    pending.append(.line(Array(line.readableBytesView)))
                }
            } catch let error as StreamTaskError where error.code == .timedOut {
                continue
            } catch let error as StreamTaskError where error.code == .invalidFrame {
                // Over the limit: answered with 417 in its turn, and dropped up to its LF.
                pending.append(.tooLong)
                skippingLine = true
            } catch let error as StreamTaskError where error.code == .truncatedFrame {
                // The client closed in the middle of a line: that part-line is not a line.
                atEOF = true
                continue
            } catch {
                await finish(server.disconnect(id, reason: Self.reason(for: error)), abort: true)
                return everRegistered
            }
            lastLine = clock.now
            pingSent = false
            probedAt = nil
        }
    }

    /// The `PING` the server sends to an idle connection.
    private static func ping(_ configuration: ChatServerConfiguration) -> [UInt8]? {
        try? IRCReplyBuilder(server: configuration.identity.serverName, client: nil).ping().wireBytes()
    }

    /// What the server is given of one line.
    private static func parse(_ input: Input) -> Inbound {
        switch input {
        case .tooLong:
            return .tooLong
        case .line(let bytes):
            do {
                return .message(try IRCMessage(parsing: bytes))
            } catch let error as IRCMessageError where error.code == .lineTooLong {
                return .tooLong
            } catch {
                return .dropped
            }
        }
    }

    /// Ends the connection after the server dropped the client.
    private func finish(_ directive: Directive, abort: Bool = false) async {
        if abort {
            outbound.abort()
            return
        }
        switch directive {
        case .closed(let line): await Self.close(task, lastLine: line)
        case .shuttingDown: await drainUntilClosed()
        case .proceed, .startTLS: outbound.abort()
        }
    }

    /// While the server shuts down: reads, ignoring what comes, until the client closes (the
    /// server's last line may still be on its way out), then waits a little for that line
    /// before closing. The server cancels the connection if the client never closes.
    private func drainUntilClosed() async {
        while let (_, atEOF) = try? await task.readData(ofMinLength: 1, maxLength: 16 * 1024, timeout: 0), !atEOF {}
        _ = await outbound.waitUntilIdle(timeout: .seconds(2))
        task.cancel()
    }

    /// Writes `lastLine`, closes the write side, and waits a little for the client to close
    /// its side before cancelling, so that the line is not lost to a reset.
    static func close(_ task: StreamTask, lastLine: Data?) async {
        if let lastLine {
            try? await task.write(lastLine, timeout: 5)
        }
        task.closeWrite()
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            let wait = max(0.001, (deadline - ContinuousClock.now).inSeconds)
            guard let (_, atEOF) = try? await task.readData(ofMinLength: 1, maxLength: 16 * 1024, timeout: wait), !atEOF
            else { break }
        }
        task.cancel()
    }

    /// The quit reason other clients see when a connection fails.
    static func reason(for error: any Error) -> String {
        guard let error = error as? StreamTaskError else { return "Connection error" }
        switch error.code {
        case .connectionReset: return "Connection reset by peer"
        case .cancelled: return "Connection closed"
        default: return "Connection error"
        }
    }
}
