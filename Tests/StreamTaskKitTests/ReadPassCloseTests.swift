//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import StreamTaskCore

/// When a read pass of SwiftNIO's reads the end of stream, NIO reports the pass complete and
/// then closes the channel's input without checking that the channel is still open: a close
/// made during that report trips NIO's assertion (the test process crashes in a debug build).
/// These closes must wait until the pass is over. The pass is made by a real socket whose
/// peer closed; the end of stream is read by NIO's own drain on EPOLLRDHUP, with nothing
/// asked for.
@Suite(.timeLimit(.minutes(1))) struct ReadPassCloseTests {
    @Test func theTaskClosesAfterThePassThatReadTheEndOfStream() async throws {
        let configuration = StreamSession.Configuration.default.copy()
        // The task stops reading once one byte is buffered.
        configuration.inboundBufferLimit = 1
        let (server, client, peer) = try await LoopbackServer.connectedPair(configuration: configuration)
        try await peer.write("x")
        #expect(try await client.eventuallyOnLoop { $0.machine.bufferedByteCount == 1 })
        // While the pass that reads the end is reported, another thread asks the task to
        // upgrade: the request is queued for the loop, and the task's handler, hearing of the
        // pass next, decides it there. With the plaintext byte buffered, the machine refuses
        // the upgrade and closes the connection.
        let fired = Recorder<Bool>()
        try await client.onLoop { driver in
            guard let handler = driver.handler else { return }
            let hook = EmptyReadPassHook {
                fired.append(true)
                let issued = DispatchSemaphore(value: 0)
                Thread {
                    client.startSecureConnection()
                    issued.signal()
                }.start()
                issued.wait()
            }
            try? handler.context?.pipeline.syncOperations.addHandler(hook, position: .before(handler))
        }
        peer.cancel()
        #expect(await client.waitUntilCompleted()?.code == .tlsPlaintextInjection)
        #expect(fired.values == [true])
        await server.stop()
    }

    @Test func theGuardHoldsACloseMadeBehindItUntilThePassIsOver() async throws {
        let server = try await LoopbackServer.start()
        var accepted = server.listener.connections.makeAsyncIterator()
        let seen = Recorder<String>()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.autoRead, value: false)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let recorder = EventRecorder(seen)
                    // Closes in the report of the pass that read nothing but the end.
                    let closer = EmptyReadPassHook(closing: true) {}
                    try channel.pipeline.syncOperations.addHandlers(ReadPassCloseGuard(), recorder, closer)
                }
            }
            .connect(host: "127.0.0.1", port: server.port).get()
        let peer = try await server.accept(&accepted)
        peer.cancel()
        try await channel.closeFuture.get()
        // The close waited for NIO to close the input, then closed the channel.
        #expect(seen.values == ["input closed", "inactive"])
        await server.stop()
    }
}

/// Calls `body` (and closes the channel, if asked) in the report of the first read pass that
/// brought no bytes: with a peer that sent its end and nothing else, the pass that read it.
private final class EmptyReadPassHook: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let closing: Bool
    private let body: () -> Void
    private var bytesSinceLastPass = false
    private var fired = false

    init(closing: Bool = false, _ body: @escaping () -> Void) {
        self.closing = closing
        self.body = body
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        bytesSinceLastPass = true
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !bytesSinceLastPass, !fired {
            fired = true
            body()
            if closing { context.close(promise: nil) }
        }
        bytesSinceLastPass = false
        context.fireChannelReadComplete()
    }
}

/// Records the input's close and the channel's going inactive, in order.
private final class EventRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let seen: Recorder<String>

    init(_ seen: Recorder<String>) {
        self.seen = seen
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { seen.append("input closed") }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        seen.append("inactive")
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension EmptyReadPassHook: Sendable {}

@available(*, unavailable)
extension EventRecorder: Sendable {}
