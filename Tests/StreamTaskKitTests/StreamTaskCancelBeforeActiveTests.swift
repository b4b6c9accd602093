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
import NIOPosix
import Testing

@testable import StreamTaskCore

/// An accepted task's handler joins its channel before the channel is active. A task cancelled
/// in that window (a session's `invalidateAndCancel`) must still close its channel and complete,
/// and a channel closed in that window must still complete its task.
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

    /// SwiftNIO closes an accepted channel it has not registered yet when the listening channel
    /// closed first, and such a close fires no `channelInactive`. A socket channel closed in its
    /// bootstrap's initializer is closed the same way, before registration.
    @Test(.timeLimit(.minutes(1))) func aTaskWhoseChannelClosesBeforeItWasActiveCompletes() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let session = StreamSession(eventLoopGroup: group)
        let attached = group.next().makePromise(of: StreamTask.self)
        let connect = ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let task = StreamTask(
                        session: session, identifier: 1, host: "127.0.0.1", port: 1, origin: .accepted,
                        eventLoop: channel.eventLoop
                    )
                    try task.attach(channel)
                    #expect(!channel.isActive)
                    channel.close(promise: nil)
                    attached.succeed(task)
                }
            }
            .connect(host: "127.0.0.1", port: 1)
        let task = try await attached.futureResult.get()
        _ = try? await connect.get()

        let error = await task.waitUntilCompleted()
        #expect(error?.code == .connectionClosed)
        #expect(task.state == .completed)
        try await group.shutdownGracefully()
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
