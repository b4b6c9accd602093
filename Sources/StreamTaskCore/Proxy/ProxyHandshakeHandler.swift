//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Runs a ``ProxyHandshake`` on a channel connected to a proxy, then leaves the pipeline.
///
/// Added in front of where the task's handler will go, once the channel is connected. It sends
/// the handshake's bytes, reads the proxy's replies (the task's channels do not read on their
/// own), and completes `promise` when the tunnel is open or the handshake failed. On success it
/// removes itself at once, and bytes it read past the proxy's reply (a greeting the target sent
/// as soon as the tunnel opened, for one) go on to the next handler, followed by an end of
/// stream that arrived with them: nothing the target sent is lost. On failure it closes the
/// channel. A handshake that takes longer than `timeout` fails.
///
/// Whoever completes the tunnel adds the next handler from `promise`'s callback, which runs
/// before this handler removes itself and passes the bytes on.
final class ProxyHandshakeHandler<Handshake: ProxyHandshake>: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case idle
        case handshaking
        case established
        case failed
    }

    private var handshake: Handshake
    private let promise: EventLoopPromise<Void>
    private let timeout: TimeAmount?
    private var state = State.idle
    private var received = ByteBuffer()
    private var inputClosed = false
    private var timer: Scheduled<Void>?

    /// - Parameters:
    ///   - timeout: How long the handshake may take; `nil` for no limit of its own.
    init(handshake: Handshake, timeout: TimeAmount?, promise: EventLoopPromise<Void>) {
        self.handshake = handshake
        self.timeout = timeout
        self.promise = promise
    }

    /// Bytes read from the proxy and not yet consumed; what a hostile proxy can make us hold.
    var bufferedByteCount: Int { received.readableBytes }
    /// The storage behind them, which is what memory use is.
    var bufferCapacity: Int { received.capacity }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { begin(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        begin(context: context)
        context.fireChannelActive()
    }

    private func begin(context: ChannelHandlerContext) {
        guard state == .idle else { return }
        state = .handshaking
        if let timeout {
            let seconds = Double(timeout.nanoseconds) / 1_000_000_000
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                self.fail(.timedOut(seconds: seconds), context: bound.value)
            }
        }
        do {
            context.writeAndFlush(wrapOutboundOut(try handshake.start()), promise: nil)
        } catch {
            fail(error, context: context)
            return
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard state == .handshaking || state == .established else { return }
        var bytes = unwrapInboundIn(data)
        received.writeBuffer(&bytes)
        // Consumed heads leave room behind them; without this the storage would grow by
        // everything the proxy sends, whatever the handshake's own limit.
        received.discardReadBytes()
        guard state == .handshaking else { return }
        do {
            while state == .handshaking {
                switch try handshake.receive(&received) {
                case .needMoreData:
                    return
                case .send(let reply):
                    context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
                case .established:
                    established(context: context)
                }
            }
        } catch {
            fail(error, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // The channel reads only when asked: keep asking until the handshake is done.
        if state == .handshaking { context.read() }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            switch state {
            case .handshaking, .idle:
                fail(.closedByProxy, context: context)
                return
            case .established:
                // Hold it until the bytes before it have been passed on.
                inputClosed = true
                return
            case .failed:
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if state == .handshaking || state == .idle {
            fail(.closedByProxy, context: context)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard state == .handshaking || state == .idle else {
            context.fireErrorCaught(error)
            return
        }
        // The connection to the proxy failed (reset, for one): the task hears it from `promise`.
        state = .failed
        timer?.cancel()
        promise.fail(error)
        context.close(promise: nil)
    }

    func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        if state == .established {
            if received.readableBytes > 0 {
                let leftover = received
                received = ByteBuffer()
                context.fireChannelRead(wrapInboundOut(leftover))
                context.fireChannelReadComplete()
            }
            if inputClosed {
                context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            }
        }
        context.leavePipeline(removalToken: removalToken)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        if state == .handshaking || state == .idle {
            state = .failed
            promise.fail(ProxyHandshakeError.closedByProxy)
        }
    }

    private func established(context: ChannelHandlerContext) {
        state = .established
        timer?.cancel()
        promise.succeed(())
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func fail(_ error: ProxyHandshakeError, context: ChannelHandlerContext) {
        guard state == .handshaking || state == .idle else { return }
        state = .failed
        timer?.cancel()
        received = ByteBuffer()
        promise.fail(error)
        context.close(promise: nil)
    }
}

/// Used only on its channel's event loop.
@available(*, unavailable)
extension ProxyHandshakeHandler: Sendable {}
