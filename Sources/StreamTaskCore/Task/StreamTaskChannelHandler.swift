//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import NIOSSL
import NIOTLS

/// The last handler of a task's pipeline: passes the channel's events to the task and carries
/// out the task's I/O on the channel.
///
/// Not `Sendable`: it lives in one pipeline and is used only on that channel's event loop.
final class StreamTaskChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let driver: StreamTaskDriver
    private(set) var context: ChannelHandlerContext?
    /// Whether the channel has been active while this handler was in its pipeline.
    private var sawActive = false
    /// Whether the task is hearing that a read pass is complete; see `afterReadPass(_:)`.
    private var reportingReadComplete = false

    init(driver: StreamTaskDriver) {
        self.driver = driver
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive {
            sawActive = true
            driver.channelBecameActive(context.channel)
        } else {
            // SwiftNIO closes an accepted channel that it has not registered yet when the
            // listening channel closes first, and a channel closed before it was ever active
            // fires no `channelInactive`: its close future is the only word of it.
            context.channel.closeFuture.assumeIsolated().whenComplete { [self] _ in
                if !sawActive { driver.channelClosedBeforeActive() }
            }
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        sawActive = true
        driver.channelBecameActive(context.channel)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        driver.channelReceived(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reportingReadComplete = true
        driver.channelReceiveCompleted()
        reportingReadComplete = false
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            driver.channelInputClosed()
        } else if let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiatedProtocol) = event {
            driver.tlsHandshakeCompleted(applicationProtocol: negotiatedProtocol)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        driver.channelWritabilityChanged(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        driver.channelFailed(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        driver.channelClosed()
        context.fireChannelInactive()
    }

    // MARK: I/O for the task

    func write(_ bytes: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(wrapOutboundOut(bytes), promise: promise)
    }

    func flush() { context?.flush() }
    func read() { context?.read() }
    /// The bytes the channel holds and has not written to the socket yet, if it can say.
    var bufferedOutboundBytes: Int? {
        guard let context else { return nil }
        return try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)
    }
    /// Closes the socket beneath TLS at once. A cancelled task has sent its close_notify and
    /// need not wait for the peer's (RFC 8446, section 6.1): a peer that keeps its side open
    /// would otherwise hold the close for the whole shutdown timeout. Without TLS it does nothing.
    func closeTransport() {
        driver.thisSideCloses()
        afterReadPass { $0.closeBeneathTLS() }
    }

    func shutdownOutput() { context?.close(mode: .output, promise: nil) }
    /// With the output shut already, SwiftNIO makes this a close of the whole channel.
    func shutdownInput() { afterReadPass { $0.close(mode: .input, promise: nil) } }
    func close() {
        driver.thisSideCloses()
        afterReadPass { $0.closeWholeConnection() }
    }

    /// Runs `close` at once, or, while the task hears that a read pass is complete, once that
    /// pass is over: a pass that read the end of stream goes on to close the channel's input
    /// without checking that the channel is still open, which a close made during it would
    /// trip (see ``ReadPassCloseGuard``, which does this for handlers in front of TLS).
    private func afterReadPass(_ close: @escaping (ChannelHandlerContext) -> Void) {
        guard let context else { return }
        guard reportingReadComplete else { return close(context) }
        context.eventLoop.assumeIsolated().execute { [self] in
            if let context = self.context { close(context) }
        }
    }
}

@available(*, unavailable)
extension StreamTaskChannelHandler: Sendable {}
