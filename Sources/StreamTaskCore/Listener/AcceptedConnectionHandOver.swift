//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Hands an accepted connection's task to the listener's consumer once the connection is
/// active, then leaves the pipeline.
///
/// SwiftNIO registers an accepted channel only after the listening channel has passed it on,
/// and closes it unregistered when the listening channel has closed in between (a shutdown
/// that starts just then). A task handed out before activation could so lose its connection
/// under its user; at activation it is past that point, and its addresses are known. A
/// connection that closes before it is active is never handed out: its task completes, and the
/// listener and the ledger forget it by its close future.
final class AcceptedConnectionHandOver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var handOver: (() -> Void)?

    /// - Parameter handOver: Called once, on the channel's event loop, after the channel's
    ///   activation has reached the handlers behind this one.
    init(handOver: @escaping () -> Void) {
        self.handOver = handOver
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive {
            handOverOnce(context: context)
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        handOverOnce(context: context)
    }

    private func handOverOnce(context: ChannelHandlerContext) {
        guard let handOver else { return }
        self.handOver = nil
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        handOver()
    }
}

@available(*, unavailable)
extension AcceptedConnectionHandOver: Sendable {}
