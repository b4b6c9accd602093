//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Sits on a listening channel and stops accepting while `limit` accepted connections are open:
/// it holds back the channel's read until one of them closes. Connections over the limit wait
/// in the kernel's backlog instead of being accepted and dropped.
final class AcceptLimitHandler: ChannelDuplexHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = any Channel

    private let limit: Int
    private var open = 0
    private var readHeld = false

    init(limit: Int) {
        self.limit = limit
    }

    private var mayAccept: Bool {
        open < limit
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
        if readHeld && mayAccept {
            readHeld = false
            context.read()
        }
    }
}
