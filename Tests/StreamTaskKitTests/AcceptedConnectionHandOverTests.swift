//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import NIOCore
import NIOEmbedded
import Testing

@testable import StreamTaskCore

/// A listener hands an accepted task out once its connection is active: a shutdown that closes
/// a channel SwiftNIO has not registered yet can then no longer take a handed-out task's
/// connection away.
@Suite struct AcceptedConnectionHandOverTests {
    /// A channel as the listener sets one up: the task's handler, and the hand-over in front.
    private func acceptedChannel(
        handOver: @escaping (StreamTask) -> Void
    ) throws -> (channel: EmbeddedChannel, task: StreamTask) {
        let channel = EmbeddedChannel()
        let session = StreamSession(eventLoopGroup: channel.eventLoop)
        let task = StreamTask(
            session: session, identifier: 1, host: "127.0.0.1", port: 1, origin: .accepted, eventLoop: channel.eventLoop
        )
        try task.attach(channel)
        let handler = AcceptedConnectionHandOver { handOver(task) }
        try channel.pipeline.syncOperations.addHandler(handler, position: .first)
        return (channel, task)
    }

    @Test func theTaskIsHandedOutOnceItsConnectionIsActiveWithItsAddressesKnown() throws {
        var handedOut: [(remoteAddress: String?, state: StreamTask.State)] = []
        let (channel, task) = try acceptedChannel { task in
            handedOut.append((task.metrics.remoteAddress, task.state))
        }
        channel.embeddedEventLoop.run()
        #expect(handedOut.isEmpty, "not before the channel is active")

        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.embeddedEventLoop.run()
        #expect(handedOut.count == 1)
        #expect(handedOut.first?.remoteAddress == "127.0.0.1", "the task saw the activation first")
        #expect(handedOut.first?.state == .running)
        #expect(
            (try? channel.pipeline.syncOperations.handler(type: AcceptedConnectionHandOver.self)) == nil,
            "the hand-over left the pipeline")

        channel.pipeline.fireChannelActive()
        channel.embeddedEventLoop.run()
        #expect(handedOut.count == 1, "once only")
        task.cancel()
        channel.embeddedEventLoop.run()
    }

    @Test func aConnectionClosedBeforeItWasActiveIsNeverHandedOut() throws {
        var handedOut = 0
        let (channel, task) = try acceptedChannel { _ in handedOut += 1 }
        try channel.close().wait()
        channel.embeddedEventLoop.run()
        #expect(handedOut == 0)
        #expect(task.state == .completed)
    }
}
