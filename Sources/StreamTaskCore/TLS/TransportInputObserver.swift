//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Sits on the socket's side of the TLS handler while TLS is in use and reports the transport's
/// own end of stream.
///
/// With TLS in the pipeline, the task cannot tell from the events that reach it whether the
/// peer ended the TLS session (close_notify, after which the conversation may go on in
/// plaintext once both sides stop TLS) or the TCP stream itself: SwiftNIO SSL reports the
/// first as input closed and then swallows the second. This handler sees the second.
final class TransportInputObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let transportInputClosed: () -> Void

    init(transportInputClosed: @escaping () -> Void) {
        self.transportInputClosed = transportInputClosed
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            transportInputClosed()
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Used only on its channel's event loop.
@available(*, unavailable)
extension TransportInputObserver: Sendable {}
