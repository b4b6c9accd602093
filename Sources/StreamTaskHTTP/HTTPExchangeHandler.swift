//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import NIOHTTP1
import StreamTaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data task's HTTP/1.1 exchange, on the pipeline of the stream task that carries it:
/// sends the request, reports the response head to the ``StreamDataTask``, and, once the owner
/// allowed it, the body.
///
/// It sits between SwiftNIO's HTTP codec and the stream task's handler, which hears nothing
/// but channel events until the data task becomes a stream: then this handler, the codec and
/// the `HTTPResponseHeadGate` leave the pipeline (``becomeStream()``), and the gate passes
/// the bytes it held after the head to the stream task.
///
/// It also keeps Apple's request timeout (`timeoutIntervalForRequest`), an idle timeout: while
/// the exchange waits for the server (for the response head once the request is sent, or for
/// more of a body the owner allowed), the server must send something at least that often, or
/// the data task fails with `timedOut` and the connection closes. Any bytes that arrive start
/// the wait again, so a slow body that keeps coming never times out. The timer does not run
/// while the owner decides what to do with the head, while reading is paused at the body
/// window (the wait is the owner's, not the server's), or while the task is suspended (Apple:
/// "not subject to timeouts").
final class HTTPExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = HTTPClientRequestPart

    private let request: HTTPRequestHead
    private let body: ByteBuffer?
    private let url: URL
    private let gate: HTTPResponseHeadGate
    private let dataTask: StreamDataTask
    private var context: ChannelHandlerContext?
    private var sent = false
    private var headSeen = false
    private var allowed = false
    private var ended = false
    /// Reading stopped because ``StreamDataTask/bodyWindow`` bytes wait for the owner.
    private var pausedAtWindow = false
    /// Seconds the server may stay silent while the exchange waits for it; 0 for no limit.
    private let idleTimeout: TimeInterval
    private var idleTimer: Scheduled<Void>?

    init(
        request: HTTPRequestHead, body: ByteBuffer?, url: URL, gate: HTTPResponseHeadGate, dataTask: StreamDataTask,
        idleTimeout: TimeInterval
    ) {
        self.request = request
        self.body = body
        self.url = url
        self.gate = gate
        self.dataTask = dataTask
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { send(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        idleTimer?.cancel()
        idleTimer = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        send(context: context)
        context.fireChannelActive()
    }

    private func send(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        if let body, body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.read()
        restartIdleTimer(context: context)
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard !headSeen else { return }
            headSeen = true
            gate.headArrived()
            restartIdleTimer(context: context)
            dataTask.responseArrived(Self.response(head, url: url))
        case .body(let bytes):
            if allowed { dataTask.bodyReceived(bytes) }
        case .end:
            ended = true
            restartIdleTimer(context: context)
            if allowed { finish(context: context) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Not passed on: the stream task asks for input only when it has a reader, and it has
        // none while the HTTP exchange runs.
        if allowed && !ended {
            if dataTask.mayReadMoreBody() {
                context.read()
            } else {
                pausedAtWindow = true
            }
        }
        // Bytes arrived (this follows every read that brought any): the server's silence
        // starts again from now.
        restartIdleTimer(context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if TLSErrorMapper.isUncleanShutdown(error), !ended, !dataTask.carrier.driver.closingByThisSide {
            // An https server's connection ended without close_notify before the response did:
            // a body read to the end of the connection would otherwise look complete.
            dataTask.failed(StreamTaskDriver.truncation)
        }
        guard error is HTTPParserError || error is NIOHTTPDecoderError else {
            context.fireErrorCaught(error)
            return
        }
        dataTask.failed(
            StreamTaskError(
                .httpProtocolError, "the server's response is not valid HTTP/1.1: \(error)", underlying: error)
        )
        closeConnection(context: context)
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Nothing but this handler writes while the exchange runs.
        promise?.fail(
            StreamTaskError(.invalidArgument, "the task carries an HTTP data task; write once it has become a stream"))
    }

    // MARK: The owner's decision (on the event loop, never inside a read)

    /// The body is wanted: let the bytes after the head through to the decoder.
    func allow() {
        guard let context, !allowed else { return }
        allowed = true
        if ended {
            finish(context: context)
        } else {
            gate.release()
            context.read()
            restartIdleTimer(context: context)
        }
    }

    /// The owner took enough of the body that reading, paused at the window, goes on.
    func resumeReadingBody() {
        guard let context, allowed, !ended else { return }
        pausedAtWindow = false
        context.read()
        restartIdleTimer(context: context)
    }

    /// The task was suspended or resumed: the idle timer stops, or starts again from now.
    func suspensionChanged() {
        guard let context else { return }
        restartIdleTimer(context: context)
    }

    // MARK: The idle timeout

    /// Whether the exchange waits for the server: for the head once the request is out, or for
    /// more of an allowed body that is not paused at the window; never while the task is
    /// suspended.
    private var waitsForServer: Bool {
        guard sent, !ended, dataTask.carrier.state != .suspended else { return false }
        return !headSeen || (allowed && !pausedAtWindow)
    }

    /// Starts the idle timer again from now if the exchange waits for the server, and stops
    /// it otherwise.
    private func restartIdleTimer(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        idleTimer = nil
        guard idleTimeout > 0, waitsForServer else { return }
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(idleTimeout)) {
            self.idleTimeRanOut()
        }
    }

    private func idleTimeRanOut() {
        idleTimer = nil
        guard let context, waitsForServer else { return }
        let waitedFor = headSeen ? "more of the response body" : "the response"
        dataTask.failed(
            StreamTaskError(
                .timedOut,
                "the server sent nothing for \(idleTimeout) s while the data task waited for \(waitedFor) "
                    + "(timeoutIntervalForRequest)"))
        closeConnection(context: context)
    }

    /// Takes the HTTP handlers out of the pipeline; the gate goes last and passes the bytes it
    /// held after the head on to the stream task's handler.
    ///
    /// The decoder leaves on a later turn of the event loop (SwiftNIO's `ByteToMessageHandler`
    /// always does), so the gate waits for it: bytes released earlier would be decoded as a
    /// body. Meanwhile the gate holds whatever else arrives.
    func becomeStream() throws {
        guard let context else {
            throw StreamTaskError(.connectionClosed, "the connection closed before the data task could become a stream")
        }
        let pipeline = context.pipeline.syncOperations
        let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
        let encoder = try pipeline.handler(type: HTTPRequestEncoder.self)
        let gate = self.gate
        pipeline.removeHandler(context: context, promise: nil)
        pipeline.removeHandler(encoder, promise: nil)
        let decoderGone = context.eventLoop.makePromise(of: Void.self)
        pipeline.removeHandler(decoder, promise: decoderGone)
        let loop = context.eventLoop
        decoderGone.futureResult.assumeIsolated().whenComplete { _ in
            // Removing the gate hands its bytes on; if the channel closed meanwhile, they go
            // with it.
            gate.leave(on: loop)
        }
    }

    private func finish(context: ChannelHandlerContext) {
        dataTask.bodyEnded()
        // One request per connection: the exchange is over.
        closeConnection(context: context)
    }

    /// Closes the connection once the exchange is over or failed. Nothing more is wanted from
    /// the server, so its close_notify is not awaited: a server keeping the connection alive
    /// may never send it, and the wait (NIOSSL's 5 s) would hold the host's slot.
    private func closeConnection(context: ChannelHandlerContext) {
        dataTask.carrier.driver.thisSideCloses()
        context.closeWholeConnection()
        context.closeBeneathTLS()
    }

    /// Foundation's form of a response head.
    static func response(_ head: HTTPResponseHead, url: URL) -> HTTPURLResponse {
        // Field names are case-insensitive (RFC 9110, section 5.1): repeated fields are joined
        // under the first spelling seen, whatever the case of the others (a proxy may pass on a
        // backend's `set-cookie` next to its own `Set-Cookie`).
        var fields: [String: String] = [:]
        var spelling: [String: String] = [:]
        for (name, value) in head.headers {
            let key = spelling[name.lowercased(), default: name]
            spelling[name.lowercased()] = key
            if let existing = fields[key] {
                fields[key] = existing + ", " + value
            } else {
                fields[key] = value
            }
        }
        return HTTPURLResponse(
            url: url,
            statusCode: Int(head.status.code),
            httpVersion: "HTTP/\(head.version.major).\(head.version.minor)",
            headerFields: fields
        )!
    }
}

/// Used only on its channel's event loop.
@available(*, unavailable)
extension HTTPExchangeHandler: Sendable {}
