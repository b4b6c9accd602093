import NIOCore

/// Sits on a listening channel and stops accepting while `limit` accepted connections are open,
/// or while the consumer of the accepted ones has `queue`'s capacity of them waiting: it holds
/// back the channel's read until one of them closes, or the consumer takes one. Connections
/// over the limit wait in the kernel's backlog instead of being accepted and dropped.
final class AcceptLimitHandler: ChannelDuplexHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = any Channel

    private let limit: Int
    private let queue: AcceptedConnectionQueue
    private var open = 0
    private var readHeld = false

    init(limit: Int, queue: AcceptedConnectionQueue) {
        self.limit = limit
        self.queue = queue
    }

    private var mayAccept: Bool {
        open < limit && !queue.isFull
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        queue.setSpaceHandler {
            loop.execute { bound.value.handler.resumeIfHeld(context: bound.value.context) }
        }
    }

    func read(context: ChannelHandlerContext) {
        if mayAccept {
            context.read()
        } else {
            readHeld = true
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        open += 1
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        child.closeFuture.hop(to: context.eventLoop).whenComplete { _ in
            bound.value.handler.childClosed(context: bound.value.context)
        }
        context.fireChannelRead(data)
    }

    private func childClosed(context: ChannelHandlerContext) {
        open -= 1
        resumeIfHeld(context: context)
    }

    private func resumeIfHeld(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        if readHeld && mayAccept {
            readHeld = false
            context.read()
        }
    }
}
