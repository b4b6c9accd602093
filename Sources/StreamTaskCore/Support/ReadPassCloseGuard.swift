//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Holds back a close made behind it while SwiftNIO reports a read pass complete, until the
/// report is over.
///
/// When a pass reads the end of stream on a channel that allows half-closure, SwiftNIO
/// reports the pass complete and then closes the channel's input, without checking that the
/// channel is still open: a close made during the report trips NIO's assertion in
/// `unregisterForReadable` (a crash in a debug build). Handlers that may close there, such as
/// SwiftNIO SSL's when the peer's close_notify completes a shutdown or a handshake fails, sit
/// behind this one: it sits between them and the socket. A half-close of the output passes at
/// once; it never closes the channel while its input is open.
///
/// The task's own handler defers its closes itself (``StreamTaskChannelHandler``), so a
/// plaintext pipeline pays nothing for this.
package final class ReadPassCloseGuard: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundIn = ByteBuffer

    private var reportingReadComplete = false
    private var heldCloses: [(mode: CloseMode, promise: EventLoopPromise<Void>?)] = []

    package init() {}

    package func channelReadComplete(context: ChannelHandlerContext) {
        reportingReadComplete = true
        context.fireChannelReadComplete()
        reportingReadComplete = false
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard reportingReadComplete, mode != .output else {
            context.close(mode: mode, promise: promise)
            return
        }
        if heldCloses.isEmpty {
            context.eventLoop.assumeIsolated().execute { self.releaseHeldCloses(context: context) }
        }
        heldCloses.append((mode, promise))
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        // The context still reaches the socket during this call, not after it.
        releaseHeldCloses(context: context)
    }

    private func releaseHeldCloses(context: ChannelHandlerContext) {
        let closes = heldCloses
        heldCloses.removeAll()
        for close in closes {
            context.close(mode: close.mode, promise: close.promise)
        }
    }
}

/// Used only on its channel's event loop.
@available(*, unavailable)
extension ReadPassCloseGuard: Sendable {}
