import NIOCore
import NIOSSL
import NIOTLS

/// The last handler of a task's pipeline: passes the channel's events to the task and carries
/// out the task's I/O on the channel.
final class StreamTaskChannelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let task: StreamTask
    private(set) var context: ChannelHandlerContext?

    init(task: StreamTask) {
        self.task = task
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive {
            task.channelBecameActive(context.channel)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        task.channelBecameActive(context.channel)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        task.channelReceived(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        task.channelReceiveCompleted()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            task.channelInputClosed()
        } else if let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiatedProtocol) = event {
            task.tlsHandshakeCompleted(applicationProtocol: negotiatedProtocol)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        task.channelWritabilityChanged(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        task.channelFailed(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        task.channelClosed()
        context.fireChannelInactive()
    }

    // MARK: I/O for the task

    func write(_ bytes: ByteBuffer, promise: EventLoopPromise<Void>) {
        guard let context else {
            promise.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(wrapOutboundOut(bytes), promise: promise)
    }

    func flush() { context?.flush() }
    func read() { context?.read() }
    /// Closes the socket beneath TLS at once. A cancelled task has sent its close_notify and
    /// need not wait for the peer's (RFC 8446, section 6.1): a peer that keeps its side open
    /// would otherwise hold the close for the whole shutdown timeout. Without TLS it does nothing.
    func closeTransport() {
        task.tls.closingByThisSide = true
        context?.closeBeneathTLS()
    }

    func shutdownOutput() { context?.close(mode: .output, promise: nil) }
    func shutdownInput() { context?.close(mode: .input, promise: nil) }
    func close() {
        task.tls.closingByThisSide = true
        context?.closeWholeConnection()
    }
}
