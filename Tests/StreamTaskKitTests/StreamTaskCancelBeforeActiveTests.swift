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

/// A listener hands an accepted task out as soon as its handler is in the pipeline, before the
/// channel is active: a task cancelled in that window must still close its channel and complete.
@Suite struct StreamTaskCancelBeforeActiveTests {
    @Test func aTaskCancelledBeforeItsChannelIsActiveClosesItOnceActiveAndCompletes() throws {
        let channel = EmbeddedChannel()
        let session = StreamSession(eventLoopGroup: channel.eventLoop)
        let task = StreamTask(
            session: session, identifier: 1, host: "127.0.0.1", port: 1, origin: .accepted, eventLoop: channel.eventLoop
        )
        try task.attach(channel)
        #expect(!channel.isActive)
        task.cancel()
        #expect(task.state == .canceling)

        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        channel.embeddedEventLoop.run()

        #expect(!channel.isActive, "the channel was closed as it came up")
        #expect(task.state == .completed)
        #expect(task.streamTaskError?.code == .cancelled)
    }

    /// A client's handler joins a channel that is already active, and the channel's own
    /// activation can reach it afterwards: that second activation must change nothing.
    @Test func aSecondActivationOfAnOpenChannelChangesNothing() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let session = StreamSession(eventLoopGroup: channel.eventLoop)
        let task = StreamTask(session: session, identifier: 1, host: "127.0.0.1", port: 1, eventLoop: channel.eventLoop)
        try task.attach(channel)
        channel.pipeline.fireChannelActive()
        channel.embeddedEventLoop.run()

        #expect(channel.isActive)
        #expect(task.state == .running)
        task.cancel()
        channel.embeddedEventLoop.run()
        #expect(task.state == .completed)
    }
}
