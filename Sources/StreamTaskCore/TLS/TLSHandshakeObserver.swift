//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore

/// Sits between the socket and the TLS handler while a handshake runs, and reads the cipher
/// suite off the ServerHello: inbound as a client, outbound as a server. It passes every byte
/// on untouched and leaves the pipeline as soon as it has its answer (or gives up).
final class TLSHandshakeObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let watchesOutbound: Bool
    private var parser = ServerHelloParser()
    private var finished = false
    private let found: (UInt16) -> Void

    /// - Parameters:
    ///   - isServer: Whether this side is the server (its own ServerHello goes out).
    ///   - found: Called on the event loop with the cipher suite.
    init(isServer: Bool, found: @escaping (UInt16) -> Void) {
        self.watchesOutbound = isServer
        self.found = found
    }

    // Each event is passed on before it is looked at.

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        context.fireChannelRead(data)
        if !watchesOutbound {
            observe(bytes, context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes = unwrapOutboundIn(data)
        context.write(data, promise: promise)
        if watchesOutbound {
            observe(bytes, context: context)
        }
    }

    private func observe(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard !finished else { return }
        switch parser.feed(bytes) {
        case .needMoreBytes:
            return
        case .cipherSuite(let suite):
            found(suite)
        case .gaveUp:
            break
        }
        finished = true
        // Leave once the current event has unwound: removing a handler in the middle of a write
        // (the server's ServerHello goes out inside the TLS handler's own read handling) lost
        // the flush that follows it.
        let bound = NIOLoopBound((handler: self, pipeline: context.pipeline), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            bound.value.pipeline.syncOperations.removeHandler(bound.value.handler, promise: nil)
        }
    }
}

/// Used only on its channel's event loop.
@available(*, unavailable)
extension TLSHandshakeObserver: Sendable {}
