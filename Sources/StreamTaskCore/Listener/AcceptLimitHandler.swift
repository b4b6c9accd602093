//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Sits on a listening channel and stops accepting while `limit` accepted connections are open,
/// or while the ledger's limit of accepted connections wait for the consumer: it holds back the
/// channel's read until one of them closes or is taken. Connections over the limits wait in the
/// kernel's backlog instead of being accepted and dropped.
final class AcceptLimitHandler: ChannelDuplexHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = any Channel

    private let limit: Int
    private let ledger: AcceptedConnectionLedger
    private var open = 0
    private var readHeld = false

    init(limit: Int, ledger: AcceptedConnectionLedger) {
        self.limit = limit
        self.ledger = ledger
    }

    private var mayAccept: Bool {
        open < limit && ledger.mayAcceptMore
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        ledger.setWake {
            eventLoop.execute { bound.value.handler.resumeIfHeld(context: bound.value.context) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // The wake holds this handler: let both go, and read nothing more.
        ledger.setWake(nil)
        readHeld = false
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
        ledger.accepted(child)
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
